//! Where tool results keep their payloads in each wire format: the texts
//! that may hold JSON and the structured values. Each format's module finds
//! its own; this is the name `tool_results` knows them by.

pub use crate::messages::{tool_result_slots, SlotKind, ToolSlot as Slot};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::{Format, Seg};

    fn key(k: &str) -> Seg {
        Seg::Key(k.to_owned())
    }
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
