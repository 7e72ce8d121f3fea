//! Vercel AI SDK `UIMessage`, what `useChat` holds in the browser:
//! `{id, role, parts, metadata?}` with `{type:'text', text}` parts, `{type:'file',
//! mediaType, url, filename?, providerMetadata?}` parts (an image when
//! `mediaType` is `image` or `image/…`; `url` is a data URL or a hosted URL),
//! and tool parts (`tool-<name>`, `dynamic-tool`). A tool part's `output` is
//! the tool's own value, which the tool's `toModelOutput` turns into what
//! the model reads: one that is already a model output with content
//! (`{type:'content', value}`, which `toModelOutput: ({output}) => output`
//! passes on) is a tool result whose images (`image-data`, `file-data`,
//! `media`, `file` with `data`, as in the AI SDK's tool results) are read;
//! any other output, and every input, passes through untouched. A
//! placeholder takes an image's place as `{type:'text', text}`. An
//! experimental `steering-message` part's own `parts` are read like the
//! message's.
//!
//! A loop of tools the browser runs happens inside one assistant message:
//! each step starts with a `step-start` part, so the tool outputs before the
//! message's last `step-start` are ones the model has answered (see
//! [`answered_parts`]).

use super::decode::{message_object, parts_message, required_role};
use super::evidence::Evidence;
use super::file_ref::{wire_without, FileRefs};
use super::model::{NewParts, PartKind, WireFormat};
use super::part::{Part, ToolResultSlot};
use super::shape::ShapeSpec;
use super::tool_call::ToolAnswer;
use super::tool_slots::no_slots;
use super::{Format, ImageShape, Message, MessageError};
use crate::json_path::JsonPath;
use crate::media::data_url::format_data_url;
use serde_json::{Map, Value};

/// `{type:'file', mediaType:'image/…', url}`; `url` is a data URL or a URL.
pub(super) const FILE_URL: ImageShape =
    ImageShape::new(&ShapeSpec::url("UiFileUrl", None, "url", Some("mediaType")));

/// Evidence of it: `parts` whose first entry has a string `type`, or
/// empty `parts` beside an `id`.
const EVIDENCE: Evidence = Evidence {
    shape: Some(|m| match m.parts_array() {
        Some([Value::Object(first), ..]) => first.get("type").is_some_and(Value::is_string),
        Some([]) => m.id,
        _ => false,
    }),
    ..Evidence::NONE
};

/// The key of a request body holding the messages (what `useChat` posts).
pub(super) const MESSAGES_KEY: &str = "messages";

/// The Vercel AI SDK UIMessage format.
pub(super) static WIRE: WireFormat = WireFormat {
    format: Format::UiMessage,
    payload_keys: &["url"],
    decode: Some(decode),
    classify,
    read_tool_result: None,
    encode_split: None,
    call: Err(
        "a UIMessage tool call is answered with addToolOutput: use historyImageOutput from ctxpack/ai-sdk",
    ),
    answer,
    evidence: EVIDENCE,
    tool_slots: no_slots,
    role_of: super::tool_slots::role_field,
    // Whose turn a message is: by its role.
    turn: super::turn::by_role,
    tuples: false,
};

/// How it writes new parts, and the image shapes it holds.
pub(super) static NEW_PARTS: NewParts = NewParts {
    new_part: image_part,
    new_shape: FILE_URL,
    shapes: &[FILE_URL, super::ai_sdk::DATA, super::ai_sdk::TAGGED_DATA],
    text_type: Some("text"),
    string_content: false,
    file_parts: true,
    tool_dialect: None,
    foreign_parts: true,
    cache_breakpoint: None,
};

/// A new file part, `{type:'file', mediaType, filename, url:'data:…'}`.
pub(super) fn file_part(filename: &str, mime: &str, payload: &str) -> Value {
    serde_json::json!({
        "type": "file",
        "mediaType": mime,
        "filename": filename,
        "url": format_data_url(mime, payload)
    })
}

/// A UIMessage tool call is answered with `addToolOutput`, not messages.
fn answer(_a: &ToolAnswer<'_>) -> Vec<Value> {
    Vec::new()
}

/// A new file part, `{type:'file', mediaType, url:'data:…'}`.
fn image_part(mime: &str, payload: &str, _detail: Option<&str>) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), "file".into());
    m.insert("mediaType".into(), mime.into());
    m.insert("url".into(), format_data_url(mime, payload).into());
    Value::Object(m)
}

/// Reads one UIMessage: its `parts` are its content.
fn decode(value: Value, path: &JsonPath) -> Result<Message, MessageError> {
    let map = message_object(value, path)?;
    let role = required_role(&map, path)?;
    parts_message(&WIRE, role, map, path)
}

/// Decides what a UIMessage part is.
fn classify(part: &Map<String, Value>, path: &JsonPath) -> Result<PartKind, MessageError> {
    Ok(match part.get("type").and_then(Value::as_str) {
        Some("text") => PartKind::Text,
        // A tool output's file, in the AI SDK's tool-result parts.
        Some("file") if part.contains_key("data") && !part.contains_key("url") => {
            super::ai_sdk::classify(part, path)?
        }
        Some("file")
            if part
                .get("mediaType")
                .and_then(Value::as_str)
                .is_some_and(super::ai_sdk::is_image_media_type) =>
        {
            match part.get("url") {
                Some(Value::String(_)) => PartKind::Image(FILE_URL),
                _ => {
                    return Err(MessageError::invalid(
                        &path.key("url"),
                        "a file part needs a string `url`",
                    ))
                }
            }
        }
        // A tool output's images, in the AI SDK's tool-result parts.
        Some("image-data" | "file-data" | "media") => super::ai_sdk::classify(part, path)?,
        Some("steering-message") if part.get("parts").is_some_and(Value::is_array) => {
            PartKind::ToolResult(ToolResultSlot::Parts)
        }
        Some(t) if is_tool_part(t) && has_content_output(part) => {
            PartKind::ToolResult(ToolResultSlot::OutputValue)
        }
        _ => PartKind::Other,
    })
}

/// True for a tool part's `type`: `tool-<name>` or `dynamic-tool`.
fn is_tool_part(kind: &str) -> bool {
    kind.starts_with("tool-") || kind == "dynamic-tool"
}

/// True when a part's `output` is a model output with content:
/// `{type:'content', value:[…]}`.
fn has_content_output(part: &Map<String, Value>) -> bool {
    part.get("output")
        .and_then(Value::as_object)
        .is_some_and(|o| {
            o.get("type").and_then(Value::as_str) == Some("content")
                && o.get("value").is_some_and(Value::is_array)
        })
}

/// How many of an assistant message's parts, from its first, the model has
/// answered within the message itself: those before its last `step-start`
/// (the earlier steps of a loop of tools the browser runs, each answered by
/// the step after it). None in a message with one step or none.
pub(super) fn answered_parts(parts: &[Part]) -> usize {
    parts
        .iter()
        .rposition(|p| matches!(p, Part::Other(v) if v.get("type").and_then(Value::as_str) == Some("step-start")))
        .unwrap_or(0)
}

/// A file reference: a file part's `providerReference` (`{openai |
/// anthropic | google: id or URI}`, as AI SDK 7's `uploadFile` gives it),
/// which `convertToModelMessages` sends in place of its `url`. The
/// provider is the caller's.
pub(super) const FILE_REFS: Option<FileRefs> = Some(FileRefs {
    provider: None,
    write: |template, provider, name, _| {
        if template.shape != FILE_URL {
            return None;
        }
        let mut part = wire_without(template, &["url", "providerReference"]);
        // `url` is required; a part with a provider reference is sent by
        // its reference, so the file's name stands in for the payload.
        part.insert("url".into(), name.into());
        part.insert(
            "providerReference".into(),
            super::ai_sdk::provider_reference(provider, name),
        );
        Some(part)
    },
    read: |part| match part.get("type")?.as_str()? {
        "file" => part
            .get("providerReference")?
            .as_object()?
            .values()
            .next()?
            .as_str(),
        _ => None,
    },
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::walk::for_each_image;
    use crate::messages::{decode_messages, Content};
    use serde_json::json;

    fn read(v: Value) -> Result<Vec<Message>, MessageError> {
        decode_messages(vec![v], Some(Format::UiMessage), &JsonPath::root("m")).map(|(_, m)| m)
    }

    #[test]
    fn reads_files_in_place_and_round_trips() {
        let v = json!({"id":"m1","role":"user","parts":[
            {"type":"text","text":"look","state":"done"},
            {"type":"file","mediaType":"image/png","filename":"a.png","url":"data:image/png;base64,AAAA","providerMetadata":{"x":{}}},
            {"type":"file","mediaType":"application/pdf","url":"data:application/pdf;base64,JVBE"},
            {"type":"file","mediaType":"image/jpeg","url":"https://x.test/a.jpg"},
            {"type":"tool-shot","toolCallId":"c","state":"output-available","input":{},"output":{"url":"data:image/png;base64,AAAA"}},
            {"type":"steering-message","id":"s","parts":[{"type":"file","mediaType":"image","url":"data:image/gif;base64,R0lG"}]}
        ],"metadata":{"n":1}});
        let msgs = read(v.clone()).unwrap();
        let mut seen = Vec::new();
        for_each_image(&msgs[0], &JsonPath::root("m").index(0), &mut |_, p, i| {
            seen.push((
                p.to_string(),
                i.source().inline().map(|(m, d)| (m, d.to_owned())),
            ));
        });
        assert_eq!(
            seen,
            vec![
                (
                    "m[0].parts[1]".into(),
                    Some((Some("image/png"), "AAAA".into()))
                ),
                ("m[0].parts[3]".into(), None),
                (
                    "m[0].parts[5].parts[0]".into(),
                    Some((Some("image/gif"), "R0lG".into()))
                ),
            ]
        );
        let back: Vec<Value> = msgs.into_iter().map(Message::into_wire).collect();
        assert_eq!(back, vec![v.clone()]);
        assert_eq!(back[0].to_string(), v.to_string());
    }

    #[test]
    fn refuses_wrong_shapes_with_their_paths() {
        let err = |v| match read(v) {
            Err(MessageError::InvalidMessage { path, .. }) => path,
            other => format!("{other:?}"),
        };
        assert_eq!(err(json!({"id":"1","parts":[]})), "m[0]");
        assert_eq!(
            err(json!({"id":"1","role":"user","parts":"hi"})),
            "m[0].parts"
        );
        assert_eq!(
            err(json!({"id":"1","role":"user","parts":[{"type":"file","mediaType":"image/png"}]})),
            "m[0].parts[0].url"
        );
        assert_eq!(
            err(json!({"id":"1","role":"user","parts":[{"type":"text"}]})),
            "m[0].parts[0].text"
        );
    }

    #[test]
    fn folded_text_goes_back_as_one_text_part() {
        let mut msgs =
            read(json!({"id":"1","role":"user","parts":[{"type":"text","text":"a"}]})).unwrap();
        msgs[0].content = Content::Text("a b".into());
        assert_eq!(
            msgs.remove(0).into_wire(),
            json!({"id":"1","role":"user","parts":[{"type":"text","text":"a b"}]})
        );
    }
}
