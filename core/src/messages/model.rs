//! Messages and their content, and what a wire format must say about its
//! own shapes ([`WireFormat`]) for them to be read and written back. This
//! module knows no format: each format's module implements [`WireFormat`]
//! and the registry (`registry.rs`) picks one by [`Format`].

use super::part::{Content, Part, ToolResultPart, ToolResultSlot};
use super::{Format, ImagePart, MessageError};
use crate::json_path::JsonPath;
use serde_json::{Map, Value};

/// One wire format's reading of its own shapes.
pub(super) trait WireFormat: Sync {
    /// Which format this is.
    fn format(&self) -> Format;

    /// Reads one message at `path`.
    fn decode(&'static self, value: Value, path: &JsonPath) -> Result<Message, MessageError>;

    /// What kind of part a wire object of this format is.
    fn classify(
        &self,
        part: &Map<String, Value>,
        path: &JsonPath,
    ) -> Result<PartKind, MessageError>;

    /// Called with a tool result's nested content once read (`slot` is where
    /// it was), for a format that must mark parts in it.
    fn read_tool_result(&self, _content: &mut Content, _slot: ToolResultSlot) {}

    /// Writes `content` back into `map` for a message whose parts were read
    /// from a text field and an array field ([`Slot::Split`]).
    fn encode_split(&self, _layout: SplitLayout, _map: &mut Map<String, Value>, _content: Content) {
    }
}

impl PartialEq for dyn WireFormat {
    fn eq(&self, other: &Self) -> bool {
        self.format() == other.format()
    }
}

impl std::fmt::Debug for dyn WireFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.format(), f)
    }
}

/// Who said a message, across formats (`human` and `user` are both [`Role::User`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `system`, `developer`.
    System,
    /// `user`, `human`.
    User,
    /// `assistant`, `ai`, Gemini's `model`.
    Assistant,
    /// `tool`, `function`.
    Tool,
    /// Any other role string; passed through.
    Other,
}

impl Role {
    /// The role a role string names, in object formats and LangChain tuples alike.
    pub fn from_name(name: &str) -> Role {
        match name {
            "user" | "human" => Role::User,
            "assistant" | "ai" | "model" => Role::Assistant,
            "system" | "developer" => Role::System,
            "tool" | "function" => Role::Tool,
            _ => Role::Other,
        }
    }
}

/// Where a message keeps its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    /// A string or an array of parts under this key of an object message:
    /// `content`, UIMessage and Gemini `parts`, a Responses tool output's `output`.
    Key(&'static str),
    /// One part object, not an array, under this key (an MCP message's
    /// single content block): written back as one object while it is one part.
    SingleKey(&'static str),
    /// Index 1 of a LangChain tuple.
    TupleIndex,
    /// Parts read from a text field and an array field (Ollama's `content`
    /// string and `images` array), written back by the format.
    Split(SplitLayout),
}

/// Where the parts of a [`Slot::Split`] message came from: the text field
/// (the first part and the placeholder lines read off its end), then one
/// part per entry of the array field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SplitLayout {
    /// The text field.
    pub(super) text_key: &'static str,
    /// The array field.
    pub(super) items_key: &'static str,
    /// Placeholder lines read off the end of the text.
    pub(super) appended: usize,
    /// Entries of the array when it was read.
    pub(super) items: usize,
    /// Whether the message had the text field.
    pub(super) had_text: bool,
    /// Whether the message had the array field.
    pub(super) had_items: bool,
}

/// One message in the neutral model. The wire value is kept; the content is
/// lifted out and put back by [`Message::into_wire`].
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Who said it.
    pub role: Role,
    /// What was said.
    pub content: Content,
    wire_format: &'static dyn WireFormat,
    wire: Value,
    slot: Slot,
}

impl Message {
    /// A message of `format` whose content, lifted out of `wire`, goes back to `slot`.
    pub(super) fn lifted(
        wire_format: &'static dyn WireFormat,
        role: Role,
        content: Content,
        wire: Value,
        slot: Slot,
    ) -> Message {
        Message {
            role,
            content,
            wire_format,
            wire,
            slot,
        }
    }

    /// The wire format the message was read in, and is written back in.
    pub fn format(&self) -> Format {
        self.wire_format.format()
    }

    /// The JSON path of this message's content, given the message's own path:
    /// `messages[0].content`, or `messages[0][1]` for a tuple.
    pub fn content_path(&self, base: &JsonPath) -> JsonPath {
        match self.slot {
            Slot::Key(key) | Slot::SingleKey(key) => base.key(key),
            Slot::TupleIndex => base.index(1),
            Slot::Split(layout) => base.key(layout.text_key),
        }
    }

    /// The JSON path of the `index`-th part of this message's content, as it
    /// was read, given the message's own path: `messages[0].content[2]`, an
    /// MCP message's single block `messages[0].content`, an Ollama image
    /// `messages[0].images[1]`.
    pub fn part_path(&self, base: &JsonPath, index: usize) -> JsonPath {
        match self.slot {
            Slot::SingleKey(key) if index == 0 => base.key(key),
            // The texts are the text field, the others their entry of the array.
            Slot::Split(layout) => match index.checked_sub(1 + layout.appended) {
                Some(j) => base.key(layout.items_key).index(j),
                None => base.key(layout.text_key),
            },
            _ => self.content_path(base).index(index),
        }
    }

    /// The JSON path of the text of the `index`-th part, when that part is a
    /// text part: `messages[0].content[2].text`, or an Ollama message's
    /// `messages[0].content`.
    pub fn text_path(&self, base: &JsonPath, index: usize) -> JsonPath {
        match self.slot {
            Slot::Split(layout) => base.key(layout.text_key),
            _ => self.part_path(base, index).key("text"),
        }
    }

    /// Back to the wire value, with the content in its original place.
    pub fn into_wire(self) -> Value {
        let format = self.format();
        let mut wire = self.wire;
        if let (Value::Object(map), Slot::Split(layout)) = (&mut wire, self.slot) {
            self.wire_format.encode_split(layout, map, self.content);
            return wire;
        }
        let content = match self.content {
            // Where content cannot be one string, folded text is one text part.
            Content::Text(text) if !format.has_string_content() => {
                Content::Parts(vec![Part::text_in(format, text)])
            }
            other => other,
        };
        let content = match (content, self.slot) {
            (Content::Parts(mut parts), Slot::SingleKey(_)) if parts.len() == 1 => {
                parts.pop().map(Part::into_wire)
            }
            (content, _) => content.into_wire(),
        };
        if let Some(content) = content {
            match (&mut wire, self.slot) {
                (Value::Array(items), Slot::TupleIndex) => {
                    if let Some(slot) = items.get_mut(1) {
                        *slot = content;
                    }
                }
                (Value::Object(map), Slot::Key(key) | Slot::SingleKey(key)) => {
                    map.insert(key.into(), content);
                }
                _ => {}
            }
        }
        wire
    }
}

/// Reads one message of a format whose messages are objects with a `role`
/// and a `content`, or (LangChain) `[role, content]` tuples.
pub(super) fn decode_role_content(
    wire_format: &'static dyn WireFormat,
    value: Value,
    path: &JsonPath,
) -> Result<Message, MessageError> {
    let format = wire_format.format();
    match value {
        Value::Array(mut items) if format == Format::LangChain || !items.is_empty() => {
            if items.len() != 2 {
                return Err(MessageError::invalid(
                    path,
                    format!(
                        "a message tuple has 2 elements [role, content], this has {}",
                        items.len()
                    ),
                ));
            }
            let role = match &items[0] {
                Value::String(r) => Role::from_name(r),
                _ => {
                    return Err(MessageError::invalid(
                        &path.index(0),
                        "role must be a string",
                    ))
                }
            };
            let content =
                decode_content(wire_format, std::mem::take(&mut items[1]), &path.index(1))?;
            if matches!(content, Content::Absent) {
                return Err(MessageError::invalid(&path.index(1), "content is missing"));
            }
            Ok(Message::lifted(
                wire_format,
                role,
                content,
                Value::Array(items),
                Slot::TupleIndex,
            ))
        }
        Value::Object(mut map) => {
            let role = match map.get("role") {
                Some(Value::String(r)) => Role::from_name(r),
                Some(_) => {
                    return Err(MessageError::invalid(
                        &path.key("role"),
                        "role must be a string",
                    ))
                }
                None => {
                    return Err(MessageError::invalid(
                        path,
                        "a message needs a string `role`",
                    ))
                }
            };
            let content = match map.get_mut("content") {
                Some(slot) => {
                    decode_content(wire_format, std::mem::take(slot), &path.key("content"))?
                }
                None => Content::Absent,
            };
            Ok(Message::lifted(
                wire_format,
                role,
                content,
                Value::Object(map),
                Slot::Key("content"),
            ))
        }
        other => Err(MessageError::invalid(
            path,
            format!(
                "a message is an object or a [role, content] tuple, not {}",
                kind_of(&other)
            ),
        )),
    }
}

/// The object a message must be, or an `INVALID_MESSAGE` saying what it is instead.
pub(super) fn message_object(
    value: Value,
    path: &JsonPath,
) -> Result<Map<String, Value>, MessageError> {
    match value {
        Value::Object(map) => Ok(map),
        other => Err(MessageError::invalid(
            path,
            format!("a message is an object, not {}", kind_of(&other)),
        )),
    }
}

/// The role of an object message: `None` when it has no `role`, an
/// `INVALID_MESSAGE` when the role is not a string.
pub(super) fn optional_role(
    map: &Map<String, Value>,
    path: &JsonPath,
) -> Result<Option<Role>, MessageError> {
    match map.get("role") {
        None => Ok(None),
        Some(Value::String(r)) => Ok(Some(Role::from_name(r))),
        Some(_) => Err(MessageError::invalid(
            &path.key("role"),
            "role must be a string",
        )),
    }
}

/// The role of an object message that must have one.
pub(super) fn required_role(
    map: &Map<String, Value>,
    path: &JsonPath,
) -> Result<Role, MessageError> {
    optional_role(map, path)?
        .ok_or_else(|| MessageError::invalid(path, "a message needs a string `role`"))
}

/// Lifts the content under `key` out of `map` (leaving `null` in its
/// place) and reads it: a string, `null`, or an array of parts.
pub(super) fn take_content(
    wire_format: &dyn WireFormat,
    map: &mut Map<String, Value>,
    key: &str,
    path: &JsonPath,
) -> Result<Content, MessageError> {
    match map.get_mut(key) {
        Some(slot) => decode_content(wire_format, std::mem::take(slot), &path.key(key)),
        None => Ok(Content::Absent),
    }
}

/// A message whose content is its `parts` array (Gemini `Content`, AI SDK
/// `UIMessage`): `parts` must be an array when present.
pub(super) fn parts_message(
    wire_format: &'static dyn WireFormat,
    role: Role,
    mut map: Map<String, Value>,
    path: &JsonPath,
) -> Result<Message, MessageError> {
    if map.get("parts").is_some_and(|p| !p.is_array()) {
        return Err(MessageError::invalid(
            &path.key("parts"),
            "`parts` is an array of parts",
        ));
    }
    let content = take_content(wire_format, &mut map, "parts", path)?;
    Ok(Message::lifted(
        wire_format,
        role,
        content,
        Value::Object(map),
        Slot::Key("parts"),
    ))
}

pub(super) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Reads a content value: a string, `null`, or an array of parts.
pub(super) fn decode_content(
    wire_format: &dyn WireFormat,
    value: Value,
    path: &JsonPath,
) -> Result<Content, MessageError> {
    match value {
        Value::String(s) => Ok(Content::Text(s)),
        Value::Null => Ok(Content::Null),
        Value::Array(items) => items
            .into_iter()
            .enumerate()
            .map(|(i, v)| decode_part(wire_format, v, &path.index(i)))
            .collect::<Result<Vec<_>, _>>()
            .map(Content::Parts),
        other => Err(MessageError::invalid(
            path,
            format!(
                "content is a string or an array of parts, not {}",
                kind_of(&other)
            ),
        )),
    }
}

/// What kind of part a wire object is, as each format's module decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PartKind {
    Text,
    Image(super::ImageShape),
    ToolResult(ToolResultSlot),
    Other,
}

/// Reads one content part of `format` at `path`.
pub(super) fn decode_part(
    wire_format: &dyn WireFormat,
    value: Value,
    path: &JsonPath,
) -> Result<Part, MessageError> {
    let mut map = match value {
        Value::Object(map) => map,
        Value::String(_) if wire_format.format() == Format::LangChain => {
            return Ok(Part::Other(value))
        }
        other => {
            return Err(MessageError::invalid(
                path,
                format!("a content part is an object, not {}", kind_of(&other)),
            ))
        }
    };
    let kind = wire_format.classify(&map, path)?;
    Ok(match kind {
        PartKind::Text => {
            if !matches!(map.get("text"), Some(Value::String(_))) {
                return Err(MessageError::invalid(
                    &path.key("text"),
                    "a text part needs a string `text`",
                ));
            }
            Part::Text(map)
        }
        PartKind::Image(shape) => Part::Image(ImagePart { wire: map, shape }),
        PartKind::ToolResult(slot) => {
            let nested = match slot {
                ToolResultSlot::Content => map.get_mut("content").map(std::mem::take),
                ToolResultSlot::Parts => map.get_mut("parts").map(std::mem::take),
                ToolResultSlot::FunctionResponseParts => map
                    .get_mut("functionResponse")
                    .and_then(Value::as_object_mut)
                    .and_then(|f| f.get_mut("parts"))
                    .map(std::mem::take),
                ToolResultSlot::OutputValue => map
                    .get_mut("output")
                    .and_then(Value::as_object_mut)
                    .and_then(|o| o.get_mut("value"))
                    .map(std::mem::take),
            };
            let nested_path = slot.path(path);
            let mut content = match nested {
                Some(v) => decode_content(wire_format, v, &nested_path)?,
                None => Content::Absent,
            };
            wire_format.read_tool_result(&mut content, slot);
            Part::ToolResult(ToolResultPart {
                wire: map,
                content,
                slot,
            })
        }
        PartKind::Other => Part::Other(Value::Object(map)),
    })
}

/// The string at `key`, or an `INVALID_MESSAGE` naming it.
pub(super) fn require_str<'a>(
    map: &'a Map<String, Value>,
    key: &str,
    path: &JsonPath,
    what: &str,
) -> Result<&'a str, MessageError> {
    map.get(key).and_then(Value::as_str).ok_or_else(|| {
        MessageError::invalid(&path.key(key), format!("{what} needs a string `{key}`"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::decode_messages;
    use serde_json::json;

    fn round_trip(format: Format, v: Value) {
        let (_, msgs) =
            decode_messages(vec![v.clone()], Some(format), &JsonPath::root("messages")).unwrap();
        let back: Vec<Value> = msgs.into_iter().map(Message::into_wire).collect();
        assert_eq!(back, vec![v.clone()]);
        assert_eq!(ToString::to_string(&back[0]), ToString::to_string(&v));
    }

    #[test]
    fn every_format_round_trips_with_unknown_fields_in_order() {
        round_trip(
            Format::OpenAi,
            json!({"role":"user","name":"ann","content":[{"type":"text","text":"hi","x":1},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA","detail":"low"}}],"z":true}),
        );
        round_trip(
            Format::OpenAi,
            json!({"role":"assistant","content":null,"tool_calls":[{"id":"c1"}]}),
        );
        round_trip(
            Format::OpenAi,
            json!({"role":"tool","tool_call_id":"c1","content":"{\"a\":1}"}),
        );
        round_trip(
            Format::LangChain,
            json!(["human", [{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},{"type":"text","text":"这是什么？"}]]),
        );
        round_trip(Format::LangChain, json!(["ai", "这是一只猫..."]));
        round_trip(
            Format::Anthropic,
            json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}],"is_error":false,"cache_control":{"type":"ephemeral"}}]}),
        );
        round_trip(
            Format::AiSdk,
            json!({"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"shot","output":{"type":"content","value":[{"type":"media","data":"AAAA","mediaType":"image/png"}]}}]}),
        );
        round_trip(
            Format::AiSdk,
            json!({"role":"user","content":[{"type":"file","data":"AAAA","mediaType":"image/png","providerOptions":{"x":{}}}]}),
        );
    }

    #[test]
    fn finds_images_in_tool_results() {
        let v = json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}]});
        let m = Message::decode(Format::Anthropic, v, &JsonPath::root("m")).unwrap();
        let mut n = 0;
        crate::messages::walk::for_each_image(&m, &JsonPath::root("m"), &mut |_, _, i| {
            assert_eq!(i.source().inline(), Some((Some("image/png"), "AAAA")));
            n += 1;
        });
        assert_eq!(n, 1);
    }

    #[test]
    fn rejects_unknown_shapes_with_paths() {
        let p = JsonPath::root("messages");
        let err = |f, v| {
            decode_messages(vec![json!({"role":"user","content":"ok"}), v], Some(f), &p)
                .unwrap_err()
        };
        assert!(
            matches!(err(Format::OpenAi, json!(42)), MessageError::InvalidMessage { path, .. } if path == "messages[1]")
        );
        assert!(
            matches!(err(Format::OpenAi, json!({"content":"x"})), MessageError::InvalidMessage { path, .. } if path == "messages[1]")
        );
        assert!(
            matches!(err(Format::OpenAi, json!({"role":1})), MessageError::InvalidMessage { path, .. } if path == "messages[1].role")
        );
        assert!(
            matches!(err(Format::OpenAi, json!({"role":"user","content":5})), MessageError::InvalidMessage { path, .. } if path == "messages[1].content")
        );
        assert!(
            matches!(err(Format::OpenAi, json!({"role":"user","content":[{"type":"image_url","image_url":{"url":3}}]})), MessageError::InvalidMessage { path, .. } if path == "messages[1].content[0].image_url.url")
        );
        assert!(
            matches!(err(Format::OpenAi, json!({"role":"user","content":[null]})), MessageError::InvalidMessage { path, .. } if path == "messages[1].content[0]")
        );
        assert!(
            matches!(err(Format::OpenAi, json!({"role":"user","content":[{"type":"text","text":null}]})), MessageError::InvalidMessage { path, .. } if path == "messages[1].content[0].text")
        );
        assert!(
            matches!(err(Format::LangChain, json!(["human"])), MessageError::InvalidMessage { path, .. } if path == "messages[1]")
        );
        assert!(
            matches!(err(Format::Anthropic, json!({"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png"}}]})), MessageError::InvalidMessage { path, .. } if path == "messages[1].content[0].source.data")
        );
    }
}
