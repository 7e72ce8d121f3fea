//! Vercel AI SDK `ModelMessage`: `{type:'image', image, mediaType?}`,
//! `{type:'file', data, mediaType}`, and `tool-result` parts whose
//! `output: {type:'content', value:[…]}` holds `text` and `media` parts.

use super::model::PartKind;
use super::part::ToolResultSlot;
use super::{ImageShape, MessageError};
use crate::json_path::JsonPath;
use crate::media::mime::is_image_mime;
use serde_json::{Map, Value};

/// Decides what an AI SDK content part is.
pub(super) fn classify(
    part: &Map<String, Value>,
    path: &JsonPath,
) -> Result<PartKind, MessageError> {
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
            PartKind::Image(ImageShape::AiSdkImage)
        }
        Some("file") | Some("media") if media_type.is_some_and(is_image_mime) => {
            if !part.contains_key("data") {
                return Err(MessageError::invalid(
                    &path.key("data"),
                    "a file part needs `data`",
                ));
            }
            PartKind::Image(ImageShape::AiSdkData)
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
