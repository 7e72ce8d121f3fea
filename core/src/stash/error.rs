//! Stash errors, named after the storage exceptions they come from.

use crate::error::ErrorCode;
use std::any::Any;
use std::fmt;

/// What kind of stash failure happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StashErrorKind {
    /// No storage of the asked kind here (no `indexedDB`, a blocked open, a closed database).
    Unavailable,
    /// The storage quota is exhausted (`QuotaExceededError`).
    QuotaExceeded,
    /// The transaction was aborted before it committed (`AbortError`).
    Aborted,
    /// The database was upgraded by another connection (`VersionError`).
    VersionChange,
    /// A write failed for another reason.
    WriteFailed,
    /// A read failed, or found its record gone.
    ReadFailed,
}

impl StashErrorKind {
    /// The stable code of this kind.
    pub fn code(self) -> ErrorCode {
        match self {
            StashErrorKind::Unavailable => ErrorCode::StashUnavailable,
            StashErrorKind::QuotaExceeded => ErrorCode::QuotaExceeded,
            StashErrorKind::Aborted => ErrorCode::TransactionAborted,
            StashErrorKind::VersionChange => ErrorCode::VersionChange,
            StashErrorKind::WriteFailed => ErrorCode::StashWriteFailed,
            StashErrorKind::ReadFailed => ErrorCode::StashReadFailed,
        }
    }

    /// The kind for a DOM exception name (`QuotaExceededError`, …), given the
    /// kind to use for names that say nothing more specific.
    pub fn from_exception_name(name: &str, otherwise: StashErrorKind) -> StashErrorKind {
        match name {
            "QuotaExceededError" => StashErrorKind::QuotaExceeded,
            "AbortError" => StashErrorKind::Aborted,
            "VersionError" => StashErrorKind::VersionChange,
            "InvalidStateError" | "NotFoundError" | "UnknownError" => {
                if otherwise == StashErrorKind::ReadFailed {
                    StashErrorKind::ReadFailed
                } else {
                    StashErrorKind::Unavailable
                }
            }
            _ => otherwise,
        }
    }
}

/// A stash failure: its kind, a message, and the original exception.
pub struct StashError {
    /// Which failure it was: what the boundary's error code is chosen by.
    pub kind: StashErrorKind,
    /// What happened, with the exception's name when there was one.
    pub message: String,
    /// The original exception (a `JsValue` at the boundary), kept for `cause`.
    pub cause: Option<Box<dyn Any>>,
}

impl StashError {
    /// An error with no original exception.
    pub fn new(kind: StashErrorKind, message: impl Into<String>) -> Self {
        StashError {
            kind,
            message: message.into(),
            cause: None,
        }
    }

    /// A record the listing named is no longer stored (another connection
    /// deleted it): the answer to a [`NewRecord::stored`](super::NewRecord::stored)
    /// record that was not confirmed.
    pub fn gone() -> Self {
        StashError::new(StashErrorKind::ReadFailed, "the record is no longer stored")
    }
}

impl fmt::Debug for StashError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StashError")
            .field("kind", &self.kind)
            .field("message", &self.message)
            .finish()
    }
}

impl fmt::Display for StashError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for StashError {}

impl StashError {
    /// The stable code of this error.
    pub fn code(&self) -> ErrorCode {
        self.kind.code()
    }
}
