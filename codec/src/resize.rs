//! Resampling 8-bit grey, RGB or RGBA pixels with `fast_image_resize`.

use crate::CodecError;
use fast_image_resize::images::Image;
use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};
use image::{DynamicImage, GrayImage, RgbImage, RgbaImage};

/// `image` resampled to `width`×`height` (the same image when it already is
/// that size). Grey stays grey, and only images with transparency carry an
/// alpha channel through the resizer.
pub fn resize(image: DynamicImage, width: u32, height: u32) -> Result<DynamicImage, CodecError> {
    let fail = |reason: String| CodecError::Resize {
        width,
        height,
        reason,
    };
    if (image.width(), image.height()) == (width, height) {
        return Ok(image);
    }
    let (sw, sh) = (image.width(), image.height());
    let (pixel_type, raw) = match image {
        DynamicImage::ImageLuma8(i) => (PixelType::U8, i.into_raw()),
        DynamicImage::ImageRgb8(i) => (PixelType::U8x3, i.into_raw()),
        DynamicImage::ImageRgba8(i) => (PixelType::U8x4, i.into_raw()),
        other => (PixelType::U8x4, other.into_rgba8().into_raw()),
    };
    let src = Image::from_vec_u8(sw, sh, raw, pixel_type).map_err(|e| fail(e.to_string()))?;
    let mut dst = Image::new(width, height, pixel_type);
    // Catmull-Rom: sharp enough for text in screenshots, and cheaper than
    // Lanczos3 on camera-sized sources. Alpha is premultiplied while
    // resizing (the default), so transparent edges do not darken.
    let options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::CatmullRom));
    Resizer::new()
        .resize(&src, &mut dst, &options)
        .map_err(|e| fail(e.to_string()))?;
    let out = dst.into_vec();
    let wrong = || fail("the resizer returned a buffer of the wrong size".into());
    Ok(match pixel_type {
        PixelType::U8 => {
            DynamicImage::ImageLuma8(GrayImage::from_raw(width, height, out).ok_or_else(wrong)?)
        }
        PixelType::U8x3 => {
            DynamicImage::ImageRgb8(RgbImage::from_raw(width, height, out).ok_or_else(wrong)?)
        }
        _ => DynamicImage::ImageRgba8(RgbaImage::from_raw(width, height, out).ok_or_else(wrong)?),
    })
}
