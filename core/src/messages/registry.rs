//! The wire formats, by [`Format`]: the one place that knows them all.
//! Each format's module implements [`WireFormat`] over the neutral model;
//! reading a message asks the format it is in.

use super::model::{Message, WireFormat};
use super::{
    ai_sdk, anthropic, detect_format, gemini, langchain, mcp, ollama, openai, openai_responses,
    ui_message, Format, MessageError,
};
use crate::json_path::JsonPath;
use serde_json::Value;

/// The module that reads and writes `format`.
pub(super) fn wire_format(format: Format) -> &'static dyn WireFormat {
    match format {
        Format::OpenAi => &openai::OpenAi,
        Format::OpenAiResponses => &openai_responses::OpenAiResponses,
        Format::Anthropic => &anthropic::Anthropic,
        Format::AiSdk => &ai_sdk::AiSdk,
        Format::UiMessage => &ui_message::UiMessage,
        Format::Gemini => &gemini::Gemini,
        Format::LangChain => &langchain::LangChain,
        Format::Mcp => &mcp::Mcp,
        Format::Ollama => &ollama::Ollama,
    }
}

impl Message {
    /// Reads one message of `format` at `path`.
    pub fn decode(format: Format, value: Value, path: &JsonPath) -> Result<Message, MessageError> {
        wire_format(format).decode(value, path)
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
