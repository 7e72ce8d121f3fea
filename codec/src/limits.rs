//! How large an image the codec takes on: checked from the header, before
//! any pixel buffer is allocated, so a small file that declares a huge
//! image (a decompression bomb) fails fast instead of exhausting memory.

use crate::CodecError;
use image::Limits;

/// The largest side the codec decodes or produces, in pixels: beyond what
/// any model accepts (8000 px), with room for camera originals.
pub const MAX_SIDE: u32 = 1 << 14;

/// The most pixels a decoded image may have: 2²⁶ ≈ 67 megapixels, above
/// the largest camera sensors in common use (61 MP), so that the decoded
/// image and its working copies stay well under a gigabyte.
pub const MAX_PIXELS: u64 = 1 << 26;

/// The most bytes a decoder may allocate for one image (its pixels at up to
/// 16 bits per channel, or a progressive JPEG's coefficients).
pub const MAX_ALLOC: u64 = 640 << 20;

/// Fails unless a `width`×`height` source is within the limits.
pub fn check_source(width: u32, height: u32) -> Result<(), CodecError> {
    let too_large = |limit: String| CodecError::TooLarge {
        width,
        height,
        limit,
    };
    if width == 0 || height == 0 {
        return Err(CodecError::Decode(format!(
            "the image declares an empty size ({width}×{height})"
        )));
    }
    if width > MAX_SIDE || height > MAX_SIDE {
        return Err(too_large(format!("at most {MAX_SIDE} px a side")));
    }
    if u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(too_large(format!("at most {MAX_PIXELS} pixels")));
    }
    Ok(())
}

/// Fails unless a requested output of `width`×`height` is within the limits.
pub fn check_target(width: u32, height: u32) -> Result<(), CodecError> {
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
        return Err(CodecError::Resize {
            width,
            height,
            reason: format!("each side must be from 1 to {MAX_SIDE} px"),
        });
    }
    if u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(CodecError::Resize {
            width,
            height,
            reason: format!("at most {MAX_PIXELS} pixels"),
        });
    }
    Ok(())
}

/// The `image` crate's limits with the same caps.
pub fn image_limits() -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    limits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_beyond_a_side_or_the_pixel_count_are_refused() {
        assert!(check_source(6000, 4000).is_ok());
        assert!(check_source(9504, 6336).is_ok());
        let err = check_source(MAX_SIDE + 1, 10).unwrap_err();
        assert_eq!(err.code(), "IMAGE_DECODE_FAILED");
        assert!(matches!(err, CodecError::TooLarge { .. }));
        assert!(matches!(
            check_source(MAX_SIDE, MAX_SIDE).unwrap_err(),
            CodecError::TooLarge { .. }
        ));
        assert!(check_source(0, 10).is_err());
    }

    #[test]
    fn targets_must_be_non_empty_and_bounded() {
        assert!(check_target(1568, 1176).is_ok());
        assert_eq!(
            check_target(0, 5).unwrap_err().code(),
            "IMAGE_RESIZE_FAILED"
        );
        assert!(check_target(MAX_SIDE, MAX_SIDE).is_err());
    }
}
