//! Telling the wire format from the messages themselves.

use super::Format;
use serde_json::Value;

/// The format of `messages`, from the first decisive evidence: tuples are
/// LangChain; part and field names tell OpenAI, Anthropic and the AI SDK
/// apart. Messages that are all plain strings read as OpenAI.
pub fn detect_format(messages: &[Value]) -> Format {
    messages.iter().find_map(evidence).unwrap_or(Format::OpenAi)
}

fn evidence(message: &Value) -> Option<Format> {
    let map = match message {
        Value::Array(_) => return Some(Format::LangChain),
        Value::Object(map) => map,
        _ => return None,
    };
    if map.contains_key("tool_calls")
        || map.contains_key("tool_call_id")
        || map.contains_key("function_call")
    {
        return Some(Format::OpenAi);
    }
    if map.get("role").and_then(Value::as_str) == Some("developer") {
        return Some(Format::OpenAi);
    }
    map.get("content")?
        .as_array()?
        .iter()
        .find_map(part_evidence)
}

fn part_evidence(part: &Value) -> Option<Format> {
    let map = part.as_object()?;
    match map.get("type")?.as_str()? {
        "image_url" | "input_audio" | "refusal" => Some(Format::OpenAi),
        "file" if map.contains_key("file") => Some(Format::OpenAi),
        "image" if map.contains_key("source") => Some(Format::Anthropic),
        "tool_use" | "tool_result" | "document" | "thinking" | "redacted_thinking"
        | "server_tool_use" => Some(Format::Anthropic),
        "image" if map.contains_key("image") => Some(Format::AiSdk),
        // LangChain JS standard blocks and LangChain's own image blocks.
        "image" if map.contains_key("mimeType") || map.contains_key("source_type") => {
            Some(Format::LangChain)
        }
        "file"
            if map.contains_key("data")
                && (map.contains_key("mediaType") || map.contains_key("mimeType")) =>
        {
            Some(Format::AiSdk)
        }
        "tool-call" | "tool-result" | "reasoning" => Some(Format::AiSdk),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn detects_each_format() {
        assert_eq!(detect_format(&[json!(["human", "hi"])]), Format::LangChain);
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":"hi"}),
                json!({"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]})
            ]),
            Format::OpenAi
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]})
            ]),
            Format::Anthropic
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"image","image":"AAAA","mediaType":"image/png"}]})
            ]),
            Format::AiSdk
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"file","mediaType":"image","data":{"type":"data","data":"AAAA"}}]})
            ]),
            Format::AiSdk
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]})
            ]),
            Format::LangChain
        );
        assert_eq!(
            detect_format(&[json!({"role":"user","content":"hi"})]),
            Format::OpenAi
        );
        assert_eq!(detect_format(&[]), Format::OpenAi);
    }
}
