//! `getHistoryImage`'s `format` option: the shape its answer is in.

use crate::history::PartDialect;
use crate::json_path::JsonPath;
use crate::messages::{Format, MessageError};

/// The dialect `format` (the option at `at.format`) names: a format's image
/// part, or Python LangChain's; the default format's when none is given.
pub fn history_image_dialect(
    format: Option<&str>,
    at: &JsonPath,
) -> Result<PartDialect, MessageError> {
    match format {
        Some(name) => PartDialect::from_name(name, at.key("format").as_str()),
        None => Ok(PartDialect::Format(Format::DEFAULT)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::CodedError;

    #[test]
    fn a_format_names_its_dialect_and_none_the_default() {
        let at = JsonPath::root("options");
        assert_eq!(
            history_image_dialect(None, &at),
            Ok(PartDialect::Format(Format::DEFAULT))
        );
        assert_eq!(
            history_image_dialect(Some("langchain-python"), &at),
            Ok(PartDialect::LangChainPython)
        );
        assert_eq!(
            history_image_dialect(Some("anthropic"), &at),
            Ok(PartDialect::Format(Format::Anthropic))
        );
        let e = history_image_dialect(Some("xml"), &at).unwrap_err();
        assert_eq!(e.path(), Some("options.format"));
    }
}
