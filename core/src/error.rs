//! The stable error codes, declared once. Every error ctxpack throws is a
//! JavaScript `CtxpackError` carrying one of these codes; reports that say
//! why an image stayed inline use the same codes. The TypeScript union
//! `CtxpackErrorCode` is generated from this list ([`ERROR_CODE_TYPESCRIPT`]).

/// Declares the codes: the enum, its text, the full list and the TypeScript
/// union, all from one table.
macro_rules! error_codes {
    ($($(#[doc = $doc:literal])* $variant:ident = $text:literal,)*) => {
        /// A stable, documented error code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($(#[doc = $doc])* $variant,)*
        }

        impl ErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The code as JavaScript sees it, e.g. `INVALID_MESSAGE`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $text,)*
                }
            }
        }

        /// The TypeScript declaration of the codes' union type.
        pub const ERROR_CODE_TYPESCRIPT: &str = concat!(
            "\n/** Stable codes carried by every {@link CtxpackError}. */\nexport type CtxpackErrorCode =",
            $("\n  | \"", $text, "\"",)*
            ";\n"
        );
    };
}

error_codes! {
    /// An argument is missing or of the wrong type.
    InvalidArgument = "INVALID_ARGUMENT",
    /// An option is of the wrong type or has an unknown value.
    InvalidOption = "INVALID_OPTION",
    /// A message does not have the shape of its format.
    InvalidMessage = "INVALID_MESSAGE",
    /// A data URL is malformed or its payload is not valid base64.
    InvalidDataUrl = "INVALID_DATA_URL",
    /// The stash cannot be opened or used (closed, deleted, blocked, or opened
    /// by another copy of ctxpack).
    StashUnavailable = "STASH_UNAVAILABLE",
    /// A write to the stash failed for a reason the backend did not name
    /// (neither the quota nor an aborted transaction); the image it was for
    /// stays inline.
    StashWriteFailed = "STASH_WRITE_FAILED",
    /// A read from the stash failed, or the record read is no longer
    /// stored.
    StashReadFailed = "STASH_READ_FAILED",
    /// The storage quota is exhausted (`QuotaExceededError`).
    QuotaExceeded = "QUOTA_EXCEEDED",
    /// A storage transaction was aborted (`AbortError`).
    TransactionAborted = "TRANSACTION_ABORTED",
    /// Another connection deleted or upgraded the database (`VersionError`).
    VersionChange = "VERSION_CHANGE",
    /// An image could not be resized or encoded.
    ImageResizeFailed = "IMAGE_RESIZE_FAILED",
    /// An image could not be decoded: a format the host cannot read (AVIF
    /// or HEIC in Node, TIFF or HEIC in Chromium), a truncated file, or one
    /// whose header claims more pixels than the decoder allows.
    ImageDecodeFailed = "IMAGE_DECODE_FAILED",
    /// The request cannot be made to fit the model: what the refusal names
    /// is not something ctxpack can change (text alone over the context
    /// window, an image that cannot shrink enough, no stash to move images to).
    CannotFit = "CANNOT_FIT",
    /// The error given to `repairContext` is not a refusal about size or images.
    NotARefusal = "NOT_A_REFUSAL",
    /// An image could not be uploaded to the provider's Files API (the
    /// app's `upload` failed, or answered no file): it stays inline.
    UploadFailed = "UPLOAD_FAILED",
    /// A wasm module could not be loaded (its file not found or not
    /// WebAssembly): the message names the module and how to pass its file.
    ModuleLoadFailed = "MODULE_LOAD_FAILED",
    /// A fault inside ctxpack; please report it.
    Internal = "INTERNAL",
}

impl ErrorCode {
    /// The code whose text is `text`, if it is one.
    pub fn from_text(text: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.iter().copied().find(|c| c.as_str() == text)
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ErrorCode {
    /// The code's text.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// `s` as a JSON string literal, the way messages name a value.
pub fn quoted(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// An error of the core that reaches JavaScript as a `CtxpackError`.
pub trait CodedError: std::error::Error {
    /// Its stable code.
    fn code(&self) -> ErrorCode;
    /// The JSON path of the offending value, where there is one.
    fn path(&self) -> Option<&str>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_typescript_union_lists_every_code_once() {
        for code in ErrorCode::ALL {
            let quoted = format!("| \"{}\"", code.as_str());
            assert_eq!(ERROR_CODE_TYPESCRIPT.matches(&quoted).count(), 1, "{code}");
        }
        assert_eq!(
            ERROR_CODE_TYPESCRIPT.matches("| \"").count(),
            ErrorCode::ALL.len()
        );
        for code in ErrorCode::ALL {
            assert_eq!(ErrorCode::from_text(code.as_str()), Some(*code));
        }
        assert_eq!(ErrorCode::from_text("NOT_A_CODE"), None);
    }
}
