//! What tells the formats apart: the [`Evidence`] each format's module
//! gives, over the [`MessageFields`] detection reads of a message.

use serde_json::{Map, Value};

/// What a format's module says is evidence of it, in three kinds, each
/// looked for in every message before the next:
/// 1. `shape`: the shape of a message alone (tuples are LangChain's,
///    `parts` a UIMessage's or Gemini's, a top-level item `type` a
///    Responses item's, …); a `narrow_shape` (an entry type only this
///    format has, such as an Interactions step's) is asked of every format
///    before any `shape`, so a format with a broad shape need not name the
///    formats whose narrower shapes it covers;
/// 2. `exclusive_part`: a content part only this format has;
/// 3. the first decisive evidence of a message: `fields_first` (fields of
///    the message, looked at before its parts), `part` (a part that tells
///    formats apart), then `fields_last`.
///
/// The predicates of different formats never claim the same thing, except
/// where the earlier format in the list is meant to win.
/// Tells whether a part (its map and its `type`) is evidence.
pub(super) type PartTest = fn(&Map<String, Value>, &str) -> bool;

/// Tells whether a message's fields are evidence.
pub(super) type FieldsTest = fn(&MessageFields<'_>) -> bool;

#[derive(Clone, Copy)]
pub(super) struct Evidence {
    /// The message's shape says it is this format's, whatever other
    /// formats' shapes say.
    pub(super) narrow_shape: Option<FieldsTest>,
    /// The message's shape says it is this format's.
    pub(super) shape: Option<FieldsTest>,
    /// A part (its map and `type`) only this format has.
    pub(super) exclusive_part: Option<PartTest>,
    /// Fields of a message that decide before its parts.
    pub(super) fields_first: Option<FieldsTest>,
    /// A part that tells this format from the others.
    pub(super) part: Option<PartTest>,
    /// Fields of a message that decide after its parts.
    pub(super) fields_last: Option<FieldsTest>,
}

impl Evidence {
    /// No evidence of any kind.
    pub(super) const NONE: Evidence = Evidence {
        narrow_shape: None,
        shape: None,
        exclusive_part: None,
        fields_first: None,
        part: None,
        fields_last: None,
    };
}

/// The fields of a message that detection reads, found in one pass over
/// its keys (a message has a few; looking each name up would hash it).
#[derive(Default)]
pub(super) struct MessageFields<'a> {
    /// The message is a `[role, content]` tuple.
    pub(super) tuple: bool,
    pub(super) parts: Option<&'a Value>,
    pub(super) role: Option<&'a Value>,
    /// Its top-level `type`.
    pub(super) item_type: Option<&'a Value>,
    pub(super) content: Option<&'a Value>,
    pub(super) images: Option<&'a Value>,
    /// It has an `id`.
    pub(super) id: bool,
    /// It has a `tool_name`.
    pub(super) tool_name: bool,
    /// It has `tool_calls`, `tool_call_id` or `function_call`.
    pub(super) openai_call: bool,
    /// It has a `call_id`.
    pub(super) call_id: bool,
    /// Its `arguments` are an object.
    pub(super) object_arguments: bool,
}

impl<'a> MessageFields<'a> {
    pub(super) fn tuple() -> MessageFields<'a> {
        MessageFields {
            tuple: true,
            ..MessageFields::default()
        }
    }

    pub(super) fn of(map: &'a Map<String, Value>) -> MessageFields<'a> {
        let mut fields = MessageFields::default();
        for (key, value) in map {
            match key.as_str() {
                "parts" => fields.parts = Some(value),
                "role" => fields.role = Some(value),
                "type" => fields.item_type = Some(value),
                "content" => fields.content = Some(value),
                "images" => fields.images = Some(value),
                "id" => fields.id = true,
                "tool_name" => fields.tool_name = true,
                "tool_calls" | "tool_call_id" | "function_call" => fields.openai_call = true,
                "call_id" => fields.call_id = true,
                "arguments" => fields.object_arguments = value.is_object(),
                _ => {}
            }
        }
        fields
    }

    /// Its `parts`, when they are an array.
    pub(super) fn parts_array(&self) -> Option<&'a [Value]> {
        match self.parts {
            Some(Value::Array(parts)) => Some(parts),
            _ => None,
        }
    }

    /// Its `role`, when it is a string.
    pub(super) fn role_name(&self) -> Option<&'a str> {
        self.role.and_then(Value::as_str)
    }

    /// Its top-level `type`, when it is a string.
    pub(super) fn type_name(&self) -> Option<&'a str> {
        self.item_type.and_then(Value::as_str)
    }

    /// True when neither `parts` nor a `model` role decide its shape: the
    /// shapes of role-and-content messages are looked at only then.
    pub(super) fn plain_object(&self) -> bool {
        !self.tuple && self.parts_array().is_none() && self.role_name() != Some("model")
    }

    /// True when its top-level `type` is an item's, not a message's.
    pub(super) fn is_item(&self) -> bool {
        self.type_name().is_some_and(|t| t != "message")
    }
}
