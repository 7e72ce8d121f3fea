//! Messages and their content, and what a wire format must say about its
//! own shapes ([`WireFormat`]) for them to be read and written back. This
//! module knows no format: each format's module defines its [`WireFormat`]
//! and the registry (`registry.rs`) picks one by [`Format`].

use super::part::{Content, Part, ToolResultSlot};
use super::{Format, ImageShape, MessageError};
use crate::json_path::JsonPath;
use serde_json::{Map, Value};

/// Reads one message of a format at a path.
pub(super) type DecodeMessage = fn(Value, &JsonPath) -> Result<Message, MessageError>;

/// Decides what kind of part a wire object is.
pub(super) type ClassifyPart = fn(&Map<String, Value>, &JsonPath) -> Result<PartKind, MessageError>;

/// Writes a split message's content back into its map.
pub(super) type EncodeSplit = fn(SplitLayout, &mut Map<String, Value>, Content);

/// Writes the messages that answer a tool call.
pub(super) type AnswerToolCall = fn(&super::tool_call::ToolAnswer<'_>) -> Vec<Value>;

/// Writes a new image part: `(mime, base64 payload, detail)`.
pub(super) type NewImagePart = fn(&str, &str, Option<&str>) -> Value;

/// How a format writes new parts (a restored image without its stashed
/// shape, a placeholder, a tool answer, markdown turned into parts), and the
/// image shapes its messages hold.
pub(super) struct NewParts {
    /// Its new image part.
    pub(super) new_part: NewImagePart,
    /// The shape of that part.
    pub(super) new_shape: ImageShape,
    /// Every image shape its messages hold, so a stashed part can be told
    /// to fit the messages it is restored into.
    pub(super) shapes: &'static [ImageShape],
    /// The `type` of its text parts (`None`: Gemini's untyped `{text}`).
    pub(super) text_type: Option<&'static str>,
    /// Whether a message's content may be one plain string.
    pub(super) string_content: bool,
    /// Whether its messages take file parts (else a file is described).
    pub(super) file_parts: bool,
    /// How its API takes a tool definition (`None`: it has no dialect of
    /// its own to name).
    pub(super) tool_dialect: Option<super::ToolDialect>,
    /// Whether its messages take image parts stashed in another format's
    /// shape as they were (false for Ollama, whose images are no parts: it
    /// gets its own new part instead).
    pub(super) foreign_parts: bool,
    /// Writes a prompt-cache breakpoint at the end of a raw message (true
    /// when it holds one now); `None` where the API caches by itself.
    pub(super) cache_breakpoint: Option<fn(&mut Value) -> bool>,
}

/// Puts the prompt-cache marker `{type:'ephemeral'}` under `key` of
/// `object` unless one is there (what a format's `cache_breakpoint`
/// writes); false when `object` is no JSON object.
pub(super) fn ephemeral_marker(object: &mut Value, key: &str) -> bool {
    match object.as_object_mut() {
        Some(map) => {
            map.entry(key)
                .or_insert_with(|| serde_json::json!({ "type": "ephemeral" }));
            true
        }
        None => false,
    }
}

/// One wire format's reading of its own shapes: each format's module
/// defines one (its `WIRE`, beside its [`NewParts`], `NEW_PARTS`, and its
/// `file_part`), and the registry picks it by [`Format`].
pub(super) struct WireFormat {
    /// Which format this is.
    pub(super) format: Format,
    /// The keys under which its parts hold base64 payloads (the boundary
    /// keeps long values under them out of wasm memory).
    pub(super) payload_keys: &'static [&'static str],
    /// Reads one message at a path; `None` for a format whose messages are
    /// objects with a `role` and a `content`, or `[role, content]` tuples.
    pub(super) decode: Option<DecodeMessage>,
    /// What kind of part a wire object of this format is.
    pub(super) classify: ClassifyPart,
    /// Marks parts in a tool result's nested content once read (`slot` is
    /// where it was), for a format that must.
    pub(super) read_tool_result: Option<fn(&mut Content, ToolResultSlot)>,
    /// Writes `content` back into a message's map for a message whose parts
    /// were read from a text field and an array field ([`Slot::Split`]).
    pub(super) encode_split: Option<EncodeSplit>,
    /// Where its tool calls keep their id, name and arguments, or why its
    /// calls are not answered with messages.
    pub(super) call: Result<super::tool_call::CallShape, &'static str>,
    /// Writes the messages that answer a tool call.
    pub(super) answer: AnswerToolCall,
    /// What tells its messages from other formats'.
    pub(super) evidence: super::evidence::Evidence,
    /// Whether its messages may be `[role, content]` tuples, and its
    /// content arrays hold plain strings beside parts (LangChain's).
    pub(super) tuples: bool,
    /// Where a raw message keeps its tool results.
    pub(super) tool_slots: fn(&Value) -> Vec<super::tool_slots::ToolSlot>,
    /// The role of a raw message, read without decoding it.
    pub(super) role_of: fn(&Value) -> Option<Role>,
    /// Whose turn a message is: the person's, the model's output, tool
    /// results or neither.
    pub(super) turn: super::turn::TurnOf,
}

impl WireFormat {
    /// A format whose messages are role and content, with `classify` its
    /// reading of parts, `call` and `answer` its tool calls and their
    /// answers, `evidence` what tells it apart, `tool_slots` where a message
    /// keeps tool results, `turn` whose turn a message is, and nothing else
    /// of its own.
    // One argument a fact each such format must give.
    #[allow(clippy::too_many_arguments)]
    pub(super) const fn role_content(
        format: Format,
        payload_keys: &'static [&'static str],
        classify: ClassifyPart,
        call: super::tool_call::CallShape,
        answer: AnswerToolCall,
        evidence: super::evidence::Evidence,
        tool_slots: fn(&Value) -> Vec<super::tool_slots::ToolSlot>,
        turn: super::turn::TurnOf,
    ) -> WireFormat {
        WireFormat {
            format,
            payload_keys,
            decode: None,
            classify,
            read_tool_result: None,
            encode_split: None,
            call: Ok(call),
            answer,
            evidence,
            tool_slots,
            role_of: super::tool_slots::role_field,
            tuples: false,
            turn,
        }
    }
}

impl PartialEq for WireFormat {
    fn eq(&self, other: &Self) -> bool {
        self.format == other.format
    }
}

impl std::fmt::Debug for WireFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.format, f)
    }
}

/// Who said a message, across formats (`human` and `user` are both [`Role::User`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `system`, `developer`.
    System,
    /// `user`, `human`.
    User,
    /// `assistant`, `ai`, Gemini's `model`.
    Assistant,
    /// `tool`, `function`.
    Tool,
    /// Any other role string; passed through.
    Other,
}

impl Role {
    /// The role a role string names, in object formats and LangChain tuples alike.
    pub fn from_name(name: &str) -> Role {
        match name {
            "user" | "human" => Role::User,
            "assistant" | "ai" | "model" => Role::Assistant,
            "system" | "developer" => Role::System,
            "tool" | "function" => Role::Tool,
            _ => Role::Other,
        }
    }
}

/// Where a message keeps its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Slot {
    /// A string or an array of parts under this key of an object message:
    /// `content`, UIMessage and Gemini `parts`, a Responses tool output's `output`.
    Key(&'static str),
    /// One part object, not an array, under this key (an MCP message's
    /// single content block): written back as one object while it is one part.
    SingleKey(&'static str),
    /// One picture object under this key, in a place that takes a picture
    /// and nothing else (a Responses `computer_call_output`'s `output`): a
    /// text part there (a placeholder) goes back as a picture of its text.
    Picture(&'static str),
    /// Index 1 of a LangChain tuple.
    TupleIndex,
    /// The message is itself one content part (an entry of an Interactions
    /// `Content` array input): its content is that one part.
    Itself,
    /// Parts read from a text field and an array field (Ollama's `content`
    /// string and `images` array), written back by the format.
    Split(SplitLayout),
}

/// Where the parts of a [`Slot::Split`] message came from: the text field
/// (the first part and the placeholder lines read off its end), then one
/// part per entry of the array field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SplitLayout {
    /// The text field.
    pub(super) text_key: &'static str,
    /// The array field.
    pub(super) items_key: &'static str,
    /// Placeholder lines read off the end of the text.
    pub(super) appended: usize,
    /// Entries of the array when it was read.
    pub(super) items: usize,
    /// Whether the message had the text field.
    pub(super) had_text: bool,
    /// Whether the message had the array field.
    pub(super) had_items: bool,
}

/// One message in the neutral model. The wire value is kept; the content is
/// lifted out and put back by [`Message::into_wire`].
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Who said it.
    pub role: Role,
    /// What was said.
    pub content: Content,
    /// Whose turn it is, as its format says when reading it.
    turn: super::Turn,
    wire_format: &'static WireFormat,
    wire: Value,
    pub(super) slot: Slot,
    /// Its content goes back as parts even where the format takes strings
    /// (an Interactions step's `content`).
    parts_only: bool,
}

impl Message {
    /// A message of `format` whose content, lifted out of `wire`, goes back to `slot`.
    pub(super) fn lifted(
        wire_format: &'static WireFormat,
        role: Role,
        content: Content,
        wire: Value,
        slot: Slot,
    ) -> Message {
        let turn = (wire_format.turn)(role, &content, &wire);
        Message {
            role,
            content,
            turn,
            wire_format,
            wire,
            slot,
            parts_only: false,
        }
    }

    /// The message, its content written back as parts even where its format
    /// takes a string (text folded by `collapseText` goes back as one text
    /// part).
    pub(super) fn parts_only(self) -> Message {
        Message {
            parts_only: true,
            ..self
        }
    }

    /// Whose turn the message is (the person's, the model's output, tool
    /// results or neither), as its format said when reading it.
    pub fn turn(&self) -> super::Turn {
        self.turn
    }

    /// The wire format the message was read in, and is written back in.
    pub fn format(&self) -> Format {
        self.wire_format.format
    }

    /// The JSON path of this message's content, given the message's own path:
    /// `messages[0].content`, or `messages[0][1]` for a tuple.
    pub fn content_path(&self, base: &JsonPath) -> JsonPath {
        match self.slot {
            Slot::Key(key) | Slot::SingleKey(key) | Slot::Picture(key) => base.key(key),
            Slot::TupleIndex => base.index(1),
            Slot::Split(layout) => base.key(layout.text_key),
            Slot::Itself => base.clone(),
        }
    }

    /// The JSON path of the `index`-th part of this message's content, as it
    /// was read, given the message's own path: `messages[0].content[2]`, an
    /// MCP message's single block `messages[0].content`, an Ollama image
    /// `messages[0].images[1]`.
    pub fn part_path(&self, base: &JsonPath, index: usize) -> JsonPath {
        match self.slot {
            Slot::SingleKey(key) | Slot::Picture(key) if index == 0 => base.key(key),
            Slot::Itself if index == 0 => base.clone(),
            // The texts are the text field, the others their entry of the array.
            Slot::Split(layout) => match index.checked_sub(1 + layout.appended) {
                Some(j) => base.key(layout.items_key).index(j),
                None => base.key(layout.text_key),
            },
            _ => self.content_path(base).index(index),
        }
    }

    /// The JSON path of the text of the `index`-th part, when that part is a
    /// text part: `messages[0].content[2].text`, or an Ollama message's
    /// `messages[0].content`.
    pub fn text_path(&self, base: &JsonPath, index: usize) -> JsonPath {
        match self.slot {
            Slot::Split(layout) => base.key(layout.text_key),
            _ => self.part_path(base, index).key("text"),
        }
    }

    /// What a plan needs of this message and nothing more: its role, its
    /// images, and the texts `keep_text` keeps,
    /// in the order [`for_each_item`](super::for_each_item) meets them
    /// (tool results' nested parts in their place), as parts of one list.
    /// A stand-in is never written back: its wire value is gone. Texts
    /// kept with no image are one text, a line each (a stand-in is copied
    /// for every call that plans with it: one string copies cheaper than
    /// parts).
    pub fn stand_in(&self, keep_text: &dyn Fn(&str) -> bool) -> Message {
        let mut parts = Vec::new();
        stand_in_parts(&self.content, keep_text, &mut parts);
        // Most stand-ins keep nothing: no content, nothing to copy.
        let content = if parts.is_empty() {
            Content::Absent
        } else if parts.iter().all(|p| matches!(p, Part::Text(_))) {
            let texts: Vec<&str> = parts.iter().filter_map(Part::as_text).collect();
            Content::Text(texts.join("\n"))
        } else {
            Content::Parts(parts)
        };
        Message {
            role: self.role,
            content,
            turn: self.turn,
            wire_format: self.wire_format,
            wire: Value::Null,
            slot: self.slot,
            parts_only: self.parts_only,
        }
    }

    /// The message with no content and no wire value: its role, turn and
    /// place kept (a stand-in whose texts are read in another form).
    pub fn bare(&self) -> Message {
        Message {
            role: self.role,
            content: Content::Absent,
            turn: self.turn,
            wire_format: self.wire_format,
            wire: Value::Null,
            slot: self.slot,
            parts_only: self.parts_only,
        }
    }

    /// Back to the wire value, with the content in its original place.
    pub fn into_wire(self) -> Value {
        let format = self.format();
        let mut wire = self.wire;
        if let (Value::Object(map), Slot::Split(layout)) = (&mut wire, self.slot) {
            if let Some(encode) = self.wire_format.encode_split {
                encode(layout, map, self.content);
            }
            return wire;
        }
        if let (Value::Object(map), Slot::Picture(key)) = (&mut wire, self.slot) {
            if let Some(value) = super::part::picture_content(format, self.content) {
                map.insert(key.into(), value);
            }
            return wire;
        }
        let content = match self.content {
            // Where content cannot be one string, folded text is one text part.
            Content::Text(text) if self.parts_only || !format.has_string_content() => {
                Content::Parts(vec![Part::text_in(format, text)])
            }
            other => other,
        };
        let content = match (content, self.slot) {
            (Content::Parts(mut parts), Slot::SingleKey(_) | Slot::Itself) if parts.len() == 1 => {
                parts.pop().map(Part::into_wire)
            }
            (content, _) => content.into_wire(),
        };
        if let Some(content) = content {
            match (&mut wire, self.slot) {
                (Value::Array(items), Slot::TupleIndex) => {
                    if let Some(slot) = items.get_mut(1) {
                        *slot = content;
                    }
                }
                (Value::Object(map), Slot::Key(key) | Slot::SingleKey(key)) => {
                    map.insert(key.into(), content);
                }
                (_, Slot::Itself) => wire = content,
                _ => {}
            }
        }
        wire
    }
}

/// What kind of part a wire object is, as each format's module decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PartKind {
    Text,
    Image(super::ImageShape),
    ToolResult(ToolResultSlot),
    Other,
}

/// The parts of `content` a stand-in keeps, into `out` (see
/// [`Message::stand_in`]).
fn stand_in_parts(content: &Content, keep_text: &dyn Fn(&str) -> bool, out: &mut Vec<Part>) {
    match content {
        Content::Text(s) if keep_text(s) => out.push(Part::text(s.clone())),
        Content::Parts(parts) => {
            for part in parts {
                match part {
                    Part::Text(_) if part.as_text().is_some_and(keep_text) => {
                        out.push(part.clone())
                    }
                    Part::Image(_) => out.push(part.clone()),
                    Part::ToolResult(t) => stand_in_parts(&t.content, keep_text, out),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
#[path = "model_tests.rs"]
mod tests;
