//! Content parts of the neutral model.

use super::picture::{drawn, picture_of};
use super::{Format, ImagePart};
use crate::json_path::JsonPath;
use serde_json::{Map, Value};

/// A message's content.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    /// No content field at all.
    Absent,
    /// A plain string.
    Text(String),
    /// An array of parts.
    Parts(Vec<Part>),
    /// `null`, kept as it was.
    Null,
}

impl Content {
    /// Back to the wire value; `None` when there was no content field.
    pub fn into_wire(self) -> Option<Value> {
        match self {
            Content::Absent => None,
            Content::Null => Some(Value::Null),
            Content::Text(s) => Some(Value::String(s)),
            Content::Parts(parts) => Some(Value::Array(
                parts.into_iter().map(Part::into_wire).collect(),
            )),
        }
    }
}

/// One element of a message's content array.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// `{type:'text', text, …}` in every format; the wire object is kept whole.
    Text(Map<String, Value>),
    /// An image, read in place.
    Image(ImagePart),
    /// A tool result whose content holds further parts (Anthropic
    /// `tool_result`, AI SDK `tool-result` with `output.type: 'content'`).
    ToolResult(ToolResultPart),
    /// Anything else, passed through untouched.
    Other(Value),
}

impl Part {
    /// A new plain text part.
    pub fn text(text: String) -> Part {
        let mut m = Map::new();
        m.insert("type".into(), "text".into());
        m.insert("text".into(), text.into());
        Part::Text(m)
    }

    /// A new plain text part whose `type` is `kind` (none for Gemini's
    /// untyped `{text}`).
    pub fn typed_text(kind: Option<&str>, text: String) -> Part {
        let mut m = Map::new();
        if let Some(kind) = kind {
            m.insert("type".into(), kind.into());
        }
        m.insert("text".into(), text.into());
        Part::Text(m)
    }

    /// The text of a text part.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Part::Text(m) => m.get("text").and_then(Value::as_str),
            _ => None,
        }
    }

    /// True for a text part with no fields besides `type` and `text`, which
    /// can be folded into a plain string without losing anything.
    pub fn is_plain_text(&self) -> bool {
        match self {
            Part::Text(m) => m.len() == 2 && self.as_text().is_some(),
            _ => false,
        }
    }

    /// Back to the wire value.
    pub fn into_wire(self) -> Value {
        match self {
            Part::Text(m) => Value::Object(m),
            Part::Image(i) => Value::Object(i.wire),
            Part::ToolResult(t) => t.into_wire(),
            Part::Other(v) => v,
        }
    }
}

/// Where a tool result keeps its nested content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolResultSlot {
    /// The `content` field (Anthropic).
    Content,
    /// The `output.value` field (AI SDK).
    OutputValue,
    /// The `parts` field (a UIMessage `steering-message` part).
    Parts,
    /// The `result` field (an Interactions `function_result` block).
    Result,
    /// The `functionResponse.parts` field (Gemini).
    FunctionResponseParts,
}

impl ToolResultSlot {
    /// The JSON path of the nested content, given the tool result's own path.
    pub fn path(self, part: &JsonPath) -> JsonPath {
        match self {
            ToolResultSlot::Content => part.key("content"),
            ToolResultSlot::OutputValue => part.key("output").key("value"),
            ToolResultSlot::Parts => part.key("parts"),
            ToolResultSlot::Result => part.key("result"),
            ToolResultSlot::FunctionResponseParts => part.key("functionResponse").key("parts"),
        }
    }
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

/// A tool result block with its nested content lifted out.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResultPart {
    /// The block with the nested content's place set to `null`.
    pub wire: Map<String, Value>,
    /// The nested content.
    pub content: Content,
    /// Where the content goes back.
    pub slot: ToolResultSlot,
}

impl ToolResultPart {
    /// Back to the wire value, the content in its original place.
    pub fn into_wire(self) -> Value {
        let mut wire = self.wire;
        let content = match self.slot {
            ToolResultSlot::FunctionResponseParts => texts_as_pictures(self.content, &picture_of),
            _ => self.content,
        };
        let content = content.into_wire();
        if let Some(content) = content {
            match self.slot {
                ToolResultSlot::Content => {
                    wire.insert("content".into(), content);
                }
                ToolResultSlot::Parts => {
                    wire.insert("parts".into(), content);
                }
                ToolResultSlot::Result => {
                    wire.insert("result".into(), content);
                }
                ToolResultSlot::FunctionResponseParts => {
                    if let Some(f) = wire
                        .get_mut("functionResponse")
                        .and_then(Value::as_object_mut)
                    {
                        f.insert("parts".into(), content);
                    }
                }
                ToolResultSlot::OutputValue => {
                    if let Some(out) = wire.get_mut("output").and_then(Value::as_object_mut) {
                        out.insert("value".into(), content);
                    }
                }
            }
        }
        Value::Object(wire)
    }
}
