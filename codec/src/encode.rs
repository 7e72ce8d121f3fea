//! Pixels to JPEG or PNG bytes.

use crate::{CodecError, OutputFormat};
use image::codecs::png::{CompressionType, FilterType as PngFilter, PngEncoder};
use image::{DynamicImage, ExtendedColorType, ImageEncoder, RgbaImage};

/// `image` (8-bit grey, RGB or RGBA) encoded as `format`. JPEG flattens
/// transparency on white; PNG drops an alpha channel that is all opaque.
/// No metadata is written: the pixels are upright and in sRGB.
pub fn encode(image: &DynamicImage, format: OutputFormat) -> Result<Vec<u8>, CodecError> {
    let (w, h) = (image.width(), image.height());
    let mut out = Vec::new();
    let (bytes, color): (std::borrow::Cow<'_, [u8]>, ExtendedColorType) = match image {
        DynamicImage::ImageLuma8(i) => (i.as_raw().into(), ExtendedColorType::L8),
        DynamicImage::ImageRgb8(i) => (i.as_raw().into(), ExtendedColorType::Rgb8),
        DynamicImage::ImageRgba8(i) => match format {
            OutputFormat::Png if i.pixels().any(|p| p.0[3] != 255) => {
                (i.as_raw().into(), ExtendedColorType::Rgba8)
            }
            _ => (flatten_on_white(i).into(), ExtendedColorType::Rgb8),
        },
        other => (
            flatten_on_white(&other.to_rgba8()).into(),
            ExtendedColorType::Rgb8,
        ),
    };
    match format {
        OutputFormat::Jpeg { quality } => {
            // `jpeg-encoder`: below quality 90, 4:2:0 chroma averaged as
            // libjpeg does (smaller and faster than the `image` crate's
            // encoder). Its optimised Huffman tables are left off: with
            // 4:2:0 chroma they give files that libjpeg reads but zune-jpeg
            // (the `image` crate's decoder) turns green — every reader must
            // see the same picture.
            let side = |n: u32| {
                u16::try_from(n).map_err(|_| CodecError::Encode(format!("{n} px is beyond JPEG")))
            };
            let kind = match color {
                ExtendedColorType::L8 => jpeg_encoder::ColorType::Luma,
                _ => jpeg_encoder::ColorType::Rgb,
            };
            let mut encoder = jpeg_encoder::Encoder::new(&mut out, quality);
            encoder.set_chroma_subsampling_method(jpeg_encoder::ChromaSubsamplingMethod::Average);
            encoder
                .encode(&bytes, side(w)?, side(h)?, kind)
                .map_err(|e| CodecError::Encode(e.to_string()))?;
        }
        OutputFormat::Png => {
            PngEncoder::new_with_quality(&mut out, CompressionType::Best, PngFilter::Adaptive)
                .write_image(&bytes, w, h, color)
                .map_err(|e| CodecError::Encode(e.to_string()))?;
        }
    }
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
    use image::{Rgb, RgbImage};

    #[test]
    fn every_jpeg_written_reads_the_same_in_both_rust_decoders() {
        let img = RgbImage::from_fn(300, 200, |x, y| {
            if x < 75 {
                Rgb([220, 20, 20])
            } else if y < 100 {
                Rgb([20, 200, 40])
            } else {
                Rgb([20, 20, 220])
            }
        });
        for quality in [55, 70, 85, 90, 95] {
            let bytes = encode(
                &DynamicImage::ImageRgb8(img.clone()),
                OutputFormat::Jpeg { quality },
            )
            .unwrap();
            let zune = image::load_from_memory(&bytes).unwrap().into_rgb8();
            let mut other = jpeg_decoder::Decoder::new(std::io::Cursor::new(&bytes));
            let pixels = other.decode().unwrap();
            for (x, y, want) in [
                (10, 10, [220, 20, 20]),
                (200, 50, [20, 200, 40]),
                (200, 150, [20, 20, 220]),
            ] {
                let z = zune.get_pixel(x, y).0;
                let at = ((y * 300 + x) * 3) as usize;
                let j = &pixels[at..at + 3];
                for c in 0..3 {
                    assert!(
                        z[c].abs_diff(want[c]) < 24,
                        "q{quality} zune {z:?} at {x},{y}"
                    );
                    assert!(
                        j[c].abs_diff(want[c]) < 24,
                        "q{quality} jpeg-decoder {j:?} at {x},{y}"
                    );
                }
            }
        }
    }
}
