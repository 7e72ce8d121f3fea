//! `answerHistoryImageCall`'s `format` option: required, and a format
//! whose API has tool calls.

use crate::json_path::JsonPath;
use crate::messages::{call_shape, Format};
use crate::option_error::OptionError;

/// The format an answer is written in (the option at `at.format`): it must
/// be given, and be one whose API calls tools.
pub fn answer_format(format: Option<Format>, at: &JsonPath) -> Result<Format, OptionError> {
    let path = at.key("format");
    let format = format.ok_or_else(|| {
        OptionError::new(&path, "give the API's format, e.g. 'openai' or 'anthropic'")
    })?;
    call_shape(format).map_err(|why| OptionError::new(&path, why))?;
    Ok(format)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_format_with_tool_calls_is_read_and_none_is_refused() {
        let at = JsonPath::root("options");
        assert_eq!(
            answer_format(Some(Format::Anthropic), &at),
            Ok(Format::Anthropic)
        );
        let e = answer_format(None, &at).unwrap_err();
        assert_eq!(e.path, "options.format");
        assert!(e.message.contains("give the API's format"), "{}", e.message);
        // Every format either answers or says why not, at the option.
        for format in Format::ALL {
            match (answer_format(Some(format), &at), call_shape(format)) {
                (Ok(f), Ok(_)) => assert_eq!(f, format),
                (Err(e), Err(why)) => assert_eq!(
                    (e.path.as_str(), e.message.as_str()),
                    ("options.format", why)
                ),
                (got, shape) => panic!("{format:?}: {got:?} against {shape:?}"),
            }
        }
    }
}
