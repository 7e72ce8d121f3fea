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

use super::model::Slot;
use super::part::{Content, Part, ToolResultSlot};
use super::placeholder::{parse_image_id, placeholder};
use super::{Format, Message};
use crate::media::data_url::format_data_url;
use crate::media::decode_base64;
use crate::media::text_png::named_text;
pub use crate::media::text_png::picture_of;
use crate::media::Payloads;
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
fn drawn(format: Format, text: &str, draw: &dyn Fn(&str) -> Option<String>) -> Option<Value> {
    draw(text).map(|png| picture_part(format, png))
}

/// The content of a picture-only place back to its one value: a text (a
/// placeholder) as a picture showing it, drawn by the core where it can
/// (else left as text), any other part as it is.
pub(super) fn picture_content(format: Format, content: Content) -> Option<Value> {
    match content {
        Content::Text(text) => {
            Some(drawn(format, &text, &picture_of).unwrap_or(Value::String(text)))
        }
        Content::Parts(mut parts) if parts.len() == 1 => match parts.pop()? {
            Part::Text(fields) => {
                let text = fields.get("text").and_then(Value::as_str).unwrap_or("");
                Some(drawn(format, text, &picture_of).unwrap_or_else(|| Value::Object(fields)))
            }
            part => Some(part.into_wire()),
        },
        other => other.into_wire(),
    }
}

/// `content` with each text part (a placeholder) a picture of its text
/// drawn by `draw`, where it draws one: a Gemini `functionResponse.parts`
/// entry takes media only.
pub(super) fn texts_as_pictures(
    content: Content,
    draw: &dyn Fn(&str) -> Option<String>,
) -> Content {
    match content {
        Content::Parts(parts) => Content::Parts(
            parts
                .into_iter()
                .map(
                    |part| match part.as_text().and_then(|t| drawn(Format::Gemini, t, draw)) {
                        Some(picture) => Part::Other(picture),
                        None => part,
                    },
                )
                .collect(),
        ),
        other => other,
    }
}

impl Message {
    /// Each placeholder in a picture-only place (a Responses
    /// `computer_call_output`'s output, an entry of a Gemini
    /// `functionResponse.parts`) as the picture of it that `payloads`'
    /// host draws ([`Payloads::placeholder_picture`]), ahead of
    /// [`Message::into_wire`], which keeps it. A placeholder the host
    /// does not draw stays text.
    pub(crate) fn draw_pictures(&mut self, payloads: &dyn Payloads) {
        let draw = |text: &str| payloads.placeholder_picture(text);
        if let Slot::Picture(_) = self.slot {
            let format = self.format();
            let text = match &self.content {
                Content::Text(text) => Some(text.as_str()),
                Content::Parts(parts) if parts.len() == 1 => parts[0].as_text(),
                _ => None,
            };
            if let Some(picture) = text.and_then(|t| drawn(format, t, &draw)) {
                self.content = Content::Parts(vec![Part::Other(picture)]);
            }
            return;
        }
        if let Content::Parts(parts) = &mut self.content {
            for part in parts {
                if let Part::ToolResult(result) = part {
                    if result.slot == ToolResultSlot::FunctionResponseParts {
                        let content = std::mem::replace(&mut result.content, Content::Absent);
                        result.content = texts_as_pictures(content, &draw);
                    }
                }
            }
        }
    }
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

    /// A host's drawing (what the main wasm module's host gives, which has
    /// no drawing of its own) is what goes where only a picture may stand:
    /// a Responses computer-use screenshot and a Gemini function response's
    /// media, each read back as its placeholder's text.
    #[test]
    fn the_hosts_drawing_goes_where_only_a_picture_may() {
        use crate::json_path::JsonPath;
        use crate::media::Payloads;
        use crate::messages::{decode_messages, Part};
        use serde_json::json;

        struct Host;
        impl Payloads for Host {
            fn with_full(&self, s: &str, f: &mut dyn FnMut(&str)) {
                f(s)
            }
            fn placeholder_picture(&self, text: &str) -> Option<String> {
                Some(format!("{PNG_BASE64}{}", text.len()))
            }
        }
        let text = placeholder(MD5);
        let wires = [
            (
                Format::OpenAiResponses,
                json!({"type":"computer_call_output","call_id":"c","output":{"type":"computer_screenshot","image_url":"data:image/png;base64,AAAA"}}),
            ),
            (
                Format::Gemini,
                json!({"role":"user","parts":[{"functionResponse":{"name":"s","response":{},"parts":[{"inlineData":{"mimeType":"image/png","data":"AAAA"}}]}}]}),
            ),
        ];
        for (format, wire) in wires {
            let (_, mut messages) =
                decode_messages(vec![wire], Some(format), &JsonPath::root("m")).unwrap();
            let m = &mut messages[0];
            // The image becomes the placeholder's text, as compaction leaves it.
            crate::messages::walk::rewrite_images(m, &mut |_, _| Part::text(text.clone()));
            let mut undrawn = m.clone();
            m.draw_pictures(&Host);
            let out = m.clone().into_wire().to_string();
            assert!(
                out.contains(&format!("{PNG_BASE64}50")),
                "{format:?}: {out}"
            );
            assert!(!out.contains(&text), "{format:?}: {out}");
            // Without a host drawing, the core draws it (this build has the
            // `picture` feature), and that picture reads back as the text.
            let own = undrawn.clone().into_wire().to_string();
            let own_picture = picture_of(&text).unwrap();
            assert!(own.contains(&own_picture), "{format:?}: {own}");
            undrawn.draw_pictures(&crate::media::payload::InMemory);
            assert!(undrawn.into_wire().to_string().contains(&own_picture));
        }
    }
}
