//! The size and bytes one image must come down to for a model: the size the
//! model itself reads it at (no tokens lost), then its hard limits — the
//! largest side, the many-image rule, bytes per image.

use crate::budget::{seen_size, BytesOn, ModelProfile};
use crate::media::Dimensions;

/// Why an image changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// Larger than the model reads it: it would have been scaled down anyway.
    LargerThanModelReads,
    /// A side over the model's largest side.
    OverLongEdge,
    /// A side over the many-image rule's limit.
    ManyImageRule,
    /// More bytes than the model takes per image.
    OverImageBytes,
    /// More images than the model takes per request (stashed).
    TooManyImages,
    /// The request's tokens over the context window (stashed).
    OverContext,
    /// The request's bytes over the model's limit (stashed).
    OverRequestBytes,
    /// A format the model does not take (AVIF, HEIC, BMP, TIFF …):
    /// converted to one it does.
    UnsupportedFormat,
    /// Stored turned, with an EXIF orientation that some models ignore:
    /// sent with its pixels upright.
    ExifOrientation,
}

impl Reason {
    /// True for a limit the model refuses a request over; false for the
    /// size the model reads at, which only saves bytes, and for an EXIF
    /// orientation, which is only worth a re-encode that is not larger.
    pub fn is_hard(self) -> bool {
        !matches!(self, Reason::LargerThanModelReads | Reason::ExifOrientation)
    }
}

/// What one image must become.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageTarget {
    /// The largest width and height, aspect kept.
    pub size: Dimensions,
    /// The most bytes, measured as `bytes_on` says.
    pub max_bytes: Option<u64>,
    /// What the byte limit is measured on.
    pub bytes_on: BytesOn,
    /// Why the image must change.
    pub reasons: Vec<Reason>,
}

impl ImageTarget {
    /// True when any reason is a hard limit.
    pub fn is_hard(&self) -> bool {
        self.reasons.iter().any(|r| r.is_hard())
    }
}

/// `dims` scaled down (aspect kept) to fit a square of `edge` px.
pub fn fit_long_edge(dims: Dimensions, edge: u32) -> Dimensions {
    let long = dims.width.max(dims.height);
    if long <= edge {
        return dims;
    }
    let scale = f64::from(edge) / f64::from(long);
    let side = |s: u32| ((f64::from(s) * scale).floor() as u32).clamp(1, edge);
    Dimensions {
        width: side(dims.width),
        height: side(dims.height),
    }
}

/// The bytes of an image of `decoded` bytes as `on` measures them: the
/// decoded bytes, or the length of their padded base64 text.
pub fn measured_bytes(decoded: u64, on: BytesOn) -> u64 {
    match on {
        BytesOn::Decoded => decoded,
        BytesOn::Base64 => decoded.div_ceil(3) * 4,
    }
}

/// What an image of `dims` and `decoded` bytes must become for `profile`,
/// when `many` (the request has more images than the many-image rule
/// allows at full size); `None` when it can go as it is. `low` is OpenAI's
/// `detail: 'low'`.
pub fn image_target(
    profile: &ModelProfile,
    dims: Dimensions,
    decoded: u64,
    many: bool,
    low: bool,
) -> Option<ImageTarget> {
    let mut reasons = Vec::new();
    let mut size = seen_size(profile, dims, low);
    if size != dims {
        reasons.push(Reason::LargerThanModelReads);
    }
    if let Some(edge) = profile.max_long_edge {
        if dims.width.max(dims.height) > edge {
            reasons.push(Reason::OverLongEdge);
            size = fit_long_edge(size, edge);
        }
    }
    if many {
        if let Some(edge) = profile.many_images_long_edge {
            if dims.width.max(dims.height) > edge {
                reasons.push(Reason::ManyImageRule);
                size = fit_long_edge(size, edge);
            }
        }
    }
    let max_bytes = profile.max_image_bytes;
    if max_bytes.is_some_and(|m| measured_bytes(decoded, profile.image_bytes_on) > m) {
        reasons.push(Reason::OverImageBytes);
    }
    (!reasons.is_empty()).then_some(ImageTarget {
        size,
        max_bytes,
        bytes_on: profile.image_bytes_on,
        reasons,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::{model_profile, profile_image_tokens};

    fn d(width: u32, height: u32) -> Dimensions {
        Dimensions { width, height }
    }

    #[test]
    fn a_large_screenshot_comes_down_to_what_claude_reads_at_the_same_tokens() {
        let sonnet = model_profile("claude-sonnet-4-5");
        let t = image_target(&sonnet, d(3000, 1900), 400_000, false, false).unwrap();
        assert_eq!(t.reasons, vec![Reason::LargerThanModelReads]);
        assert!(!t.is_hard());
        assert_eq!(
            profile_image_tokens(&sonnet, t.size, false),
            profile_image_tokens(&sonnet, d(3000, 1900), false)
        );
        assert!(t.size.width <= 1568 && t.size.width * t.size.height <= 1_200_000);
    }

    #[test]
    fn hard_limits_name_themselves() {
        let opus = model_profile("claude-opus-4-7");
        // 2576 px is what Opus 4.7 reads; with more than 20 images, 2000.
        let t = image_target(&opus, d(3000, 1900), 1000, true, false).unwrap();
        assert_eq!(
            t.reasons,
            vec![Reason::LargerThanModelReads, Reason::ManyImageRule]
        );
        assert_eq!(t.size, d(2000, 1266));
        let t = image_target(&opus, d(9000, 100), 1000, false, false).unwrap();
        assert!(t.reasons.contains(&Reason::OverLongEdge) && t.size.width <= 8000);
        // 5 MiB measured on the base64: 4 MB of bytes is 5.33 MB of text.
        let t = image_target(&opus, d(1000, 1000), 4_000_000, false, false).unwrap();
        assert_eq!(t.reasons, vec![Reason::OverImageBytes]);
        assert_eq!(t.size, d(1000, 1000));
        assert!(image_target(&opus, d(1000, 1000), 3_000_000, false, false).is_none());
        // Gemini reads images as they are.
        assert!(image_target(
            &model_profile("gemini-2.5-pro"),
            d(4000, 3000),
            1000,
            false,
            false
        )
        .is_none());
    }

    #[test]
    fn openai_reads_at_768_on_the_short_side_and_512_when_low() {
        let gpt = model_profile("gpt-4o");
        let t = image_target(&gpt, d(4000, 3000), 1000, false, false).unwrap();
        assert_eq!(t.size, d(1024, 768));
        let t = image_target(&gpt, d(4000, 3000), 1000, false, true).unwrap();
        assert_eq!(t.size, d(512, 384));
        assert_eq!(measured_bytes(3, BytesOn::Base64), 4);
        assert_eq!(measured_bytes(4, BytesOn::Base64), 8);
    }
}
