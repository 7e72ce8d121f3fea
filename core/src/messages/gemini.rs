//! Google Gemini `Content`: `{role?, parts}` where `role` is `user` (also
//! when absent, as the API reads it) or `model` (the assistant). Parts carry
//! no `type`: `{text}`, `{inlineData:{mimeType, data}}` (an image when
//! `mimeType` is `image/…`), `{fileData}`, `{functionCall}`,
//! `{functionResponse:{name, response, parts?}}` and others, which pass
//! through. A placeholder takes an image's place as `{text}`. Images inside
//! a `functionResponse.parts` (Gemini 3's multimodal function responses) are
//! history images too, but a `FunctionResponsePart` holds media only
//! (`inlineData`, `fileData`): there a placeholder goes as a picture of its
//! text (see `picture.rs`), read back as the placeholder, and an offloaded
//! image as `{fileData:{mimeType, fileUri}}`.

use super::file_ref::{wire_without, FileProvider, FileRefs};
use super::decode::{message_object, optional_role, parts_message};
use super::evidence::Evidence;
use super::model::{NewParts, PartKind, WireFormat};
use super::part::Content;
use super::part::ToolResultSlot;
use super::shape::ShapeSpec;
use super::tool_call::{obj, CallShape, ToolAnswer};
use super::tool_slots::{key, Seg, SlotKind, ToolSlot};
use super::turn::only_tool_results;
use super::{picture, Format, ImageShape, Message, MessageError, Part, Role, Turn};
use crate::json_path::JsonPath;
use crate::media::mime::is_image_mime;
use serde_json::{Map, Value};

/// `{inlineData:{mimeType, data}}`.
pub(super) const INLINE_DATA: ImageShape = ImageShape::new(&ShapeSpec::base64(
    "GeminiInlineData",
    Some("inlineData"),
    "data",
    Some("mimeType"),
));

/// `{inlineData:{mimeType, data}}` inside a `functionResponse.parts`, where
/// a placeholder goes as a picture of its text.
pub(super) const FUNCTION_RESPONSE_BLOB: ImageShape = ImageShape::new(&ShapeSpec::base64(
    "GeminiFunctionResponseBlob",
    Some("inlineData"),
    "data",
    Some("mimeType"),
));

/// Evidence of it: `parts` whose first entry is an object without a
/// `type` (Gemini parts say what they are by their one field), or the
/// `model` role on a message with empty or no `parts` and no `content`.
const EVIDENCE: Evidence = Evidence {
    shape: Some(|m| {
        let model = m.role_name() == Some("model");
        match m.parts_array() {
            Some([Value::Object(first), ..]) => !first.get("type").is_some_and(Value::is_string),
            Some([]) => !m.id && model,
            Some(_) => false,
            None => !m.tuple && model && m.content.is_none(),
        }
    }),
    ..Evidence::NONE
};

/// The key of a request body holding the messages (`generateContent`).
pub(super) const MESSAGES_KEY: &str = "contents";

/// Google Gemini `Content`.
pub(super) static WIRE: WireFormat = WireFormat {
    format: Format::Gemini,
    payload_keys: &["data"],
    decode: Some(decode),
    classify,
    read_tool_result: Some(read_tool_result),
    encode_split: None,
    call: Ok(CallShape {
        wrapper: Some("functionCall"),
        id: &["id"],
        name: &["name"],
        arguments: &["args"],
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
    new_shape: INLINE_DATA,
    shapes: &[INLINE_DATA, FUNCTION_RESPONSE_BLOB],
    text_type: None,
    string_content: false,
    file_parts: true,
    tool_dialect: None,
    foreign_parts: true,
    cache_breakpoint: None,
};

/// Images by file reference: `{fileData:{mimeType, fileUri}}`, a Gemini
/// file (a `FunctionResponsePart` takes one too); the part's other keys
/// stay.
pub(super) const FILE_REFS: Option<FileRefs> = Some(FileRefs {
    provider: Some(FileProvider::Gemini),
    write: |template, _, uri, mime| {
        if template.shape != INLINE_DATA && template.shape != FUNCTION_RESPONSE_BLOB {
            return None;
        }
        let mut part = wire_without(template, &["inlineData"]);
        let mut data = Map::new();
        data.insert("mimeType".into(), mime.into());
        data.insert("fileUri".into(), uri.into());
        part.insert("fileData".into(), Value::Object(data));
        Some(part)
    },
    read: |part| part.get("fileData")?.get("fileUri")?.as_str(),
});

/// A new file part, `{inlineData:{mimeType, data}}`.
pub(super) fn file_part(_filename: &str, mime: &str, payload: &str) -> Value {
    serde_json::json!({
        "inlineData": { "mimeType": mime, "data": payload }
    })
}

/// Its answer to a tool call: a user `Content` holding a `functionResponse`
/// with the text and, in its `parts`, the image.
fn answer(a: &ToolAnswer<'_>) -> Vec<Value> {
    let mut response = Map::new();
    if let Some(id) = a.id {
        response.insert("id".into(), id.into());
    }
    response.insert("name".into(), a.name.into());
    response.insert("response".into(), obj(vec![("output", a.text.into())]));
    if let Some((mime, data)) = a.image {
        response.insert(
            "parts".into(),
            Value::Array(vec![image_part(mime, data, None)]),
        );
    }
    vec![obj(vec![
        ("role", "user".into()),
        (
            "parts",
            Value::Array(vec![obj(vec![(
                "functionResponse",
                Value::Object(response),
            )])]),
        ),
    ])]
}

/// A new part, `{inlineData:{mimeType, data}}`.
fn image_part(mime: &str, payload: &str, _detail: Option<&str>) -> Value {
    let mut blob = Map::new();
    blob.insert("mimeType".into(), mime.into());
    blob.insert("data".into(), payload.into());
    let mut m = Map::new();
    m.insert("inlineData".into(), Value::Object(blob));
    Value::Object(m)
}

/// Reads one `Content`: its `parts` are its content.
fn decode(value: Value, path: &JsonPath) -> Result<Message, MessageError> {
    let map = message_object(value, path)?;
    let role = optional_role(&map, path)?.unwrap_or(Role::User);
    parts_message(&WIRE, role, map, path)
}

/// Decides what a Gemini part is, by the field it carries.
fn classify(part: &Map<String, Value>, path: &JsonPath) -> Result<PartKind, MessageError> {
    if let Some(blob) = part.get("inlineData") {
        let Some(blob) = blob.as_object() else {
            return Err(MessageError::invalid(
                &path.key("inlineData"),
                "`inlineData` is an object {mimeType, data}",
            ));
        };
        let image = blob
            .get("mimeType")
            .and_then(Value::as_str)
            .is_some_and(is_image_mime);
        return Ok(if image && blob.contains_key("data") {
            PartKind::Image(INLINE_DATA)
        } else {
            PartKind::Other
        });
    }
    let response_parts = part
        .get("functionResponse")
        .and_then(|f| f.get("parts"))
        .is_some_and(Value::is_array);
    if response_parts {
        return Ok(PartKind::ToolResult(ToolResultSlot::FunctionResponseParts));
    }
    Ok(if part.contains_key("text") {
        PartKind::Text
    } else {
        PartKind::Other
    })
}

/// A tool result's nested content once read: in a `functionResponse.parts`,
/// a picture of a placeholder is that placeholder's text part, and every
/// other image is in the shape that place writes back.
fn read_tool_result(content: &mut Content, slot: ToolResultSlot) {
    let Content::Parts(parts) = content else {
        return;
    };
    if slot != ToolResultSlot::FunctionResponseParts {
        return;
    }
    for part in parts {
        let Part::Image(img) = part else { continue };
        let shown = match img.source() {
            super::ImageSource::Base64 { data, .. } => picture::shown_placeholder(data),
            _ => None,
        };
        match shown {
            Some(text) => *part = Part::typed_text(None, text),
            None if img.shape == INLINE_DATA => img.shape = FUNCTION_RESPONSE_BLOB,
            None => {}
        }
    }
}

/// The `response` of every `functionResponse` part of a Gemini `Content`.
fn tool_slots(content: &Value) -> Vec<ToolSlot> {
    let Some(Value::Array(parts)) = content.get("parts") else {
        return Vec::new();
    };
    parts
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            p.get("functionResponse")
                .and_then(|f| f.get("response"))
                .is_some()
        })
        .map(|(i, _)| ToolSlot {
            pointer: vec![
                key("parts"),
                Seg::Index(i),
                key("functionResponse"),
                key("response"),
            ],
            kind: SlotKind::Structured,
        })
        .collect()
}

/// Whose turn a `Content` is: a `user` one (or one of the older
/// `function` role) holding `functionResponse` parts and, beside them, only
/// the data they return (`inlineData`, `fileData`: how a tool's images went
/// before `functionResponse.parts`) is tool results; a `model` one is the
/// model's output (its `functionCall` parts too); a `function` one without
/// a `functionResponse` is neither.
fn turn(role: Role, content: &Content, _: &Value) -> Turn {
    match role {
        Role::User | Role::Tool if function_responses(content) => Turn::ToolResults,
        Role::User => Turn::Person,
        Role::Assistant => Turn::Model,
        Role::Tool | Role::System | Role::Other => Turn::Other,
    }
}

/// True when `content` holds a `functionResponse` and, beside it, only data.
fn function_responses(content: &Content) -> bool {
    let any_response = match content {
        Content::Parts(parts) => parts.iter().any(|p| has_key(p, "functionResponse")),
        Content::Absent | Content::Text(_) | Content::Null => false,
    };
    any_response && only_tool_results(content, response_or_data)
}

/// True for a `functionResponse` part or a part of data.
fn response_or_data(part: &Part) -> bool {
    matches!(part, Part::Image(_))
        || ["functionResponse", "inlineData", "fileData"]
            .into_iter()
            .any(|key| has_key(part, key))
}

/// True when a part kept as an object has `key`.
fn has_key(part: &Part, key: &str) -> bool {
    match part {
        Part::ToolResult(t) => t.wire.contains_key(key),
        Part::Other(v) => v.get(key).is_some(),
        Part::Text(m) => m.contains_key(key),
        Part::Image(i) => i.wire.contains_key(key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::decode_messages;
    use crate::messages::walk::for_each_image;
    use serde_json::json;

    fn read(values: Vec<Value>) -> Result<Vec<Message>, MessageError> {
        decode_messages(values, Some(Format::Gemini), &JsonPath::root("contents")).map(|(_, m)| m)
    }

    #[test]
    fn reads_parts_by_their_field_and_round_trips() {
        let contents = vec![
            json!({"role":"user","parts":[
                {"text":"这是什么？"},
                {"inlineData":{"mimeType":"image/png","data":"AAAA"}},
                {"inlineData":{"mimeType":"audio/wav","data":"UklG"}},
                {"fileData":{"mimeType":"image/png","fileUri":"gs://b/a.png"}}
            ]}),
            json!({"role":"model","parts":[{"functionCall":{"name":"shot","args":{}}},{"text":"…","thought":true,"thoughtSignature":"c2ln"}]}),
            json!({"parts":[{"functionResponse":{"name":"shot","response":{"ok":true},"parts":[{"inlineData":{"mimeType":"image/gif","data":"R0lG"}}]}}]}),
        ];
        let msgs = read(contents.clone()).unwrap();
        assert_eq!(
            msgs.iter().map(|m| m.role).collect::<Vec<_>>(),
            [Role::User, Role::Assistant, Role::User]
        );
        let mut seen = Vec::new();
        for (i, m) in msgs.iter().enumerate() {
            for_each_image(m, &JsonPath::root("contents").index(i), &mut |_, p, img| {
                seen.push((
                    p.to_string(),
                    img.shape,
                    img.source().inline().map(|(m, d)| (m, d.to_owned())),
                ));
            });
        }
        assert_eq!(
            seen,
            vec![
                (
                    "contents[0].parts[1]".into(),
                    INLINE_DATA,
                    Some((Some("image/png"), "AAAA".into()))
                ),
                (
                    "contents[2].parts[0].functionResponse.parts[0]".into(),
                    FUNCTION_RESPONSE_BLOB,
                    Some((Some("image/gif"), "R0lG".into()))
                ),
            ]
        );
        crate::messages::test_support::assert_round_trips(msgs, &contents);
    }

    #[test]
    fn refuses_wrong_shapes_with_their_paths() {
        let err = |v| match read(vec![v]) {
            Err(MessageError::InvalidMessage { path, .. }) => path,
            other => format!("{other:?}"),
        };
        assert_eq!(
            err(json!({"role":"user","parts":"hi"})),
            "contents[0].parts"
        );
        assert_eq!(
            err(json!({"role":"user","parts":[{"text":5}]})),
            "contents[0].parts[0].text"
        );
        assert_eq!(
            err(json!({"role":"user","parts":[{"inlineData":"AAAA"}]})),
            "contents[0].parts[0].inlineData"
        );
        assert_eq!(
            err(json!({"role":"user","parts":[7]})),
            "contents[0].parts[0]"
        );
    }
}
