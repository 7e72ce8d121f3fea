//! OpenAI Chat Completions: `{role, content: string | [{type:'text'},
//! {type:'image_url', image_url:{url, detail}}]}`.

use super::decode::require_str;
use super::evidence::Evidence;
use super::model::{NewParts, PartKind, WireFormat};
use super::shape::ShapeSpec;
use super::tool_call::{obj, then_user, CallShape, ToolAnswer};
use super::tool_slots::tool_message_slots;
use super::{Format, ImageShape, MessageError, ToolDialect};
use crate::json_path::JsonPath;
use crate::media::data_url::format_data_url;
use serde_json::{Map, Value};

/// `{type:'image_url', image_url:{url, detail?}}` (also LangChain's).
pub(super) const IMAGE_URL_OBJECT: ImageShape = ImageShape::new(&ShapeSpec::url(
    "ImageUrlObject",
    Some("image_url"),
    "url",
    None,
));

/// Evidence of it: OpenAI's tool call fields (`tool_calls`, `tool_call_id`,
/// `function_call`), decisive before any part; an `image_url`,
/// `input_audio` or `refusal` part, or a `file` part holding a `file`.
const EVIDENCE: Evidence = Evidence {
    fields_first: Some(|m| m.openai_call),
    part: Some(|map, t| {
        matches!(t, "image_url" | "input_audio" | "refusal")
            || (t == "file" && map.contains_key("file"))
    }),
    ..Evidence::NONE
};

/// The key of a request body holding the messages (Chat Completions).
pub(super) const MESSAGES_KEY: &str = "messages";

/// The OpenAI Chat Completions format.
pub(super) static WIRE: WireFormat = WireFormat::role_content(
    Format::OpenAi,
    &["url", "file_data"],
    classify,
    CALL,
    answer,
    EVIDENCE,
    tool_message_slots,
    // Whose turn a message is: by its role.
    super::turn::by_role,
);

/// Where its tool calls keep their id, name and arguments.
const CALL: CallShape = CallShape {
    wrapper: None,
    id: &["id"],
    name: &["function", "name"],
    arguments: &["function", "arguments"],
};

/// How it writes new parts, and the image shapes it holds.
pub(super) static NEW_PARTS: NewParts = NewParts {
    new_part: image_part,
    new_shape: IMAGE_URL_OBJECT,
    shapes: &[IMAGE_URL_OBJECT],
    text_type: Some("text"),
    string_content: true,
    file_parts: true,
    tool_dialect: Some(ToolDialect::OpenAi),
    foreign_parts: true,
    cache_breakpoint: None,
};

/// Its API takes no image by file reference (see `file_ref`).
pub(super) const FILE_REFS: Option<super::file_ref::FileRefs> = None;

/// A new file part, `{type:'file', file:{filename, file_data:'data:…'}}`
/// (LangChain writes the same).
pub(super) fn file_part(filename: &str, mime: &str, payload: &str) -> Value {
    serde_json::json!({
        "type": "file",
        "file": { "filename": filename, "file_data": format_data_url(mime, payload) }
    })
}

/// Its answer to a tool call: a `tool` message of text; the image follows
/// in a user message (a Chat Completions tool message carries text only).
fn answer(a: &ToolAnswer<'_>) -> Vec<Value> {
    then_user(
        obj(vec![
            ("role", "tool".into()),
            ("tool_call_id", a.id_value()),
            ("content", a.tool_text().into()),
        ]),
        a.text,
        a.image.map(|(mime, data)| image_part(mime, data, None)),
    )
}

/// A new `image_url` part, `{type:'image_url', image_url:{url:'data:…',
/// detail?}}` (LangChain writes the same).
pub(super) fn image_part(mime: &str, payload: &str, detail: Option<&str>) -> Value {
    let mut inner = Map::new();
    inner.insert("url".into(), format_data_url(mime, payload).into());
    if let Some(d) = detail {
        inner.insert("detail".into(), d.into());
    }
    let mut m = Map::new();
    m.insert("type".into(), "image_url".into());
    m.insert("image_url".into(), Value::Object(inner));
    Value::Object(m)
}

/// Decides what an OpenAI content part is.
fn classify(part: &Map<String, Value>, path: &JsonPath) -> Result<PartKind, MessageError> {
    Ok(match part.get("type").and_then(Value::as_str) {
        Some("text") => PartKind::Text,
        Some("image_url") => {
            let inner = part
                .get("image_url")
                .and_then(Value::as_object)
                .ok_or_else(|| {
                    MessageError::invalid(
                        &path.key("image_url"),
                        "an image_url part needs an `image_url` object",
                    )
                })?;
            require_str(inner, "url", &path.key("image_url"), "image_url")?;
            PartKind::Image(IMAGE_URL_OBJECT)
        }
        _ => PartKind::Other,
    })
}

