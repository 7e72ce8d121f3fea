//! Anthropic Messages: `{role, content}` with `image` blocks whose `source` is
//! base64 or a URL, and `tool_result` blocks that hold further blocks.

use super::file_ref::{wire_without, FileProvider, FileRefs};
use super::decode::require_str;
use super::evidence::Evidence;
use super::model::{NewParts, PartKind, WireFormat};
use super::part::ToolResultSlot;
use super::shape::ShapeSpec;
use super::tool_call::{message, obj, text_part, CallShape, ToolAnswer};
use super::tool_slots::{key, text_or_parts, Seg, ToolSlot};
use super::{Format, ImageShape, MessageError, ToolDialect};
use crate::json_path::JsonPath;
use serde_json::{Map, Value};

/// `{type:'image', source:{type:'base64', media_type, data}}`.
pub(super) const BASE64_SOURCE: ImageShape = ImageShape::new(&ShapeSpec::base64(
    "AnthropicBase64",
    Some("source"),
    "data",
    Some("media_type"),
));

/// `{type:'image', source:{type:'url', url}}`.
pub(super) const URL_SOURCE: ImageShape =
    ImageShape::new(&ShapeSpec::url("AnthropicUrl", Some("source"), "url", None));

/// Evidence of it: an image with a `source`, or a `tool_use`,
/// `tool_result`, `document`, `thinking`, `redacted_thinking` or
/// `server_tool_use` block.
const EVIDENCE: Evidence = Evidence {
    part: Some(|map, t| {
        (t == "image" && map.contains_key("source"))
            || matches!(
                t,
                "tool_use"
                    | "tool_result"
                    | "document"
                    | "thinking"
                    | "redacted_thinking"
                    | "server_tool_use"
            )
    }),
    ..Evidence::NONE
};

/// The key of a request body holding the messages (the Messages API).
pub(super) const MESSAGES_KEY: &str = "messages";

/// The Anthropic Messages format.
pub(super) static WIRE: WireFormat = WireFormat::role_content(
    Format::Anthropic,
    &["data"],
    classify,
    CALL,
    answer,
    EVIDENCE,
    tool_slots,
    // Whose turn a message is: by its role; a user message of `tool_result` blocks only is tool results.
    super::turn::by_role_and_tool_result_blocks,
);

/// Where its tool calls keep their id, name and arguments.
const CALL: CallShape = CallShape {
    wrapper: None,
    id: &["id"],
    name: &["name"],
    arguments: &["input"],
};

/// How it writes new parts, and the image shapes it holds.
pub(super) static NEW_PARTS: NewParts = NewParts {
    new_part: image_part,
    new_shape: BASE64_SOURCE,
    shapes: &[BASE64_SOURCE, URL_SOURCE],
    text_type: Some("text"),
    string_content: true,
    file_parts: true,
    tool_dialect: Some(ToolDialect::Anthropic),
    foreign_parts: true,
    cache_breakpoint: Some(cache_breakpoint),
};

/// Puts `cache_control: {type:'ephemeral'}` on the last block of a
/// message that can take one (not a `thinking` block), a string content
/// becoming one text block; true when the message holds a breakpoint now.
fn cache_breakpoint(message: &mut Value) -> bool {
    let Some(content) = message.get_mut("content") else {
        return false;
    };
    if let Value::String(text) = content {
        if text.is_empty() {
            return false;
        }
        *content = serde_json::json!([{ "type": "text", "text": std::mem::take(text) }]);
    }
    let Some(block) = content.as_array_mut().and_then(|blocks| {
        blocks.iter_mut().rev().find(|b| {
            !matches!(
                b.get("type").and_then(Value::as_str),
                Some("thinking" | "redacted_thinking")
            )
        })
    }) else {
        return false;
    };
    super::model::ephemeral_marker(block, "cache_control")
}

/// Images by file reference: `{type:'image', source:{type:'file',
/// file_id}}`, an Anthropic file; the part's other keys (`cache_control`)
/// stay.
pub(super) const FILE_REFS: Option<FileRefs> = Some(FileRefs {
    provider: Some(FileProvider::Anthropic),
    write: |template, _, id, _| {
        if template.shape != BASE64_SOURCE {
            return None;
        }
        let mut part = wire_without(template, &["source"]);
        let mut source = Map::new();
        source.insert("type".into(), "file".into());
        source.insert("file_id".into(), id.into());
        part.insert("source".into(), Value::Object(source));
        Some(part)
    },
    read: |part| {
        let source = part.get("source")?;
        match (part.get("type")?.as_str()?, source.get("type")?.as_str()?) {
            ("image", "file") => source.get("file_id")?.as_str(),
            _ => None,
        }
    },
});

/// A new `document` block, `{type:'document', source:{type:'base64',
/// media_type, data}, title}` (for PDFs; nothing else routes to it).
pub(super) fn file_part(filename: &str, mime: &str, payload: &str) -> Value {
    serde_json::json!({
        "type": "document",
        "source": { "type": "base64", "media_type": mime, "data": payload },
        "title": filename
    })
}

/// Its answer to a tool call: a user message holding a `tool_result` with
/// the text and the image.
fn answer(a: &ToolAnswer<'_>) -> Vec<Value> {
    let mut content = vec![text_part("text", a.text)];
    content.extend(a.image.map(|(mime, data)| image_part(mime, data, None)));
    vec![message(
        "user",
        Value::Array(vec![obj(vec![
            ("type", "tool_result".into()),
            ("tool_use_id", a.id_value()),
            ("content", Value::Array(content)),
        ])]),
    )]
}

/// A new image block, `{type:'image', source:{type:'base64', media_type,
/// data}}`.
fn image_part(mime: &str, payload: &str, _detail: Option<&str>) -> Value {
    let mut source = Map::new();
    source.insert("type".into(), "base64".into());
    source.insert("media_type".into(), mime.into());
    source.insert("data".into(), payload.into());
    let mut m = Map::new();
    m.insert("type".into(), "image".into());
    m.insert("source".into(), Value::Object(source));
    Value::Object(m)
}

/// Decides what an Anthropic content block is.
fn classify(part: &Map<String, Value>, path: &JsonPath) -> Result<PartKind, MessageError> {
    Ok(match part.get("type").and_then(Value::as_str) {
        Some("text") => PartKind::Text,
        Some("image") => {
            let source_path = path.key("source");
            let source = part
                .get("source")
                .and_then(Value::as_object)
                .ok_or_else(|| {
                    MessageError::invalid(&source_path, "an image block needs a `source` object")
                })?;
            match source.get("type").and_then(Value::as_str) {
                Some("base64") => {
                    require_str(source, "data", &source_path, "a base64 source")?;
                    PartKind::Image(BASE64_SOURCE)
                }
                Some("url") => {
                    require_str(source, "url", &source_path, "a url source")?;
                    PartKind::Image(URL_SOURCE)
                }
                _ => PartKind::Other,
            }
        }
        Some("tool_result") => match part.get("content") {
            Some(Value::Array(_)) => PartKind::ToolResult(ToolResultSlot::Content),
            _ => PartKind::Other,
        },
        _ => PartKind::Other,
    })
}
/// The content of every `tool_result` block of a message: a string, or
/// its `text` parts.
fn tool_slots(message: &Value) -> Vec<ToolSlot> {
    let mut out = Vec::new();
    let Some(Value::Array(parts)) = message.get("content") else {
        return out;
    };
    for (i, p) in parts.iter().enumerate() {
        if p.get("type").and_then(Value::as_str) != Some("tool_result") {
            continue;
        }
        if let Some(content) = p.get("content") {
            let base = vec![key("content"), Seg::Index(i), key("content")];
            text_or_parts(content, base, &mut out);
        }
    }
    out
}

