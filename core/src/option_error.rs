//! An option a caller gave that cannot be used: what every reading of
//! options in the core reports, `INVALID_OPTION` at the option's JSON path.

use crate::error::{CodedError, ErrorCode};
use crate::json_path::JsonPath;

/// An option that cannot be used, at its JSON path (`options.model.provider`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct OptionError {
    /// JSON path of the option.
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}

impl OptionError {
    /// The error of the option at `path`.
    pub fn new(path: &JsonPath, message: impl Into<String>) -> Self {
        OptionError {
            path: path.to_string(),
            message: message.into(),
        }
    }
}

impl CodedError for OptionError {
    fn code(&self) -> ErrorCode {
        ErrorCode::InvalidOption
    }

    fn path(&self) -> Option<&str> {
        Some(&self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_option_error_is_invalid_option_at_its_path() {
        let e = OptionError::new(
            &JsonPath::root("options").key("model"),
            "expected a model id",
        );
        assert_eq!(e.code(), ErrorCode::InvalidOption);
        assert_eq!(e.path(), Some("options.model"));
        assert_eq!(e.to_string(), "options.model: expected a model id");
    }
}
