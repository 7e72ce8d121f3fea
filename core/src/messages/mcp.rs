//! MCP sampling messages `{role, content, _meta?}`, where `content` is one
//! block or an array of blocks: `{type:'text', text}`, `{type:'image', data,
//! mimeType}`, `{type:'audio', data, mimeType}` (not an image: it passes
//! through), `{type:'resource', resource:{uri, mimeType, blob | text}}` (an
//! image when it holds a `blob` of an `image/…` type), `{type:'tool_use'}`
//! and `{type:'tool_result', toolUseId, content:[…]}`, whose blocks (those of
//! a `CallToolResult`) are read like the message's. A placeholder takes an
//! image's place as `{type:'text', text}`; a message whose content was one
//! block keeps it one block.

use super::decode::{decode_content, decode_part, kind_of, message_object, required_role};
use super::evidence::Evidence;
use super::model::{NewParts, PartKind, Slot, WireFormat};
use super::part::Content;
use super::part::ToolResultSlot;
use super::shape::ShapeSpec;
use super::tool_call::{obj, text_part, CallShape, ToolAnswer};
use super::tool_slots::{key, typed_text_parts, Seg, SlotKind, ToolSlot};
use super::{Format, ImageShape, Message, MessageError, ToolDialect};
use crate::json_path::JsonPath;
use crate::media::mime::is_image_mime;
use serde_json::{Map, Value};

/// `{type:'image', data, mimeType}`: MCP image content (also LangChain JS's standard block).
pub(super) const DATA_MIME_TYPE: ImageShape = ImageShape::new(&ShapeSpec::base64(
    "DataMimeType",
    None,
    "data",
    Some("mimeType"),
));

/// `{type:'resource', resource:{uri, mimeType:'image/…', blob}}`: an embedded resource.
pub(super) const RESOURCE_BLOB: ImageShape = ImageShape::new(&ShapeSpec::base64(
    "McpResourceBlob",
    Some("resource"),
    "blob",
    Some("mimeType"),
));

/// Evidence of it: one content block object as a message's `content`; a
/// `tool_result` with a `toolUseId`, or a `resource` or `resource_link`
/// block; an image or audio block with `data` text and a `mimeType`.
const EVIDENCE: Evidence = Evidence {
    shape: Some(|m| m.plain_object() && !m.is_item() && m.content.is_some_and(Value::is_object)),
    exclusive_part: Some(|map, t| {
        (t == "tool_result" && map.contains_key("toolUseId"))
            || matches!(t, "resource" | "resource_link")
    }),
    part: Some(|map, t| {
        matches!(t, "image" | "audio")
            && map.contains_key("mimeType")
            && map.get("data").is_some_and(Value::is_string)
    }),
    ..Evidence::NONE
};

/// The key of a request body holding the messages (`sampling/createMessage`).
pub(super) const MESSAGES_KEY: &str = "messages";

/// MCP tool results (`CallToolResult` content as messages).
pub(super) static WIRE: WireFormat = WireFormat {
    format: Format::Mcp,
    payload_keys: &["data", "blob"],
    decode: Some(decode),
    classify,
    read_tool_result: None,
    encode_split: None,
    call: Ok(CallShape {
        wrapper: Some("params"),
        id: &["id"],
        name: &["name"],
        arguments: &["arguments"],
    }),
    answer,
    evidence: EVIDENCE,
    tool_slots,
    role_of: super::tool_slots::role_field,
    // Whose turn a message is: by its role; a user message of `tool_result` blocks only is tool results.
    turn: super::turn::by_role_and_tool_result_blocks,
    tuples: false,
};

/// How it writes new parts, and the image shapes it holds.
pub(super) static NEW_PARTS: NewParts = NewParts {
    new_part: image_part,
    new_shape: DATA_MIME_TYPE,
    shapes: &[DATA_MIME_TYPE, RESOURCE_BLOB],
    text_type: Some("text"),
    string_content: false,
    file_parts: true,
    tool_dialect: Some(ToolDialect::Mcp),
    foreign_parts: true,
    cache_breakpoint: None,
};

/// Its API takes no image by file reference (see `file_ref`).
pub(super) const FILE_REFS: Option<super::file_ref::FileRefs> = None;

/// A new `resource` block, `{type:'resource', resource:{uri, mimeType,
/// blob}}` (the file name as `uri`).
pub(super) fn file_part(filename: &str, mime: &str, payload: &str) -> Value {
    serde_json::json!({
        "type": "resource",
        "resource": { "uri": filename, "mimeType": mime, "blob": payload }
    })
}

/// Its answer to a tool call: a `CallToolResult` with the text and the image.
fn answer(a: &ToolAnswer<'_>) -> Vec<Value> {
    let mut content = vec![text_part("text", a.text)];
    content.extend(a.image.map(|(mime, data)| image_part(mime, data, None)));
    vec![obj(vec![
        ("content", Value::Array(content)),
        ("isError", false.into()),
    ])]
}

/// A new image block, `{type:'image', data, mimeType}`.
fn image_part(mime: &str, payload: &str, _detail: Option<&str>) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), "image".into());
    m.insert("data".into(), payload.into());
    m.insert("mimeType".into(), mime.into());
    Value::Object(m)
}

/// Reads one sampling message.
fn decode(value: Value, path: &JsonPath) -> Result<Message, MessageError> {
    let mut map = message_object(value, path)?;
    let role = required_role(&map, path)?;
    let content_path = path.key("content");
    let (content, slot) = match map.get_mut("content").map(std::mem::take) {
        None => (Content::Absent, Slot::Key("content")),
        Some(block @ Value::Object(_)) => (
            Content::Parts(vec![decode_part(&WIRE, block, &content_path)?]),
            Slot::SingleKey("content"),
        ),
        Some(blocks @ (Value::Array(_) | Value::Null)) => (
            decode_content(&WIRE, blocks, &content_path)?,
            Slot::Key("content"),
        ),
        Some(other) => {
            return Err(MessageError::invalid(
                &content_path,
                format!(
                    "content is one block or an array of blocks, not {}",
                    kind_of(&other)
                ),
            ))
        }
    };
    Ok(Message::lifted(
        &WIRE,
        role,
        content,
        Value::Object(map),
        slot,
    ))
}

/// Decides what a content block is. Blocks in shapes ctxpack does not read
/// as images (an image without inline `data`, a text resource) pass through.
fn classify(part: &Map<String, Value>, _path: &JsonPath) -> Result<PartKind, MessageError> {
    Ok(match part.get("type").and_then(Value::as_str) {
        Some("text") => PartKind::Text,
        Some("image") if part.get("data").is_some_and(Value::is_string) => {
            PartKind::Image(DATA_MIME_TYPE)
        }
        Some("resource") if is_image_blob(part.get("resource")) => PartKind::Image(RESOURCE_BLOB),
        Some("tool_result") if part.get("content").is_some_and(Value::is_array) => {
            PartKind::ToolResult(ToolResultSlot::Content)
        }
        _ => PartKind::Other,
    })
}

/// True for embedded resource contents holding an image as a `blob`.
fn is_image_blob(resource: Option<&Value>) -> bool {
    resource.is_some_and(|r| {
        r.get("blob").is_some_and(Value::is_string)
            && r.get("mimeType")
                .and_then(Value::as_str)
                .is_some_and(is_image_mime)
    })
}

/// The `text` blocks and `structuredContent` of every MCP `tool_result`
/// block of a message (whose content is one block or an array).
fn tool_slots(message: &Value) -> Vec<ToolSlot> {
    let blocks: Vec<(Vec<Seg>, &Value)> = match message.get("content") {
        Some(Value::Array(blocks)) => blocks
            .iter()
            .enumerate()
            .map(|(i, b)| (vec![key("content"), Seg::Index(i)], b))
            .collect(),
        Some(block @ Value::Object(_)) => vec![(vec![key("content")], block)],
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    for (base, block) in blocks {
        if block.get("type").and_then(Value::as_str) != Some("tool_result") {
            continue;
        }
        if let Some(Value::Array(inner)) = block.get("content") {
            let mut content = base.clone();
            content.push(key("content"));
            typed_text_parts(inner, &content, "text", &mut out);
        }
        if block.get("structuredContent").is_some() {
            let mut pointer = base;
            pointer.push(key("structuredContent"));
            out.push(ToolSlot {
                pointer,
                kind: SlotKind::Structured,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::decode_messages;
    use crate::messages::test_support::{assert_round_trips, inline_images};
    use serde_json::json;

    fn read(values: Vec<Value>) -> Result<Vec<Message>, MessageError> {
        decode_messages(values, Some(Format::Mcp), &JsonPath::root("messages")).map(|(_, m)| m)
    }

    #[test]
    fn reads_single_blocks_arrays_resources_and_tool_results() {
        let messages = vec![
            json!({"role":"user","content":{"type":"image","data":"AAAA","mimeType":"image/png","annotations":{"audience":["user"]}}}),
            json!({"role":"user","content":[
                {"type":"text","text":"hi"},
                {"type":"audio","data":"UklG","mimeType":"audio/wav"},
                {"type":"resource","resource":{"uri":"file:///a.gif","mimeType":"image/gif","blob":"R0lG"}},
                {"type":"resource","resource":{"uri":"file:///a.txt","mimeType":"text/plain","text":"x"}}
            ]}),
            json!({"role":"assistant","content":{"type":"tool_use","id":"t1","name":"shot","input":{}}}),
            json!({"role":"user","content":[{"type":"tool_result","toolUseId":"t1","content":[{"type":"image","data":"UklG","mimeType":"image/webp"}],"isError":false}],"_meta":{"k":1}}),
        ];
        let msgs = read(messages.clone()).unwrap();
        let seen = inline_images(&msgs, "messages");
        assert_eq!(
            seen,
            vec![
                (
                    "messages[0].content".into(),
                    Some((Some("image/png".into()), "AAAA".into()))
                ),
                (
                    "messages[1].content[2]".into(),
                    Some((Some("image/gif".into()), "R0lG".into()))
                ),
                (
                    "messages[3].content[0].content[0]".into(),
                    Some((Some("image/webp".into()), "UklG".into()))
                ),
            ]
        );
        assert_round_trips(msgs, &messages);
    }

    #[test]
    fn refuses_wrong_shapes_with_their_paths() {
        let err = |v| match read(vec![v]) {
            Err(MessageError::InvalidMessage { path, .. }) => path,
            other => format!("{other:?}"),
        };
        assert_eq!(
            err(json!({"content":{"type":"text","text":"x"}})),
            "messages[0]"
        );
        assert_eq!(
            err(json!({"role":"user","content":7})),
            "messages[0].content"
        );
        assert_eq!(
            err(json!({"role":"user","content":"hi"})),
            "messages[0].content"
        );
        assert_eq!(
            err(json!({"role":"user","content":{"type":"text","text":1}})),
            "messages[0].content.text"
        );
        assert_eq!(
            err(json!({"role":"user","content":[1]})),
            "messages[0].content[0]"
        );
    }
}
