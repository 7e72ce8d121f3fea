//! Colour: an image tagged with an ICC profile (Display P3 from phones,
//! Adobe RGB from cameras) has its RGB converted to sRGB with `moxcms`, the
//! colour management the `image` crate itself builds on, since models and
//! browsers read untagged pixels as sRGB.

use image::DynamicImage;
use moxcms::{ColorProfile, DataColorSpace, Layout, TransformOptions};

/// Converts `image`'s RGB(A) pixels from the colour space of the ICC profile
/// `icc` to sRGB, in place. Grey images, profiles that are not RGB, and
/// profiles that cannot be read are left as they are: the pixels are then
/// kept as decoded, which is what every viewer without colour management
/// shows too.
pub fn convert_to_srgb(image: &mut DynamicImage, icc: &[u8]) {
    let Ok(profile) = ColorProfile::new_from_slice(icc) else {
        return;
    };
    if profile.color_space != DataColorSpace::Rgb {
        return;
    }
    let srgb = ColorProfile::new_srgb();
    let (layout, pixels) = match image {
        DynamicImage::ImageRgb8(i) => (Layout::Rgb, &mut **i),
        DynamicImage::ImageRgba8(i) => (Layout::Rgba, &mut **i),
        _ => return,
    };
    let Ok(transform) =
        profile.create_transform_8bit(layout, &srgb, layout, TransformOptions::default())
    else {
        return;
    };
    let source = pixels.to_vec();
    if transform.transform(&source, pixels).is_err() {
        pixels.copy_from_slice(&source);
    }
}
