//! Anthropic Messages: `{role, content}` with `image` blocks whose `source` is
//! base64 or a URL, and `tool_result` blocks that hold further blocks.

use super::decode::require_str;
use super::model::{PartKind, WireFormat};
use super::part::ToolResultSlot;
use super::{Format, ImageShape, MessageError};
use crate::json_path::JsonPath;
use serde_json::{Map, Value};

/// The Anthropic Messages format.
pub(super) static WIRE: WireFormat =
    WireFormat::role_content(Format::Anthropic, &["data"], classify);

/// Decides what an Anthropic content block is.
fn classify(part: &Map<String, Value>, path: &JsonPath) -> Result<PartKind, MessageError> {
    Ok(match part.get("type").and_then(Value::as_str) {
        Some("text") => PartKind::Text,
        Some("image") => {
            let source_path = path.key("source");
            let source = part
                .get("source")
                .and_then(Value::as_object)
                .ok_or_else(|| {
                    MessageError::invalid(&source_path, "an image block needs a `source` object")
                })?;
            match source.get("type").and_then(Value::as_str) {
                Some("base64") => {
                    require_str(source, "data", &source_path, "a base64 source")?;
                    PartKind::Image(ImageShape::AnthropicBase64)
                }
                Some("url") => {
                    require_str(source, "url", &source_path, "a url source")?;
                    PartKind::Image(ImageShape::AnthropicUrl)
                }
                _ => PartKind::Other,
            }
        }
        Some("tool_result") => match part.get("content") {
            Some(Value::Array(_)) => PartKind::ToolResult(ToolResultSlot::Content),
            _ => PartKind::Other,
        },
        _ => PartKind::Other,
    })
}
