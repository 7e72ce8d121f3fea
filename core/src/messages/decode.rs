//! Reading messages and their parts: the steps every format's decoder is
//! made of (the object a message must be, its role, its content, each part
//! classified by its format), over the neutral model.

use super::model::{Message, PartKind, Slot, WireFormat};
use super::part::{Content, Part, ToolResultPart, ToolResultSlot};
use super::{ImagePart, MessageError, Role};
use crate::json_path::JsonPath;
use serde_json::{Map, Value};

/// Reads one message of a format whose messages are objects with a `role`
/// and a `content`, or (LangChain) `[role, content]` tuples.
pub(super) fn decode_role_content(
    wire_format: &'static WireFormat,
    value: Value,
    path: &JsonPath,
) -> Result<Message, MessageError> {
    match value {
        Value::Array(mut items) if wire_format.tuples || !items.is_empty() => {
            if items.len() != 2 {
                return Err(MessageError::invalid(
                    path,
                    format!(
                        "a message tuple has 2 elements [role, content], this has {}",
                        items.len()
                    ),
                ));
            }
            let role = match &items[0] {
                Value::String(r) => Role::from_name(r),
                _ => {
                    return Err(MessageError::invalid(
                        &path.index(0),
                        "role must be a string",
                    ))
                }
            };
            let content =
                decode_content(wire_format, std::mem::take(&mut items[1]), &path.index(1))?;
            if matches!(content, Content::Absent) {
                return Err(MessageError::invalid(&path.index(1), "content is missing"));
            }
            Ok(Message::lifted(
                wire_format,
                role,
                content,
                Value::Array(items),
                Slot::TupleIndex,
            ))
        }
        Value::Object(mut map) => {
            let role = match map.get("role") {
                Some(Value::String(r)) => Role::from_name(r),
                Some(_) => {
                    return Err(MessageError::invalid(
                        &path.key("role"),
                        "role must be a string",
                    ))
                }
                None => {
                    return Err(MessageError::invalid(
                        path,
                        "a message needs a string `role`",
                    ))
                }
            };
            let content = match map.get_mut("content") {
                Some(slot) => {
                    decode_content(wire_format, std::mem::take(slot), &path.key("content"))?
                }
                None => Content::Absent,
            };
            Ok(Message::lifted(
                wire_format,
                role,
                content,
                Value::Object(map),
                Slot::Key("content"),
            ))
        }
        other => Err(MessageError::invalid(
            path,
            format!(
                "a message is an object or a [role, content] tuple, not {}",
                kind_of(&other)
            ),
        )),
    }
}

/// The object a message must be, or an `INVALID_MESSAGE` saying what it is instead.
pub(super) fn message_object(
    value: Value,
    path: &JsonPath,
) -> Result<Map<String, Value>, MessageError> {
    match value {
        Value::Object(map) => Ok(map),
        other => Err(MessageError::invalid(
            path,
            format!("a message is an object, not {}", kind_of(&other)),
        )),
    }
}

/// The role of an object message: `None` when it has no `role`, an
/// `INVALID_MESSAGE` when the role is not a string.
pub(super) fn optional_role(
    map: &Map<String, Value>,
    path: &JsonPath,
) -> Result<Option<Role>, MessageError> {
    match map.get("role") {
        None => Ok(None),
        Some(Value::String(r)) => Ok(Some(Role::from_name(r))),
        Some(_) => Err(MessageError::invalid(
            &path.key("role"),
            "role must be a string",
        )),
    }
}

/// The role of an object message that must have one.
pub(super) fn required_role(
    map: &Map<String, Value>,
    path: &JsonPath,
) -> Result<Role, MessageError> {
    optional_role(map, path)?
        .ok_or_else(|| MessageError::invalid(path, "a message needs a string `role`"))
}

/// Lifts the content under `key` out of `map` (leaving `null` in its
/// place) and reads it: a string, `null`, or an array of parts.
pub(super) fn take_content(
    wire_format: &WireFormat,
    map: &mut Map<String, Value>,
    key: &str,
    path: &JsonPath,
) -> Result<Content, MessageError> {
    match map.get_mut(key) {
        Some(slot) => decode_content(wire_format, std::mem::take(slot), &path.key(key)),
        None => Ok(Content::Absent),
    }
}

/// A message whose content is its `parts` array (Gemini `Content`, AI SDK
/// `UIMessage`): `parts` must be an array when present.
pub(super) fn parts_message(
    wire_format: &'static WireFormat,
    role: Role,
    mut map: Map<String, Value>,
    path: &JsonPath,
) -> Result<Message, MessageError> {
    if map.get("parts").is_some_and(|p| !p.is_array()) {
        return Err(MessageError::invalid(
            &path.key("parts"),
            "`parts` is an array of parts",
        ));
    }
    let content = take_content(wire_format, &mut map, "parts", path)?;
    Ok(Message::lifted(
        wire_format,
        role,
        content,
        Value::Object(map),
        Slot::Key("parts"),
    ))
}

pub(super) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Reads a content value: a string, `null`, or an array of parts.
pub(super) fn decode_content(
    wire_format: &WireFormat,
    value: Value,
    path: &JsonPath,
) -> Result<Content, MessageError> {
    match value {
        Value::String(s) => Ok(Content::Text(s)),
        Value::Null => Ok(Content::Null),
        Value::Array(items) => items
            .into_iter()
            .enumerate()
            .map(|(i, v)| decode_part(wire_format, v, &path.index(i)))
            .collect::<Result<Vec<_>, _>>()
            .map(Content::Parts),
        other => Err(MessageError::invalid(
            path,
            format!(
                "content is a string or an array of parts, not {}",
                kind_of(&other)
            ),
        )),
    }
}

/// Reads one content part of `format` at `path`.
pub(super) fn decode_part(
    wire_format: &WireFormat,
    value: Value,
    path: &JsonPath,
) -> Result<Part, MessageError> {
    let mut map = match value {
        Value::Object(map) => map,
        Value::String(_) if wire_format.tuples => return Ok(Part::Other(value)),
        other => {
            return Err(MessageError::invalid(
                path,
                format!("a content part is an object, not {}", kind_of(&other)),
            ))
        }
    };
    let kind = (wire_format.classify)(&map, path)?;
    Ok(match kind {
        PartKind::Text => {
            if !matches!(map.get("text"), Some(Value::String(_))) {
                return Err(MessageError::invalid(
                    &path.key("text"),
                    "a text part needs a string `text`",
                ));
            }
            Part::Text(map)
        }
        PartKind::Image(shape) => Part::Image(ImagePart { wire: map, shape }),
        PartKind::ToolResult(slot) => {
            let nested = match slot {
                ToolResultSlot::Content => map.get_mut("content").map(std::mem::take),
                ToolResultSlot::Parts => map.get_mut("parts").map(std::mem::take),
                ToolResultSlot::Result => map.get_mut("result").map(std::mem::take),
                ToolResultSlot::FunctionResponseParts => map
                    .get_mut("functionResponse")
                    .and_then(Value::as_object_mut)
                    .and_then(|f| f.get_mut("parts"))
                    .map(std::mem::take),
                ToolResultSlot::OutputValue => map
                    .get_mut("output")
                    .and_then(Value::as_object_mut)
                    .and_then(|o| o.get_mut("value"))
                    .map(std::mem::take),
            };
            let nested_path = slot.path(path);
            let mut content = match nested {
                Some(v) => decode_content(wire_format, v, &nested_path)?,
                None => Content::Absent,
            };
            if let Some(mark) = wire_format.read_tool_result {
                mark(&mut content, slot);
            }
            Part::ToolResult(ToolResultPart {
                wire: map,
                content,
                slot,
            })
        }
        PartKind::Other => Part::Other(Value::Object(map)),
    })
}

/// The string at `key`, or an `INVALID_MESSAGE` naming it.
pub(super) fn require_str<'a>(
    map: &'a Map<String, Value>,
    key: &str,
    path: &JsonPath,
    what: &str,
) -> Result<&'a str, MessageError> {
    map.get(key).and_then(Value::as_str).ok_or_else(|| {
        MessageError::invalid(&path.key(key), format!("{what} needs a string `{key}`"))
    })
}
