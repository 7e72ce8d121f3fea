//! The wire formats ctxpack reads and writes.

use super::MessageError;

pub use super::registry::Format;
use super::registry::{new_parts, NAMES};

impl Format {
    /// The name used in options and reports.
    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(f, _, _)| *f == self)
            .map_or("", |(_, name, _)| name)
    }

    /// Every format's name, in the list's order: `a, b or c`.
    pub fn expected_names() -> String {
        let mut text = String::new();
        for (i, (_, name, _)) in NAMES.iter().enumerate() {
            if i > 0 {
                text.push_str(if i + 1 == NAMES.len() { " or " } else { ", " });
            }
            text.push_str(name);
        }
        text
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
    /// not (UIMessage and Gemini `parts`, MCP blocks, Interactions steps),
    /// text written as one string goes back as one text part.
    pub fn has_string_content(self) -> bool {
        new_parts(self).string_content
    }

    /// How this format's API takes a tool definition, if it takes one.
    pub fn tool_dialect(self) -> Option<super::ToolDialect> {
        new_parts(self).tool_dialect
    }

    /// False for a format whose messages carry images and nothing else
    /// (Ollama): a file goes to it as a description.
    pub fn has_file_parts(self) -> bool {
        new_parts(self).file_parts
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
        assert_eq!(
            Format::expected_names(),
            "openai, langchain, anthropic, ai-sdk, ui-message, openai-responses, gemini, mcp, ollama or gemini-interactions"
        );
    }
}
