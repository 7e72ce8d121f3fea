//! Where tool results keep their payloads in each wire format, found on the
//! raw messages: the texts that may hold JSON (an OpenAI `role:'tool'`
//! string, an Anthropic `tool_result` block, a LangChain `["tool", …]` tuple,
//! an AI SDK `text` output, a Responses `function_call_output` string or
//! `input_text` part, an MCP `tool_result`'s `text` blocks) and the
//! structured values (AI SDK `json` output, a Gemini
//! `functionResponse.response`, an MCP `tool_result`'s `structuredContent`).

use crate::messages::{Format, Role};
use crate::tool_results::sanitize::Seg;
use serde_json::Value;

/// How a slot holds its tool result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotKind {
    /// A string: JSON text, or a payload itself.
    Text,
    /// A JSON value.
    Structured,
}

/// A place in one message that holds a tool result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// Path from the message to the value.
    pub pointer: Vec<Seg>,
    /// What it holds.
    pub kind: SlotKind,
}

/// The role of a raw message, read without decoding it.
pub fn raw_role(message: &Value) -> Option<Role> {
    match message {
        Value::Array(items) => items.first()?.as_str().map(Role::from_name),
        Value::Object(map) => map.get("role")?.as_str().map(Role::from_name),
        _ => None,
    }
}

fn key(k: &str) -> Seg {
    Seg::Key(k.to_owned())
}

/// The `text` slots of the parts in `parts` whose `type` is `kind`, under `base`.
fn typed_text_parts(parts: &[Value], base: &[Seg], kind: &str, out: &mut Vec<Slot>) {
    for (i, p) in parts.iter().enumerate() {
        if p.get("type").and_then(Value::as_str) == Some(kind)
            && p.get("text").is_some_and(Value::is_string)
        {
            let mut pointer = base.to_vec();
            pointer.extend([Seg::Index(i), key("text")]);
            out.push(Slot {
                pointer,
                kind: SlotKind::Text,
            });
        }
    }
}

/// A Responses tool output item's `output`: a string, or `input_text` parts.
fn responses_output_slots(item: &Value) -> Vec<Slot> {
    let mut out = Vec::new();
    let is_output = matches!(
        item.get("type").and_then(Value::as_str),
        Some("function_call_output" | "custom_tool_call_output")
    );
    let base = [key("output")];
    match item.get("output") {
        Some(Value::String(_)) if is_output => out.push(Slot {
            pointer: base.to_vec(),
            kind: SlotKind::Text,
        }),
        Some(Value::Array(parts)) if is_output => {
            typed_text_parts(parts, &base, "input_text", &mut out)
        }
        _ => {}
    }
    out
}

/// The `response` of every `functionResponse` part of a Gemini `Content`.
fn gemini_response_slots(content: &Value) -> Vec<Slot> {
    let Some(Value::Array(parts)) = content.get("parts") else {
        return Vec::new();
    };
    parts
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            p.get("functionResponse")
                .and_then(|f| f.get("response"))
                .is_some()
        })
        .map(|(i, _)| Slot {
            pointer: vec![
                key("parts"),
                Seg::Index(i),
                key("functionResponse"),
                key("response"),
            ],
            kind: SlotKind::Structured,
        })
        .collect()
}

/// The `text` blocks and `structuredContent` of every MCP `tool_result`
/// block of a message (whose content is one block or an array).
fn mcp_tool_result_slots(message: &Value) -> Vec<Slot> {
    let blocks: Vec<(Vec<Seg>, &Value)> = match message.get("content") {
        Some(Value::Array(blocks)) => blocks
            .iter()
            .enumerate()
            .map(|(i, b)| (vec![key("content"), Seg::Index(i)], b))
            .collect(),
        Some(block @ Value::Object(_)) => vec![(vec![key("content")], block)],
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    for (base, block) in blocks {
        if block.get("type").and_then(Value::as_str) != Some("tool_result") {
            continue;
        }
        if let Some(Value::Array(inner)) = block.get("content") {
            let mut content = base.clone();
            content.push(key("content"));
            typed_text_parts(inner, &content, "text", &mut out);
        }
        if block.get("structuredContent").is_some() {
            let mut pointer = base;
            pointer.push(key("structuredContent"));
            out.push(Slot {
                pointer,
                kind: SlotKind::Structured,
            });
        }
    }
    out
}

/// The tool-result slots of one raw message of `format`.
pub fn tool_result_slots(format: Format, message: &Value) -> Vec<Slot> {
    match format {
        Format::OpenAiResponses => return responses_output_slots(message),
        Format::Gemini => return gemini_response_slots(message),
        Format::Mcp => return mcp_tool_result_slots(message),
        _ => {}
    }
    let mut out = Vec::new();
    let role = raw_role(message);
    let (content, content_seg) = match message {
        Value::Array(items) => (items.get(1), Seg::Index(1)),
        Value::Object(map) => (map.get("content"), key("content")),
        _ => return out,
    };
    let Some(content) = content else { return out };
    let text = |pointer: Vec<Seg>| Slot {
        pointer,
        kind: SlotKind::Text,
    };
    let text_parts = |parts: &Vec<Value>, base: &[Seg], out: &mut Vec<Slot>| {
        typed_text_parts(parts, base, "text", out)
    };
    let base = vec![content_seg];
    match format {
        Format::OpenAi | Format::LangChain | Format::Ollama if role == Some(Role::Tool) => {
            match content {
                Value::String(_) => out.push(text(base)),
                Value::Array(parts) => text_parts(parts, &base, &mut out),
                _ => {}
            }
        }
        Format::Anthropic => {
            if let Value::Array(parts) = content {
                for (i, p) in parts.iter().enumerate() {
                    if p.get("type").and_then(Value::as_str) != Some("tool_result") {
                        continue;
                    }
                    let mut ptr = base.clone();
                    ptr.extend([Seg::Index(i), key("content")]);
                    match p.get("content") {
                        Some(Value::String(_)) => out.push(text(ptr)),
                        Some(Value::Array(inner)) => text_parts(inner, &ptr, &mut out),
                        _ => {}
                    }
                }
            }
        }
        Format::AiSdk if role == Some(Role::Tool) => {
            if let Value::Array(parts) = content {
                for (i, p) in parts.iter().enumerate() {
                    if p.get("type").and_then(Value::as_str) != Some("tool-result") {
                        continue;
                    }
                    let mut ptr = base.clone();
                    ptr.push(Seg::Index(i));
                    if let Some(output) = p.get("output") {
                        ptr.extend([key("output"), key("value")]);
                        match output.get("type").and_then(Value::as_str) {
                            Some("text" | "error-text") => out.push(text(ptr)),
                            Some("json" | "error-json") => out.push(Slot {
                                pointer: ptr,
                                kind: SlotKind::Structured,
                            }),
                            Some("content") => {
                                if let Some(Value::Array(inner)) = output.get("value") {
                                    text_parts(inner, &ptr, &mut out);
                                }
                            }
                            _ => {}
                        }
                    } else if p.get("result").is_some() {
                        ptr.push(key("result"));
                        out.push(Slot {
                            pointer: ptr,
                            kind: SlotKind::Structured,
                        });
                    }
                }
            }
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_slots_in_every_format() {
        let openai = json!({"role":"tool","tool_call_id":"c","content":"{\"a\":1}"});
        assert_eq!(
            tool_result_slots(Format::OpenAi, &openai),
            vec![Slot {
                pointer: vec![key("content")],
                kind: SlotKind::Text
            }]
        );
        assert!(
            tool_result_slots(Format::OpenAi, &json!({"role":"user","content":"x"})).is_empty()
        );
        let lc = json!(["tool", "{}"]);
        assert_eq!(
            tool_result_slots(Format::LangChain, &lc)[0].pointer,
            vec![Seg::Index(1)]
        );
        let anthropic = json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"{}"},{"type":"tool_result","content":[{"type":"text","text":"{}"}]}]});
        let slots = tool_result_slots(Format::Anthropic, &anthropic);
        assert_eq!(slots.len(), 2);
        assert_eq!(
            slots[1].pointer,
            vec![
                key("content"),
                Seg::Index(1),
                key("content"),
                Seg::Index(0),
                key("text")
            ]
        );
        let ai = json!({"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"t","output":{"type":"json","value":{"a":1}}}]});
        assert_eq!(
            tool_result_slots(Format::AiSdk, &ai)[0].kind,
            SlotKind::Structured
        );
        let responses = json!({"type":"function_call_output","call_id":"c","output":"{}"});
        assert_eq!(
            tool_result_slots(Format::OpenAiResponses, &responses)[0].pointer,
            vec![key("output")]
        );
        let listed = json!({"type":"function_call_output","call_id":"c","output":[{"type":"input_image","image_url":"x"},{"type":"input_text","text":"{}"}]});
        assert_eq!(
            tool_result_slots(Format::OpenAiResponses, &listed)[0].pointer,
            vec![key("output"), Seg::Index(1), key("text")]
        );
        let gemini = json!({"role":"user","parts":[{"text":"x"},{"functionResponse":{"name":"f","response":{"output":"{}"}}}]});
        assert_eq!(
            tool_result_slots(Format::Gemini, &gemini),
            vec![Slot {
                pointer: vec![
                    key("parts"),
                    Seg::Index(1),
                    key("functionResponse"),
                    key("response")
                ],
                kind: SlotKind::Structured
            }]
        );
        let mcp = json!({"role":"user","content":{"type":"tool_result","toolUseId":"t","content":[{"type":"text","text":"{}"}],"structuredContent":{"a":1}}});
        assert_eq!(
            tool_result_slots(Format::Mcp, &mcp),
            vec![
                Slot {
                    pointer: vec![key("content"), key("content"), Seg::Index(0), key("text")],
                    kind: SlotKind::Text
                },
                Slot {
                    pointer: vec![key("content"), key("structuredContent")],
                    kind: SlotKind::Structured
                }
            ]
        );
        assert!(tool_result_slots(
            Format::OpenAiResponses,
            &json!({"role":"user","content":"{}"})
        )
        .is_empty());
    }
}
