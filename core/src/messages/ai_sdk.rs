//! Vercel AI SDK `ModelMessage`, versions 6 and 7: `{type:'image', image,
//! mediaType?}`, `{type:'file', data, mediaType}` where `mediaType` may be
//! just `image` or `image/*` and `data` may be tagged (`{type:'data', data}`;
//! the `url` and `reference` forms are not inline and pass through), and
//! `tool-result` parts whose `output: {type:'content', value:[…]}` holds
//! `text`, `file`, `image-data`, `file-data` and `media` parts.

use super::evidence::Evidence;
use super::file_ref::{wire_without, FileProvider, FileRefs};
use super::model::{NewParts, PartKind, WireFormat};
use super::part::ToolResultSlot;
use super::shape::ShapeSpec;
use super::tool_call::{message, obj, text_part, then_user, CallShape, ToolAnswer};
use super::tool_slots::{key, role_field, typed_text_parts, Seg, SlotKind, ToolSlot};
use super::{Format, ImageShape, MessageError, Role};
use crate::json_path::JsonPath;
use crate::media::mime::is_image_mime;
use serde_json::{Map, Value};

/// True for a media type that names an image: a full `image/…` type, or AI
/// SDK 7's top-level `image` (and its equivalent `image/*`).
pub(super) fn is_image_media_type(media_type: &str) -> bool {
    media_type == "image" || media_type == "image/*" || is_image_mime(media_type)
}

/// `{type:'image', image, mediaType?}`; `image` is a URL, a data URL or base64.
pub(super) const IMAGE: ImageShape = ImageShape::new(&ShapeSpec::url(
    "AiSdkImage",
    None,
    "image",
    Some("mediaType"),
));

/// `{type:'file' | 'media' | 'image-data' | 'file-data', data, mediaType:'image/…'}`; `data` is base64, a data URL or bytes.
pub(super) const DATA: ImageShape = ImageShape::new(&ShapeSpec::base64(
    "AiSdkData",
    None,
    "data",
    Some("mediaType"),
));

/// `{type:'file', mediaType:'image…', data:{type:'data', data}}`: AI SDK 7's
/// tagged file data, its MIME type on the part.
pub(super) const TAGGED_DATA: ImageShape = ImageShape::new(&ShapeSpec {
    mime_outside: true,
    ..ShapeSpec::base64("AiSdkTaggedData", Some("data"), "data", Some("mediaType"))
});

/// Evidence of it: an image part with an `image`, a file part with `data`
/// and a `mediaType` (or `mimeType`), or a `tool-call`, `tool-result` or
/// `reasoning` part.
const EVIDENCE: Evidence = Evidence {
    part: Some(|map, t| {
        let has = |key: &str| map.contains_key(key);
        (t == "image" && has("image"))
            || (t == "file" && has("data") && (has("mediaType") || has("mimeType")))
            || matches!(t, "tool-call" | "tool-result" | "reasoning")
    }),
    ..Evidence::NONE
};

/// The key of a request body holding the messages (`generateText` and `streamText` take `messages`).
pub(super) const MESSAGES_KEY: &str = "messages";

/// The Vercel AI SDK ModelMessage format.
pub(super) static WIRE: WireFormat = WireFormat::role_content(
    Format::AiSdk,
    &["image", "data"],
    classify,
    CALL,
    answer,
    EVIDENCE,
    tool_slots,
    // Whose turn a message is, by its role.
    super::turn::by_role,
);

/// Where its tool calls keep their id, name and arguments.
const CALL: CallShape = CallShape {
    wrapper: None,
    id: &["toolCallId"],
    name: &["toolName"],
    arguments: &["input"],
};

/// How it writes new parts, and the image shapes it holds.
pub(super) static NEW_PARTS: NewParts = NewParts {
    new_part: image_part,
    new_shape: DATA,
    shapes: &[IMAGE, DATA, TAGGED_DATA],
    text_type: Some("text"),
    string_content: true,
    file_parts: true,
    tool_dialect: None,
    foreign_parts: true,
    cache_breakpoint: Some(cache_breakpoint),
};

/// Puts `providerOptions.anthropic.cacheControl: {type:'ephemeral'}` on a
/// message, which `@ai-sdk/anthropic` sets on its last part (other
/// providers ignore it); true when the message holds a breakpoint now.
fn cache_breakpoint(message: &mut Value) -> bool {
    let Some(map) = message.as_object_mut() else {
        return false;
    };
    let options = map
        .entry("providerOptions")
        .or_insert_with(|| Value::Object(Default::default()));
    let Some(anthropic) = options.as_object_mut().map(|o| {
        o.entry("anthropic")
            .or_insert_with(|| Value::Object(Default::default()))
    }) else {
        return false;
    };
    super::model::ephemeral_marker(anthropic, "cacheControl")
}

/// Images by file reference, for the provider the caller names (the AI SDK
/// serves several): AI SDK 7's `{type:'file', mediaType, data:{type:
/// 'reference', reference:{[provider]: id}}}`, the key as its providers
/// read it (`openai`, `anthropic`, `google`, whose value is the file's
/// URI). A message's `image` or `file` part becomes one, its other keys
/// kept. A tool result's AI SDK 6 `image-data` (or `file-data`) part
/// becomes that version's `{type:'image-file-id' (or 'file-id'), fileId:
/// {[provider]: id}}`, which AI SDK 7 still reads; a `media` part (AI SDK
/// 5's) stays inline.
pub(super) const FILE_REFS: Option<FileRefs> = Some(FileRefs {
    provider: None,
    write: |template, provider, name, mime| {
        let kind = template.wire.get("type").and_then(Value::as_str);
        if let (Some(kind @ ("image-data" | "file-data")), true) = (kind, template.shape == DATA) {
            let mut part = wire_without(template, &["type", "data", "mediaType"]);
            let id_kind = if kind == "image-data" { "image-file-id" } else { "file-id" };
            part.insert("type".into(), id_kind.into());
            part.insert("fileId".into(), provider_reference(provider, name));
            return Some(part);
        }
        let own_part = kind == Some("file") || template.shape == IMAGE;
        if !own_part || ![IMAGE, DATA, TAGGED_DATA].contains(&template.shape) {
            return None;
        }
        let mut data = Map::new();
        data.insert("type".into(), "reference".into());
        data.insert("reference".into(), provider_reference(provider, name));
        let mut part = wire_without(template, &["type", "image", "data", "mediaType"]);
        part.insert("type".into(), "file".into());
        part.insert("mediaType".into(), mime.into());
        part.insert("data".into(), Value::Object(data));
        Some(part)
    },
    read: |part| match part.get("type")?.as_str()? {
        "image-file-id" | "file-id" => match part.get("fileId")? {
            Value::String(id) => Some(id),
            ids => ids.as_object()?.values().next()?.as_str(),
        },
        "file" => {
            let data = part.get("data")?;
            match data.get("type")?.as_str()? {
                "reference" => data.get("reference")?.as_object()?.values().next()?.as_str(),
                _ => None,
            }
        }
        _ => None,
    },
});

/// AI SDK 7's provider reference to a file: `{openai | anthropic | google:
/// name}`, keyed as `@ai-sdk/openai`, `@ai-sdk/anthropic` and
/// `@ai-sdk/google` read it (`resolveProviderReference`).
pub(super) fn provider_reference(provider: FileProvider, name: &str) -> Value {
    let key = match provider {
        FileProvider::OpenAi => "openai",
        FileProvider::Anthropic => "anthropic",
        FileProvider::Gemini => "google",
    };
    let mut reference = Map::new();
    reference.insert(key.into(), name.into());
    Value::Object(reference)
}

/// A new file part, `{type:'file', data, mediaType, filename}`.
pub(super) fn file_part(filename: &str, mime: &str, payload: &str) -> Value {
    serde_json::json!({ "type": "file", "data": payload, "mediaType": mime, "filename": filename })
}

/// Its answer to a tool call: a tool message with one `tool-result`. Its
/// image is a `file` with tagged data (valid in a tool result's `content`
/// output and in a user message, where AI SDK 7 deprecates the `image`
/// part): in the tool result when the provider sends a tool result's file as
/// an image, else in a user message after it.
fn answer(a: &ToolAnswer<'_>) -> Vec<Value> {
    let file = a.image.map(|(mime, data)| {
        obj(vec![
            ("type", "file".into()),
            ("mediaType", mime.into()),
            (
                "data",
                obj(vec![("type", "data".into()), ("data", data.into())]),
            ),
        ])
    });
    let result = |output: Value| {
        message(
            "tool",
            Value::Array(vec![obj(vec![
                ("type", "tool-result".into()),
                ("toolCallId", a.id_value()),
                ("toolName", a.name.into()),
                ("output", output),
            ])]),
        )
    };
    if !a.result_takes_images {
        let output = obj(vec![
            ("type", "text".into()),
            ("value", a.tool_text().into()),
        ]);
        return then_user(result(output), a.text, file);
    }
    let output = match file {
        Some(file) => obj(vec![
            ("type", "content".into()),
            ("value", Value::Array(vec![text_part("text", a.text), file])),
        ]),
        None => obj(vec![("type", "text".into()), ("value", a.text.into())]),
    };
    vec![result(output)]
}

/// A new image part, `{type:'file', mediaType, data}` (base64 data): AI
/// SDK 7 deprecates the `image` part for a `file` part with an image
/// media type. Both are read.
fn image_part(mime: &str, payload: &str, _detail: Option<&str>) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), "file".into());
    m.insert("mediaType".into(), mime.into());
    m.insert("data".into(), payload.into());
    Value::Object(m)
}

/// Decides what an AI SDK content part is.
pub(super) fn classify(part: &Map<String, Value>, path: &JsonPath) -> Result<PartKind, MessageError> {
    let media_type = part
        .get("mediaType")
        .or_else(|| part.get("mimeType"))
        .and_then(Value::as_str);
    Ok(match part.get("type").and_then(Value::as_str) {
        Some("text") => PartKind::Text,
        Some("image") => {
            if !part.contains_key("image") {
                return Err(MessageError::invalid(
                    &path.key("image"),
                    "an image part needs `image`",
                ));
            }
            PartKind::Image(IMAGE)
        }
        Some("file") | Some("media") | Some("image-data") | Some("file-data")
            if media_type.is_some_and(is_image_media_type) =>
        {
            match part.get("data") {
                None => {
                    return Err(MessageError::invalid(
                        &path.key("data"),
                        "a file part needs `data`",
                    ))
                }
                Some(Value::Object(tagged)) => {
                    match tagged.get("type").and_then(Value::as_str) {
                        Some("data") if tagged.contains_key("data") => PartKind::Image(TAGGED_DATA),
                        // `url`, `reference`, `text`: nothing inline.
                        _ => PartKind::Other,
                    }
                }
                Some(_) => PartKind::Image(DATA),
            }
        }
        Some("tool-result") => {
            let is_content = part
                .get("output")
                .and_then(Value::as_object)
                .is_some_and(|o| {
                    o.get("type").and_then(Value::as_str) == Some("content")
                        && o.get("value").is_some_and(Value::is_array)
                });
            if is_content {
                PartKind::ToolResult(ToolResultSlot::OutputValue)
            } else {
                PartKind::Other
            }
        }
        _ => PartKind::Other,
    })
}
/// The outputs of every `tool-result` part of a `tool` message: a `text`
/// or `error-text` output's text, a `json` or `error-json` output's value,
/// a `content` output's `text` parts, or (AI SDK 4) a `result` value.
fn tool_slots(message: &Value) -> Vec<ToolSlot> {
    let mut out = Vec::new();
    if role_field(message) != Some(Role::Tool) {
        return out;
    }
    let Some(Value::Array(parts)) = message.get("content") else {
        return out;
    };
    for (i, p) in parts.iter().enumerate() {
        if p.get("type").and_then(Value::as_str) != Some("tool-result") {
            continue;
        }
        let mut ptr = vec![key("content"), Seg::Index(i)];
        if let Some(output) = p.get("output") {
            ptr.extend([key("output"), key("value")]);
            match output.get("type").and_then(Value::as_str) {
                Some("text" | "error-text") => out.push(ToolSlot::new(ptr, SlotKind::Text)),
                Some("json" | "error-json") => out.push(ToolSlot::new(ptr, SlotKind::Structured)),
                Some("content") => {
                    if let Some(Value::Array(inner)) = output.get("value") {
                        typed_text_parts(inner, &ptr, "text", &mut out);
                    }
                }
                _ => {}
            }
        } else if p.get("result").is_some() {
            ptr.push(key("result"));
            out.push(ToolSlot::new(ptr, SlotKind::Structured));
        }
    }
    out
}

