//! Offload inside a loop, in every format whose tool results take an image
//! by file reference: the screenshots the model has answered and the window
//! keeps go by reference (a Responses computer screenshot by its `file_id`,
//! a Gemini function response's by `fileData`, an AI SDK 6 `image-data`
//! output as an `image-file-id`), the older ones as placeholders, the
//! newest inline; expansion gives the loop back exactly.

use crate::common::*;
use crate::loops::{holds_placeholder, loop_messages, loop_shapes, screenshot, STEPS};
use crate::offload::{expand, keep, offload, Recorder, T0};
use ctxpack_core::messages::{FileProvider, Format};
use ctxpack_core::stash::MemoryBackend;
use serde_json::Value;

#[test]
fn a_loop_s_kept_screenshots_go_by_reference_in_every_format_that_takes_one() {
    let mut tried = Vec::new();
    for shape in loop_shapes() {
        let provider = match shape.format {
            Format::OpenAiResponses | Format::AiSdk => FileProvider::OpenAi,
            Format::Anthropic => FileProvider::Anthropic,
            Format::Gemini | Format::GeminiInteractions => FileProvider::Gemini,
            _ => continue,
        };
        let name = shape.format.name();
        tried.push(name);
        let input = Value::Array(loop_messages(&shape, STEPS));
        let (stash, up) = (MemoryBackend::new(), Recorder::default());
        let options = ctxpack_core::history::CompactOptions {
            slack: ctxpack_core::budget::Slack::EXACT,
            ..keep(2)
        };
        let out = offload(&stash, &up, &input, (provider, "", 0), options, T0);
        assert_eq!(out.report.offloaded, 2, "{name}: {:?}", out.report);
        assert_eq!(out.messages[0], input[0], "{name}: the prompt");
        for n in 0..STEPS {
            let step = out.messages[2 + 2 * n].to_string();
            let inline = step.contains(&b64(&screenshot(n)));
            assert_eq!(inline, n == STEPS - 1, "{name} {n}");
            assert_eq!(
                holds_placeholder(&step, &screenshot(n)),
                n < STEPS - 3,
                "{name} {n}"
            );
        }
        let back = expand(&stash, out.messages, T0 + 1.0);
        assert_eq!(Value::Array(back.messages), input, "{name}");
    }
    assert_eq!(tried.len(), 7, "{tried:?}");
}
