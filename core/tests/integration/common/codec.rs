//! The codec crate as the fitting tests' resizer.

use ctxpack_codec::{transcode, OutputFormat, Request};
use ctxpack_core::fit::{Attempt, ResizeFailure, Resizer};
use ctxpack_core::media::{decode_base64, encode_base64, Dimensions};
use ctxpack_core::ErrorCode;
use std::cell::Cell;

/// The codec crate as the resizer, counting its calls; its failures keep
/// their code as a resize function's do.
#[derive(Default)]
pub struct Codec {
    pub calls: Cell<usize>,
}

impl Resizer for Codec {
    async fn resize(
        &self,
        payload: &str,
        _mime: &str,
        _source: Dimensions,
        a: &Attempt,
    ) -> Result<String, ResizeFailure> {
        self.calls.set(self.calls.get() + 1);
        let bytes = decode_base64(payload).ok_or_else(|| ResizeFailure {
            code: ErrorCode::ImageResizeFailed,
            message: "not base64".into(),
        })?;
        let format = OutputFormat::from_mime(a.mime, a.quality).map_err(|e| ResizeFailure {
            code: ErrorCode::ImageResizeFailed,
            message: e.to_string(),
        })?;
        let out = transcode(
            &bytes,
            Request {
                width: a.width,
                height: a.height,
                format,
            },
        )
        .map_err(|e| ResizeFailure::reported(Some(e.code()), e.to_string()))?;
        Ok(encode_base64(&out.bytes))
    }
}
