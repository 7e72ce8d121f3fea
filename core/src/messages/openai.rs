//! OpenAI Chat Completions: `{role, content: string | [{type:'text'},
//! {type:'image_url', image_url:{url, detail}}]}`.

use super::decode::require_str;
use super::model::{PartKind, WireFormat};
use super::{Format, ImageShape, MessageError};
use crate::json_path::JsonPath;
use serde_json::{Map, Value};

/// The OpenAI Chat Completions format.
pub(super) static WIRE: WireFormat =
    WireFormat::role_content(Format::OpenAi, &["url", "file_data"], classify);

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
            PartKind::Image(ImageShape::ImageUrlObject)
        }
        _ => PartKind::Other,
    })
}
