//! Whose turn a message is in the exchange between the person, the model
//! and its tools, as each format says of its own messages: what the rule of
//! history leans on (the person's newest message and whatever the model has
//! not answered yet reach the backend untouched; everything else the model
//! has already seen is history, in chats and agent loops alike).

use super::part::{Content, Part};
use super::Role;
use serde_json::Value;

/// Whose turn a message is, as its format says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn {
    /// What the person said: a user message that is not only tool results.
    Person,
    /// What the model output: its messages, tool calls and reasoning.
    Model,
    /// Only tool results answering the model's calls (with what the format
    /// puts beside them).
    ToolResults,
    /// Anything else: system and developer messages, items of neither side.
    Other,
}

/// How a format tells a message's turn from its role, its content and
/// what is left of its wire value (the content lifted out).
pub(super) type TurnOf = fn(Role, &Content, &Value) -> Turn;

/// The turn of a format whose roles tell it: a `user` message is the
/// person's, an `assistant` message the model's output and calls, a `tool`
/// message tool results.
pub(super) fn by_role(role: Role, _: &Content, _: &Value) -> Turn {
    match role {
        Role::User => Turn::Person,
        Role::Assistant => Turn::Model,
        Role::Tool => Turn::ToolResults,
        Role::System | Role::Other => Turn::Other,
    }
}

/// [`by_role`], but a `user` message of `tool_result` blocks only is tool
/// results (Anthropic's and MCP's loops answer a call in a user message).
pub(super) fn by_role_and_tool_result_blocks(role: Role, content: &Content, value: &Value) -> Turn {
    match role {
        Role::User if only_tool_results(content, is_tool_result_block) => Turn::ToolResults,
        _ => by_role(role, content, value),
    }
}

/// True for a `tool_result` block.
fn is_tool_result_block(part: &Part) -> bool {
    part_type(part) == Some("tool_result")
}

/// True when `content` is parts, at least one, each of them what
/// `is_result` takes for a tool result.
pub(super) fn only_tool_results(content: &Content, is_result: fn(&Part) -> bool) -> bool {
    match content {
        Content::Parts(parts) => !parts.is_empty() && parts.iter().all(is_result),
        Content::Absent | Content::Text(_) | Content::Null => false,
    }
}

/// The `type` of a part kept whole (a tool result read as a nested
/// content's block, or one passed through).
pub(super) fn part_type(part: &Part) -> Option<&str> {
    match part {
        Part::ToolResult(t) => t.wire.get("type").and_then(Value::as_str),
        Part::Other(v) => v.get("type").and_then(Value::as_str),
        Part::Text(_) | Part::Image(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_path::JsonPath;
    use crate::messages::{decode_messages, Format};
    use serde_json::json;

    /// The turns `values` read as in `format`.
    fn turns(format: Format, values: Vec<Value>) -> Vec<Turn> {
        let (_, messages) =
            decode_messages(values, Some(format), &JsonPath::root("messages")).unwrap();
        messages.iter().map(|m| m.turn()).collect()
    }

    #[test]
    fn tool_results_in_user_messages_are_no_person_s() {
        let result =
            json!({"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"ok"}]});
        let text_result = json!({"type":"tool_result","tool_use_id":"t","content":"ok"});
        assert_eq!(
            turns(
                Format::Anthropic,
                vec![
                    json!({"role":"user","content":"hi"}),
                    json!({"role":"assistant","content":[{"type":"tool_use","id":"t","name":"x","input":{}}]}),
                    json!({"role":"user","content":[result.clone(), text_result]}),
                    json!({"role":"user","content":[result, {"type":"text","text":"and this"}]}),
                    json!({"role":"system","content":"s"}),
                ]
            ),
            [
                Turn::Person,
                Turn::Model,
                Turn::ToolResults,
                Turn::Person,
                Turn::Other
            ]
        );
    }

    #[test]
    fn gemini_tool_results_are_function_responses_and_the_data_beside_them() {
        let response = json!({"functionResponse":{"name":"shot","response":{}}});
        let data = json!({"inlineData":{"mimeType":"image/png","data":"AAAA"}});
        assert_eq!(
            turns(
                Format::Gemini,
                vec![
                    json!({"role":"user","parts":[{"text":"go"}, data.clone()]}),
                    json!({"role":"model","parts":[{"functionCall":{"name":"shot","args":{}}}]}),
                    json!({"role":"user","parts":[response.clone(), data.clone()]}),
                    json!({"role":"function","parts":[response.clone()]}),
                    json!({"role":"user","parts":[response, {"text":"and look"}]}),
                    json!({"role":"function","parts":[data]}),
                ]
            ),
            [
                Turn::Person,
                Turn::Model,
                Turn::ToolResults,
                Turn::ToolResults,
                Turn::Person,
                Turn::Other
            ]
        );
    }

    #[test]
    fn responses_items_are_the_model_s_calls_and_their_outputs() {
        assert_eq!(
            turns(
                Format::OpenAiResponses,
                vec![
                    json!({"role":"developer","content":"be brief"}),
                    json!({"role":"user","content":"go"}),
                    json!({"type":"reasoning","id":"rs","summary":[]}),
                    json!({"type":"computer_call","call_id":"c","action":{"type":"screenshot"}}),
                    json!({"type":"computer_call_output","call_id":"c","output":{"type":"computer_screenshot","image_url":"data:image/png;base64,AAAA"}}),
                    json!({"type":"function_call_output","call_id":"f","output":"ok"}),
                    json!({"type":"message","role":"assistant","content":"done"}),
                    json!({"type":"item_reference","id":"msg_1"}),
                ]
            ),
            [
                Turn::Other,
                Turn::Person,
                Turn::Model,
                Turn::Model,
                Turn::ToolResults,
                Turn::ToolResults,
                Turn::Model,
                Turn::Other
            ]
        );
    }
}
