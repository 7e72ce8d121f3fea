//! A decoded image as stored, and what turning it upright and feeding it to
//! the resizer ask of it: shared by the decoders (`decode`, `jpeg`).

use image::metadata::Orientation;
use image::DynamicImage;

/// A decoded image as stored (not yet turned upright).
pub struct Decoded {
    /// Its pixels: 8-bit grey, RGB or RGBA.
    pub image: DynamicImage,
    /// How to turn it to show it upright.
    pub orientation: Orientation,
    /// Its embedded ICC profile, if any.
    pub icc: Option<Vec<u8>>,
    /// Its full width and height as stored (the pixels may be fewer: a
    /// JPEG is decoded at a reduced scale when the target allows).
    pub stored: (u32, u32),
}

/// True when an orientation turns the image a quarter, so its stored width
/// is its shown height.
pub fn swaps_sides(orientation: Orientation) -> bool {
    matches!(
        orientation,
        Orientation::Rotate90
            | Orientation::Rotate270
            | Orientation::Rotate90FlipH
            | Orientation::Rotate270FlipH
    )
}

/// The orientation in an EXIF block, which some writers (libvips in WebP
/// and PNG) store with the "Exif\0\0" prefix of a JPEG APP1 segment.
pub fn orientation_in(exif: &[u8]) -> Option<Orientation> {
    Orientation::from_exif_chunk(exif.strip_prefix(b"Exif\0\0").unwrap_or(exif))
}

/// The image as 8-bit grey, RGB or RGBA (what the resizer and the encoders
/// take), keeping colour and transparency where it has them.
pub fn to_eight_bits(image: DynamicImage) -> DynamicImage {
    match image {
        DynamicImage::ImageLuma8(_) | DynamicImage::ImageRgb8(_) | DynamicImage::ImageRgba8(_) => {
            image
        }
        other if other.color().has_alpha() => DynamicImage::ImageRgba8(other.into_rgba8()),
        other if other.color().has_color() => DynamicImage::ImageRgb8(other.into_rgb8()),
        other => DynamicImage::ImageLuma8(other.into_luma8()),
    }
}
