//! Where a raw message keeps its tool results, found without decoding it:
//! the places ([`ToolSlot`]) that hold a tool's text or JSON value. Each
//! format's module finds its own (its `WIRE.tool_slots`) with the helpers
//! here; `tool_results` sanitizes what they hold.

use super::Role;
use serde_json::Value;

/// One step of a path inside a JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    /// An object key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// How a slot holds its tool result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotKind {
    /// A string: JSON text, or a payload itself.
    Text,
    /// A JSON value.
    Structured,
}

/// A place in one message that holds a tool result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSlot {
    /// Path from the message to the value.
    pub pointer: Vec<Seg>,
    /// What it holds.
    pub kind: SlotKind,
}

impl ToolSlot {
    /// A slot of `kind` at `pointer`.
    pub(super) fn new(pointer: Vec<Seg>, kind: SlotKind) -> ToolSlot {
        ToolSlot { pointer, kind }
    }
}

/// The step `k` of a path.
pub(super) fn key(k: &str) -> Seg {
    Seg::Key(k.to_owned())
}

/// The role of a raw message with a `role` (or a `[role, content]` tuple),
/// read without decoding it.
pub(super) fn role_field(message: &Value) -> Option<Role> {
    match message {
        Value::Array(items) => items.first()?.as_str().map(Role::from_name),
        Value::Object(map) => map.get("role")?.as_str().map(Role::from_name),
        _ => None,
    }
}

/// The `text` slots of the parts in `parts` whose `type` is `kind`, under `base`.
pub(super) fn typed_text_parts(parts: &[Value], base: &[Seg], kind: &str, out: &mut Vec<ToolSlot>) {
    for (i, p) in parts.iter().enumerate() {
        if p.get("type").and_then(Value::as_str) == Some(kind)
            && p.get("text").is_some_and(Value::is_string)
        {
            let mut pointer = base.to_vec();
            pointer.extend([Seg::Index(i), key("text")]);
            out.push(ToolSlot::new(pointer, SlotKind::Text));
        }
    }
}

/// A string, or the `text` parts of a list, at `base` of `value`.
pub(super) fn text_or_parts(value: &Value, base: Vec<Seg>, out: &mut Vec<ToolSlot>) {
    match value {
        Value::String(_) => out.push(ToolSlot::new(base, SlotKind::Text)),
        Value::Array(parts) => typed_text_parts(parts, &base, "text", out),
        _ => {}
    }
}

/// The content of a `tool` message (an object's `content`, a tuple's
/// second entry): a string, or its `text` parts. Nothing for other roles.
pub(super) fn tool_message_slots(message: &Value) -> Vec<ToolSlot> {
    let mut out = Vec::new();
    if role_field(message) != Some(Role::Tool) {
        return out;
    }
    let (content, seg) = match message {
        Value::Array(items) => (items.get(1), Seg::Index(1)),
        Value::Object(map) => (map.get("content"), key("content")),
        _ => return out,
    };
    if let Some(content) = content {
        text_or_parts(content, vec![seg], &mut out);
    }
    out
}

/// No tool results a message could hold as text or JSON.
pub(super) fn no_slots(_message: &Value) -> Vec<ToolSlot> {
    Vec::new()
}
