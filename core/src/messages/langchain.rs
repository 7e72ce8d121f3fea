//! LangChain message tuples, as the dootask backend receives them:
//! `["human" | "ai" | "assistant" | "system" | "tool", content]`, where content
//! parts are OpenAI-style (`image_url` as an object or a string) or LangChain
//! image blocks (`{type:'image', source_type, data | url, mime_type}`,
//! `{type:'image', base64, mime_type}` and LangChain JS's standard
//! `{type:'image', data, mimeType}`).

use super::decode::require_str;
use super::model::{Images, PartKind, WireFormat};
use super::tool_call::{obj, then_user, CallShape, ToolAnswer};
use super::{Format, ImageShape, MessageError};
use crate::json_path::JsonPath;
use serde_json::{Map, Value};

/// The LangChain message format (tuples and objects).
pub(super) static WIRE: WireFormat = WireFormat::role_content(
    Format::LangChain,
    &["url", "image_url", "data", "base64"],
    classify,
    CALL,
    answer,
);

/// Where its tool calls keep their id, name and arguments.
const CALL: CallShape = CallShape {
    wrapper: None,
    id: &["id"],
    name: &["name"],
    arguments: &["args"],
};

/// How it holds and writes images.
pub(super) static IMAGES: Images = Images {
    // The OpenAI block, which every LangChain chat model takes.
    new_part: super::openai::image_part,
    new_shape: ImageShape::ImageUrlObject,
    shapes: &[
        ImageShape::ImageUrlObject,
        ImageShape::ImageUrlString,
        ImageShape::LangChainData,
        ImageShape::LangChainBase64,
        ImageShape::LangChainUrl,
        ImageShape::DataMimeType,
    ],
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
            Some(Value::String(_)) => PartKind::Image(ImageShape::ImageUrlString),
            Some(Value::Object(inner)) => {
                require_str(inner, "url", &path.key("image_url"), "image_url")?;
                PartKind::Image(ImageShape::ImageUrlObject)
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
                PartKind::Image(ImageShape::DataMimeType)
            } else if part.contains_key("base64") {
                require_str(part, "base64", path, "an image block")?;
                PartKind::Image(ImageShape::LangChainBase64)
            } else {
                match part.get("source_type").and_then(Value::as_str) {
                    Some("base64") => {
                        require_str(part, "data", path, "a base64 image block")?;
                        PartKind::Image(ImageShape::LangChainData)
                    }
                    Some("url") => {
                        require_str(part, "url", path, "a url image block")?;
                        PartKind::Image(ImageShape::LangChainUrl)
                    }
                    _ => PartKind::Other,
                }
            }
        }
        _ => PartKind::Other,
    })
}
