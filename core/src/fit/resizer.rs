//! The one thing fitting asks of its host: changing an image's pixels.

use super::attempt::Attempt;
use crate::media::Dimensions;
use crate::ErrorCode;

/// Why a resize failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResizeFailure {
    /// Stable code (`IMAGE_RESIZE_FAILED` unless the resizer says otherwise).
    pub code: ErrorCode,
    /// What went wrong.
    pub message: String,
}

impl ResizeFailure {
    /// A failure a resize function reported with `code` (the `code` of the
    /// error it threw, if any): a decode failure keeps its code, anything
    /// else is `IMAGE_RESIZE_FAILED`.
    pub fn reported(code: Option<&str>, message: String) -> ResizeFailure {
        let code = match code.and_then(ErrorCode::from_text) {
            Some(ErrorCode::ImageDecodeFailed) => ErrorCode::ImageDecodeFailed,
            _ => ErrorCode::ImageResizeFailed,
        };
        ResizeFailure { code, message }
    }
}

/// Changes an image's pixels: the browser's canvas, the codec module, or
/// the caller's own function.
#[allow(async_fn_in_trait)]
pub trait Resizer {
    /// Encodes the image `payload` (base64 text, or a reference the
    /// [`Payloads`] resolve) of `mime` and `source` size as `attempt` says.
    /// Returns the new payload the same way.
    async fn resize(
        &self,
        payload: &str,
        mime: &str,
        source: Dimensions,
        attempt: &Attempt,
    ) -> Result<String, ResizeFailure>;
}
