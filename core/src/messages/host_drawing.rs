//! The host's drawing of placeholders in the places an API takes a picture
//! and nothing else (see [`super::picture`]): a build without the core's
//! own drawing (the main wasm module) asks its host for each picture
//! before a changed message is written.

use super::model::Slot;
use super::part::{texts_as_pictures, Content, Part, ToolResultSlot};
use super::picture::drawn;
use super::Message;
use crate::media::Payloads;

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
    use crate::messages::picture::picture_of;
    use crate::messages::{placeholder, Format};

    const MD5: &str = "0733351879b2fa9bd05c7ca3061529c0";

    /// The base64 of a PNG always starts with its signature's.
    const PNG_BASE64: &str = "iVBORw0KGgo";

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
