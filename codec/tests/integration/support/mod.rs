//! Real images for the codec's tests, made in memory with the `image`
//! crate's encoders (and `jpeg-encoder` for CMYK and YCCK JPEGs).
#![allow(dead_code)]

use image::codecs::jpeg::JpegEncoder;
use image::metadata::Orientation;
use image::{DynamicImage, ImageEncoder, Rgb, RgbImage};

/// Colours of the corner marks of `marked`.
pub const TOP_LEFT: [u8; 3] = [230, 20, 20];
/// Top-right mark.
pub const TOP_RIGHT: [u8; 3] = [20, 200, 20];
/// Bottom-left mark.
pub const BOTTOM_LEFT: [u8; 3] = [20, 20, 230];
/// Everything else.
pub const REST: [u8; 3] = [128, 128, 128];

/// A grey image with a red mark top-left, green top-right and blue
/// bottom-left, each a quarter of the sides: every flip and turn differs.
pub fn marked(width: u32, height: u32) -> RgbImage {
    let (mw, mh) = (width / 4, height / 4);
    RgbImage::from_fn(width, height, |x, y| {
        let (left, right, top, bottom) = (x < mw, x >= width - mw, y < mh, y >= height - mh);
        Rgb(match (top, bottom, left, right) {
            (true, _, true, _) => TOP_LEFT,
            (true, _, _, true) => TOP_RIGHT,
            (_, true, true, _) => BOTTOM_LEFT,
            _ => REST,
        })
    })
}

/// A smooth photo-like image with edges: gradients, rings and a few bars.
pub fn photo(width: u32, height: u32) -> RgbImage {
    RgbImage::from_fn(width, height, |x, y| {
        let (fx, fy) = (x as f32 / width as f32, y as f32 / height as f32);
        let ring = ((fx - 0.5).hypot(fy - 0.5) * 40.0).sin() * 0.5 + 0.5;
        let bar = if (x / 97) % 5 == 0 { 60.0 } else { 0.0 };
        Rgb([
            (fx * 255.0) as u8,
            (ring * 200.0 + bar) as u8,
            (fy * 220.0) as u8,
        ])
    })
}

/// `image` as a baseline JPEG.
pub fn jpeg(image: &RgbImage, quality: u8) -> Vec<u8> {
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, quality)
        .write_image(
            image.as_raw(),
            image.width(),
            image.height(),
            image::ExtendedColorType::Rgb8,
        )
        .unwrap();
    out
}

/// `jpeg` with an APP1 Exif segment (big-endian TIFF) holding `orientation`
/// inserted after its SOI marker.
pub fn with_orientation(jpeg: &[u8], orientation: u16) -> Vec<u8> {
    let mut tiff = b"MM\0\x2a\0\0\0\x08".to_vec();
    tiff.extend_from_slice(&1u16.to_be_bytes());
    tiff.extend_from_slice(&0x0112u16.to_be_bytes());
    tiff.extend_from_slice(&3u16.to_be_bytes());
    tiff.extend_from_slice(&1u32.to_be_bytes());
    tiff.extend_from_slice(&orientation.to_be_bytes());
    tiff.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
    let mut app1 = b"Exif\0\0".to_vec();
    app1.extend_from_slice(&tiff);
    let mut out = jpeg[..2].to_vec();
    out.extend_from_slice(&[0xFF, 0xE1]);
    out.extend_from_slice(&((app1.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(&app1);
    out.extend_from_slice(&jpeg[2..]);
    out
}

/// The stored pixels that EXIF `orientation` shows as `shown`.
pub fn stored_for(shown: &RgbImage, orientation: u8) -> RgbImage {
    // Each transform undoes itself except the quarter turns, which undo
    // each other.
    let inverse = match orientation {
        6 => 8,
        8 => 6,
        other => other,
    };
    let mut img = DynamicImage::ImageRgb8(shown.clone());
    img.apply_orientation(Orientation::from_exif(inverse).unwrap());
    img.into_rgb8()
}

/// Peak signal-to-noise ratio between two RGB images of the same size, dB.
pub fn psnr(a: &RgbImage, b: &RgbImage) -> f64 {
    assert_eq!(a.dimensions(), b.dimensions());
    let mse = a
        .as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(&x, &y)| (f64::from(x) - f64::from(y)).powi(2))
        .sum::<f64>()
        / a.as_raw().len() as f64;
    10.0 * (255.0f64 * 255.0 / mse.max(1e-9)).log10()
}

/// True when every channel of `got` is within `tolerance` of `want`.
pub fn near(got: [u8; 3], want: [u8; 3], tolerance: u8) -> bool {
    got.iter()
        .zip(want)
        .all(|(&g, w)| g.abs_diff(w) <= tolerance)
}
