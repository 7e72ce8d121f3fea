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
    // One look at each message serves the three kinds: its shape decides
    // at once; the first exclusive part and the first decisive evidence are
    // kept until every message was looked at.
    let mut exclusive = None;
    let mut decisive = None;
    for message in messages {
        let fields = match message {
            Value::Array(_) => return Format::LangChain,
            Value::Object(map) => Fields::of(map),
            _ => continue,
        };
        if let Some(format) = fields.shape_evidence() {
            return format;
        }
        if exclusive.is_none() {
            fields.part_evidence(&mut exclusive, &mut decisive);
        }
    }
    exclusive.or(decisive).unwrap_or(Format::OpenAi)
}

/// The fields of a message that detection reads, found in one pass over
/// its keys (a message has a few; looking each name up would hash it).
#[derive(Default)]
struct Fields<'a> {
    parts: Option<&'a Value>,
    role: Option<&'a Value>,
    item_type: Option<&'a Value>,
    content: Option<&'a Value>,
    images: Option<&'a Value>,
    id: bool,
    tool_name: bool,
    /// `tool_calls`, `tool_call_id` or `function_call`: OpenAI's.
    openai_call: bool,
}

impl<'a> Fields<'a> {
    fn of(map: &'a Map<String, Value>) -> Fields<'a> {
        let mut fields = Fields::default();
        for (key, value) in map {
            match key.as_str() {
                "parts" => fields.parts = Some(value),
                "role" => fields.role = Some(value),
                "type" => fields.item_type = Some(value),
                "content" => fields.content = Some(value),
                "images" => fields.images = Some(value),
                "id" => fields.id = true,
                "tool_name" => fields.tool_name = true,
                "tool_calls" | "tool_call_id" | "function_call" => fields.openai_call = true,
                _ => {}
            }
        }
        fields
    }

    /// What the shape of the message alone says: where it keeps its
    /// content.
    fn shape_evidence(&self) -> Option<Format> {
        if let Some(Value::Array(parts)) = self.parts {
            return self.parts_evidence(parts);
        }
        if self.is_gemini_role() {
            return Some(Format::Gemini);
        }
        if self
            .item_type
            .and_then(Value::as_str)
            .is_some_and(super::openai_responses::is_item_type)
        {
            return Some(Format::OpenAiResponses);
        }
        if self.content.is_some_and(Value::is_object) {
            return Some(Format::Mcp);
        }
        if self.images.is_some_and(Value::is_array) || self.tool_name {
            return Some(Format::Ollama);
        }
        None
    }

    /// Whose `parts` these are: UIMessage parts all have a `type`, Gemini
    /// parts none (they say what they are by their one field).
    fn parts_evidence(&self, parts: &[Value]) -> Option<Format> {
        match parts.first() {
            Some(Value::Object(first)) if first.get("type").is_some_and(Value::is_string) => {
                Some(Format::UiMessage)
            }
            Some(Value::Object(_)) => Some(Format::Gemini),
            Some(_) => None,
            None if self.id => Some(Format::UiMessage),
            None if self.is_gemini_role() => Some(Format::Gemini),
            None => None,
        }
    }

    /// Gemini's name for the assistant.
    fn is_gemini_role(&self) -> bool {
        self.role.and_then(Value::as_str) == Some("model")
    }

    /// Sets `exclusive` to the first content part only one format has, and
    /// `decisive` (while unset) to the first evidence of this message: an
    /// OpenAI tool call field, else its first decisive part, else a
    /// Responses message's `type`.
    fn part_evidence(&self, exclusive: &mut Option<Format>, decisive: &mut Option<Format>) {
        let look_for_decisive = decisive.is_none();
        let mut from_parts = None;
        if let Some(Value::Array(parts)) = self.content {
            for part in parts {
                let Some(map) = part.as_object() else {
                    continue;
                };
                let Some(part_type) = map.get("type").and_then(Value::as_str) else {
                    continue;
                };
                if let Some(format) = exclusive_part(map, part_type) {
                    *exclusive = Some(format);
                    return;
                }
                if look_for_decisive && from_parts.is_none() {
                    from_parts = part_evidence(map, part_type);
                }
            }
        }
        if look_for_decisive {
            *decisive = if self.openai_call {
                Some(Format::OpenAi)
            } else if from_parts.is_some() {
                from_parts
            } else if self.item_type.and_then(Value::as_str) == Some("message") {
                // A Responses message may say what it is. `developer` is
                // OpenAI's, Chat Completions and Responses alike: no
                // evidence either way (and OpenAI is what is left when
                // nothing decides).
                Some(Format::OpenAiResponses)
            } else {
                None
            };
        }
    }
}

/// A part only one format has.
fn exclusive_part(map: &Map<String, Value>, part_type: &str) -> Option<Format> {
    let has = |key: &str| map.contains_key(key);
    match part_type {
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

/// A part that tells OpenAI, Anthropic, the AI SDK, MCP and LangChain
/// apart (where no part of another message was exclusive to one).
fn part_evidence(map: &Map<String, Value>, part_type: &str) -> Option<Format> {
    match part_type {
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
        // Exclusive evidence found first does not outvote a later shape.
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"input_text","text":"hi"}]}),
                json!({"role":"assistant","content":"x"}),
                json!({"role":"user","content":"hi","images":[]})
            ]),
            Format::Ollama
        );
        // Within a message, OpenAI's tool call fields decide before its
        // parts; the first message with evidence decides before later ones.
        assert_eq!(
            detect_format(&[
                json!({"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}],"tool_calls":[]}),
                json!({"role":"user","content":[{"type":"image","source":{}}]})
            ]),
            Format::OpenAi
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"text","text":"a"},{"type":"tool-result"},{"type":"image_url"}]}),
                json!({"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]})
            ]),
            Format::AiSdk
        );
        // An OpenAI-looking message first does not outvote a UIMessage.
        assert_eq!(
            detect_format(&[json!({"role":"system","content":"x","tool_calls":[]}), ui]),
            Format::UiMessage
        );
    }
}
