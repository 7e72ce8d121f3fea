//! The wire formats ctxpack reads and writes.

use super::MessageError;

/// A message wire format. Output always uses the input's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// OpenAI Chat Completions: `{role, content: string | parts}`.
    OpenAi,
    /// LangChain message tuples: `["human" | "ai" | "assistant" | "system" | "tool", content]`.
    LangChain,
    /// Anthropic Messages: `{role, content}` with `image`, `tool_use` and `tool_result` blocks.
    Anthropic,
    /// Vercel AI SDK `ModelMessage`: `image`, `file`, `tool-call` and `tool-result` parts.
    AiSdk,
}

impl Format {
    /// The name used in options and reports.
    pub fn name(self) -> &'static str {
        match self {
            Format::OpenAi => "openai",
            Format::LangChain => "langchain",
            Format::Anthropic => "anthropic",
            Format::AiSdk => "ai-sdk",
        }
    }

    /// Parses a format name as given in options (`path` names the option).
    pub fn from_name(name: &str, path: &str) -> Result<Self, MessageError> {
        Ok(match name {
            "openai" => Format::OpenAi,
            "langchain" => Format::LangChain,
            "anthropic" => Format::Anthropic,
            "ai-sdk" | "aisdk" | "vercel" => Format::AiSdk,
            _ => {
                return Err(MessageError::UnknownFormat {
                    path: path.to_owned(),
                    name: name.to_owned(),
                })
            }
        })
    }

    /// A text content part in this format.
    pub fn text_part(self, text: String) -> serde_json::Value {
        super::Part::text(text).into_wire()
    }
}
