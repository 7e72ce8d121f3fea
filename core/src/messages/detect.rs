//! Telling the wire format from the messages themselves. Each format's
//! module says what is evidence of it (its `WIRE.evidence`); this module
//! reads each message once and asks them.

use super::registry::wire_format;
use super::Format;
use serde_json::{Map, Value};

/// What a format's module says is evidence of it, in three kinds, each
/// looked for in every message before the next:
/// 1. `shape`: the shape of a message alone (tuples are LangChain's,
///    `parts` a UIMessage's or Gemini's, a top-level item `type` a
///    Responses item's or an Interactions step's, …);
/// 2. `exclusive_part`: a content part only this format has;
/// 3. the first decisive evidence of a message: `fields_first` (fields of
///    the message, looked at before its parts), `part` (a part that tells
///    formats apart), then `fields_last`.
///
/// The predicates of different formats never claim the same thing, except
/// where the earlier format in the list is meant to win.
/// Tells whether a part (its map and its `type`) is evidence.
pub(super) type PartTest = fn(&Map<String, Value>, &str) -> bool;

/// Tells whether a message's fields are evidence.
pub(super) type FieldsTest = fn(&MessageFields<'_>) -> bool;

#[derive(Clone, Copy)]
pub(super) struct Evidence {
    /// The message's shape says it is this format's.
    pub(super) shape: Option<FieldsTest>,
    /// A part (its map and `type`) only this format has.
    pub(super) exclusive_part: Option<PartTest>,
    /// Fields of a message that decide before its parts.
    pub(super) fields_first: Option<FieldsTest>,
    /// A part that tells this format from the others.
    pub(super) part: Option<PartTest>,
    /// Fields of a message that decide after its parts.
    pub(super) fields_last: Option<FieldsTest>,
}

impl Evidence {
    /// No evidence of any kind.
    pub(super) const NONE: Evidence = Evidence {
        shape: None,
        exclusive_part: None,
        fields_first: None,
        part: None,
        fields_last: None,
    };
}

/// The format of `messages`: the first message whose shape is evidence,
/// else the first exclusive part, else the first decisive evidence.
/// Messages that are all plain strings read as the list's first format
/// (OpenAI).
pub fn detect_format(messages: &[Value]) -> Format {
    // One look at each message serves the three kinds: its shape decides
    // at once; the first exclusive part and the first decisive evidence are
    // kept until every message was looked at.
    let mut exclusive = None;
    let mut decisive = None;
    for message in messages {
        let fields = match message {
            Value::Array(_) => MessageFields::tuple(),
            Value::Object(map) => MessageFields::of(map),
            _ => continue,
        };
        if let Some(format) = first_format(|e| e.shape.is_some_and(|f| f(&fields))) {
            return format;
        }
        if exclusive.is_none() {
            fields.part_evidence(&mut exclusive, &mut decisive);
        }
    }
    exclusive.or(decisive).unwrap_or(Format::DEFAULT)
}

/// The first format in the list whose evidence passes `test`.
fn first_format(test: impl Fn(&Evidence) -> bool) -> Option<Format> {
    Format::ALL
        .into_iter()
        .find(|&format| test(&wire_format(format).evidence))
}

/// The fields of a message that detection reads, found in one pass over
/// its keys (a message has a few; looking each name up would hash it).
#[derive(Default)]
pub(super) struct MessageFields<'a> {
    /// The message is a `[role, content]` tuple.
    pub(super) tuple: bool,
    /// Its `parts`.
    pub(super) parts: Option<&'a Value>,
    /// Its `role`.
    pub(super) role: Option<&'a Value>,
    /// Its top-level `type`.
    pub(super) item_type: Option<&'a Value>,
    /// Its `content`.
    pub(super) content: Option<&'a Value>,
    /// Its `images`.
    pub(super) images: Option<&'a Value>,
    /// It has an `id`.
    pub(super) id: bool,
    /// It has a `tool_name`.
    pub(super) tool_name: bool,
    /// It has `tool_calls`, `tool_call_id` or `function_call`.
    pub(super) openai_call: bool,
    /// It has a `call_id`.
    pub(super) call_id: bool,
    /// Its `arguments` are an object.
    pub(super) object_arguments: bool,
}

impl<'a> MessageFields<'a> {
    fn tuple() -> MessageFields<'a> {
        MessageFields {
            tuple: true,
            ..MessageFields::default()
        }
    }

    fn of(map: &'a Map<String, Value>) -> MessageFields<'a> {
        let mut fields = MessageFields::default();
        for (key, value) in map {
            match key.as_str() {
                "parts" => fields.parts = Some(value),
                "role" => fields.role = Some(value),
                "type" => fields.item_type = Some(value),
                "content" => fields.content = Some(value),
                "images" => fields.images = Some(value),
                "id" => fields.id = true,
                "tool_name" => fields.tool_name = true,
                "tool_calls" | "tool_call_id" | "function_call" => fields.openai_call = true,
                "call_id" => fields.call_id = true,
                "arguments" => fields.object_arguments = value.is_object(),
                _ => {}
            }
        }
        fields
    }

    /// Its `parts`, when they are an array.
    pub(super) fn parts_array(&self) -> Option<&'a [Value]> {
        match self.parts {
            Some(Value::Array(parts)) => Some(parts),
            _ => None,
        }
    }

    /// Its `role`, when it is a string.
    pub(super) fn role_name(&self) -> Option<&'a str> {
        self.role.and_then(Value::as_str)
    }

    /// Its top-level `type`, when it is a string.
    pub(super) fn type_name(&self) -> Option<&'a str> {
        self.item_type.and_then(Value::as_str)
    }

    /// True when neither `parts` nor a `model` role decide its shape: the
    /// shapes of role-and-content messages are looked at only then.
    pub(super) fn plain_object(&self) -> bool {
        !self.tuple && self.parts_array().is_none() && self.role_name() != Some("model")
    }

    /// True when its top-level `type` is an item's, not a message's.
    pub(super) fn is_item(&self) -> bool {
        self.type_name().is_some_and(|t| t != "message")
    }

    /// Sets `exclusive` to the first content part only one format has, and
    /// `decisive` (while unset) to the first decisive evidence of this
    /// message: fields that decide first, else its first decisive part,
    /// else fields that decide last.
    fn part_evidence(&self, exclusive: &mut Option<Format>, decisive: &mut Option<Format>) {
        let look_for_decisive = decisive.is_none();
        let mut from_parts = None;
        if let Some(Value::Array(parts)) = self.content {
            for part in parts {
                let Some(map) = part.as_object() else {
                    continue;
                };
                let Some(part_type) = map.get("type").and_then(Value::as_str) else {
                    continue;
                };
                if let Some(format) =
                    first_format(|e| e.exclusive_part.is_some_and(|f| f(map, part_type)))
                {
                    *exclusive = Some(format);
                    return;
                }
                if look_for_decisive && from_parts.is_none() {
                    from_parts = first_format(|e| e.part.is_some_and(|f| f(map, part_type)));
                }
            }
        }
        if look_for_decisive {
            *decisive = first_format(|e| e.fields_first.is_some_and(|f| f(self)))
                .or(from_parts)
                .or_else(|| first_format(|e| e.fields_last.is_some_and(|f| f(self))));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn detects_each_format() {
        assert_eq!(detect_format(&[json!(["human", "hi"])]), Format::LangChain);
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":"hi"}),
                json!({"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]})
            ]),
            Format::OpenAi
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]})
            ]),
            Format::Anthropic
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"image","image":"AAAA","mediaType":"image/png"}]})
            ]),
            Format::AiSdk
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"file","mediaType":"image","data":{"type":"data","data":"AAAA"}}]})
            ]),
            Format::AiSdk
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]})
            ]),
            Format::Mcp
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"image","url":"https://x.test/a.png"}]})
            ]),
            Format::LangChain
        );
        assert_eq!(
            detect_format(&[json!({"role":"user","content":"hi"})]),
            Format::OpenAi
        );
        assert_eq!(detect_format(&[]), Format::OpenAi);
    }

    #[test]
    fn a_message_shape_decides_before_part_names() {
        let ui = json!({"id":"m2","role":"user","parts":[{"type":"text","text":"hi"}]});
        assert_eq!(detect_format(std::slice::from_ref(&ui)), Format::UiMessage);
        assert_eq!(
            detect_format(&[json!({"id":"m1","role":"assistant","parts":[]})]),
            Format::UiMessage
        );
        assert_eq!(
            detect_format(&[
                json!({"type":"function_call","call_id":"c","name":"f","arguments":"{}"})
            ]),
            Format::OpenAiResponses
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"developer","content":"be brief"}),
                json!({"role":"user","content":[{"type":"input_text","text":"hi"}]})
            ]),
            Format::OpenAiResponses
        );
        assert_eq!(
            detect_format(&[json!({"role":"user","content":"hi","type":"message"})]),
            Format::OpenAiResponses
        );
        assert_eq!(
            detect_format(&[json!({"role":"user","parts":[{"text":"hi"}]})]),
            Format::Gemini
        );
        assert_eq!(
            detect_format(&[json!({"role":"model","parts":[]})]),
            Format::Gemini
        );
        assert_eq!(
            detect_format(&[json!({"role":"user","content":{"type":"text","text":"hi"}})]),
            Format::Mcp
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]}),
                json!({"role":"user","content":[{"type":"tool_result","toolUseId":"t","content":[]}]})
            ]),
            Format::Mcp
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{}}}]}),
                json!({"role":"user","content":"hi","images":["AAAA"]})
            ]),
            Format::Ollama
        );
        assert_eq!(
            detect_format(&[json!({"role":"user","content":"hi","images":[]})]),
            Format::Ollama
        );
        // Exclusive evidence found first does not outvote a later shape.
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"input_text","text":"hi"}]}),
                json!({"role":"assistant","content":"x"}),
                json!({"role":"user","content":"hi","images":[]})
            ]),
            Format::Ollama
        );
        // Within a message, OpenAI's tool call fields decide before its
        // parts; the first message with evidence decides before later ones.
        assert_eq!(
            detect_format(&[
                json!({"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}],"tool_calls":[]}),
                json!({"role":"user","content":[{"type":"image","source":{}}]})
            ]),
            Format::OpenAi
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"text","text":"a"},{"type":"tool-result"},{"type":"image_url"}]}),
                json!({"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]})
            ]),
            Format::AiSdk
        );
        // An OpenAI-looking message first does not outvote a UIMessage.
        assert_eq!(
            detect_format(&[json!({"role":"system","content":"x","tool_calls":[]}), ui]),
            Format::UiMessage
        );
    }
}
