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
    /// Vercel AI SDK `UIMessage`: `{id, role, parts}` with `text`, `file` and tool parts.
    UiMessage,
    /// OpenAI Responses input items: messages with `input_text` and
    /// `input_image` parts, `function_call`, `function_call_output` and others.
    OpenAiResponses,
    /// Google Gemini `Content`: `{role, parts}` with `{text}`, `{inlineData}`,
    /// `{functionCall}` and `{functionResponse}` parts.
    Gemini,
    /// MCP sampling messages: `{role, content}` where content is one block
    /// or an array of `text`, `image`, `audio`, `resource` and `tool_result` blocks.
    Mcp,
    /// Ollama chat: `{role, content: string, images?: [base64]}`.
    Ollama,
}

/// Every format with its name and the other names it is accepted under.
const NAMES: [(Format, &str, &[&str]); 9] = [
    (Format::OpenAi, "openai", &[]),
    (Format::LangChain, "langchain", &[]),
    (Format::Anthropic, "anthropic", &[]),
    (Format::AiSdk, "ai-sdk", &["aisdk", "vercel"]),
    (Format::UiMessage, "ui-message", &["uimessage"]),
    (Format::OpenAiResponses, "openai-responses", &["responses"]),
    (Format::Gemini, "gemini", &["google"]),
    (Format::Mcp, "mcp", &[]),
    (Format::Ollama, "ollama", &[]),
];

impl Format {
    /// Every format, in the order of their names in error messages.
    pub const ALL: [Format; 9] = [
        Format::OpenAi,
        Format::LangChain,
        Format::Anthropic,
        Format::AiSdk,
        Format::UiMessage,
        Format::OpenAiResponses,
        Format::Gemini,
        Format::Mcp,
        Format::Ollama,
    ];

    /// The name used in options and reports.
    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(f, _, _)| *f == self)
            .map_or("", |(_, name, _)| name)
    }

    /// Parses a format name as given in options (`path` names the option).
    pub fn from_name(name: &str, path: &str) -> Result<Self, MessageError> {
        NAMES
            .iter()
            .find(|(_, n, aliases)| *n == name || aliases.contains(&name))
            .map(|(f, _, _)| *f)
            .ok_or_else(|| MessageError::UnknownFormat {
                path: path.to_owned(),
                name: name.to_owned(),
            })
    }

    /// A text content part in this format: `{type:'text', text}`, Responses
    /// `{type:'input_text', text}`, Gemini `{text}`.
    pub fn text_part(self, text: String) -> serde_json::Value {
        super::Part::text_in(self, text).into_wire()
    }

    /// True when a message's content may be one plain string. Where it may
    /// not (UIMessage and Gemini `parts`, MCP blocks), text written as one
    /// string goes back as one text part.
    pub fn has_string_content(self) -> bool {
        !matches!(self, Format::UiMessage | Format::Gemini | Format::Mcp)
    }

    /// False for Ollama, whose messages carry images and nothing else: a
    /// file goes to it as a description.
    pub fn has_file_parts(self) -> bool {
        self != Format::Ollama
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for f in Format::ALL {
            assert_eq!(Format::from_name(f.name(), "o.format"), Ok(f));
        }
        assert_eq!(Format::from_name("vercel", "o"), Ok(Format::AiSdk));
        assert_eq!(
            Format::from_name("responses", "o"),
            Ok(Format::OpenAiResponses)
        );
        assert!(Format::from_name("nope", "o").is_err());
    }
}
