//! Errors of reading a request body.

use crate::error::{CodedError, ErrorCode};

/// What the body argument is called in paths.
pub(super) const BODY: &str = "body";

/// Why a request body could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BodyError {
    /// The body is not JSON text; `path` is the body's, or the message's
    /// in which the text stops being JSON.
    #[error("{path}: not JSON text: {reason}")]
    NotJson {
        /// JSON path of the body or of the message.
        path: String,
        /// What `serde_json` says, with the line and column.
        reason: String,
    },
    /// The body's bytes are not UTF-8 from byte `at` on.
    #[error("body: not UTF-8 at byte {at}")]
    NotUtf8 {
        /// The first byte that is not.
        at: usize,
    },
    /// The body holds no array of messages where its format keeps them.
    #[error("{path}: {reason}")]
    NoMessages {
        /// JSON path of the body or of the key that holds no array.
        path: String,
        /// Where the messages were looked for.
        reason: String,
    },
}

impl CodedError for BodyError {
    fn code(&self) -> ErrorCode {
        match self {
            BodyError::NotJson { .. }
            | BodyError::NotUtf8 { .. }
            | BodyError::NoMessages { .. } => ErrorCode::InvalidArgument,
        }
    }

    fn path(&self) -> Option<&str> {
        match self {
            BodyError::NotJson { path, .. } | BodyError::NoMessages { path, .. } => Some(path),
            BodyError::NotUtf8 { .. } => Some(BODY),
        }
    }
}
