//! The fetch-back inside a loop: the model calls `get_history_image` for a
//! screenshot stashed steps ago, the answer goes where that API takes an
//! image (its tool result), and the next request carries it inline — it is
//! what the model has not answered yet — while the loop's history stays
//! compacted and the prompt whole.

use crate::common;
use crate::common::calls::*;
use crate::loops::{holds_placeholder, loop_messages, loop_shapes, screenshot, STEPS};

use common::*;
use ctxpack_core::budget::Slack;
use ctxpack_core::history::{answer_history_image_call, CompactCall, CompactOptions};
use ctxpack_core::media::InMemory;
use ctxpack_core::messages::Format;
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashConfig};
use serde_json::{json, Value};

/// The model's message calling `get_history_image` for `id`, and the call
/// itself, in `format`.
fn history_call(format: Format, id: &str) -> Option<(Value, Value)> {
    let args = json!({ "image_md5": id });
    Some(match format {
        Format::Anthropic => {
            let call = json!({"type":"tool_use","id":"h1","name":"get_history_image","input":args});
            (json!({"role":"assistant","content":[call.clone()]}), call)
        }
        Format::AiSdk => {
            let call = json!({"type":"tool-call","toolCallId":"h1","toolName":"get_history_image","input":args});
            (json!({"role":"assistant","content":[call.clone()]}), call)
        }
        Format::OpenAiResponses => {
            let call = json!({"type":"function_call","call_id":"h1","name":"get_history_image","arguments":args.to_string()});
            (call.clone(), call)
        }
        Format::GeminiInteractions => {
            let call = json!({"type":"function_call","id":"h1","name":"get_history_image","arguments":args});
            (call.clone(), call)
        }
        _ => return None,
    })
}

fn access<'a>(
    stash: &'a MemoryBackend,
    config: &'a StashConfig,
    now: f64,
) -> StashAccess<'a, MemoryBackend> {
    StashAccess {
        backend: stash,
        config,
        now,
    }
}

#[test]
fn a_screenshot_fetched_back_mid_loop_reaches_the_model_inline() {
    let config = StashConfig::default();
    let options = CompactOptions {
        keep_recent_images: 2,
        slack: Slack::EXACT,
        ..CompactOptions::default()
    };
    let mut tried = 0;
    for shape in loop_shapes() {
        let name = shape.format.name();
        let Some((asking, call)) = history_call(
            shape.format,
            &format!("history_{}", md5(&b64(&screenshot(0)))),
        ) else {
            continue;
        };
        tried += 1;
        let stash = MemoryBackend::new();
        let mut loop_values = loop_messages(&shape, STEPS);
        let first = block_on(
            CompactCall::new(access(&stash, &config, 1.0), options, &InMemory)
                .run_values(loop_values.clone(), Some(shape.format)),
        )
        .unwrap();
        assert!(
            holds_placeholder(&first.messages[2].to_string(), &screenshot(0)),
            "{name}"
        );
        // The model asks for the first screenshot; the app answers from the stash.
        let answer = block_on(answer_history_image_call(
            access(&stash, &config, 2.0),
            shape.format,
            &call,
            // An AI SDK provider whose tool results take images.
            Some("anthropic.messages"),
            &InMemory,
        ))
        .unwrap();
        loop_values.push(asking);
        let answered_from = loop_values.len();
        loop_values.extend(answer);
        let next = block_on(
            CompactCall::new(access(&stash, &config, 3.0), options, &InMemory)
                .run_values(loop_values.clone(), Some(shape.format)),
        )
        .unwrap();
        let answer_text = Value::Array(next.messages[answered_from..].to_vec()).to_string();
        assert!(
            answer_text.contains(&b64(&screenshot(0))),
            "{name}: the answer's image is inline"
        );
        assert_eq!(
            &next.messages[answered_from..],
            &loop_values[answered_from..],
            "{name}"
        );
        assert_eq!(
            next.messages[0], loop_values[0],
            "{name}: the prompt is whole"
        );
        // The newest screenshot is answered now: history, within the window.
        let last_step = next.messages[2 + 2 * (STEPS - 1)].to_string();
        assert!(last_step.contains(&b64(&screenshot(STEPS - 1))), "{name}");
        let older = next.messages[2 + 2 * (STEPS - 3)].to_string();
        assert!(holds_placeholder(&older, &screenshot(STEPS - 3)), "{name}");
    }
    // Anthropic, the AI SDK, Interactions, and Responses with function
    // calls and with computer use.
    assert_eq!(tried, 5);
}
