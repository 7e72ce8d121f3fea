//! The wire formats, by [`Format`]: the one place that knows them all.
//! Each format's module defines its [`WireFormat`] over the neutral model;
//! reading a message asks the format it is in.

use super::decode::decode_role_content;
use super::model::{Images, Message, WireFormat};
use super::tool_call::{CallShape, ToolAnswer};
use super::{
    ai_sdk, anthropic, detect_format, gemini, langchain, mcp, ollama, openai, openai_responses,
    ui_message, Format, ImageShape, MessageError,
};
use crate::json_path::JsonPath;
use serde_json::Value;

/// The module that reads and writes `format`.
/// How `format` holds and writes images: its `IMAGES` alone, so a module
/// that only writes image parts links no format's decoder.
fn images_of(format: Format) -> &'static Images {
    match format {
        Format::OpenAi => &openai::IMAGES,
        Format::OpenAiResponses => &openai_responses::IMAGES,
        Format::Anthropic => &anthropic::IMAGES,
        Format::AiSdk => &ai_sdk::IMAGES,
        Format::UiMessage => &ui_message::IMAGES,
        Format::Gemini => &gemini::IMAGES,
        Format::LangChain => &langchain::IMAGES,
        Format::Mcp => &mcp::IMAGES,
        Format::Ollama => &ollama::IMAGES,
    }
}

pub(super) fn wire_format(format: Format) -> &'static WireFormat {
    match format {
        Format::OpenAi => &openai::WIRE,
        Format::OpenAiResponses => &openai_responses::WIRE,
        Format::Anthropic => &anthropic::WIRE,
        Format::AiSdk => &ai_sdk::WIRE,
        Format::UiMessage => &ui_message::WIRE,
        Format::Gemini => &gemini::WIRE,
        Format::LangChain => &langchain::WIRE,
        Format::Mcp => &mcp::WIRE,
        Format::Ollama => &ollama::WIRE,
    }
}

/// Every format's module.
const ALL: [&WireFormat; 9] = [
    &openai::WIRE,
    &openai_responses::WIRE,
    &anthropic::WIRE,
    &ai_sdk::WIRE,
    &ui_message::WIRE,
    &gemini::WIRE,
    &langchain::WIRE,
    &mcp::WIRE,
    &ollama::WIRE,
];

/// Where a tool call of `format` keeps its id, name and arguments; `None`
/// for a format whose calls are not answered with messages (UIMessage).
pub fn call_shape(format: Format) -> Option<CallShape> {
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
    (images_of(format).new_part)(mime, payload, detail)
}

/// A new file part of `format` holding `payload` (base64) of type `mime`
/// named `filename`, written by the format (a line naming the file in a
/// format without file parts).
pub fn new_file_part(format: Format, filename: &str, mime: &str, payload: &str) -> Value {
    // A match, not a table field: a module that writes images alone links
    // no file writer.
    let write = match format {
        Format::OpenAi | Format::LangChain => openai::file_part,
        Format::OpenAiResponses => openai_responses::file_part,
        Format::Anthropic => anthropic::file_part,
        Format::AiSdk => ai_sdk::file_part,
        Format::UiMessage => ui_message::file_part,
        Format::Gemini => gemini::file_part,
        Format::Mcp => mcp::file_part,
        Format::Ollama => ollama::file_part,
    };
    write(filename, mime, payload)
}

/// The shape of the image parts [`new_image_part`] writes in `format`.
pub fn new_image_shape(format: Format) -> ImageShape {
    images_of(format).new_shape
}

/// The image shapes a message of `format` can hold, so a stashed part can
/// be told to fit the messages it is restored into.
pub fn native_shapes(format: Format) -> &'static [ImageShape] {
    images_of(format).shapes
}

/// True when some format keeps base64 payloads under `key` (the boundary
/// reads messages before their format is known, so it asks all of them).
pub fn is_payload_key(key: &str) -> bool {
    ALL.iter().any(|w| w.payload_keys.contains(&key))
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
        let mut keys: Vec<&str> = ALL
            .iter()
            .flat_map(|w| w.payload_keys.iter().copied())
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
