//! LangChain message tuples, as the dootask backend receives them:
//! `["human" | "ai" | "assistant" | "system" | "tool", content]`, where content
//! parts are OpenAI-style (`image_url` as an object or a string) or LangChain
//! image blocks (`{type:'image', source_type, data | url, mime_type}`,
//! `{type:'image', base64, mime_type}` and LangChain JS's standard
//! `{type:'image', data, mimeType}`).

use super::decode::require_str;
use super::file_ref::{wire_without, FileProvider, FileRefs};
use super::evidence::Evidence;
use super::model::{NewParts, PartKind, WireFormat};
use super::shape::ShapeSpec;
use super::tool_call::{obj, then_user, CallShape, ToolAnswer};
use super::tool_slots::tool_message_slots;
use super::{Format, ImageShape, MessageError};
use crate::json_path::JsonPath;
use serde_json::{Map, Value};

/// `{type:'image_url', image_url:'url'}`.
pub(super) const IMAGE_URL_STRING: ImageShape =
    ImageShape::new(&ShapeSpec::url("ImageUrlString", None, "image_url", None));

/// `{type:'image', source_type:'base64', data, mime_type}`.
pub(super) const SOURCE_TYPE_DATA: ImageShape = ImageShape::new(&ShapeSpec::base64(
    "LangChainData",
    None,
    "data",
    Some("mime_type"),
));

/// `{type:'image', base64, mime_type}`: the standard block, the dootask tool result.
pub(super) const BASE64: ImageShape = ImageShape::new(&ShapeSpec::base64(
    "LangChainBase64",
    None,
    "base64",
    Some("mime_type"),
));

/// `{type:'image', source_type:'url', url}`.
pub(super) const URL: ImageShape =
    ImageShape::new(&ShapeSpec::url("LangChainUrl", None, "url", None));

/// Evidence of it: a `[role, content]` tuple; an image block by `url`,
/// `fileId`, `source_type` or `base64` (only LangChain has those); an
/// image block with `mimeType` or `source_type` that is no other format's
/// (not Anthropic's `source`, the AI SDK's `image`, nor MCP's `data` text
/// beside a `mimeType`).
const EVIDENCE: Evidence = Evidence {
    shape: Some(|m| m.tuple),
    exclusive_part: Some(|map, t| {
        let has = |key: &str| map.contains_key(key);
        t == "image"
            && !has("source")
            && !has("image")
            && (has("url") || has("fileId") || has("source_type") || has("base64"))
    }),
    part: Some(|map, t| {
        let has = |key: &str| map.contains_key(key);
        let mcp_image = has("mimeType") && map.get("data").is_some_and(Value::is_string);
        t == "image"
            && !has("source")
            && !has("image")
            && !mcp_image
            && (has("mimeType") || has("source_type"))
    }),
    ..Evidence::NONE
};

/// The key of a request body holding the messages (a chat model's `invoke` input).
pub(super) const MESSAGES_KEY: &str = "messages";

/// The LangChain message format (tuples and objects).
pub(super) static WIRE: WireFormat = WireFormat {
    tuples: true,
    ..WireFormat::role_content(
        Format::LangChain,
        &["url", "image_url", "data", "base64"],
        classify,
        CALL,
        answer,
        EVIDENCE,
        tool_message_slots,
        // Whose turn a message is: by its role.
        super::turn::by_role,
    )
};

/// Where its tool calls keep their id, name and arguments.
const CALL: CallShape = CallShape {
    wrapper: None,
    id: &["id"],
    name: &["name"],
    arguments: &["args"],
};

/// A new file part: OpenAI's `{type:'file', file:{filename, file_data}}`.
pub(super) use super::openai::file_part;

/// How it writes new parts, and the image shapes it holds.
pub(super) static NEW_PARTS: NewParts = NewParts {
    // The OpenAI block, which every LangChain chat model takes.
    new_part: super::openai::image_part,
    new_shape: crate::messages::openai::IMAGE_URL_OBJECT,
    shapes: &[
        crate::messages::openai::IMAGE_URL_OBJECT,
        IMAGE_URL_STRING,
        SOURCE_TYPE_DATA,
        BASE64,
        URL,
        crate::messages::mcp::DATA_MIME_TYPE,
    ],
    text_type: Some("text"),
    string_content: true,
    file_parts: true,
    tool_dialect: None,
    foreign_parts: true,
    cache_breakpoint: None,
};

/// Its answer to a tool call: a `tool` message of text; the image follows
/// in a user message (`ChatOpenAI` sends a tool message's image to Chat
/// Completions, which refuses it; `ChatGoogleGenerativeAI` sends it as JSON
/// text).
fn answer(a: &ToolAnswer<'_>) -> Vec<Value> {
    then_user(
        obj(vec![
            ("role", "tool".into()),
            ("tool_call_id", a.id_value()),
            ("name", a.name.into()),
            ("content", a.tool_text().into()),
        ]),
        a.text,
        a.image
            .map(|(mime, data)| super::openai::image_part(mime, data, None)),
    )
}

/// Decides what a LangChain content part is.
fn classify(part: &Map<String, Value>, path: &JsonPath) -> Result<PartKind, MessageError> {
    Ok(match part.get("type").and_then(Value::as_str) {
        Some("text") => PartKind::Text,
        Some("image_url") => match part.get("image_url") {
            Some(Value::String(_)) => PartKind::Image(IMAGE_URL_STRING),
            Some(Value::Object(inner)) => {
                require_str(inner, "url", &path.key("image_url"), "image_url")?;
                PartKind::Image(crate::messages::openai::IMAGE_URL_OBJECT)
            }
            _ => {
                return Err(MessageError::invalid(
                    &path.key("image_url"),
                    "an image_url part needs an `image_url` string or object",
                ))
            }
        },
        Some("image") => {
            if part.contains_key("mimeType") && part.get("data").is_some_and(Value::is_string) {
                // LangChain JS 1.x standard block; `url` and `fileId` forms pass through.
                PartKind::Image(crate::messages::mcp::DATA_MIME_TYPE)
            } else if part.contains_key("base64") {
                require_str(part, "base64", path, "an image block")?;
                PartKind::Image(BASE64)
            } else {
                match part.get("source_type").and_then(Value::as_str) {
                    Some("base64") => {
                        require_str(part, "data", path, "a base64 image block")?;
                        PartKind::Image(SOURCE_TYPE_DATA)
                    }
                    Some("url") => {
                        require_str(part, "url", path, "a url image block")?;
                        PartKind::Image(URL)
                    }
                    _ => PartKind::Other,
                }
            }
        }
        _ => PartKind::Other,
    })
}

/// A file reference, as each chat model converts one (read in
/// `@langchain/openai` 1.6, `@langchain/anthropic` 1.5 and
/// `@langchain/google-genai` 2.3): for OpenAI the Responses API's own
/// `{type:'input_image', file_id, detail}`, which `ChatOpenAI` passes
/// through (it drops a standard `{type:'image', fileId}` block from a
/// human message, and refuses `source_type: 'id'`); for Anthropic the
/// standard `{type:'image', fileId}` (`ChatAnthropic`: a `file` source);
/// for Gemini `{type:'image', url, mimeType}` (`ChatGoogleGenerativeAI`:
/// `fileData`). The provider is the caller's: LangChain has one message
/// format for every chat model.
pub(super) const FILE_REFS: Option<FileRefs> = Some(FileRefs {
    provider: None,
    write: |template, provider, name, mime| {
        let detail = template
            .wire
            .get("image_url")
            .and_then(|u| u.get("detail"))
            .filter(|d| d.is_string())
            .cloned();
        let mut part = wire_without(template, &IMAGE_KEYS);
        match provider {
            FileProvider::OpenAi => {
                part.insert("type".into(), "input_image".into());
                part.insert("file_id".into(), name.into());
                part.insert("detail".into(), detail.unwrap_or_else(|| "auto".into()));
            }
            FileProvider::Anthropic => {
                part.insert("type".into(), "image".into());
                part.insert("fileId".into(), name.into());
            }
            FileProvider::Gemini => {
                part.insert("type".into(), "image".into());
                part.insert("url".into(), name.into());
                part.insert("mimeType".into(), mime.into());
            }
        }
        Some(part)
    },
    read: |part| match part.get("type")?.as_str()? {
        "input_image" => part.get("file_id")?.as_str(),
        "image" => {
            if let Some(id) = part.get("fileId") {
                return id.as_str();
            }
            // A Gemini file: its URI beside its MIME type, and no payload.
            let url = part.get("url")?.as_str()?;
            let plain = part.contains_key("mimeType") && !part.contains_key("source_type");
            (plain && !url.starts_with("data:")).then_some(url)
        }
        _ => None,
    },
});

/// The keys of LangChain's image parts that hold the image, left out of a
/// reference written over one.
const IMAGE_KEYS: [&str; 8] = [
    "type",
    "image_url",
    "source_type",
    "data",
    "mime_type",
    "base64",
    "url",
    "mimeType",
];

