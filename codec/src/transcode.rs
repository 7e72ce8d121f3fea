//! One image in, one image out: decode, resize, encode.

use crate::color::convert_to_srgb;
use crate::decode::decode;
use crate::decoded::swaps_sides;
use crate::encode::encode;
use crate::limits::check_target;
use crate::resize::resize;
use crate::CodecError;

/// The formats the codec writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// JPEG at a quality from 1 to 100; transparency is flattened on white.
    Jpeg {
        /// Encoder quality, 1–100.
        quality: u8,
    },
    /// Lossless PNG, best compression.
    Png,
}

impl OutputFormat {
    /// The format for a MIME type, with `quality` for lossy ones.
    pub fn from_mime(mime: &str, quality: u8) -> Result<OutputFormat, CodecError> {
        match mime {
            "image/jpeg" => Ok(OutputFormat::Jpeg {
                quality: quality.clamp(1, 100),
            }),
            "image/png" => Ok(OutputFormat::Png),
            other => Err(CodecError::UnsupportedOutput(other.to_owned())),
        }
    }

    /// Its MIME type.
    pub fn mime(self) -> &'static str {
        match self {
            OutputFormat::Jpeg { .. } => "image/jpeg",
            OutputFormat::Png => "image/png",
        }
    }
}

/// What to make of an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// Width of the result, in pixels.
    pub width: u32,
    /// Height of the result, in pixels.
    pub height: u32,
    /// The format to encode it in.
    pub format: OutputFormat,
}

/// An image encoded as a [`Request`] asked, with what was learnt of its
/// source on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    /// The encoded image.
    pub bytes: Vec<u8>,
    /// Width of the encoded image, in pixels.
    pub width: u32,
    /// Height of the encoded image, in pixels.
    pub height: u32,
    /// Its MIME type.
    pub mime: &'static str,
    /// The source image's width as shown (after its EXIF orientation).
    pub source_width: u32,
    /// The source image's height as shown.
    pub source_height: u32,
    /// The EXIF orientation the codec applied (1–8; 1 when there was none).
    pub orientation: u8,
}

/// Decodes `bytes` (PNG, JPEG, GIF — its first frame —, WebP — its first
/// frame —, BMP or TIFF), resizes it to the requested size and encodes it in
/// the requested format.
///
/// The requested size is the image as shown: after its EXIF orientation,
/// which the codec applies (orientations 5–8 swap the sides), so the result
/// is upright and carries no orientation. Pixels tagged with an RGB ICC
/// profile are converted to sRGB; the result carries no profile.
pub fn transcode(bytes: &[u8], request: Request) -> Result<Encoded, CodecError> {
    let (w, h) = (request.width, request.height);
    check_target(w, h)?;
    let decoded = decode(bytes, (w, h))?;
    // Resize in the stored orientation, then turn the (smaller) result.
    let (sw, sh) = if swaps_sides(decoded.orientation) {
        (h, w)
    } else {
        (w, h)
    };
    let (stored_w, stored_h) = decoded.stored;
    let (source_width, source_height) = if swaps_sides(decoded.orientation) {
        (stored_h, stored_w)
    } else {
        (stored_w, stored_h)
    };
    let mut pixels = resize(decoded.image, sw, sh)?;
    if let Some(icc) = &decoded.icc {
        convert_to_srgb(&mut pixels, icc);
    }
    pixels.apply_orientation(decoded.orientation);
    let bytes = encode(&pixels, request.format)?;
    Ok(Encoded {
        bytes,
        width: pixels.width(),
        height: pixels.height(),
        mime: request.format.mime(),
        source_width,
        source_height,
        orientation: decoded.orientation.to_exif(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageFormat, Rgba, RgbaImage};
    use std::io::Cursor;

    fn png_of(w: u32, h: u32, alpha: u8) -> Vec<u8> {
        let img = RgbaImage::from_fn(w, h, |x, y| {
            Rgba([(x % 256) as u8, (y % 256) as u8, 90, alpha])
        });
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, ImageFormat::Png).unwrap();
        out.into_inner()
    }

    fn dims(bytes: &[u8]) -> (u32, u32) {
        let img = image::load_from_memory(bytes).unwrap();
        (img.width(), img.height())
    }

    #[test]
    fn a_png_becomes_a_smaller_png_and_a_jpeg() {
        let src = png_of(400, 300, 255);
        let png = transcode(
            &src,
            Request {
                width: 200,
                height: 150,
                format: OutputFormat::Png,
            },
        )
        .unwrap();
        assert_eq!((png.width, png.height, png.mime), (200, 150, "image/png"));
        assert_eq!(dims(&png.bytes), (200, 150));
        assert_eq!(image::guess_format(&png.bytes).unwrap(), ImageFormat::Png);
        let jpeg = transcode(
            &src,
            Request {
                width: 100,
                height: 75,
                format: OutputFormat::Jpeg { quality: 80 },
            },
        )
        .unwrap();
        assert_eq!(image::guess_format(&jpeg.bytes).unwrap(), ImageFormat::Jpeg);
        assert_eq!(dims(&jpeg.bytes), (100, 75));
    }

    #[test]
    fn lower_quality_gives_fewer_bytes() {
        let src = png_of(300, 300, 255);
        let at = |quality| {
            transcode(
                &src,
                Request {
                    width: 300,
                    height: 300,
                    format: OutputFormat::Jpeg { quality },
                },
            )
            .unwrap()
            .bytes
            .len()
        };
        assert!(at(40) < at(90));
    }

    #[test]
    fn transparency_survives_png_and_is_flattened_in_jpeg() {
        let src = png_of(40, 40, 0);
        let png = transcode(
            &src,
            Request {
                width: 20,
                height: 20,
                format: OutputFormat::Png,
            },
        )
        .unwrap();
        let back = image::load_from_memory(&png.bytes).unwrap().into_rgba8();
        assert_eq!(back.get_pixel(5, 5).0[3], 0);
        let jpeg = transcode(
            &src,
            Request {
                width: 20,
                height: 20,
                format: OutputFormat::Jpeg { quality: 90 },
            },
        )
        .unwrap();
        let back = image::load_from_memory(&jpeg.bytes).unwrap().into_rgb8();
        assert!(
            back.get_pixel(5, 5).0.iter().all(|c| *c > 240),
            "transparent pixels become white"
        );
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let err = transcode(
            b"not an image",
            Request {
                width: 10,
                height: 10,
                format: OutputFormat::Png,
            },
        )
        .unwrap_err();
        assert_eq!(err.code(), "IMAGE_DECODE_FAILED");
        let src = png_of(10, 10, 255);
        let err = transcode(
            &src,
            Request {
                width: 0,
                height: 10,
                format: OutputFormat::Png,
            },
        )
        .unwrap_err();
        assert_eq!(err.code(), "IMAGE_RESIZE_FAILED");
        let mut cut = src.clone();
        cut.truncate(cut.len() / 2);
        assert!(transcode(
            &cut,
            Request {
                width: 5,
                height: 5,
                format: OutputFormat::Png
            }
        )
        .is_err());
        assert!(OutputFormat::from_mime("image/webp", 80).is_err());
    }
}
