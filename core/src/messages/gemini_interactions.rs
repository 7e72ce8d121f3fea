//! Google's Interactions API (`ai.interactions.create`, the AI SDK's
//! `google.interactions()`): an `input` that is
//! - a list of steps: `user_input{content}`, `model_output{content}`,
//!   `thought{signature, summary}`, `function_call{id, name, arguments}`,
//!   `function_result{call_id, name?, is_error?, result}` (a string, a list
//!   of content or an object) and server-tool steps (`google_search_call`,
//!   …), which pass through untouched, signatures and all;
//! - a list of content (one user turn: `{type:'text', text}`,
//!   `{type:'image', data | uri, mime_type, resolution?}`, audio, document,
//!   video), each entry read as a message that is itself one part;
//! - or the older turns `{role:'user' | 'model', content}` stored histories
//!   still hold (the SDK dropped them in 2026-08).
//!
//! Images with `data` are inline; with `uri` they are references and pass
//! through. A placeholder takes an image's place as `{type:'text', text}`,
//! in a step's content and in a function result alike. The images of a
//! content-list input are all the newest turn's: they stay inline.

use super::file_ref::{wire_without, FileProvider, FileRefs};
use super::decode::{decode_content, kind_of, message_object};
use super::evidence::{Evidence, MessageFields};
use super::model::{NewParts, PartKind, Slot, WireFormat};
use super::part::{Content, ToolResultSlot};
use super::shape::ShapeSpec;
use super::tool_call::{obj, text_part, CallShape, ToolAnswer};
use super::tool_slots::{key, role_field, text_or_parts, Seg, SlotKind, ToolSlot};
use super::turn::{only_tool_results, part_type};
use super::{Format, ImageShape, Message, MessageError, Part, Role, ToolDialect, Turn};
use crate::json_path::JsonPath;
use serde_json::{Map, Value};

/// `{type:'image', data, mime_type, resolution?}`.
pub(super) const IMAGE: ImageShape = ImageShape::new(&ShapeSpec::base64(
    "InteractionsImage",
    None,
    "data",
    Some("mime_type"),
));

/// The same image as an entry of a content-list input, which is all one
/// user turn: it stays inline.
pub(super) const INPUT_IMAGE: ImageShape = ImageShape::new(&ShapeSpec {
    replaceable_by_text: false,
    ..ShapeSpec::base64("InteractionsInputImage", None, "data", Some("mime_type"))
});

/// Evidence of it: a step type only it has, a `function_call` whose
/// `arguments` are an object and which has no `call_id`, a content entry
/// at the top level, or an older turn `{role:'model', content}`; an image
/// with `mime_type` beside `data` or `uri`.
const EVIDENCE: Evidence = Evidence {
    narrow_shape: Some(is_own_entry),
    shape: Some(|m| {
        !m.tuple && m.parts_array().is_none() && m.role_name() == Some("model") && m.content.is_some()
    }),
    exclusive_part: Some(|map, t| t == "image" && is_own_image(map)),
    ..Evidence::NONE
};

/// The key of a request body holding the messages (`interactions.create`).
pub(super) const MESSAGES_KEY: &str = "input";

/// The Interactions API's input.
pub(super) static WIRE: WireFormat = WireFormat {
    format: Format::GeminiInteractions,
    payload_keys: &["data"],
    decode: Some(decode),
    classify,
    read_tool_result: None,
    encode_split: None,
    call: Ok(CallShape {
        wrapper: None,
        id: &["id"],
        name: &["name"],
        arguments: &["arguments"],
    }),
    answer,
    evidence: EVIDENCE,
    tool_slots,
    role_of,
    turn,
    tuples: false,
};

/// How it writes new parts, and the image shapes it holds.
pub(super) static NEW_PARTS: NewParts = NewParts {
    new_part: image_part,
    new_shape: IMAGE,
    shapes: &[IMAGE, INPUT_IMAGE],
    text_type: Some("text"),
    string_content: true,
    file_parts: true,
    tool_dialect: Some(ToolDialect::Function),
    foreign_parts: true,
    cache_breakpoint: None,
};

/// Step types only this API has. (`function_call` and `file_search_call`
/// are Responses item types too: they decide nothing alone.)
const STEP_TYPES: [&str; 17] = [
    "user_input",
    "model_output",
    "thought",
    "function_result",
    "google_search_call",
    "google_search_result",
    "code_execution_call",
    "code_execution_result",
    "url_context_call",
    "url_context_result",
    "google_maps_call",
    "google_maps_result",
    "mcp_server_tool_call",
    "mcp_server_tool_result",
    "file_search_result",
    "retrieval_call",
    "retrieval_result",
];

/// The content types of a content-list input.
const CONTENT_TYPES: [&str; 5] = ["text", "image", "audio", "document", "video"];

/// True when an entry's top-level `type` says it is this API's: a step only
/// it has, a `function_call` without a Responses `call_id`, or a content
/// entry (no other format has `text` or `image` at the top level).
fn is_own_entry(m: &MessageFields<'_>) -> bool {
    let Some(item_type) = m.type_name() else {
        return false;
    };
    STEP_TYPES.contains(&item_type)
        || CONTENT_TYPES.contains(&item_type)
        || (item_type == "function_call" && !m.call_id && m.object_arguments)
}

/// True for an image content part only this API writes: `mime_type` beside
/// `data` or `uri`, without LangChain's `source_type`.
fn is_own_image(part: &Map<String, Value>) -> bool {
    part.contains_key("mime_type")
        && (part.contains_key("data") || part.contains_key("uri"))
        && !part.contains_key("source_type")
}

/// Images by file reference: `{type:'image', uri, mime_type,
/// resolution?}`, a Gemini file (an entry of a content-list input stays
/// inline).
pub(super) const FILE_REFS: Option<FileRefs> = Some(FileRefs {
    provider: Some(FileProvider::Gemini),
    write: |template, _, uri, mime| {
        if template.shape != IMAGE {
            return None;
        }
        let mut part = wire_without(template, &["data", "uri"]);
        part.insert("uri".into(), uri.into());
        part.insert("mime_type".into(), mime.into());
        Some(part)
    },
    read: |part| match part.get("type").and_then(Value::as_str) {
        Some("image") => part.get("uri").and_then(Value::as_str),
        _ => None,
    },
});

/// A new file part, `{type:'document', data, mime_type}`.
pub(super) fn file_part(_filename: &str, mime: &str, payload: &str) -> Value {
    obj(vec![
        ("type", "document".into()),
        ("data", payload.into()),
        ("mime_type", mime.into()),
    ])
}

/// A new image part, `{type:'image', data, mime_type}`; OpenAI's `low` and
/// `high` detail become its `resolution`.
fn image_part(mime: &str, payload: &str, detail: Option<&str>) -> Value {
    let mut fields = vec![
        ("type", "image".into()),
        ("data", payload.into()),
        ("mime_type", mime.into()),
    ];
    if let Some(level @ ("low" | "high")) = detail {
        fields.push(("resolution", level.into()));
    }
    obj(fields)
}

/// Its answer to a tool call: a `function_result` step whose result holds
/// the text and the image.
fn answer(a: &ToolAnswer<'_>) -> Vec<Value> {
    let mut result = vec![text_part("text", a.text)];
    result.extend(a.image.map(|(mime, data)| image_part(mime, data, None)));
    vec![obj(vec![
        ("type", "function_result".into()),
        ("call_id", a.id_value()),
        ("name", a.name.into()),
        ("result", Value::Array(result)),
    ])]
}

/// Reads one entry of `input`: a step, a content entry or an older turn.
fn decode(value: Value, path: &JsonPath) -> Result<Message, MessageError> {
    let map = message_object(value, path)?;
    if let Some(role) = map.get("role") {
        let Some(role) = role.as_str().map(Role::from_name) else {
            return Err(MessageError::invalid(
                &path.key("role"),
                "role must be a string",
            ));
        };
        return content_message(role, map, "content", path);
    }
    let item_type = match map.get("type") {
        Some(Value::String(t)) => t.as_str(),
        _ => {
            return Err(MessageError::invalid(
                path,
                "an Interactions input entry is a step or a content with a string `type`, or a turn {role, content}",
            ))
        }
    };
    let role = match item_type {
        "user_input" => Role::User,
        "model_output" => Role::Assistant,
        "function_result" => Role::Tool,
        "thought" | "function_call" => Role::Assistant,
        t if CONTENT_TYPES.contains(&t) => return content_entry(map, path),
        _ => Role::Other,
    };
    let key = match item_type {
        "user_input" | "model_output" => "content",
        "function_result" => "result",
        _ => {
            return Ok(Message::lifted(
                &WIRE,
                role,
                Content::Absent,
                Value::Object(map),
                Slot::Key("content"),
            ))
        }
    };
    if item_type == "function_result" && map.get(key).is_some_and(Value::is_object) {
        // A result that is an object: JSON the tool returned, passed through.
        return Ok(Message::lifted(
            &WIRE,
            role,
            Content::Absent,
            Value::Object(map),
            Slot::Key(key),
        ));
    }
    let message = content_message(role, map, key, path)?;
    // A step's `content` is a list (a result, or a string content read as
    // it came, may be a string).
    Ok(
        if key == "content" && matches!(message.content, Content::Parts(_)) {
            message.parts_only()
        } else {
            message
        },
    )
}

/// A message whose content is under `key`: a string or a list of content.
fn content_message(
    role: Role,
    mut map: Map<String, Value>,
    key: &'static str,
    path: &JsonPath,
) -> Result<Message, MessageError> {
    let content = match map.get_mut(key) {
        Some(slot) => decode_content(&WIRE, std::mem::take(slot), &path.key(key))?,
        None => Content::Absent,
    };
    Ok(Message::lifted(
        &WIRE,
        role,
        content,
        Value::Object(map),
        Slot::Key(key),
    ))
}

/// An entry of a content-list input: a user message that is itself its one
/// part, an image kept inline.
fn content_entry(map: Map<String, Value>, path: &JsonPath) -> Result<Message, MessageError> {
    let part = super::decode::decode_part(&WIRE, Value::Object(map), path)?;
    let part = match part {
        super::Part::Image(mut image) => {
            image.shape = INPUT_IMAGE;
            super::Part::Image(image)
        }
        other => other,
    };
    Ok(Message::lifted(
        &WIRE,
        Role::User,
        Content::Parts(vec![part]),
        Value::Null,
        Slot::Itself,
    ))
}

/// Decides what a content part is: text, an inline image, a
/// `function_result` block (as the AI SDK sends a tool's answer, inside a
/// `user_input` step) whose string or list `result` is read like a step's,
/// or anything else (an image by `uri`, audio, a document, video), which
/// passes through.
fn classify(part: &Map<String, Value>, path: &JsonPath) -> Result<PartKind, MessageError> {
    Ok(match part.get("type").and_then(Value::as_str) {
        Some("text") => PartKind::Text,
        Some("function_result") => match part.get("result") {
            Some(Value::String(_) | Value::Array(_)) => {
                PartKind::ToolResult(ToolResultSlot::Result)
            }
            _ => PartKind::Other,
        },
        Some("image") => match part.get("data") {
            Some(Value::String(_)) => PartKind::Image(IMAGE),
            None | Some(Value::Null) => PartKind::Other,
            Some(other) => {
                return Err(MessageError::invalid(
                    &path.key("data"),
                    format!("an image's `data` is base64 text, not {}", kind_of(other)),
                ))
            }
        },
        _ => PartKind::Other,
    })
}

/// A `function_result` step's `result`, or that of each `function_result`
/// block in a step's (or a turn's) `content`: a string, its `text`
/// content, or an object.
fn tool_slots(step: &Value) -> Vec<ToolSlot> {
    let mut out = Vec::new();
    if step.get("type").and_then(Value::as_str) == Some("function_result") {
        result_slots(step, Vec::new(), &mut out);
    } else if let Some(Value::Array(blocks)) = step.get("content") {
        for (i, block) in blocks.iter().enumerate() {
            if block.get("type").and_then(Value::as_str) == Some("function_result") {
                result_slots(block, vec![key("content"), Seg::Index(i)], &mut out);
            }
        }
    }
    out
}

/// The slots of the `result` of a `function_result` at `base`.
fn result_slots(function_result: &Value, mut base: Vec<Seg>, out: &mut Vec<ToolSlot>) {
    base.push(key("result"));
    match function_result.get("result") {
        Some(Value::Object(_)) => out.push(ToolSlot::new(base, SlotKind::Structured)),
        Some(result) => text_or_parts(result, base, out),
        None => {}
    }
}

/// The role of a raw entry: a step's by its type, a content entry's the
/// user's, a turn's by its `role`.
fn role_of(entry: &Value) -> Option<Role> {
    match entry.get("type").and_then(Value::as_str) {
        _ if entry.get("role").is_some() => role_field(entry),
        Some("user_input") => Some(Role::User),
        Some("model_output" | "thought" | "function_call") => Some(Role::Assistant),
        Some("function_result") => Some(Role::Tool),
        Some(t) if CONTENT_TYPES.contains(&t) => Some(Role::User),
        _ => None,
    }
}

/// Whose turn an entry is: a `user_input` step (or an older `user` turn,
/// or a content entry) is the person's unless it holds only
/// `function_result` blocks (as the AI SDK sends a tool's answer); a
/// `model_output`, `thought` or `function_call` step (an older `model`
/// turn) the model's output; a `function_result` step tool results.
fn turn(role: Role, content: &Content, _: &Value) -> Turn {
    match role {
        Role::User if only_tool_results(content, is_function_result) => Turn::ToolResults,
        Role::User => Turn::Person,
        Role::Assistant => Turn::Model,
        Role::Tool => Turn::ToolResults,
        Role::System | Role::Other => Turn::Other,
    }
}

/// True for a `function_result` block.
fn is_function_result(part: &Part) -> bool {
    part_type(part) == Some("function_result")
}

#[cfg(test)]
#[path = "gemini_interactions_tests.rs"]
mod tests;
