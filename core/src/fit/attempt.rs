//! The encodings tried, in order, until an image fits: its own kind at the
//! target size (PNG for screenshots and other lossless sources, JPEG for
//! photos), then JPEG at falling quality — a floor of 80 for screenshots,
//! so their text stays readable, 55 for photos — then smaller sizes.

use super::source::is_photo_format;
use super::target::{fit_long_edge, measured_bytes, ImageTarget, Reason};
use crate::media::Dimensions;

/// One encoding to try.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    /// Width in px, as shown (EXIF orientation applied).
    pub width: u32,
    /// Height in px, as shown.
    pub height: u32,
    /// `image/png` or `image/jpeg`.
    pub mime: &'static str,
    /// JPEG quality, 1–100 (ignored for PNG).
    pub quality: u8,
    /// The JPEG qualities this image goes through, best first: a photo's
    /// ([`PHOTO_QUALITIES`]) or, for screenshots and other lossless
    /// sources whose text must stay readable, [`TEXT_QUALITIES`].
    #[serde(skip)]
    pub qualities: &'static [u8],
}

/// The most attempts for one image.
pub const MAX_ATTEMPTS: usize = 12;

/// The smallest long edge an image is shrunk to while chasing a byte limit.
pub const MIN_LONG_EDGE: u32 = 64;

/// JPEG qualities tried for a photo (a JPEG, AVIF or HEIC source) before
/// its size shrinks.
pub const PHOTO_QUALITIES: &[u8] = &[85, 70, 55];

/// JPEG qualities tried for a screenshot or drawing (a lossless source)
/// before its size shrinks: below about 80, JPEG's ringing blurs small text
/// more than a smaller size does.
pub const TEXT_QUALITIES: &[u8] = &[90, 85, 80];

/// The first encoding for an image of `mime` and `dims` (as shown) given
/// `target`: a photo (JPEG, AVIF, HEIC source) becomes JPEG; a lossless
/// source stays lossless as PNG, unless only its bytes are over at its own
/// size, when JPEG is the only way down.
pub fn first_attempt(mime: &str, dims: Dimensions, target: &ImageTarget) -> Attempt {
    let photo = is_photo_format(mime);
    let bytes_only = target.size == dims && target.reasons.contains(&Reason::OverImageBytes);
    let qualities = if photo {
        PHOTO_QUALITIES
    } else {
        TEXT_QUALITIES
    };
    Attempt {
        width: target.size.width,
        height: target.size.height,
        mime: if photo || bytes_only {
            "image/jpeg"
        } else {
            "image/png"
        },
        quality: qualities[0],
        qualities,
    }
}

/// The next encoding after `previous` came out at `decoded` bytes, over
/// `target`'s byte limit; `None` when there is nothing left to try.
pub fn next_attempt(previous: &Attempt, decoded: u64, target: &ImageTarget) -> Option<Attempt> {
    let max = target.max_bytes?;
    let first = *previous.qualities.first()?;
    if previous.mime == "image/png" {
        return Some(Attempt {
            mime: "image/jpeg",
            quality: first,
            ..*previous
        });
    }
    if let Some(lower) = previous.qualities.iter().find(|q| **q < previous.quality) {
        return Some(Attempt {
            quality: *lower,
            ..*previous
        });
    }
    // Bytes fall about with the area: shrink the sides by the square root
    // of what is left to lose, and a tenth more.
    let over = measured_bytes(decoded, target.bytes_on) as f64 / max.max(1) as f64;
    let scale = (0.9 / over.sqrt()).min(0.9);
    let dims = Dimensions {
        width: previous.width,
        height: previous.height,
    };
    let long = dims.width.max(dims.height);
    let edge = (f64::from(long) * scale).floor() as u32;
    if edge < MIN_LONG_EDGE {
        return None;
    }
    let next = fit_long_edge(dims, edge);
    Some(Attempt {
        width: next.width,
        height: next.height,
        ..*previous
    })
}

/// True when an image of `decoded` bytes meets `target`'s byte limit.
pub fn within_bytes(decoded: u64, target: &ImageTarget) -> bool {
    target
        .max_bytes
        .is_none_or(|m| measured_bytes(decoded, target.bytes_on) <= m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::BytesOn;

    fn target(w: u32, h: u32, max: u64) -> ImageTarget {
        ImageTarget {
            size: Dimensions {
                width: w,
                height: h,
            },
            max_bytes: Some(max),
            bytes_on: BytesOn::Base64,
            reasons: vec![Reason::OverImageBytes],
        }
    }

    #[test]
    fn screenshots_stay_png_photos_jpeg_and_bytes_force_jpeg() {
        let big = Dimensions {
            width: 3000,
            height: 1900,
        };
        let t = target(1568, 993, 5_000_000);
        assert_eq!(first_attempt("image/png", big, &t).mime, "image/png");
        assert_eq!(first_attempt("image/gif", big, &t).mime, "image/png");
        assert_eq!(first_attempt("image/jpeg", big, &t).mime, "image/jpeg");
        let same = target(3000, 1900, 5_000_000);
        assert_eq!(first_attempt("image/png", big, &same).mime, "image/jpeg");
    }

    #[test]
    fn the_sequence_lowers_quality_then_size_and_ends() {
        let t = target(2000, 1000, 1_000_000);
        let mut a = first_attempt(
            "image/png",
            Dimensions {
                width: 4000,
                height: 2000,
            },
            &t,
        );
        let mut seen = vec![a];
        // Pretend every encoding comes out at 4 MB: the sequence must end.
        while let Some(n) = next_attempt(&a, 4_000_000, &t) {
            a = n;
            seen.push(a);
            assert!(seen.len() <= MAX_ATTEMPTS * 2);
        }
        assert_eq!(seen[1].mime, "image/jpeg");
        // A screenshot's JPEG qualities stop at 80 so that text stays readable.
        assert_eq!(
            seen.iter().map(|a| a.quality).take(4).collect::<Vec<_>>(),
            vec![90, 90, 85, 80]
        );
        assert!(
            seen[4].width < 2000
                && (i64::from(seen[4].width) - 2 * i64::from(seen[4].height)).abs() <= 2
        );
        assert!(seen.last().unwrap().width.max(seen.last().unwrap().height) >= MIN_LONG_EDGE);
        assert!(within_bytes(750_000, &t) && !within_bytes(750_001, &t));
    }

    #[test]
    fn photos_go_down_to_55_and_converted_formats_keep_their_kind() {
        let big = Dimensions {
            width: 4000,
            height: 3000,
        };
        let t = target(2000, 1500, 100);
        let mut a = first_attempt("image/heic", big, &t);
        let mut q = vec![a.quality];
        while let Some(n) = next_attempt(&a, 1_000_000, &t) {
            if n.width != a.width {
                break;
            }
            a = n;
            q.push(a.quality);
        }
        assert_eq!(q, vec![85, 70, 55]);
        assert_eq!(a.mime, "image/jpeg");
        // A BMP that only needs converting becomes a PNG of the same size.
        let small = Dimensions {
            width: 300,
            height: 200,
        };
        let convert = ImageTarget {
            reasons: vec![Reason::UnsupportedFormat],
            ..target(300, 200, 5_000_000)
        };
        assert_eq!(
            first_attempt("image/bmp", small, &convert).mime,
            "image/png"
        );
    }
}
