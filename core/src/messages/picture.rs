//! Placeholders drawn as pictures, in the places an API takes a picture and
//! nothing else: a Responses `computer_call_output`'s `output` (a
//! `computer_screenshot`, `image_url` or `file_id`) and an entry of a
//! Gemini `functionResponse.parts` (`inlineData` or `fileData`). There a
//! placeholder goes as a small PNG showing its text (the model reads
//! `[Picture:history_<md5>]` off it), which names the text in a `tEXt`
//! chunk too; read back, the picture is the placeholder's text part again,
//! so that expansion puts the original back exactly as elsewhere.
//!
//! A picture is taken for a placeholder only when it is a PNG under 1 KiB
//! of base64 whose `tEXt` chunk names exactly a placeholder, as the ones
//! ctxpack draws do: no camera or screenshot tool writes one. Reading it
//! back needs no encoder, so the main module, which has none, reads
//! pictures the extras module drew for it.

use super::placeholder::{parse_image_id, placeholder};
use super::Format;
use crate::media::data_url::format_data_url;
use crate::media::decode_base64;
use crate::media::text_png::named_text;
pub use crate::media::text_png::picture_of;
use serde_json::{Map, Value};

/// The base64 of a PNG always starts with its signature's.
const PNG_BASE64: &str = "iVBORw0KGgo";

/// Base64 payloads this long or longer are no picture of a placeholder
/// (one is under 1,000 characters), and are not decoded to find out.
const LONGEST: usize = 1024;

/// The placeholder `payload` (base64) shows, when it is a PNG naming one in
/// its `tEXt` chunk, as the pictures [`picture_of`] draws do. A caller's
/// image is not taken for one: no camera or screenshot tool writes a
/// placeholder's exact text there.
pub(crate) fn shown_placeholder(payload: &str) -> Option<String> {
    if payload.len() >= LONGEST || !payload.starts_with(PNG_BASE64) {
        return None;
    }
    let png = decode_base64(payload)?;
    let text = named_text(&png)?;
    let id = parse_image_id(text)?;
    (placeholder(&id) == text).then(|| text.to_owned())
}

/// The placeholder a data URL shows, when it is a PNG picture of one.
pub(crate) fn shown_in_data_url(url: &str) -> Option<String> {
    shown_placeholder(url.strip_prefix("data:image/png;base64,")?)
}

/// The part showing `text` in `format`'s picture-only place, `png` the
/// base64 picture of it: Gemini's `{inlineData:{mimeType, data}}`, a
/// Responses `computer_screenshot`.
pub(super) fn picture_part(format: Format, png: String) -> Value {
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

/// What shows `text` in `format`'s picture-only place, drawn by `draw`
/// (base64 PNG); `None` where `draw` draws nothing.
pub(super) fn drawn(
    format: Format,
    text: &str,
    draw: &dyn Fn(&str) -> Option<String>,
) -> Option<Value> {
    draw(text).map(|png| picture_part(format, png))
}

#[cfg(all(test, feature = "picture"))]
mod tests {
    use super::*;
    use crate::media::encode_base64;

    const MD5: &str = "0733351879b2fa9bd05c7ca3061529c0";

    #[test]
    fn a_picture_of_a_placeholder_reads_back_as_it() {
        let text = placeholder(MD5);
        let picture = picture_of(&text).unwrap();
        assert_eq!(shown_placeholder(&picture), Some(text.clone()));
        let url = format!("data:image/png;base64,{picture}");
        assert_eq!(shown_in_data_url(&url), Some(text));
    }

    #[test]
    fn other_pictures_are_no_placeholders() {
        // Other text, drawn the same way.
        assert_eq!(
            shown_placeholder(&picture_of("[Picture:history_x]").unwrap()),
            None
        );
        assert_eq!(shown_placeholder(&picture_of("hello").unwrap()), None);
        // A picture of a placeholder whose chunk is cut short.
        let png = crate::media::text_png::text_png(&placeholder(MD5)).unwrap();
        assert_eq!(shown_placeholder(&encode_base64(&png[..60])), None);
        // Not base64, not a PNG, too long to be one.
        assert_eq!(shown_placeholder("iVBORw0KGgo!!"), None);
        assert_eq!(shown_placeholder("R0lGODlhAQABAAAAACw="), None);
        let long = format!("{PNG_BASE64}{}", "A".repeat(LONGEST));
        assert_eq!(shown_placeholder(&long), None);
        assert_eq!(shown_in_data_url("data:image/jpeg;base64,AAAA"), None);
    }
}
