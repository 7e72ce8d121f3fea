//! One image in, one image out: decode, resize, encode.

use crate::CodecError;
use fast_image_resize::images::Image;
use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::{CompressionType, FilterType as PngFilter, PngEncoder};
use image::{DynamicImage, ImageEncoder, ImageReader, Limits, RgbaImage};
use std::io::Cursor;

/// The largest side the codec decodes or produces, in pixels: beyond what
/// any model accepts (8000 px), with room for camera originals.
pub const MAX_SIDE: u32 = 1 << 14;

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
    /// Its format.
    pub format: OutputFormat,
}

/// The result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    /// The encoded image.
    pub bytes: Vec<u8>,
    /// Its width.
    pub width: u32,
    /// Its height.
    pub height: u32,
    /// Its MIME type.
    pub mime: &'static str,
}

/// Decodes `bytes` (PNG, JPEG, GIF — its first frame — or WebP), resizes to
/// the requested size and encodes it in the requested format.
pub fn transcode(bytes: &[u8], request: Request) -> Result<Encoded, CodecError> {
    let (w, h) = (request.width, request.height);
    if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
        return Err(CodecError::Resize {
            width: w,
            height: h,
            reason: format!("each side must be from 1 to {MAX_SIDE} px"),
        });
    }
    let source = decode(bytes)?;
    let pixels = resize(source, w, h)?;
    let bytes = encode(&pixels, request.format)?;
    Ok(Encoded {
        bytes,
        width: w,
        height: h,
        mime: request.format.mime(),
    })
}

fn decode(bytes: &[u8]) -> Result<RgbaImage, CodecError> {
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| CodecError::Decode(e.to_string()))?;
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    reader.limits(limits);
    let image: DynamicImage = reader
        .decode()
        .map_err(|e| CodecError::Decode(e.to_string()))?;
    Ok(image.into_rgba8())
}

fn resize(source: RgbaImage, width: u32, height: u32) -> Result<RgbaImage, CodecError> {
    let fail = |reason: String| CodecError::Resize {
        width,
        height,
        reason,
    };
    if source.dimensions() == (width, height) {
        return Ok(source);
    }
    let (sw, sh) = source.dimensions();
    let src = Image::from_vec_u8(sw, sh, source.into_raw(), PixelType::U8x4)
        .map_err(|e| fail(e.to_string()))?;
    let mut dst = Image::new(width, height, PixelType::U8x4);
    // Catmull-Rom: sharp enough for text in screenshots, and cheaper than
    // Lanczos3 on camera-sized sources. Alpha is premultiplied while
    // resizing (the default), so transparent edges do not darken.
    let options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::CatmullRom));
    Resizer::new()
        .resize(&src, &mut dst, &options)
        .map_err(|e| fail(e.to_string()))?;
    RgbaImage::from_raw(width, height, dst.into_vec())
        .ok_or_else(|| fail("the resizer returned a buffer of the wrong size".into()))
}

fn encode(pixels: &RgbaImage, format: OutputFormat) -> Result<Vec<u8>, CodecError> {
    let (w, h) = pixels.dimensions();
    let mut out = Vec::new();
    let result = match format {
        OutputFormat::Jpeg { quality } => {
            let rgb = flatten_on_white(pixels);
            JpegEncoder::new_with_quality(&mut out, quality).write_image(
                &rgb,
                w,
                h,
                image::ExtendedColorType::Rgb8,
            )
        }
        OutputFormat::Png => {
            let opaque = pixels.pixels().all(|p| p.0[3] == 255);
            let encoder =
                PngEncoder::new_with_quality(&mut out, CompressionType::Best, PngFilter::Adaptive);
            if opaque {
                let rgb = flatten_on_white(pixels);
                encoder.write_image(&rgb, w, h, image::ExtendedColorType::Rgb8)
            } else {
                encoder.write_image(pixels.as_raw(), w, h, image::ExtendedColorType::Rgba8)
            }
        }
    };
    result.map_err(|e| CodecError::Encode(e.to_string()))?;
    Ok(out)
}

/// RGB bytes of `pixels` composited over white.
fn flatten_on_white(pixels: &RgbaImage) -> Vec<u8> {
    let mut rgb = Vec::with_capacity(pixels.as_raw().len() / 4 * 3);
    for p in pixels.pixels() {
        let [r, g, b, a] = p.0;
        let a = u16::from(a);
        let over = |c: u8| ((u16::from(c) * a + 255 * (255 - a) + 127) / 255) as u8;
        rgb.extend_from_slice(&[over(r), over(g), over(b)]);
    }
    rgb
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageFormat, Rgba};

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
