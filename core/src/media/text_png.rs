//! A line of text drawn as a small black-on-white PNG, which says its text
//! in a `tEXt` chunk too: what stands in for a history image where an API
//! takes a picture and nothing else (a Responses `computer_call_output`, a
//! Gemini `functionResponse.parts` entry). The model reads the text off
//! the picture; ctxpack reads it off the chunk.
//!
//! Drawing ([`text_png`], with the `picture` feature) deflates with the
//! `miniz_oxide` crate and checksums its chunks with the `crc` crate (its
//! table-free CRC-32: the picture is 1.4 KB of pixels). The main wasm
//! module leaves it out: there the host draws the picture with the extras
//! module (see [`crate::media::Payloads::placeholder_picture`]).
//! Reading the text back ([`named_text`]) walks the chunks and is in every
//! build. A picture stays under 1 KiB of base64, so that a JavaScript
//! caller's copy of it is read into the core like any short string.

/// How many times each pixel of the font is drawn, across and down.
#[cfg(feature = "picture")]
const SCALE: usize = 2;
/// Columns of a glyph, and of the space after it.
#[cfg(feature = "picture")]
const GLYPH_WIDTH: usize = 5;
#[cfg(feature = "picture")]
const ADVANCE: usize = GLYPH_WIDTH + 1;
/// Rows of a glyph, and of the picture (a blank row above and below).
#[cfg(feature = "picture")]
const GLYPH_HEIGHT: usize = 7;
#[cfg(feature = "picture")]
const HEIGHT: usize = GLYPH_HEIGHT + 2;

/// The characters the font draws (every other character is blank), and
/// their glyphs: five columns each, the lowest bit the top row.
#[cfg(feature = "picture")]
const CHARS: &[u8] = b"0123456789abcdefPhiorstuy[]:_";
#[cfg(feature = "picture")]
const GLYPHS: [[u8; GLYPH_WIDTH]; 29] = [
    [0x3E, 0x51, 0x49, 0x45, 0x3E],
    [0x00, 0x42, 0x7F, 0x40, 0x00],
    [0x42, 0x61, 0x51, 0x49, 0x46],
    [0x21, 0x41, 0x45, 0x4B, 0x31],
    [0x18, 0x14, 0x12, 0x7F, 0x10],
    [0x27, 0x45, 0x45, 0x45, 0x39],
    [0x3C, 0x4A, 0x49, 0x49, 0x30],
    [0x01, 0x71, 0x09, 0x05, 0x03],
    [0x36, 0x49, 0x49, 0x49, 0x36],
    [0x06, 0x49, 0x49, 0x29, 0x1E],
    [0x20, 0x54, 0x54, 0x54, 0x78],
    [0x7F, 0x48, 0x44, 0x44, 0x38],
    [0x38, 0x44, 0x44, 0x44, 0x20],
    [0x38, 0x44, 0x44, 0x48, 0x7F],
    [0x38, 0x54, 0x54, 0x54, 0x18],
    [0x08, 0x7E, 0x09, 0x01, 0x02],
    [0x7F, 0x09, 0x09, 0x09, 0x06],
    [0x7F, 0x08, 0x04, 0x04, 0x78],
    [0x00, 0x44, 0x7D, 0x40, 0x00],
    [0x38, 0x44, 0x44, 0x44, 0x38],
    [0x7C, 0x08, 0x04, 0x04, 0x08],
    [0x48, 0x54, 0x54, 0x54, 0x20],
    [0x04, 0x3F, 0x44, 0x40, 0x20],
    [0x3C, 0x40, 0x40, 0x20, 0x7C],
    [0x0C, 0x50, 0x50, 0x50, 0x3C],
    [0x00, 0x7F, 0x41, 0x41, 0x00],
    [0x00, 0x41, 0x41, 0x7F, 0x00],
    [0x00, 0x36, 0x36, 0x00, 0x00],
    [0x40, 0x40, 0x40, 0x40, 0x40],
];

/// The keyword of the `tEXt` chunk that says the text.
const KEYWORD: &str = "Comment";
const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];

/// `text` drawn as a PNG (1 bit a pixel, a palette of white and black),
/// which names it in a `tEXt` chunk before its pixels. `None` for a text
/// too long to draw (over 100,000 characters).
#[cfg(feature = "picture")]
pub fn text_png(text: &str) -> Option<Vec<u8>> {
    if text.len() > 100_000 {
        return None;
    }
    let width = (1 + text.len() * ADVANCE) * SCALE;
    let mut png = SIGNATURE.to_vec();
    let mut header = Vec::with_capacity(13);
    header.extend((width as u32).to_be_bytes());
    header.extend(((HEIGHT * SCALE) as u32).to_be_bytes());
    // Bit depth 1, colour type 3 (a palette), deflate, adaptive filtering,
    // not interlaced.
    header.extend([1, 3, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &header);
    chunk(&mut png, b"PLTE", &[255, 255, 255, 0, 0, 0]);
    let mut named = KEYWORD.as_bytes().to_vec();
    named.push(0);
    named.extend(text.as_bytes());
    chunk(&mut png, b"tEXt", &named);
    let pixels = pixel_rows(text.as_bytes(), width);
    chunk(
        &mut png,
        b"IDAT",
        &miniz_oxide::deflate::compress_to_vec_zlib(&pixels, 10),
    );
    chunk(&mut png, b"IEND", &[]);
    Some(png)
}

/// Appends one chunk: its length, type, data and CRC-32 (of type and data).
#[cfg(feature = "picture")]
fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    const CRC: crc::Crc<u32, crc::NoTable> =
        crc::Crc::<u32, crc::NoTable>::new(&crc::CRC_32_ISO_HDLC);
    png.extend((data.len() as u32).to_be_bytes());
    let start = png.len();
    png.extend(kind);
    png.extend(data);
    let crc = CRC.checksum(&png[start..]);
    png.extend(crc.to_be_bytes());
}

/// The base64 PNG showing `text`: what stands for a placeholder in a place
/// that takes a picture and nothing else. `None` in a build without the
/// `picture` feature (the main wasm module, whose host draws it instead:
/// see [`crate::media::Payloads::placeholder_picture`]).
pub fn picture_of(text: &str) -> Option<String> {
    #[cfg(feature = "picture")]
    {
        text_png(text).map(|png| crate::media::encode_base64(&png))
    }
    #[cfg(not(feature = "picture"))]
    {
        let _ = text;
        None
    }
}

/// The text a PNG drawn by [`text_png`] names, read off its `tEXt` chunk
/// (before its pixels); `None` for a PNG with no such chunk.
pub fn named_text(png: &[u8]) -> Option<&str> {
    let mut rest = png.strip_prefix(&SIGNATURE)?;
    loop {
        let len = u32::from_be_bytes(rest.get(..4)?.try_into().ok()?) as usize;
        let kind = rest.get(4..8)?;
        let data = rest.get(8..8usize.checked_add(len)?)?;
        match kind {
            b"IDAT" | b"IEND" => return None,
            b"tEXt" => {
                let text = data.strip_prefix(KEYWORD.as_bytes())?.strip_prefix(b"\0")?;
                return std::str::from_utf8(text).ok();
            }
            _ => rest = rest.get(12 + len..)?,
        }
    }
}

/// The picture's scanlines: for each row of the font, a filter byte 0 and
/// the row (1 bit a pixel, 1 black), then for each time it is drawn again
/// filter 2 ("up") and zeros.
#[cfg(feature = "picture")]
fn pixel_rows(text: &[u8], width: usize) -> Vec<u8> {
    let row_bytes = width.div_ceil(8);
    let mut out = Vec::with_capacity(HEIGHT * SCALE * (1 + row_bytes));
    for y in 0..HEIGHT {
        let mut row = vec![0; row_bytes];
        let glyph_row = y.checked_sub(1).filter(|r| *r < GLYPH_HEIGHT);
        for (i, c) in text.iter().enumerate() {
            let (Some(r), Some(at)) = (glyph_row, CHARS.iter().position(|k| k == c)) else {
                continue;
            };
            for (col, bits) in GLYPHS[at].iter().enumerate() {
                if bits >> r & 1 == 1 {
                    let x0 = (1 + i * ADVANCE + col) * SCALE;
                    for x in x0..x0 + SCALE {
                        row[x / 8] |= 0x80 >> (x % 8);
                    }
                }
            }
        }
        out.push(0);
        out.extend_from_slice(&row);
        for _ in 1..SCALE {
            out.push(2);
            out.resize(out.len() + row_bytes, 0);
        }
    }
    out
}

#[cfg(all(test, feature = "picture"))]
mod tests {
    use super::*;

    const TEXT: &str = "[Picture:history_0733351879b2fa9bd05c7ca3061529c0]";

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn draws_the_text_as_a_png_any_decoder_reads() {
        let png = text_png(TEXT).unwrap();
        let image = image::load_from_memory_with_format(&png, image::ImageFormat::Png)
            .unwrap()
            .to_luma8();
        assert_eq!(image.dimensions(), (602, 18));
        // The margins are white; the `[` is drawn black from its second column.
        assert!((0..602).all(|x| image.get_pixel(x, 0).0 == [255]));
        assert_eq!(image.get_pixel(2, 2).0, [255]);
        assert_eq!(image.get_pixel(4, 2).0, [0]);
        assert_eq!(image.get_pixel(5, 17).0, [255]);
        // Each pixel of the font is drawn twice across and down.
        for y in (0..18).step_by(2) {
            for x in (0..602).step_by(2) {
                let p = image.get_pixel(x, y).0;
                assert_eq!(image.get_pixel(x + 1, y + 1).0, p, "{x} {y}");
            }
        }
    }

    #[test]
    fn names_its_text() {
        let png = text_png(TEXT).unwrap();
        assert_eq!(named_text(&png), Some(TEXT));
        assert_eq!(named_text(&png[..40]), None);
        assert_eq!(named_text(b"GIF89a"), None);
    }

    /// Every placeholder's picture, whatever its digits, with the data URL
    /// header before it, is under 1 KiB: a short string at the boundary.
    #[test]
    fn every_placeholder_picture_stays_under_a_kibibyte_of_base64() {
        let mut x: u64 = 12345;
        for _ in 0..500 {
            let mut id = String::new();
            for _ in 0..32 {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                id.push(char::from(b"0123456789abcdef"[(x >> 60) as usize]));
            }
            let png = text_png(&format!("[Picture:history_{id}]")).unwrap();
            let url = format!(
                "data:image/png;base64,{}",
                crate::media::encode_base64(&png)
            );
            assert!(url.len() < 1024, "{id}: {}", url.len());
        }
    }
}
