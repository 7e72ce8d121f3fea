//! What an image's source needs whatever the model's sizes: a format the
//! model takes, and pixels stored upright.

use super::target::{ImageTarget, Reason};
use crate::budget::ModelProfile;
use crate::media::Dimensions;

/// `base` (what the model's sizes and limits ask of an image of `mime` and
/// `dims` as shown) with what its source needs: a conversion when the model
/// does not take `mime`, or does not take it `animated` (OpenAI: no
/// animated GIF; the first frame goes), and upright pixels when it is stored
/// `turned` (an EXIF orientation other than 1). `None` when the image can go
/// as it is.
pub fn source_target(
    profile: &ModelProfile,
    mime: &str,
    dims: Dimensions,
    source: SourceFacts,
    base: Option<ImageTarget>,
) -> Option<ImageTarget> {
    let mut extra = Vec::new();
    if !profile.accepts_mime(mime) || (source.animated && !profile.accepts_animated) {
        extra.push(Reason::UnsupportedFormat);
    }
    if source.turned {
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

/// What the header says of an image beside its type and size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SourceFacts {
    /// Stored turned: an EXIF orientation other than 1.
    pub turned: bool,
    /// More than one frame.
    pub animated: bool,
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

    const PLAIN: SourceFacts = SourceFacts {
        turned: false,
        animated: false,
    };

    #[test]
    fn formats_a_model_does_not_take_must_be_converted() {
        let claude = model_profile("claude-sonnet-4-5");
        let t = source_target(&claude, "image/bmp", d(100, 80), PLAIN, None).unwrap();
        assert_eq!(t.reasons, vec![Reason::UnsupportedFormat]);
        assert!(t.is_hard());
        assert_eq!(t.size, d(100, 80));
        assert!(source_target(&claude, "image/heic", d(100, 80), PLAIN, None).is_some());
        assert!(source_target(&claude, "image/png", d(100, 80), PLAIN, None).is_none());
        // Gemini takes HEIC as it is.
        let gemini = model_profile("gemini-2.5-pro");
        assert!(source_target(&gemini, "image/heic", d(100, 80), PLAIN, None).is_none());
        assert!(source_target(&gemini, "image/tiff", d(100, 80), PLAIN, None).is_some());
    }

    #[test]
    fn a_turned_photo_asks_for_upright_pixels_without_a_hard_limit() {
        let gpt = model_profile("gpt-4o");
        let turned = SourceFacts {
            turned: true,
            ..PLAIN
        };
        let t = source_target(&gpt, "image/jpeg", d(600, 800), turned, None).unwrap();
        assert_eq!(t.reasons, vec![Reason::ExifOrientation]);
        assert!(!t.is_hard());
        assert!(is_photo_format("image/heic") && !is_photo_format("image/bmp"));
    }

    #[test]
    fn an_animated_gif_goes_as_its_first_frame_only_where_animation_is_refused() {
        let animated = SourceFacts {
            animated: true,
            ..PLAIN
        };
        let gpt = model_profile("gpt-4o");
        let t = source_target(&gpt, "image/gif", d(300, 200), animated, None).unwrap();
        assert_eq!(t.reasons, vec![Reason::UnsupportedFormat]);
        assert!(source_target(&gpt, "image/gif", d(300, 200), PLAIN, None).is_none());
        let claude = model_profile("claude-sonnet-4-5");
        assert!(source_target(&claude, "image/gif", d(300, 200), animated, None).is_none());
    }
}
