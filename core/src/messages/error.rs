//! Errors of reading messages.

use crate::error::{CodedError, ErrorCode};

/// Why a value could not be read as a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    /// The value at `path` is in no known message shape.
    #[error("{path}: {reason}")]
    InvalidMessage {
        /// JSON path of the offending value.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The format name given in the options is not one ctxpack knows.
    #[error(
        "{path}: unknown format {}; expected {}",
        crate::quoted(name),
        super::Format::expected_names()
    )]
    UnknownFormat {
        /// JSON path of the option.
        path: String,
        /// The name given.
        name: String,
    },
}

impl MessageError {
    pub(crate) fn invalid(path: &crate::json_path::JsonPath, reason: impl Into<String>) -> Self {
        MessageError::InvalidMessage {
            path: path.to_string(),
            reason: reason.into(),
        }
    }
}

impl CodedError for MessageError {
    fn code(&self) -> ErrorCode {
        match self {
            MessageError::InvalidMessage { .. } => ErrorCode::InvalidMessage,
            MessageError::UnknownFormat { .. } => ErrorCode::InvalidOption,
        }
    }

    fn path(&self) -> Option<&str> {
        match self {
            MessageError::InvalidMessage { path, .. }
            | MessageError::UnknownFormat { path, .. } => Some(path),
        }
    }
}
