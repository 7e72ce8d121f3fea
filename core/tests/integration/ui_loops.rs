//! A loop of tools the browser runs, in AI SDK UIMessages: one user prompt,
//! then one assistant message whose steps each start with `step-start` and
//! hold a tool part answered with a screenshot (an output that is already a
//! model output, `{type:'content', value}`). The outputs of the earlier
//! steps are what the model has answered: with `keepRecentImages: 2` and no
//! slack, the last 3 stay inline and the other 9 become placeholders; the
//! prompt passes whole and expansion restores every one exactly.

use crate::common::calls::*;
use crate::common::*;
use crate::loops::{mockup, screenshot, STEPS};
use ctxpack_core::budget::Slack;
use ctxpack_core::history::{CompactCall, CompactOptions};
use ctxpack_core::media::InMemory;
use ctxpack_core::messages::{detect_format, Format};
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashConfig};
use serde_json::{json, Value};

/// Step `n`'s tool part, its output the screenshot in `kind` of part.
fn step(n: usize, kind: &str) -> Value {
    let shot = b64(&screenshot(n));
    let image = match kind {
        "file" => json!({"type":"file","mediaType":"image/png","data":{"type":"data","data":shot}}),
        kind => json!({"type":kind,"data":shot,"mediaType":"image/png"}),
    };
    json!({"type":"tool-screenshot","toolCallId":format!("c{n}"),"state":"output-available",
        "input":{},"output":{"type":"content","value":[{"type":"text","text":"the page"},image]}})
}

/// The prompt and the assistant message of `steps` steps.
fn ui_loop(steps: usize, kind: &str) -> Vec<Value> {
    let mut parts = Vec::new();
    for n in 0..steps {
        parts.push(json!({"type":"step-start"}));
        parts.push(step(n, kind));
    }
    vec![
        json!({"id":"u1","role":"user","parts":[{"type":"text","text":"Build this page."},
            {"type":"file","mediaType":"image/jpeg","url":data_url("image/jpeg", &mockup())}]}),
        json!({"id":"a1","role":"assistant","parts":parts}),
    ]
}

fn access(stash: &MemoryBackend, now: f64) -> StashAccess<'_, MemoryBackend> {
    static CONFIG: std::sync::OnceLock<StashConfig> = std::sync::OnceLock::new();
    StashAccess {
        backend: stash,
        config: CONFIG.get_or_init(StashConfig::default),
        now,
    }
}

#[test]
fn a_ui_message_loop_keeps_the_prompt_and_the_newest_screenshots() {
    for kind in ["image-data", "file", "media"] {
        let input = ui_loop(STEPS, kind);
        assert_eq!(detect_format(&input), Format::UiMessage);
        let stash = MemoryBackend::new();
        let options = CompactOptions {
            keep_recent_images: 2,
            slack: Slack::EXACT,
            ..CompactOptions::default()
        };
        let out = block_on(
            CompactCall::new(access(&stash, 1.0), options, &InMemory)
                .run_values(input.clone(), Some(Format::UiMessage)),
        )
        .unwrap();
        assert_eq!(out.messages[0], input[0], "{kind}: the prompt");
        for n in 0..STEPS {
            let part = &out.messages[1]["parts"][2 * n + 1];
            let text = part.to_string();
            let stashed = n < STEPS - 3;
            assert_eq!(text.contains(&b64(&screenshot(n))), !stashed, "{kind} {n}");
            if stashed {
                // The placeholder is a text part of the output's content.
                assert_eq!(
                    part["output"]["value"][1],
                    json!({"type":"text","text":placeholder(&screenshot(n))}),
                    "{kind} {n}"
                );
            } else {
                assert_eq!(part, &input[1]["parts"][2 * n + 1], "{kind} {n}");
            }
        }
        let back = block_on(expand_values(
            access(&stash, 2.0),
            out.messages,
            Some(Format::UiMessage),
            &InMemory,
        ))
        .unwrap();
        assert_eq!(back.messages, input, "{kind}");
    }
}

#[test]
fn a_ui_message_chat_and_a_one_step_answer_compact_as_before() {
    // One step: nothing in the assistant message is answered yet.
    let input = ui_loop(1, "image-data");
    let stash = MemoryBackend::new();
    let out = block_on(
        CompactCall::new(access(&stash, 1.0), CompactOptions::default(), &InMemory)
            .run_values(input.clone(), None),
    )
    .unwrap();
    assert_eq!(out.messages, input);
    // A newer user message makes the whole loop history.
    let mut chat = ui_loop(2, "image-data");
    chat.push(json!({"id":"u2","role":"user","parts":[{"type":"text","text":"thanks"}]}));
    let out = block_on(
        CompactCall::new(
            access(&stash, 1.0),
            CompactOptions {
                slack: Slack::EXACT,
                ..CompactOptions::default()
            },
            &InMemory,
        )
        .run_values(chat.clone(), None),
    )
    .unwrap();
    assert_eq!(out.report.stashed, 3);
    assert_eq!(out.messages[2], chat[2]);
}

#[test]
fn fitting_a_ui_message_loop_stashes_its_oldest_answered_screenshots_first() {
    use crate::common::codec::Codec;
    use ctxpack_core::budget::model_profile;
    use ctxpack_core::fit::{FitCall, FitOptions};
    let mut profile = model_profile("claude-sonnet-4-5");
    profile.max_images = Some(6);
    let input = ui_loop(STEPS, "image-data");
    let stash = MemoryBackend::new();
    let out = block_on(fit_values(
        FitCall::new(
            &profile,
            FitOptions {
                slack: Slack::EXACT,
                ..FitOptions::default()
            },
            &Codec::default(),
            &InMemory,
        )
        .with_stash(access(&stash, 1.0)),
        input.clone(),
        Some(Format::UiMessage),
    ))
    .unwrap();
    // 13 images, 6 allowed: the 7 oldest screenshots go.
    assert_eq!(out.messages[0], input[0]);
    for n in 0..STEPS {
        let part = out.messages[1]["parts"][2 * n + 1].to_string();
        assert_eq!(part.contains(&b64(&screenshot(n))), n >= 7, "{n}");
        assert_eq!(part.contains(&placeholder(&screenshot(n))), n < 7, "{n}");
    }
}
