//! OpenAI Responses input items. A message `{role, content, type?:'message'}`
//! holds a string or `input_text`, `input_image` (`image_url` a data URL or
//! a URL, `detail`) and `input_file` parts; a `function_call_output` or
//! `custom_tool_call_output` item holds its `output` the same way (a string
//! or a list of those parts), and its images are history images like any
//! other. Every other item (`function_call`, `reasoning`, `item_reference`,
//! …), with or without a `role`, passes through untouched. A placeholder
//! takes an image's place as `{type:'input_text', text}`. A
//! `computer_call_output`'s `output` is one `computer_screenshot`
//! (`image_url` or `file_id`, nothing else): there a placeholder goes as a
//! picture of its text (see `picture.rs`), and an offloaded screenshot as
//! its `file_id`.

use super::file_ref::{wire_without, FileProvider, FileRefs};
use super::decode::{message_object, optional_role, take_content};
use super::evidence::Evidence;
use super::model::{NewParts, PartKind, Slot, WireFormat};
use super::part::{Content, Part};
use super::shape::ShapeSpec;
use super::tool_call::{obj, CallShape, ToolAnswer};
use super::tool_slots::{key, typed_text_parts, SlotKind, ToolSlot};
use super::{picture, Format, ImageShape, ImagePart, Message, MessageError, Role, ToolDialect, Turn};
use crate::json_path::JsonPath;
use crate::media::data_url::format_data_url;
use serde_json::{Map, Value};

/// Item types whose `output` holds content parts.
const TOOL_OUTPUTS: [&str; 2] = ["function_call_output", "custom_tool_call_output"];

/// `{type:'input_image', image_url, detail}`; `image_url` is a data URL or a URL.
pub(super) const INPUT_IMAGE: ImageShape = ImageShape::new(&ShapeSpec::url(
    "ResponsesInputImage",
    None,
    "image_url",
    None,
));

/// A `computer_call_output`'s `{type:'computer_screenshot', image_url}`.
pub(super) const COMPUTER_SCREENSHOT: ImageShape = ImageShape::new(&ShapeSpec::url(
    "ResponsesComputerScreenshot",
    None,
    "image_url",
    None,
));

/// Evidence of it: a top-level item `type` other than `message` (a
/// format whose own item types are narrower says so first); an
/// `input_text`, `input_image`, `input_file` or `output_text` part; last, a
/// message that says `type:'message'`.
const EVIDENCE: Evidence = Evidence {
    shape: Some(|m| m.plain_object() && m.is_item()),
    exclusive_part: Some(|_, t| {
        matches!(
            t,
            "input_text" | "input_image" | "input_file" | "output_text"
        )
    }),
    // A Responses message may say what it is. `developer` is OpenAI's,
    // Chat Completions and Responses alike: no evidence either way (and
    // OpenAI is what is left when nothing decides).
    fields_last: Some(|m| m.type_name() == Some("message")),
    ..Evidence::NONE
};

/// The key of a request body holding the messages (`responses.create`).
pub(super) const MESSAGES_KEY: &str = "input";

/// OpenAI Responses input items.
pub(super) static WIRE: WireFormat = WireFormat {
    format: Format::OpenAiResponses,
    payload_keys: &["image_url", "file_data"],
    decode: Some(decode),
    classify,
    read_tool_result: None,
    encode_split: None,
    call: Ok(CallShape {
        wrapper: None,
        id: &["call_id"],
        name: &["name"],
        arguments: &["arguments"],
    }),
    answer,
    evidence: EVIDENCE,
    tool_slots,
    role_of: super::tool_slots::role_field,
    turn,
    tuples: false,
};

/// How it writes new parts, and the image shapes it holds.
pub(super) static NEW_PARTS: NewParts = NewParts {
    new_part: image_part,
    new_shape: INPUT_IMAGE,
    shapes: &[INPUT_IMAGE, COMPUTER_SCREENSHOT],
    text_type: Some("input_text"),
    string_content: true,
    file_parts: true,
    tool_dialect: Some(ToolDialect::Function),
    foreign_parts: true,
    cache_breakpoint: None,
};

/// Images by file reference: `{type:'input_image', file_id, detail}`, an
/// OpenAI file (`detail` as the part asked, else `auto`), or a screenshot's
/// `{type:'computer_screenshot', file_id}`.
pub(super) const FILE_REFS: Option<FileRefs> = Some(FileRefs {
    provider: Some(FileProvider::OpenAi),
    write: |template, _, id, _| {
        let input_image = template.shape == INPUT_IMAGE;
        if !input_image && template.shape != COMPUTER_SCREENSHOT {
            return None;
        }
        let mut part = wire_without(template, &["image_url", "file_id"]);
        part.insert("file_id".into(), id.into());
        if input_image {
            part.entry("detail").or_insert_with(|| "auto".into());
        }
        Some(part)
    },
    read: |part| match part.get("type").and_then(Value::as_str) {
        Some("input_image" | "computer_screenshot") => part.get("file_id").and_then(Value::as_str),
        _ => None,
    },
});

/// A new `input_file` part, `{type:'input_file', filename,
/// file_data:'data:…'}`.
pub(super) fn file_part(filename: &str, mime: &str, payload: &str) -> Value {
    serde_json::json!({
        "type": "input_file",
        "filename": filename,
        "file_data": format_data_url(mime, payload)
    })
}

/// Its answer to a tool call: a `function_call_output` holding the text and
/// the image.
fn answer(a: &ToolAnswer<'_>) -> Vec<Value> {
    let mut output = vec![obj(vec![
        ("type", "input_text".into()),
        ("text", a.text.into()),
    ])];
    output.extend(a.image.map(|(mime, data)| image_part(mime, data, None)));
    vec![obj(vec![
        ("type", "function_call_output".into()),
        ("call_id", a.id_value()),
        ("output", Value::Array(output)),
    ])]
}

/// A new `input_image` part, `{type:'input_image', image_url:'data:…',
/// detail}` (`detail` defaults to `auto`).
fn image_part(mime: &str, payload: &str, detail: Option<&str>) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), "input_image".into());
    m.insert("image_url".into(), format_data_url(mime, payload).into());
    m.insert("detail".into(), detail.unwrap_or("auto").into());
    Value::Object(m)
}

/// Reads one input item: a message's `content`, a tool output's `output`,
/// nothing of any other item.
fn decode(value: Value, path: &JsonPath) -> Result<Message, MessageError> {
    let mut map = message_object(value, path)?;
    let role = optional_role(&map, path)?;
    let item_type = map.get("type").and_then(Value::as_str);
    if item_type == Some("computer_call_output") {
        return Ok(screenshot_output(map));
    }
    let (role, key) = match (item_type, role) {
        (Some(t), _) if TOOL_OUTPUTS.contains(&t) => (Role::Tool, Some("output")),
        (None | Some("message"), Some(role)) => (role, Some("content")),
        (_, role) => (role.unwrap_or(Role::Other), None),
    };
    let content = match key {
        Some(key) => take_content(&WIRE, &mut map, key, path)?,
        None => Content::Absent,
    };
    Ok(Message::lifted(
        &WIRE,
        role,
        content,
        Value::Object(map),
        Slot::Key(key.unwrap_or("content")),
    ))
}

/// A `computer_call_output` item: its `output` the one part of its content,
/// a screenshot by `image_url` an image, a picture of a placeholder that
/// placeholder's text part, a screenshot by `file_id` passed through. An
/// `output` of another kind stays in the item, and the item has no content.
fn screenshot_output(mut map: Map<String, Value>) -> Message {
    let output = map
        .get_mut("output")
        .filter(|o| o.get("type").and_then(Value::as_str) == Some("computer_screenshot"));
    let content = match output.map(std::mem::take) {
        Some(Value::Object(output)) => Content::Parts(vec![screenshot_part(output)]),
        _ => Content::Absent,
    };
    Message::lifted(
        &WIRE,
        Role::Tool,
        content,
        Value::Object(map),
        Slot::Picture("output"),
    )
}

/// A `computer_screenshot` as a part: by `image_url`, an image or the
/// placeholder it is a picture of; by `file_id`, passed through.
fn screenshot_part(output: Map<String, Value>) -> Part {
    let Some(url) = output.get("image_url").and_then(Value::as_str) else {
        return Part::Other(Value::Object(output));
    };
    match picture::shown_in_data_url(url) {
        Some(text) => Part::typed_text(Some("input_text"), text),
        None => Part::Image(ImagePart {
            wire: output,
            shape: COMPUTER_SCREENSHOT,
        }),
    }
}

/// Decides what a content part of a message or a tool output is.
fn classify(part: &Map<String, Value>, path: &JsonPath) -> Result<PartKind, MessageError> {
    Ok(match part.get("type").and_then(Value::as_str) {
        Some("input_text") => PartKind::Text,
        Some("input_image") => match part.get("image_url") {
            Some(Value::String(_)) => PartKind::Image(INPUT_IMAGE),
            // An uploaded file's `file_id`: nothing inline.
            None | Some(Value::Null) => PartKind::Other,
            Some(_) => {
                return Err(MessageError::invalid(
                    &path.key("image_url"),
                    "an input_image part's `image_url` is a string",
                ))
            }
        },
        _ => PartKind::Other,
    })
}

/// A Responses tool output item's `output`: a string, or `input_text` parts.
fn tool_slots(item: &Value) -> Vec<ToolSlot> {
    let mut out = Vec::new();
    let is_output = matches!(
        item.get("type").and_then(Value::as_str),
        Some("function_call_output" | "custom_tool_call_output")
    );
    let base = [key("output")];
    match item.get("output") {
        Some(Value::String(_)) if is_output => {
            out.push(ToolSlot::new(base.to_vec(), SlotKind::Text))
        }
        Some(Value::Array(parts)) if is_output => {
            typed_text_parts(parts, &base, "input_text", &mut out)
        }
        _ => {}
    }
    out
}

/// Items the model outputs besides its messages: its tool calls, its
/// reasoning, the server's own tools' calls and a compaction.
const MODEL_ITEMS: [&str; 16] = [
    "function_call",
    "custom_tool_call",
    "computer_call",
    "local_shell_call",
    "shell_call",
    "apply_patch_call",
    "tool_search_call",
    "web_search_call",
    "file_search_call",
    "image_generation_call",
    "code_interpreter_call",
    "mcp_call",
    "mcp_list_tools",
    "mcp_approval_request",
    "reasoning",
    "compaction",
];

/// Items that answer the model's calls.
const RESULT_ITEMS: [&str; 9] = [
    "function_call_output",
    "custom_tool_call_output",
    "computer_call_output",
    "local_shell_call_output",
    "shell_call_output",
    "apply_patch_call_output",
    "tool_search_output",
    "mcp_approval_response",
    "program_output",
];

/// Whose turn an item is: a message by its role; a tool call, reasoning or
/// a compaction the model's output; a call's output tool results; any other
/// item (`item_reference`, …) neither.
fn turn(role: Role, _: &Content, item: &Value) -> Turn {
    match item.get("type").and_then(Value::as_str) {
        None | Some("message") => match role {
            Role::User => Turn::Person,
            Role::Assistant => Turn::Model,
            Role::Tool => Turn::ToolResults,
            Role::System | Role::Other => Turn::Other,
        },
        Some(t) if MODEL_ITEMS.contains(&t) => Turn::Model,
        Some(t) if RESULT_ITEMS.contains(&t) => Turn::ToolResults,
        Some(_) => Turn::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::decode_messages;
    use crate::messages::test_support::{assert_round_trips, inline_images};
    use serde_json::json;

    fn read(values: Vec<Value>) -> Result<Vec<Message>, MessageError> {
        decode_messages(
            values,
            Some(Format::OpenAiResponses),
            &JsonPath::root("input"),
        )
        .map(|(_, m)| m)
    }

    #[test]
    fn reads_messages_and_tool_outputs_and_passes_other_items() {
        let items = vec![
            json!({"role":"user","content":[{"type":"input_text","text":"hi"},{"type":"input_image","image_url":"data:image/png;base64,AAAA","detail":"high"},{"type":"input_image","file_id":"file-1","detail":"auto"}],"type":"message"}),
            json!({"type":"function_call","call_id":"c1","name":"shot","arguments":"{}","id":"fc_1","status":"completed"}),
            json!({"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"done"},{"type":"input_image","image_url":"data:image/gif;base64,R0lG","detail":"low"}]}),
            json!({"type":"function_call_output","call_id":"c2","output":"{\"ok\":true}"}),
            json!({"type":"reasoning","id":"rs_1","summary":[],"content":[{"type":"reasoning_text","text":"…"}]}),
            json!({"type":"item_reference","id":"msg_1"}),
            json!({"role":"assistant","content":"ok","phase":"final_answer"}),
        ];
        let msgs = read(items.clone()).unwrap();
        let roles: Vec<Role> = msgs.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            [
                Role::User,
                Role::Other,
                Role::Tool,
                Role::Tool,
                Role::Other,
                Role::Other,
                Role::Assistant
            ]
        );
        let seen = inline_images(&msgs, "input");
        assert_eq!(
            seen,
            vec![
                (
                    "input[0].content[1]".into(),
                    Some((Some("image/png".into()), "AAAA".into()))
                ),
                (
                    "input[2].output[1]".into(),
                    Some((Some("image/gif".into()), "R0lG".into()))
                ),
            ]
        );
        assert_round_trips(msgs, &items);
    }

    #[test]
    fn refuses_wrong_shapes_with_their_paths() {
        let err = |v| match read(vec![v]) {
            Err(MessageError::InvalidMessage { path, .. }) => path,
            other => format!("{other:?}"),
        };
        assert_eq!(err(json!("hi")), "input[0]");
        assert_eq!(err(json!({"role":7,"content":"x"})), "input[0].role");
        assert_eq!(
            err(json!({"role":"user","content":{"a":1}})),
            "input[0].content"
        );
        assert_eq!(
            err(
                json!({"role":"user","content":[{"type":"input_image","image_url":3,"detail":"auto"}]})
            ),
            "input[0].content[0].image_url"
        );
        assert_eq!(
            err(
                json!({"type":"function_call_output","call_id":"c","output":[{"type":"input_text"}]})
            ),
            "input[0].output[0].text"
        );
    }
}
