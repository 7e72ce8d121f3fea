//! Agent loops in every format that has a tool-result shape for images: one
//! prompt (text and a mockup image), then twelve steps, each a tool call
//! answered with a screenshot in the format's own tool-result shape. The
//! person's prompt passes whole, the newest screenshot (not answered yet)
//! too, and the screenshots the model has answered are history: with
//! `keepRecentImages: 2` and no slack, the last 3 stay inline and the other
//! 9 become placeholders; expansion restores every one exactly.

use crate::common;
use crate::common::calls::*;

use common::*;
use ctxpack_core::budget::Slack;
use ctxpack_core::history::{CompactCall, CompactOptions};
use ctxpack_core::messages::{detect_format, Format};
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashConfig};
use serde_json::{json, Value};

/// The steps of the loop.
pub(crate) const STEPS: usize = 12;

/// The `n`-th screenshot: the chart with a byte of its own after its end
/// (a distinct payload, still a PNG by its header).
pub(crate) fn screenshot(n: usize) -> Vec<u8> {
    let mut bytes = PNG.to_vec();
    bytes.push(n as u8);
    bytes
}

/// The person's mockup.
pub(crate) fn mockup() -> Vec<u8> {
    JPEG.to_vec()
}

/// How a format writes a loop: the prompt, the model's `n`-th call, and its
/// answer holding `image`.
pub(crate) struct LoopShape {
    pub(crate) format: Format,
    pub(crate) prompt: fn(&[u8]) -> Value,
    pub(crate) call: fn(usize) -> Value,
    pub(crate) result: fn(usize, &[u8]) -> Value,
}

/// The loop's messages: the prompt, then `steps` calls and answers.
pub(crate) fn loop_messages(shape: &LoopShape, steps: usize) -> Vec<Value> {
    let mut out = vec![(shape.prompt)(&mockup())];
    for n in 0..steps {
        out.push((shape.call)(n));
        out.push((shape.result)(n, &screenshot(n)));
    }
    out
}

/// Every format's loop.
pub(crate) fn loop_shapes() -> Vec<LoopShape> {
    vec![
        LoopShape {
            format: Format::Anthropic,
            prompt: |img| {
                json!({"role":"user","content":[{"type":"text","text":"Build this page."},
                {"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":b64(img)}}]})
            },
            call: |n| json!({"role":"assistant","content":[{"type":"tool_use","id":format!("toolu_{n}"),"name":"screenshot","input":{}}]}),
            result: |n, img| {
                json!({"role":"user","content":[{"type":"tool_result","tool_use_id":format!("toolu_{n}"),
                "content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":b64(img)}}]}]})
            },
        },
        LoopShape {
            format: Format::Gemini,
            prompt: |img| json!({"role":"user","parts":[{"text":"Build this page."},{"inlineData":{"mimeType":"image/jpeg","data":b64(img)}}]}),
            call: |n| json!({"role":"model","parts":[{"functionCall":{"name":"screenshot","args":{"step":n}}}]}),
            result: |_, img| {
                json!({"role":"user","parts":[{"functionResponse":{"name":"screenshot","response":{"ok":true}}},
                {"inlineData":{"mimeType":"image/png","data":b64(img)}}]})
            },
        },
        LoopShape {
            format: Format::OpenAiResponses,
            prompt: |img| {
                json!({"role":"user","content":[{"type":"input_text","text":"Build this page."},
                {"type":"input_image","image_url":data_url("image/jpeg", img),"detail":"auto"}]})
            },
            call: |n| json!({"type":"function_call","call_id":format!("call_{n}"),"name":"screenshot","arguments":"{}"}),
            result: |n, img| {
                json!({"type":"function_call_output","call_id":format!("call_{n}"),
                "output":[{"type":"input_image","image_url":data_url("image/png", img),"detail":"auto"}]})
            },
        },
        // OpenAI computer use: a `computer_call_output` takes nothing but a
        // screenshot, so a placeholder goes as a picture of its text.
        LoopShape {
            format: Format::OpenAiResponses,
            prompt: |img| {
                json!({"role":"user","content":[{"type":"input_text","text":"Build this page."},
                {"type":"input_image","image_url":data_url("image/jpeg", img),"detail":"auto"}]})
            },
            call: |n| {
                json!({"type":"computer_call","id":format!("cu_{n}"),"call_id":format!("call_{n}"),
                "action":{"type":"screenshot"},"pending_safety_checks":[],"status":"completed"})
            },
            result: |n, img| {
                json!({"type":"computer_call_output","call_id":format!("call_{n}"),
                "output":{"type":"computer_screenshot","image_url":data_url("image/png", img)},"acknowledged_safety_checks":[]})
            },
        },
        // Gemini 3's multimodal function responses: the screenshot inside
        // `functionResponse.parts`, which takes media only.
        LoopShape {
            format: Format::Gemini,
            prompt: |img| json!({"role":"user","parts":[{"text":"Build this page."},{"inlineData":{"mimeType":"image/jpeg","data":b64(img)}}]}),
            call: |n| json!({"role":"model","parts":[{"functionCall":{"name":"screenshot","args":{"step":n}}}]}),
            result: |_, img| {
                json!({"role":"user","parts":[{"functionResponse":{"name":"screenshot","response":{"ok":true},
                "parts":[{"inlineData":{"mimeType":"image/png","data":b64(img)}}]}}]})
            },
        },
        LoopShape {
            format: Format::GeminiInteractions,
            prompt: |img| {
                json!({"type":"user_input","content":[{"type":"text","text":"Build this page."},
                {"type":"image","data":b64(img),"mime_type":"image/jpeg"}]})
            },
            call: |n| json!({"type":"function_call","id":format!("fc_{n}"),"name":"screenshot","arguments":{}}),
            result: |n, img| {
                json!({"type":"function_result","call_id":format!("fc_{n}"),"name":"screenshot",
                "result":[{"type":"image","data":b64(img),"mime_type":"image/png"}]})
            },
        },
        LoopShape {
            format: Format::AiSdk,
            prompt: |img| {
                json!({"role":"user","content":[{"type":"text","text":"Build this page."},
                {"type":"image","image":b64(img),"mediaType":"image/jpeg"}]})
            },
            call: |n| json!({"role":"assistant","content":[{"type":"tool-call","toolCallId":format!("c{n}"),"toolName":"screenshot","input":{}}]}),
            result: |n, img| {
                json!({"role":"tool","content":[{"type":"tool-result","toolCallId":format!("c{n}"),"toolName":"screenshot",
                "output":{"type":"content","value":[{"type":"image-data","data":b64(img),"mediaType":"image/png"}]}}]})
            },
        },
        LoopShape {
            format: Format::LangChain,
            prompt: |img| {
                json!(["human",[{"type":"text","text":"Build this page."},
                {"type":"image_url","image_url":{"url":data_url("image/jpeg", img)}}]])
            },
            call: |n| json!(["ai", format!("Taking screenshot {n}.")]),
            result: |_, img| json!(["tool",[{"type":"image_url","image_url":{"url":data_url("image/png", img)}}]]),
        },
        LoopShape {
            format: Format::Mcp,
            prompt: |img| {
                json!({"role":"user","content":[{"type":"text","text":"Build this page."},
                {"type":"image","data":b64(img),"mimeType":"image/jpeg"}]})
            },
            call: |n| json!({"role":"assistant","content":{"type":"tool_use","id":format!("t{n}"),"name":"screenshot","input":{}}}),
            result: |n, img| {
                json!({"role":"user","content":{"type":"tool_result","toolUseId":format!("t{n}"),
                "content":[{"type":"image","data":b64(img),"mimeType":"image/png"}]}})
            },
        },
        LoopShape {
            format: Format::Ollama,
            prompt: |img| json!({"role":"user","content":"Build this page.","images":[b64(img)]}),
            call: |n| json!({"role":"assistant","content":"","tool_calls":[{"function":{"name":"screenshot","arguments":{"step":n}}}]}),
            result: |_, img| json!({"role":"tool","tool_name":"screenshot","content":"done","images":[b64(img)]}),
        },
    ]
}

/// True when `step` (a message's JSON text) holds the placeholder of
/// `image`: as text, or as the picture of it that stands where only a
/// picture may.
pub(crate) fn holds_placeholder(step: &str, image: &[u8]) -> bool {
    let text = placeholder(image);
    step.contains(&text)
        || ctxpack_core::messages::picture_of(&text).is_some_and(|picture| step.contains(&picture))
}

/// The stash's settings.
static CONFIG: std::sync::LazyLock<StashConfig> = std::sync::LazyLock::new(StashConfig::default);

fn access(stash: &MemoryBackend, now: f64) -> StashAccess<'_, MemoryBackend> {
    StashAccess {
        backend: stash,
        config: &CONFIG,
        now,
    }
}

/// The loop compacted with `keepRecentImages: 2` and no slack: which
/// screenshots stay inline, and whether the prompt's mockup does.
pub(crate) fn compact_loop(shape: &LoopShape, stash: &MemoryBackend) -> (Vec<Value>, Vec<Value>) {
    let input = loop_messages(shape, STEPS);
    let options = CompactOptions {
        keep_recent_images: 2,
        slack: Slack::EXACT,
        ..CompactOptions::default()
    };
    let out = block_on(
        CompactCall::new(access(stash, 1.0), options, &ctxpack_core::media::InMemory)
            .run_values(input.clone(), Some(shape.format)),
    )
    .unwrap();
    (input, out.messages)
}

/// Which of the loop's screenshots are inline in `messages`, and whether
/// the mockup is.
pub(crate) fn inline_in(messages: &[Value]) -> (Vec<bool>, bool) {
    let text = |v: &Value| v.to_string();
    let shots = (0..STEPS)
        .map(|n| text(&messages[2 + 2 * n]).contains(&b64(&screenshot(n))))
        .collect();
    (shots, text(&messages[0]).contains(&b64(&mockup())))
}

#[test]
fn the_loop_keeps_the_prompt_and_the_newest_screenshots_in_every_format() {
    for shape in loop_shapes() {
        let stash = MemoryBackend::new();
        let (input, compacted) = compact_loop(&shape, &stash);
        let name = shape.format.name();
        assert_eq!(detect_format(&input), shape.format, "{name}");
        let (shots, mockup_inline) = inline_in(&compacted);
        let expected: Vec<bool> = (0..STEPS).map(|n| n >= STEPS - 3).collect();
        assert_eq!(shots, expected, "{name}");
        assert!(mockup_inline, "{name}");
        // The prompt is byte-identical; every stashed screenshot is its placeholder.
        assert_eq!(compacted[0].to_string(), input[0].to_string(), "{name}");
        for n in 0..STEPS - 3 {
            let step = compacted[2 + 2 * n].to_string();
            assert!(holds_placeholder(&step, &screenshot(n)), "{name} {n}");
        }
        // The calls and the newest answer are untouched.
        for i in (1..input.len()).step_by(2) {
            assert_eq!(compacted[i], input[i], "{name} {i}");
        }
        assert_eq!(compacted.last(), input.last(), "{name}");
        let back = block_on(expand_values(
            access(&stash, 2.0),
            compacted,
            Some(shape.format),
            &ctxpack_core::media::InMemory,
        ))
        .unwrap();
        assert_eq!(back.messages, input, "{name}");
        assert_eq!(back.report.missing.len(), 0, "{name}");
    }
}

#[test]
fn a_loop_after_earlier_chat_turns_stashes_their_images_too() {
    for shape in loop_shapes() {
        let name = shape.format.name();
        let mut input = loop_messages(&shape, 3);
        // An earlier turn: the person's image, answered with text.
        let earlier = (shape.prompt)(GIF);
        let answer = (shape.call)(99);
        input.splice(0..0, [earlier, answer]);
        let stash = MemoryBackend::new();
        let out = block_on(
            CompactCall::new(
                access(&stash, 1.0),
                CompactOptions {
                    slack: Slack::EXACT,
                    ..CompactOptions::default()
                },
                &ctxpack_core::media::InMemory,
            )
            .run_values(input.clone(), Some(shape.format)),
        )
        .unwrap();
        let text: Vec<String> = out.messages.iter().map(Value::to_string).collect();
        // The earlier image and the two answered screenshots are history.
        assert!(text[0].contains(&placeholder(GIF)), "{name}");
        assert!(holds_placeholder(&text[4], &screenshot(0)), "{name}");
        assert!(holds_placeholder(&text[6], &screenshot(1)), "{name}");
        // The person's newest message and the newest screenshot pass untouched.
        assert_eq!(out.messages[2], input[2], "{name}");
        assert_eq!(out.messages[8], input[8], "{name}");
        assert_eq!(out.report.newest_user_index, Some(2), "{name}");
        assert_eq!(out.report.stashed, 3, "{name}");
    }
}
