//! Placeholders drawn as pictures, in the places an API takes a picture and
//! nothing else: a Responses `computer_call_output`'s `output` (a
//! `computer_screenshot`, `image_url` or `file_id`) and an entry of a
//! Gemini `functionResponse.parts` (`inlineData` or `fileData`). There a
//! placeholder goes as a small PNG showing its text (the model reads
//! `[Picture:history_<md5>]` off it), which names the text in a `tEXt`
//! chunk too; read back, the picture is the placeholder's text part again,
//! so that expansion puts the original back exactly as elsewhere.
//!
//! A picture is taken for a placeholder only when it is, byte for byte,
//! the one ctxpack draws of that placeholder: no caller's image is.

use super::placeholder::{parse_image_id, placeholder};
use super::Format;
use crate::media::data_url::format_data_url;
use crate::media::text_png::{named_text, text_png};
use crate::media::{decode_base64, encode_base64};
use serde_json::{Map, Value};

/// The base64 of a PNG always starts with its signature's.
const PNG_BASE64: &str = "iVBORw0KGgo";

/// Base64 payloads this long or longer are no picture of a placeholder
/// (one is under 1,000 characters), and are not decoded to find out.
const LONGEST: usize = 1024;

/// The base64 PNG showing `text`: what stands for a placeholder in a place
/// that takes a picture and nothing else.
pub fn picture_of(text: &str) -> String {
    encode_base64(&text_png(text))
}

/// The placeholder `payload` (base64) shows, when it is the picture
/// [`picture_of`] draws of one.
pub(crate) fn shown_placeholder(payload: &str) -> Option<String> {
    if payload.len() >= LONGEST || !payload.starts_with(PNG_BASE64) {
        return None;
    }
    let png = decode_base64(payload)?;
    let text = named_text(&png)?;
    let id = parse_image_id(text)?;
    (placeholder(&id) == text && text_png(text) == png).then(|| text.to_owned())
}

/// The placeholder a data URL shows, when it is a PNG picture of one.
pub(crate) fn shown_in_data_url(url: &str) -> Option<String> {
    shown_placeholder(url.strip_prefix("data:image/png;base64,")?)
}

/// The part showing `text` in `format`'s picture-only place: Gemini's
/// `{inlineData:{mimeType, data}}`, a Responses `computer_screenshot`.
pub(super) fn picture_part(format: Format, text: &str) -> Value {
    let png = picture_of(text);
    let mut part = Map::new();
    match format {
        Format::Gemini => {
            let mut blob = Map::new();
            blob.insert("mimeType".into(), "image/png".into());
            blob.insert("data".into(), png.into());
            part.insert("inlineData".into(), Value::Object(blob));
        }
        _ => {
            part.insert("type".into(), "computer_screenshot".into());
            part.insert(
                "image_url".into(),
                format_data_url("image/png", &png).into(),
            );
        }
    }
    Value::Object(part)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MD5: &str = "0733351879b2fa9bd05c7ca3061529c0";

    #[test]
    fn a_picture_of_a_placeholder_reads_back_as_it() {
        let text = placeholder(MD5);
        let picture = picture_of(&text);
        assert_eq!(shown_placeholder(&picture), Some(text.clone()));
        let url = format!("data:image/png;base64,{picture}");
        assert_eq!(shown_in_data_url(&url), Some(text));
    }

    #[test]
    fn other_pictures_are_no_placeholders() {
        // Other text, drawn the same way.
        assert_eq!(shown_placeholder(&picture_of("[Picture:history_x]")), None);
        assert_eq!(shown_placeholder(&picture_of("hello")), None);
        // A picture of a placeholder, changed by a byte.
        let mut png = text_png(&placeholder(MD5));
        let last = png.len() - 20;
        png[last] ^= 1;
        assert_eq!(shown_placeholder(&encode_base64(&png)), None);
        // Not base64, not a PNG, too long to be one.
        assert_eq!(shown_placeholder("iVBORw0KGgo!!"), None);
        assert_eq!(shown_placeholder("R0lGODlhAQABAAAAACw="), None);
        let long = format!("{PNG_BASE64}{}", "A".repeat(LONGEST));
        assert_eq!(shown_placeholder(&long), None);
        assert_eq!(shown_in_data_url("data:image/jpeg;base64,AAAA"), None);
    }
}
