//! A line of text drawn as a small black-on-white PNG, which says its text
//! in a `tEXt` chunk too: what stands in for a history image where an API
//! takes a picture and nothing else (a Responses `computer_call_output`, a
//! Gemini `functionResponse.parts` entry). The model reads the text off
//! the picture; ctxpack reads it off the chunk.
//!
//! The picture stays under 1 KiB of base64 (a placeholder's, 708
//! characters), so that a JavaScript caller's copy of it is read into the
//! core like any short string. To stay there its pixels are deflated, in
//! fixed Huffman codes, each run found earlier a copy of it. The
//! checksums are computed plainly (CRC-32 bit by bit): the crates' tables
//! and unrolled loops would add 17 KiB to the main module, for a picture of
//! 1.4 KB of pixels.

/// How many times each pixel of the font is drawn, across and down.
const SCALE: usize = 2;
/// Columns of a glyph, and of the space after it.
const GLYPH_WIDTH: usize = 5;
const ADVANCE: usize = GLYPH_WIDTH + 1;
/// Rows of a glyph, and of the picture (a blank row above and below).
const GLYPH_HEIGHT: usize = 7;
const HEIGHT: usize = GLYPH_HEIGHT + 2;

/// The characters the font draws (every other character is blank), and
/// their glyphs: five columns each, the lowest bit the top row.
const CHARS: &[u8] = b"0123456789abcdefPhiorstuy[]:_";
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
const KEYWORD: &[u8] = b"Comment\0";
const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];

/// `text` drawn as a PNG (1-bit grayscale), which names it in a `tEXt`
/// chunk right after its header.
pub fn text_png(text: &str) -> Vec<u8> {
    let width = (1 + text.len() * ADVANCE) * SCALE;
    let rows = pixel_rows(text.as_bytes(), width);
    let mut png = SIGNATURE.to_vec();
    let mut header = Vec::with_capacity(13);
    header.extend((width as u32).to_be_bytes());
    header.extend(((HEIGHT * SCALE) as u32).to_be_bytes());
    // Bit depth 1, grayscale, deflate, no filter method but the one,
    // not interlaced.
    header.extend([1, 0, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &header);
    let mut named = KEYWORD.to_vec();
    named.extend(text.as_bytes());
    chunk(&mut png, b"tEXt", &named);
    chunk(&mut png, b"IDAT", &zlib(&rows));
    chunk(&mut png, b"IEND", &[]);
    png
}

/// The text a PNG drawn by [`text_png`] names, read off its `tEXt` chunk;
/// `None` for a PNG with no such chunk right after its header.
pub fn named_text(png: &[u8]) -> Option<&str> {
    let rest = png.strip_prefix(&SIGNATURE)?;
    // The IHDR chunk: length, type, 13 bytes, CRC.
    let rest = rest.get(25..)?;
    let len = u32::from_be_bytes(rest.get(..4)?.try_into().ok()?) as usize;
    let body = rest.get(4..8 + len)?.strip_prefix(b"tEXt")?;
    std::str::from_utf8(body.strip_prefix(KEYWORD)?).ok()
}

/// The picture's rows as PNG scanlines, one after another (each a filter
/// byte 0, then 1 bit a pixel, 1 white), each row of the font drawn
/// `SCALE` times.
fn pixel_rows(text: &[u8], width: usize) -> Vec<u8> {
    let row_bytes = 1 + width.div_ceil(8);
    let mut out = Vec::with_capacity(HEIGHT * SCALE * row_bytes);
    for y in 0..HEIGHT {
        let mut row = vec![0xFF; row_bytes];
        row[0] = 0;
        let glyph_row = y.checked_sub(1).filter(|r| *r < GLYPH_HEIGHT);
        for (i, c) in text.iter().enumerate() {
            let (Some(r), Some(at)) = (glyph_row, CHARS.iter().position(|k| k == c)) else {
                continue;
            };
            for (col, bits) in GLYPHS[at].iter().enumerate() {
                if bits >> r & 1 == 1 {
                    let x0 = (1 + i * ADVANCE + col) * SCALE;
                    for x in x0..x0 + SCALE {
                        row[1 + x / 8] &= !(0x80 >> (x % 8));
                    }
                }
            }
        }
        for _ in 0..SCALE {
            out.extend_from_slice(&row);
        }
    }
    out
}

/// Appends one chunk: its length, type, data and CRC.
fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    png.extend((data.len() as u32).to_be_bytes());
    let start = png.len();
    png.extend(kind);
    png.extend(data);
    let crc = crc32(&png[start..]);
    png.extend(crc.to_be_bytes());
}

/// CRC-32 (ISO 3309, as PNG takes it), bit by bit.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

/// `data` as a zlib stream: one deflate block of fixed Huffman codes, each
/// byte a literal unless it starts a run of 3 or more found earlier (a
/// blank row, a row drawn again, a run of white), then a copy of the
/// longest such run, the nearest of those.
fn zlib(data: &[u8]) -> Vec<u8> {
    let mut bits = Bits::default();
    // BFINAL, then BTYPE 01 (fixed Huffman codes).
    bits.put(1, 1);
    bits.put(1, 2);
    let mut at = 0;
    while at < data.len() {
        match longest_match(data, at) {
            Some((len, distance)) => {
                copy(&mut bits, len, distance);
                at += len;
            }
            None => {
                literal(&mut bits, u16::from(data[at]));
                at += 1;
            }
        }
    }
    literal(&mut bits, 256);
    let mut out = vec![0x78, 0x01];
    out.extend(bits.finish());
    out.extend(adler32(data).to_be_bytes());
    out
}

/// Adler-32 (RFC 1950), a byte at a time.
fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in bytes {
        a = (a + u32::from(byte)) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

/// The longest run of bytes from `at` (3 to 258 of them) that starts
/// earlier too, as (length, distance back), the nearest when several are
/// as long. The picture is a few kilobytes: every earlier start is tried.
fn longest_match(data: &[u8], at: usize) -> Option<(usize, usize)> {
    let rest = &data[at..];
    let mut best: Option<(usize, usize)> = None;
    for start in (at.saturating_sub(32768)..at).rev() {
        let len = data[start..]
            .iter()
            .zip(rest)
            .take(258)
            .take_while(|(a, b)| a == b)
            .count();
        if len >= 3 && best.is_none_or(|b| len > b.0) {
            best = Some((len, at - start));
        }
    }
    best
}

/// The first length of each length code 257…285, and its extra bits.
const LENGTHS: [(u16, u8); 29] = [
    (3, 0),
    (4, 0),
    (5, 0),
    (6, 0),
    (7, 0),
    (8, 0),
    (9, 0),
    (10, 0),
    (11, 1),
    (13, 1),
    (15, 1),
    (17, 1),
    (19, 2),
    (23, 2),
    (27, 2),
    (31, 2),
    (35, 3),
    (43, 3),
    (51, 3),
    (59, 3),
    (67, 4),
    (83, 4),
    (99, 4),
    (115, 4),
    (131, 5),
    (163, 5),
    (195, 5),
    (227, 5),
    (258, 0),
];

/// A copy of `len` bytes (3…258) from `distance` bytes back (1…32768):
/// its length code and extra bits, then its distance code (codes 0…29:
/// the first two 1 and 2, then two a doubling, with extra bits to match)
/// and extra bits.
fn copy(bits: &mut Bits, len: usize, distance: usize) {
    let len = len.clamp(3, 258) as u16;
    let code = LENGTHS.iter().rposition(|l| l.0 <= len).unwrap_or(0);
    let (base, extra) = LENGTHS[code];
    literal(bits, 257 + code as u16);
    bits.put(u32::from(len - base), extra);
    let d = distance.clamp(1, 32768) as u32 - 1;
    let (code, extra, base) = match d {
        0..=3 => (d, 0, d),
        _ => {
            let top = 31 - d.leading_zeros();
            let extra = top - 1;
            let half = (d >> extra) & 1;
            (2 * top + half, extra, (2 | half) << extra)
        }
    };
    bits.put_reversed(code, 5);
    bits.put(d - base, extra as u8);
}

/// Literal/length symbol `symbol` in the fixed Huffman code.
fn literal(bits: &mut Bits, symbol: u16) {
    let s = u32::from(symbol);
    match symbol {
        0..=143 => bits.put_reversed(0x30 + s, 8),
        144..=255 => bits.put_reversed(0x190 + s - 144, 9),
        256..=279 => bits.put_reversed(s - 256, 7),
        _ => bits.put_reversed(0xC0 + s - 280, 8),
    }
}

/// A deflate bit stream, least significant bit first.
#[derive(Default)]
struct Bits {
    out: Vec<u8>,
    acc: u32,
    used: u8,
}

impl Bits {
    /// The low `n` bits of `value`, lowest first (a count, an extra).
    fn put(&mut self, value: u32, n: u8) {
        for i in 0..n {
            self.acc |= ((value >> i) & 1) << self.used;
            self.used += 1;
            if self.used == 8 {
                self.out.push(self.acc as u8);
                self.acc = 0;
                self.used = 0;
            }
        }
    }

    /// The low `n` bits of `code`, highest first (a Huffman code).
    fn put_reversed(&mut self, code: u32, n: u8) {
        self.put(code.reverse_bits() >> (32 - n), n);
    }

    fn finish(mut self) -> Vec<u8> {
        if self.used > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "[Picture:history_0733351879b2fa9bd05c7ca3061529c0]";

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn draws_the_text_as_a_png_any_decoder_reads() {
        let png = text_png(TEXT);
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
    fn names_its_text_and_stays_under_a_kibibyte_of_base64() {
        let png = text_png(TEXT);
        assert_eq!(named_text(&png), Some(TEXT));
        assert!(crate::media::encode_base64(&png).len() < 800);
        assert_eq!(named_text(&png[..40]), None);
        assert_eq!(named_text(b"GIF89a"), None);
    }

    #[test]
    fn adler32_is_zlib_s() {
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
        assert_eq!(adler32(&[0xFF; 5000]), {
            let (mut a, mut b) = (1u64, 0u64);
            for _ in 0..5000 {
                a = (a + 255) % 65521;
                b = (b + a) % 65521;
            }
            ((b << 16) | a) as u32
        });
    }

    #[test]
    fn crc32_is_the_png_one() {
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }
}
