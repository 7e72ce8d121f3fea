//! `toMultimodal`'s options: the format its parts are written in, the
//! `detail` they carry, and whether alt text stays.

use crate::json_path::JsonPath;
use crate::markdown::PartOptions;
use crate::messages::Format;
use crate::option_error::OptionError;

/// The `detail` values an image part may carry.
const DETAILS: [&str; 3] = ["auto", "low", "high"];

/// The options of `toMultimodal` (the options object at `at`): `format`
/// (else the default format's parts), `detail` (`auto`, `low` or `high`;
/// none when not given) and `keepAlt` (true unless given).
pub fn part_options<'a>(
    format: Option<Format>,
    detail: Option<&'a str>,
    keep_alt: Option<bool>,
    at: &JsonPath,
) -> Result<PartOptions<'a>, OptionError> {
    if detail.is_some_and(|d| !DETAILS.contains(&d)) {
        return Err(OptionError::new(
            &at.key("detail"),
            "expected auto, low or high",
        ));
    }
    Ok(PartOptions {
        format: format.unwrap_or(Format::DEFAULT),
        detail,
        keep_alt: keep_alt.unwrap_or(true),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_given_writes_the_default_format_keeping_alt_text() {
        let at = JsonPath::root("options");
        let o = part_options(None, None, None, &at).unwrap();
        assert_eq!(
            (o.format, o.detail, o.keep_alt),
            (Format::DEFAULT, None, true)
        );
        let o = part_options(Some(Format::Anthropic), Some("low"), Some(false), &at).unwrap();
        assert_eq!(
            (o.format, o.detail, o.keep_alt),
            (Format::Anthropic, Some("low"), false)
        );
    }

    #[test]
    fn an_unknown_detail_is_refused_at_its_path() {
        let e = part_options(None, Some("ultra"), None, &JsonPath::root("options")).unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            ("options.detail", "expected auto, low or high")
        );
    }
}
