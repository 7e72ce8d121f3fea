//! What an image's source needs whatever the model's sizes: a format the
//! model takes, and pixels stored upright.

use super::target::{ImageTarget, Reason};
use crate::budget::ModelProfile;
use crate::media::Dimensions;

/// True when `profile`'s model takes images of `mime`.
fn model_accepts(profile: &ModelProfile, mime: &str) -> bool {
    match mime {
        "image/png" | "image/jpeg" | "image/gif" | "image/webp" => true,
        "image/heic" | "image/heif" => profile.provider == "gemini",
        _ => false,
    }
}

/// `base` (what the model's sizes and limits ask of an image of `mime`,
/// `dims` as shown and `decoded` bytes) with what its source needs: a
/// conversion when the model does not take `mime`, and upright pixels when
/// it is stored `turned` (an EXIF orientation other than 1). `None` when
/// the image can go as it is.
pub fn source_target(
    profile: &ModelProfile,
    mime: &str,
    dims: Dimensions,
    turned: bool,
    base: Option<ImageTarget>,
) -> Option<ImageTarget> {
    let mut extra = Vec::new();
    if !model_accepts(profile, mime) {
        extra.push(Reason::UnsupportedFormat);
    }
    if turned {
        extra.push(Reason::ExifOrientation);
    }
    if extra.is_empty() {
        return base;
    }
    let mut target = base.unwrap_or(ImageTarget {
        size: dims,
        max_bytes: profile.max_image_bytes,
        bytes_on: profile.image_bytes_on,
        reasons: Vec::new(),
    });
    target.reasons.extend(extra);
    Some(target)
}

/// True for formats whose sources are photos (lossy): they are re-encoded
/// as JPEG. Screenshots, drawings and other lossless sources become PNG.
pub fn is_photo_format(mime: &str) -> bool {
    matches!(
        mime,
        "image/jpeg" | "image/avif" | "image/heic" | "image/heif"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::model_profile;

    fn d(width: u32, height: u32) -> Dimensions {
        Dimensions { width, height }
    }

    #[test]
    fn formats_a_model_does_not_take_must_be_converted() {
        let claude = model_profile("claude-sonnet-4-5");
        let t = source_target(&claude, "image/bmp", d(100, 80), false, None).unwrap();
        assert_eq!(t.reasons, vec![Reason::UnsupportedFormat]);
        assert!(t.is_hard());
        assert_eq!(t.size, d(100, 80));
        assert!(source_target(&claude, "image/heic", d(100, 80), false, None).is_some());
        assert!(source_target(&claude, "image/png", d(100, 80), false, None).is_none());
        // Gemini takes HEIC as it is.
        let gemini = model_profile("gemini-2.5-pro");
        assert!(source_target(&gemini, "image/heic", d(100, 80), false, None).is_none());
        assert!(source_target(&gemini, "image/tiff", d(100, 80), false, None).is_some());
    }

    #[test]
    fn a_turned_photo_asks_for_upright_pixels_without_a_hard_limit() {
        let gpt = model_profile("gpt-4o");
        let t = source_target(&gpt, "image/jpeg", d(600, 800), true, None).unwrap();
        assert_eq!(t.reasons, vec![Reason::ExifOrientation]);
        assert!(!t.is_hard());
        assert!(is_photo_format("image/heic") && !is_photo_format("image/bmp"));
    }
}
