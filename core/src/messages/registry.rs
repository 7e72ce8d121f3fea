//! The wire formats, by [`Format`]: the one list that names them all. Each
//! line names a format's module, its name and the other names it is
//! accepted under; the list makes the [`Format`] enum, its names and the
//! dispatch to each module's [`WireFormat`] (how it reads and writes
//! messages), [`NewParts`] (how it writes new parts) and `file_part`.
//! Everything else a format knows is in its module.

use super::decode::decode_role_content;
use super::model::{Message, NewParts, WireFormat};
use super::tool_call::{CallShape, ToolAnswer};
use super::tool_slots::ToolSlot;
use super::{detect_format, ImageShape, MessageError, Role};
use crate::json_path::JsonPath;
use serde_json::Value;

/// Makes the format list: `Format`, `Format::ALL`, the names, and the
/// dispatch by format to each module's `WIRE`, `NEW_PARTS` and `file_part`.
macro_rules! formats {
    ($($(#[doc = $doc:literal])* $variant:ident => $module:ident, $name:literal, [$($alias:literal),*];)*) => {
        /// A message wire format. Output always uses the input's format.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Format {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Format {
            /// Every format, in the order of the list (and of their names in
            /// error messages).
            pub const ALL: [Format; [$($name),*].len()] = [$(Format::$variant),*];

            /// The first of the list: what a call that names no format
            /// writes, and what detection falls back to.
            pub const DEFAULT: Format = Format::ALL[0];
        }

        /// The `Format` type of the TypeScript declarations: the union of
        /// the formats' names, in the list's order.
        pub const FORMAT_UNION_TS: &str = concat!(
            "/** A message wire format. */\nexport type Format = never",
            $(" | \"", $name, "\"",)*
            ";\n"
        );

        /// Every format with its name and the other names it is accepted under.
        pub(super) const NAMES: [(Format, &str, &[&str]); [$($name),*].len()] =
            [$((Format::$variant, $name, &[$($alias),*])),*];

        /// How `format` reads and writes messages.
        pub(super) fn wire_format(format: Format) -> &'static WireFormat {
            match format {
                $(Format::$variant => &super::$module::WIRE,)*
            }
        }

        /// How `format` writes new parts: its `NEW_PARTS` alone, so a module
        /// that only writes parts links no format's decoder.
        pub(super) fn new_parts(format: Format) -> &'static NewParts {
            match format {
                $(Format::$variant => &super::$module::NEW_PARTS,)*
            }
        }

        /// Writes a new file part of `format`. (A match, not a table field:
        /// a module that writes images alone links no file writer.)
        fn file_writer(format: Format) -> fn(&str, &str, &str) -> Value {
            match format {
                $(Format::$variant => super::$module::file_part,)*
            }
        }
    };
}

formats! {
    /// OpenAI Chat Completions: `{role, content: string | parts}`.
    OpenAi => openai, "openai", [];
    /// LangChain message tuples: `["human" | "ai" | "assistant" | "system" | "tool", content]`.
    LangChain => langchain, "langchain", [];
    /// Anthropic Messages: `{role, content}` with `image`, `tool_use` and `tool_result` blocks.
    Anthropic => anthropic, "anthropic", [];
    /// Vercel AI SDK `ModelMessage`: `image`, `file`, `tool-call` and `tool-result` parts.
    AiSdk => ai_sdk, "ai-sdk", ["aisdk", "vercel"];
    /// Vercel AI SDK `UIMessage`: `{id, role, parts}` with `text`, `file` and tool parts.
    UiMessage => ui_message, "ui-message", ["uimessage"];
    /// OpenAI Responses input items: messages with `input_text` and
    /// `input_image` parts, `function_call`, `function_call_output` and others.
    OpenAiResponses => openai_responses, "openai-responses", ["responses"];
    /// Google Gemini `Content`: `{role, parts}` with `{text}`, `{inlineData}`,
    /// `{functionCall}` and `{functionResponse}` parts.
    Gemini => gemini, "gemini", ["google"];
    /// MCP sampling messages: `{role, content}` where content is one block
    /// or an array of `text`, `image`, `audio`, `resource` and `tool_result` blocks.
    Mcp => mcp, "mcp", [];
    /// Ollama chat: `{role, content: string, images?: [base64]}`.
    Ollama => ollama, "ollama", [];
    /// Google's Interactions API `input`: steps (`user_input`, `model_output`,
    /// `function_call`, `function_result`, …), one turn's content list, or
    /// the older `{role, content}` turns.
    GeminiInteractions => gemini_interactions, "gemini-interactions", ["interactions"];
}

/// Every image shape of every format.
pub(super) fn all_shapes() -> impl Iterator<Item = ImageShape> {
    Format::ALL
        .into_iter()
        .flat_map(|format| new_parts(format).shapes.iter().copied())
}

/// Where a tool call of `format` keeps its id, name and arguments; for a
/// format whose calls are not answered with messages (UIMessage), what to
/// do instead.
pub fn call_shape(format: Format) -> Result<CallShape, &'static str> {
    wire_format(format).call
}

/// The messages that answer a tool call in `format`, as its API takes them
/// (its module writes them).
pub fn answer_tool_call(format: Format, answer: &ToolAnswer<'_>) -> Vec<Value> {
    (wire_format(format).answer)(answer)
}

/// A new image part of `format` holding `payload` (base64) of type `mime`,
/// written by the format ([`new_image_shape`] is its shape). `detail` is
/// OpenAI's, for the formats that carry one.
pub fn new_image_part(format: Format, mime: &str, payload: &str, detail: Option<&str>) -> Value {
    (new_parts(format).new_part)(mime, payload, detail)
}

/// A new file part of `format` holding `payload` (base64) of type `mime`
/// named `filename`, written by the format (a line naming the file in a
/// format without file parts).
pub fn new_file_part(format: Format, filename: &str, mime: &str, payload: &str) -> Value {
    file_writer(format)(filename, mime, payload)
}

/// The shape of the image parts [`new_image_part`] writes in `format`.
pub fn new_image_shape(format: Format) -> ImageShape {
    new_parts(format).new_shape
}

/// The image shapes a message of `format` can hold, so a stashed part can
/// be told to fit the messages it is restored into.
pub fn native_shapes(format: Format) -> &'static [ImageShape] {
    new_parts(format).shapes
}

/// True when some format keeps base64 payloads under `key` (the boundary
/// reads messages before their format is known, so it asks all of them).
pub fn is_payload_key(key: &str) -> bool {
    Format::ALL
        .into_iter()
        .any(|f| wire_format(f).payload_keys.contains(&key))
}

/// Where a raw message of `format` keeps its tool results.
pub fn tool_result_slots(format: Format, message: &Value) -> Vec<ToolSlot> {
    (wire_format(format).tool_slots)(message)
}

/// The role of a raw message of `format`, read without decoding it.
pub fn raw_role(format: Format, message: &Value) -> Option<Role> {
    (wire_format(format).role_of)(message)
}

impl Message {
    /// Reads one message of `format` at `path`.
    pub fn decode(format: Format, value: Value, path: &JsonPath) -> Result<Message, MessageError> {
        let wire = wire_format(format);
        match wire.decode {
            Some(decode) => decode(value, path),
            None => decode_role_content(wire, value, path),
        }
    }
}

/// Reads an array of messages, detecting the format when `format` is `None`.
pub fn decode_messages(
    values: Vec<Value>,
    format: Option<Format>,
    path: &JsonPath,
) -> Result<(Format, Vec<Message>), MessageError> {
    let format = format.unwrap_or_else(|| detect_format(&values));
    let messages = values
        .into_iter()
        .enumerate()
        .map(|(i, v)| Message::decode(format, v, &path.index(i)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((format, messages))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::ImagePart;

    #[test]
    fn every_new_image_part_reads_back_in_its_shape() {
        for format in Format::ALL {
            let Value::Object(wire) = new_image_part(format, "image/png", "AAAA", None) else {
                panic!("{format:?}");
            };
            let shape = new_image_shape(format);
            assert!(native_shapes(format).contains(&shape), "{format:?}");
            let part = ImagePart { wire, shape };
            assert_eq!(
                part.source().inline(),
                Some(((format != Format::Ollama).then_some("image/png"), "AAAA")),
                "{format:?}"
            );
        }
    }

    #[test]
    fn the_payload_keys_are_those_the_formats_name() {
        assert_eq!(
            FORMAT_UNION_TS,
            "/** A message wire format. */\nexport type Format = never | \"openai\" | \"langchain\" | \"anthropic\" | \"ai-sdk\" | \"ui-message\" | \"openai-responses\" | \"gemini\" | \"mcp\" | \"ollama\" | \"gemini-interactions\";\n"
        );
        let mut keys: Vec<&str> = Format::ALL
            .into_iter()
            .flat_map(|f| wire_format(f).payload_keys.iter().copied())
            .collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(
            keys,
            [
                "base64",
                "blob",
                "data",
                "file_data",
                "image",
                "image_url",
                "images",
                "url"
            ]
        );
        assert!(is_payload_key("blob") && !is_payload_key("text"));
        for format in Format::ALL {
            assert_eq!(wire_format(format).format, format);
        }
    }
}
