//! Reading context-length errors from model APIs, so an app can tell the user
//! "the conversation is 5.4M tokens, the model takes 131k" instead of showing
//! a raw 400.

/// A context-length error, read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextLengthError {
    /// Tokens the request needed.
    #[serde(serialize_with = "crate::number::u64_as_number")]
    pub requested: u64,
    /// Tokens the model accepts.
    #[serde(serialize_with = "crate::number::u64_as_number")]
    pub max: u64,
    /// Whose wording it was: `openai` (also DeepSeek, vLLM, OpenRouter…), `anthropic`, `gemini`.
    pub provider: &'static str,
}

/// The first run of digits (commas and underscores allowed inside) at or after `from`.
pub(crate) fn number_after(text: &str, from: usize) -> Option<(u64, usize)> {
    let bytes = text.as_bytes();
    let start = (from..bytes.len()).find(|&i| bytes[i].is_ascii_digit())?;
    let mut end = start;
    let mut n: u64 = 0;
    while end < bytes.len()
        && (bytes[end].is_ascii_digit()
            || ((bytes[end] == b',' || bytes[end] == b'_')
                && bytes.get(end + 1).is_some_and(u8::is_ascii_digit)))
    {
        if bytes[end].is_ascii_digit() {
            n = n
                .checked_mul(10)?
                .checked_add(u64::from(bytes[end] - b'0'))?;
        }
        end += 1;
    }
    Some((n, end))
}

pub(crate) fn find(text: &str, needle: &str) -> Option<usize> {
    text.to_ascii_lowercase().find(&needle.to_ascii_lowercase())
}

/// Reads `text` (an error message or a whole error body) as a context-length
/// error; `None` when it is not one.
pub fn parse_context_length_error(text: &str) -> Option<ContextLengthError> {
    // OpenAI-style: "maximum context length is 131072 tokens. However, you requested 5472941 tokens"
    if let Some(at) = find(text, "maximum context length is") {
        let (max, end) = number_after(text, at)?;
        // "…you requested 128000 output tokens and your prompt contains at
        // least 134145 input tokens, for a total of at least 262145 tokens"
        let requested = find(&text[end..], "total of")
            .or_else(|| find(&text[end..], "requested"))
            .or_else(|| find(&text[end..], "resulted in"))
            .and_then(|r| number_after(text, end + r))
            .map(|(n, _)| n)?;
        return Some(ContextLengthError {
            requested,
            max,
            provider: "openai",
        });
    }
    // Anthropic: "prompt is too long: 215000 tokens > 200000 maximum"
    if let Some(at) = find(text, "prompt is too long") {
        let (requested, end) = number_after(text, at)?;
        let gt = text[end..].find('>')? + end;
        let (max, _) = number_after(text, gt)?;
        return Some(ContextLengthError {
            requested,
            max,
            provider: "anthropic",
        });
    }
    // Gemini: "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576)"
    if let Some(at) = find(text, "input token count") {
        let (requested, end) = number_after(text, at)?;
        let (max, _) = number_after(text, end + find(&text[end..], "allowed")?)?;
        return Some(ContextLengthError {
            requested,
            max,
            provider: "gemini",
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_providers_wording() {
        let deepseek = r#"DeepSeek API error: 400 - {"error":{"message":"This model's maximum context length is 131072 tokens. However, you requested 5472941 tokens (5468845 in the messages, 4096 in the completion)."}}"#;
        assert_eq!(
            parse_context_length_error(deepseek),
            Some(ContextLengthError {
                requested: 5_472_941,
                max: 131_072,
                provider: "openai"
            })
        );
        let anthropic = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215,000 tokens > 200,000 maximum"}}"#;
        assert_eq!(
            parse_context_length_error(anthropic),
            Some(ContextLengthError {
                requested: 215_000,
                max: 200_000,
                provider: "anthropic"
            })
        );
        let gemini = "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).";
        assert_eq!(
            parse_context_length_error(gemini),
            Some(ContextLengthError {
                requested: 1_234_567,
                max: 1_048_576,
                provider: "gemini"
            })
        );
        assert_eq!(parse_context_length_error("rate limit exceeded"), None);
        assert_eq!(
            parse_context_length_error(
                "maximum context length is 99999999999999999999999 tokens, requested 1"
            ),
            None
        );
    }
}
