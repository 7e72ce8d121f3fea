//! EXIF orientation: how a camera's stored pixels are turned to be shown.
//!
//! Phones store a portrait photo as landscape pixels with an EXIF
//! `Orientation` of 6 (turn 90° clockwise to show). Browsers and image
//! viewers apply it; OpenAI's models ignore image metadata. ctxpack measures
//! every image as it is shown, and sends resized images with the turn
//! applied to the pixels (the resizers — the canvas path and the codec
//! module — apply it; the core only reads it to know the shown size).
//!
//! Only the one tag is read, from the places browsers and the codec read it:
//! a JPEG's APP1 `Exif` segment, a PNG's `eXIf` chunk before its pixels, and
//! a TIFF's first directory.
//! It is a TIFF directory walk of a few lines over the header the core
//! already holds (the first 64 KiB of an image), in the same way as
//! [`super::image_dimensions`] reads sizes; a whole EXIF parser would add
//! every other tag's code to the main module for one number.

/// The eight values of the EXIF `Orientation` tag (0x0112).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Orientation(u8);

impl Orientation {
    /// Stored as shown (value 1).
    pub const UPRIGHT: Orientation = Orientation(1);

    /// The orientation of EXIF value `value`, `None` outside 1–8.
    pub fn from_exif(value: u16) -> Option<Orientation> {
        u8::try_from(value)
            .ok()
            .filter(|v| (1..=8).contains(v))
            .map(Orientation)
    }

    /// Its EXIF value, 1–8.
    pub fn value(self) -> u8 {
        self.0
    }

    /// True for 5–8: the shown image is the stored one turned a quarter, so
    /// its width is the stored height.
    pub fn swaps_sides(self) -> bool {
        self.0 >= 5
    }

    /// True unless the stored pixels are already as shown.
    pub fn turns(self) -> bool {
        self.0 != 1
    }
}

/// The EXIF orientation of a JPEG, PNG or TIFF from its header; `None`
/// when it has none (shown as stored), the format keeps none, or the header
/// is cut off before it.
pub fn exif_orientation(bytes: &[u8]) -> Option<Orientation> {
    if bytes.starts_with(b"\xff\xd8\xff") {
        jpeg(bytes)
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        png(bytes)
    } else if bytes.starts_with(b"II*\0") || bytes.starts_with(b"MM\0*") {
        tiff_orientation(bytes)
    } else {
        None
    }
}

fn be32(b: &[u8], at: usize) -> Option<usize> {
    let s = b.get(at..at.checked_add(4)?)?;
    usize::try_from(u32::from_be_bytes([s[0], s[1], s[2], s[3]])).ok()
}

/// The APP1 `Exif` segment before the first scan.
fn jpeg(b: &[u8]) -> Option<Orientation> {
    let app1 = super::jpeg_segments::JpegSegments::new(b)
        .find(|s| s.marker == 0xe1 && s.body.starts_with(b"Exif\0\0"))?;
    tiff_orientation(app1.body.get(6..)?)
}

/// The `eXIf` chunk before the first `IDAT` (where browsers honour it).
fn png(b: &[u8]) -> Option<Orientation> {
    let mut i = 8usize;
    loop {
        let len = be32(b, i)?;
        let kind = b.get(i + 4..i + 8)?;
        match kind {
            b"IDAT" | b"IEND" => return None,
            b"eXIf" => {
                let start = i + 8;
                let end = start.checked_add(len)?.min(b.len());
                // Some writers (libvips) keep JPEG's "Exif\0\0" prefix here.
                let data = b.get(start..end)?;
                return tiff_orientation(data.strip_prefix(b"Exif\0\0").unwrap_or(data));
            }
            _ => i = i.checked_add(12)?.checked_add(len)?,
        }
    }
}

/// Reads the `Orientation` entry of the first directory of a TIFF
/// structure (what an EXIF block is).
pub(crate) fn tiff_orientation(tiff: &[u8]) -> Option<Orientation> {
    let value = tiff_ifd0_short(tiff, 0x0112)?;
    Orientation::from_exif(u16::try_from(value).ok()?)
}

/// The value of a SHORT or LONG `tag` in the first directory of a TIFF
/// structure.
pub(crate) fn tiff_ifd0_short(tiff: &[u8], tag: u16) -> Option<u32> {
    let little = match tiff.get(0..4)? {
        b"II*\0" => true,
        b"MM\0*" => false,
        _ => return None,
    };
    let u16_at = |at: usize| -> Option<u16> {
        let s = tiff.get(at..at.checked_add(2)?)?;
        Some(if little {
            u16::from_le_bytes([s[0], s[1]])
        } else {
            u16::from_be_bytes([s[0], s[1]])
        })
    };
    let u32_at = |at: usize| -> Option<u32> {
        let s = tiff.get(at..at.checked_add(4)?)?;
        Some(if little {
            u32::from_le_bytes([s[0], s[1], s[2], s[3]])
        } else {
            u32::from_be_bytes([s[0], s[1], s[2], s[3]])
        })
    };
    let ifd = usize::try_from(u32_at(4)?).ok()?;
    let count = usize::from(u16_at(ifd)?);
    for k in 0..count {
        let entry = ifd.checked_add(2)?.checked_add(k.checked_mul(12)?)?;
        if u16_at(entry)? != tag {
            continue;
        }
        return match u16_at(entry + 2)? {
            // SHORT: the value sits in the first two bytes of the field.
            3 => u16_at(entry + 8).map(u32::from),
            // LONG.
            4 => u32_at(entry + 8),
            _ => None,
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A TIFF block holding one SHORT `Orientation` entry.
    fn tiff(value: u16, little: bool) -> Vec<u8> {
        let w16 = |v: u16| {
            if little {
                v.to_le_bytes()
            } else {
                v.to_be_bytes()
            }
        };
        let w32 = |v: u32| {
            if little {
                v.to_le_bytes()
            } else {
                v.to_be_bytes()
            }
        };
        let mut t = if little {
            b"II*\0".to_vec()
        } else {
            b"MM\0*".to_vec()
        };
        t.extend_from_slice(&w32(8));
        t.extend_from_slice(&w16(2));
        // An unrelated tag first (ImageDescription), then Orientation.
        t.extend_from_slice(&w16(0x010e));
        t.extend_from_slice(&w16(2));
        t.extend_from_slice(&w32(4));
        t.extend_from_slice(b"abc\0");
        t.extend_from_slice(&w16(0x0112));
        t.extend_from_slice(&w16(3));
        t.extend_from_slice(&w32(1));
        t.extend_from_slice(&w16(value));
        t.extend_from_slice(&[0, 0]);
        t.extend_from_slice(&w32(0));
        t
    }

    fn jpeg_with(value: u16, little: bool) -> Vec<u8> {
        let mut exif = b"Exif\0\0".to_vec();
        exif.extend_from_slice(&tiff(value, little));
        let mut j = vec![0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xe1];
        j.extend_from_slice(&u16::try_from(exif.len() + 2).unwrap().to_be_bytes());
        j.extend_from_slice(&exif);
        j.extend_from_slice(&[0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x2c, 0x02, 0x58]);
        j
    }

    #[test]
    fn reads_every_value_in_both_byte_orders_from_a_jpeg() {
        for value in 1..=8u16 {
            for little in [true, false] {
                let o = exif_orientation(&jpeg_with(value, little)).unwrap();
                assert_eq!(u16::from(o.value()), value);
                assert_eq!(o.swaps_sides(), value >= 5);
                assert_eq!(o.turns(), value != 1);
            }
        }
    }

    #[test]
    fn out_of_range_values_and_missing_exif_read_as_none() {
        assert_eq!(exif_orientation(&jpeg_with(0, true)), None);
        assert_eq!(exif_orientation(&jpeg_with(9, false)), None);
        let plain = [0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xda];
        assert_eq!(exif_orientation(&plain), None);
    }

    #[test]
    fn reads_a_png_exif_chunk_before_the_pixels_only() {
        let chunk = |kind: &[u8], data: &[u8]| {
            let mut c = u32::try_from(data.len()).unwrap().to_be_bytes().to_vec();
            c.extend_from_slice(kind);
            c.extend_from_slice(data);
            c.extend_from_slice(&[0; 4]);
            c
        };
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend(chunk(b"IHDR", &[0; 13]));
        let mut before = png.clone();
        before.extend(chunk(b"eXIf", &tiff(6, false)));
        before.extend(chunk(b"IDAT", &[1, 2, 3]));
        assert_eq!(exif_orientation(&before).map(Orientation::value), Some(6));
        // libvips keeps JPEG's prefix in the chunk.
        let mut prefixed = png.clone();
        let mut data = b"Exif\0\0".to_vec();
        data.extend(tiff(3, true));
        prefixed.extend(chunk(b"eXIf", &data));
        prefixed.extend(chunk(b"IDAT", &[1, 2, 3]));
        assert_eq!(exif_orientation(&prefixed).map(Orientation::value), Some(3));
        let mut after = png;
        after.extend(chunk(b"IDAT", &[1, 2, 3]));
        after.extend(chunk(b"eXIf", &tiff(6, false)));
        assert_eq!(exif_orientation(&after), None);
    }

    #[test]
    fn every_cut_of_a_header_is_none_or_the_value() {
        let full = jpeg_with(8, true);
        for n in 0..full.len() {
            let got = exif_orientation(&full[..n]);
            assert!(
                got.is_none() || got == Orientation::from_exif(8),
                "cut at {n}: {got:?}"
            );
        }
        assert_eq!(exif_orientation(&full), Orientation::from_exif(8));
    }
}
