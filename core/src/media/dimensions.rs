//! Image width and height read from the file header, without decoding pixels.

/// Width and height of an image in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dimensions {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

impl Dimensions {
    /// Width and height swapped: the size of the image turned a quarter.
    pub fn transposed(self) -> Dimensions {
        Dimensions {
            width: self.height,
            height: self.width,
        }
    }
}

/// Reads the dimensions of an image *as shown* from the header of a PNG,
/// GIF, JPEG, WebP, BMP, TIFF, AVIF or HEIC image: a JPEG or PNG whose EXIF
/// orientation turns it a quarter (5–8, as phones write portrait photos)
/// has its stored sides swapped. `None` when the format is unknown or the
/// header is cut off.
pub fn image_dimensions(bytes: &[u8]) -> Option<Dimensions> {
    let stored = stored_dimensions(bytes)?;
    Some(match super::exif_orientation(bytes) {
        Some(o) if o.swaps_sides() => stored.transposed(),
        _ => stored,
    })
}

/// The dimensions of the pixels as stored, before any EXIF orientation.
pub fn stored_dimensions(bytes: &[u8]) -> Option<Dimensions> {
    let dims = match super::sniff_mime(bytes)? {
        "image/png" => png(bytes),
        "image/gif" => gif(bytes),
        "image/jpeg" => jpeg(bytes),
        "image/webp" => webp(bytes),
        "image/bmp" => bmp(bytes),
        "image/tiff" => tiff(bytes),
        "image/avif" | "image/heic" | "image/heif" => ispe(bytes),
        _ => None,
    }?;
    (dims.width > 0 && dims.height > 0).then_some(dims)
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 4)?;
    Some(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

fn be16(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 2)?;
    Some(u32::from(u16::from_be_bytes([s[0], s[1]])))
}

fn le16(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 2)?;
    Some(u32::from(u16::from_le_bytes([s[0], s[1]])))
}

fn le24(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 3)?;
    Some(u32::from(s[0]) | u32::from(s[1]) << 8 | u32::from(s[2]) << 16)
}

fn le32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 4)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

fn png(b: &[u8]) -> Option<Dimensions> {
    if b.get(12..16)? != b"IHDR" {
        return None;
    }
    Some(Dimensions {
        width: be32(b, 16)?,
        height: be32(b, 20)?,
    })
}

fn gif(b: &[u8]) -> Option<Dimensions> {
    Some(Dimensions {
        width: le16(b, 6)?,
        height: le16(b, 8)?,
    })
}

fn jpeg(b: &[u8]) -> Option<Dimensions> {
    let sof = super::jpeg_segments::JpegSegments::new(b)
        .find(|s| matches!(s.marker, 0xc0..=0xcf) && !matches!(s.marker, 0xc4 | 0xc8 | 0xcc))?;
    Some(Dimensions {
        height: be16(sof.body, 1)?,
        width: be16(sof.body, 3)?,
    })
}

fn webp(b: &[u8]) -> Option<Dimensions> {
    match b.get(12..16)? {
        b"VP8 " => Some(Dimensions {
            width: le16(b, 26)? & 0x3fff,
            height: le16(b, 28)? & 0x3fff,
        }),
        b"VP8L" => {
            if *b.get(20)? != 0x2f {
                return None;
            }
            let bits = le32(b, 21)?;
            Some(Dimensions {
                width: (bits & 0x3fff) + 1,
                height: ((bits >> 14) & 0x3fff) + 1,
            })
        }
        b"VP8X" => Some(Dimensions {
            width: le24(b, 24)? + 1,
            height: le24(b, 27)? + 1,
        }),
        _ => None,
    }
}

fn bmp(b: &[u8]) -> Option<Dimensions> {
    let header = le32(b, 14)?;
    if header == 12 {
        return Some(Dimensions {
            width: le16(b, 18)?,
            height: le16(b, 20)?,
        });
    }
    let w = le32(b, 18)? as i32;
    let h = le32(b, 22)? as i32;
    Some(Dimensions {
        width: w.unsigned_abs(),
        height: h.unsigned_abs(),
    })
}

/// TIFF: `ImageWidth` and `ImageLength` of the first directory.
fn tiff(b: &[u8]) -> Option<Dimensions> {
    Some(Dimensions {
        width: super::orientation::tiff_ifd0_short(b, 0x0100)?,
        height: super::orientation::tiff_ifd0_short(b, 0x0101)?,
    })
}

/// AVIF/HEIF: the first `ispe` (image spatial extents) property.
fn ispe(b: &[u8]) -> Option<Dimensions> {
    let at = b.windows(4).position(|w| w == b"ispe")?;
    Some(Dimensions {
        width: be32(b, at + 8)?,
        height: be32(b, at + 12)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_png_gif_bmp_headers() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend_from_slice(&640u32.to_be_bytes());
        png.extend_from_slice(&480u32.to_be_bytes());
        assert_eq!(
            image_dimensions(&png),
            Some(Dimensions {
                width: 640,
                height: 480
            })
        );

        let gif = b"GIF89a\x20\x03\x58\x02\0\0";
        assert_eq!(
            image_dimensions(gif),
            Some(Dimensions {
                width: 800,
                height: 600
            })
        );

        let mut bmp = b"BM".to_vec();
        bmp.extend_from_slice(&[0; 12]);
        bmp.extend_from_slice(&40u32.to_le_bytes());
        bmp.extend_from_slice(&3u32.to_le_bytes());
        bmp.extend_from_slice(&(-5i32).to_le_bytes());
        assert_eq!(
            image_dimensions(&bmp),
            Some(Dimensions {
                width: 3,
                height: 5
            })
        );
    }

    #[test]
    fn reads_jpeg_sof_after_app_segments() {
        let mut j = vec![0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00];
        j.extend_from_slice(&[0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x2c, 0x02, 0x58]);
        assert_eq!(
            image_dimensions(&j),
            Some(Dimensions {
                width: 600,
                height: 300
            })
        );
        assert_eq!(image_dimensions(&j[..10]), None);
    }

    #[test]
    fn a_phone_portrait_reads_as_shown() {
        // APP1 Exif, big-endian TIFF with Orientation = 6, then SOF 600×300.
        let mut exif = b"Exif\0\0MM\0*\0\0\0\x08\0\x01".to_vec();
        exif.extend_from_slice(&[0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]);
        let mut j = vec![0xff, 0xd8, 0xff, 0xe1];
        j.extend_from_slice(&u16::try_from(exif.len() + 2).unwrap().to_be_bytes());
        j.extend_from_slice(&exif);
        j.extend_from_slice(&[0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x2c, 0x02, 0x58]);
        let stored = Dimensions {
            width: 600,
            height: 300,
        };
        assert_eq!(stored_dimensions(&j), Some(stored));
        assert_eq!(image_dimensions(&j), Some(stored.transposed()));
    }

    #[test]
    fn reads_a_tiff_directory() {
        // Little-endian: ImageWidth (SHORT) 70, ImageLength (LONG) 50000.
        let mut t = b"II*\0\x08\0\0\0\x02\0".to_vec();
        t.extend_from_slice(&[0x00, 0x01, 3, 0, 1, 0, 0, 0, 70, 0, 0, 0]);
        t.extend_from_slice(&[0x01, 0x01, 4, 0, 1, 0, 0, 0]);
        t.extend_from_slice(&50_000u32.to_le_bytes());
        assert_eq!(
            image_dimensions(&t),
            Some(Dimensions {
                width: 70,
                height: 50_000
            })
        );
    }

    #[test]
    fn reads_webp_variants() {
        let mut vp8x = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0".to_vec();
        vp8x.extend_from_slice(&[0x1f, 0x00, 0x00, 0x0f, 0x00, 0x00]);
        assert_eq!(
            image_dimensions(&vp8x),
            Some(Dimensions {
                width: 32,
                height: 16
            })
        );
    }

    #[test]
    fn survives_truncated_and_garbage_input() {
        // A JPEG start followed by nothing but fill bytes has no frame
        // header; a WebP cut off at or before its chunk name has no size.
        for n in 0..40 {
            let mut j = vec![0xff, 0xd8, 0xff];
            j.extend(std::iter::repeat_n(0xffu8, n));
            assert_eq!(image_dimensions(&j), None, "{n} fill bytes");
            let webp = &b"RIFF\0\0\0\0WEBPVP8L"[..n.min(16)];
            assert_eq!(image_dimensions(webp), None, "{n} bytes of WebP");
        }
        // Whole, the same headers are read.
        let mut j = vec![0xff, 0xd8, 0xff, 0xff, 0xc0, 0x00, 0x11, 0x08];
        j.extend_from_slice(&[0x00, 0x30, 0x00, 0x40]);
        j.extend_from_slice(&[0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]);
        assert_eq!(
            image_dimensions(&j),
            Some(Dimensions {
                width: 64,
                height: 48
            })
        );
        let mut webp = b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f".to_vec();
        webp.extend_from_slice(&(63u32 | 31 << 14).to_le_bytes());
        assert_eq!(
            image_dimensions(&webp),
            Some(Dimensions {
                width: 64,
                height: 32
            })
        );
    }
}
