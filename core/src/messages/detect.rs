//! Telling the wire format from the messages themselves.

use super::Format;
use serde_json::{Map, Value};

/// The format of `messages`, from three kinds of evidence, each looked for
/// in every message before the next:
/// 1. the shape of a message: tuples are LangChain, `parts` are a
///    UIMessage's (typed parts) or Gemini's (untyped), a top-level item
///    `type` is a Responses item's, one content block object is MCP's, an
///    `images` array (or a `tool_name`) is Ollama's;
/// 2. a part only one format has: Responses `input_*` parts, MCP
///    `tool_result` with `toolUseId` and `resource` blocks, LangChain image
///    blocks by `url`, `fileId`, `source_type` or `base64`;
/// 3. the first decisive part or field name, telling OpenAI, Anthropic, the
///    AI SDK and MCP (`{type:'image', data, mimeType}`) apart.
///
/// Messages that are all plain strings read as OpenAI.
pub fn detect_format(messages: &[Value]) -> Format {
    messages
        .iter()
        .find_map(shape_evidence)
        .or_else(|| messages.iter().find_map(exclusive_evidence))
        .or_else(|| messages.iter().find_map(evidence))
        .unwrap_or(Format::OpenAi)
}

/// What the shape of a message alone says: where it keeps its content.
fn shape_evidence(message: &Value) -> Option<Format> {
    let map = match message {
        Value::Array(_) => return Some(Format::LangChain),
        Value::Object(map) => map,
        _ => return None,
    };
    if let Some(Value::Array(parts)) = map.get("parts") {
        return parts_evidence(map, parts);
    }
    if is_gemini_role(map) {
        return Some(Format::Gemini);
    }
    if map
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(super::openai_responses::is_item_type)
    {
        return Some(Format::OpenAiResponses);
    }
    if map.get("content").is_some_and(Value::is_object) {
        return Some(Format::Mcp);
    }
    if map.get("images").is_some_and(Value::is_array) || map.contains_key("tool_name") {
        return Some(Format::Ollama);
    }
    None
}

/// A part of `message` that only one format has.
fn exclusive_evidence(message: &Value) -> Option<Format> {
    message
        .get("content")?
        .as_array()?
        .iter()
        .find_map(exclusive_part)
}

fn exclusive_part(part: &Value) -> Option<Format> {
    let map = part.as_object()?;
    let has = |key: &str| map.contains_key(key);
    match map.get("type")?.as_str()? {
        "input_text" | "input_image" | "input_file" | "output_text" => {
            Some(Format::OpenAiResponses)
        }
        "tool_result" if has("toolUseId") => Some(Format::Mcp),
        "resource" | "resource_link" => Some(Format::Mcp),
        "image"
            if !has("source")
                && !has("image")
                && (has("url") || has("fileId") || has("source_type") || has("base64")) =>
        {
            Some(Format::LangChain)
        }
        _ => None,
    }
}

/// Whose `parts` these are: UIMessage parts all have a `type`, Gemini
/// parts none (they say what they are by their one field).
fn parts_evidence(message: &Map<String, Value>, parts: &[Value]) -> Option<Format> {
    match parts.first() {
        Some(Value::Object(first)) if first.get("type").is_some_and(Value::is_string) => {
            Some(Format::UiMessage)
        }
        Some(Value::Object(_)) => Some(Format::Gemini),
        Some(_) => None,
        None if message.contains_key("id") => Some(Format::UiMessage),
        None if is_gemini_role(message) => Some(Format::Gemini),
        None => None,
    }
}

/// Gemini's name for the assistant.
fn is_gemini_role(message: &Map<String, Value>) -> bool {
    message.get("role").and_then(Value::as_str) == Some("model")
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
    let from_parts = map
        .get("content")
        .and_then(Value::as_array)
        .and_then(|parts| parts.iter().find_map(part_evidence));
    if from_parts.is_some() {
        return from_parts;
    }
    // A Responses message may say what it is.
    if map.get("type").and_then(Value::as_str) == Some("message") {
        return Some(Format::OpenAiResponses);
    }
    // `developer` is OpenAI's, Chat Completions and Responses alike: no
    // evidence either way (and OpenAI is what is left when nothing decides).
    None
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
        // MCP image and audio content (LangChain JS writes the same block;
        // its other image blocks are exclusive evidence).
        "image" | "audio"
            if map.contains_key("mimeType") && map.get("data").is_some_and(Value::is_string) =>
        {
            Some(Format::Mcp)
        }
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
            Format::Mcp
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"image","url":"https://x.test/a.png"}]})
            ]),
            Format::LangChain
        );
        assert_eq!(
            detect_format(&[json!({"role":"user","content":"hi"})]),
            Format::OpenAi
        );
        assert_eq!(detect_format(&[]), Format::OpenAi);
    }

    #[test]
    fn a_message_shape_decides_before_part_names() {
        let ui = json!({"id":"m2","role":"user","parts":[{"type":"text","text":"hi"}]});
        assert_eq!(detect_format(std::slice::from_ref(&ui)), Format::UiMessage);
        assert_eq!(
            detect_format(&[json!({"id":"m1","role":"assistant","parts":[]})]),
            Format::UiMessage
        );
        assert_eq!(
            detect_format(&[
                json!({"type":"function_call","call_id":"c","name":"f","arguments":"{}"})
            ]),
            Format::OpenAiResponses
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"developer","content":"be brief"}),
                json!({"role":"user","content":[{"type":"input_text","text":"hi"}]})
            ]),
            Format::OpenAiResponses
        );
        assert_eq!(
            detect_format(&[json!({"role":"user","content":"hi","type":"message"})]),
            Format::OpenAiResponses
        );
        assert_eq!(
            detect_format(&[json!({"role":"user","parts":[{"text":"hi"}]})]),
            Format::Gemini
        );
        assert_eq!(
            detect_format(&[json!({"role":"model","parts":[]})]),
            Format::Gemini
        );
        assert_eq!(
            detect_format(&[json!({"role":"user","content":{"type":"text","text":"hi"}})]),
            Format::Mcp
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]}),
                json!({"role":"user","content":[{"type":"tool_result","toolUseId":"t","content":[]}]})
            ]),
            Format::Mcp
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{}}}]}),
                json!({"role":"user","content":"hi","images":["AAAA"]})
            ]),
            Format::Ollama
        );
        assert_eq!(
            detect_format(&[json!({"role":"user","content":"hi","images":[]})]),
            Format::Ollama
        );
        // An OpenAI-looking message first does not outvote a UIMessage.
        assert_eq!(
            detect_format(&[json!({"role":"system","content":"x","tool_calls":[]}), ui]),
            Format::UiMessage
        );
    }
}
