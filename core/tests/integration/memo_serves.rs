//! Compaction that remembers gives what one that remembers nothing gives,
//! over random histories, random edits between calls and options that
//! change between two sends of the very same messages; and the memo serves
//! exactly the messages it should. A model kept here, apart from the
//! core, says which: a message sent unchanged a third time is known, when
//! it holds no inline image and the call's format is its digest's, unless
//! the call asks for a cache breakpoint, or sanitizes tool results and the
//! message holds some.
#![cfg(not(target_arch = "wasm32"))]

use crate::common::b64;
use crate::known_messages::{apply, edit_strategy, forgetting, remembering_which, Host};
use crate::properties::{format_strategy, message_strategy, render, IMAGES};
use ctxpack_core::history::CompactOptions;
use ctxpack_core::messages::Format;
use ctxpack_core::stash::MemoryBackend;
use proptest::prelude::*;
use serde_json::{json, Value};

/// A tool result of `format` holding text only (which sanitizing leaves as
/// it is), or `None` for a format without tool results.
fn tool_result(format: Format) -> Option<Value> {
    let text = json!([{"type": "text", "text": "ok"}]);
    Some(match format {
        Format::OpenAi | Format::Ollama => {
            json!({"role": "tool", "tool_call_id": "c1", "content": "ok"})
        }
        Format::LangChain => json!(["tool", "ok"]),
        Format::Anthropic => json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "c1", "content": "ok"}
        ]}),
        Format::AiSdk => json!({"role": "tool", "content": [
            {"type": "tool-result", "toolCallId": "c1", "toolName": "f", "output": {"type": "text", "value": "ok"}}
        ]}),
        Format::OpenAiResponses => {
            json!({"type": "function_call_output", "call_id": "c1", "output": "ok"})
        }
        Format::Gemini => json!({"role": "user", "parts": [
            {"functionResponse": {"name": "f", "response": {"ok": true}}}
        ]}),
        Format::GeminiInteractions => {
            json!({"type": "function_result", "call_id": "c1", "name": "f", "result": "ok"})
        }
        Format::Mcp => {
            json!({"role": "user", "content": {"type": "tool_result", "toolUseId": "c1", "content": text}})
        }
        Format::UiMessage => return None,
    })
}

/// Whether `value` holds the payload of a test image anywhere.
fn holds_payload(value: &Value) -> bool {
    let text = value.to_string();
    IMAGES.iter().any(|(bytes, _)| text.contains(&b64(bytes)))
}

/// What the memo holds for a message value, as far as the model knows.
#[derive(Debug, Clone, PartialEq)]
enum Kept {
    /// A digest made in the format of that name.
    Made(&'static str),
    /// A digest made, or none, the model cannot tell (the message holds an
    /// image payload and was read in a format it was not written in).
    Unknown,
}

/// The model: the values sent so far, and what the memo holds of each.
#[derive(Default)]
struct Model {
    seen: Vec<Value>,
    kept: Vec<(Value, Kept)>,
}

impl Model {
    fn kept(&self, value: &Value) -> Option<&Kept> {
        self.kept.iter().find(|(v, _)| v == value).map(|(_, k)| k)
    }

    /// One send of `values` (written in `written`) that the call read in
    /// `format` with `options`, `tool` being the tool result among them:
    /// whether each message must have been known (`None`: either), given
    /// which were (`known`, to follow what was read).
    fn send(
        &mut self,
        values: &[Value],
        written: Format,
        format: &'static str,
        options: CompactOptions,
        tool: Option<&Value>,
        known: &[bool],
    ) -> Vec<Option<bool>> {
        let before: Vec<Option<Kept>> = values.iter().map(|v| self.kept(v).cloned()).collect();
        let mut made = Vec::new();
        let mut expected = Vec::new();
        for (i, value) in values.iter().enumerate() {
            let is_tool = Some(value) == tool;
            let may_serve = !(options.cache_breakpoint || options.sanitize_tool_results && is_tool);
            expected.push(match &before[i] {
                Some(Kept::Made(f)) => Some(may_serve && *f == format),
                Some(Kept::Unknown) if may_serve => None,
                _ => Some(false),
            });
            if known[i] {
                continue;
            }
            // Read: sent before (or earlier in this send), a digest is made
            // of it unless it holds an inline image.
            let again = before[i].is_some() || self.seen.contains(value);
            if !self.seen.contains(value) {
                self.seen.push(value.clone());
            }
            if !again {
                continue;
            }
            let searched = options.sanitize_tool_results && is_tool;
            if searched {
                // Sanitizing searched it (before the newest user message)
                // and remembers nothing of it, or did not.
                made.push((value.clone(), Kept::Unknown));
            } else if !holds_payload(value) {
                made.push((value.clone(), Kept::Made(format)));
            } else if format != written.name() {
                made.push((value.clone(), Kept::Unknown));
            }
        }
        for (value, kept) in made {
            match self.kept.iter_mut().find(|(v, _)| *v == value) {
                Some(entry) => entry.1 = kept,
                None => self.kept.push((value, kept)),
            }
        }
        expected
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn remembering_gives_what_forgetting_gives_and_serves_only_what_it_should(
        format in format_strategy(),
        givens in prop::collection::vec(any::<bool>(), 4),
        start in prop::collection::vec(message_strategy(), 1..8),
        edits in prop::collection::vec(prop::collection::vec(edit_strategy(), 0..4), 1..4),
        keep in 0..3usize,
        sends in prop::collection::vec((any::<bool>(), any::<bool>()), 8),
        tool_at in prop::option::of(0..8usize),
    ) {
        let (with, without) = (MemoryBackend::new(), MemoryBackend::new());
        let mut host = Host::default();
        let mut model = Model::default();
        let tool = tool_at.and(tool_result(format));
        let mut msgs = start;
        let mut now = 1_000.0;
        for (n, step) in std::iter::once(Vec::new()).chain(edits).enumerate() {
            // Named or detected, call by call: a digest made under a named
            // format serves a call that detects by its verdict.
            let format_opt = givens[n].then_some(format);
            for e in &step {
                apply(&mut msgs, e);
            }
            let mut values = render(format, &msgs);
            if let (Some(at), Some(t)) = (tool_at, &tool) {
                values.insert(at % (values.len() + 1), t.clone());
            }
            // The same messages sent twice, the options free to change.
            for &(sanitize, breakpoint) in &sends[2 * n..2 * n + 2] {
                let options = CompactOptions {
                    keep_recent_images: keep,
                    sanitize_tool_results: sanitize,
                    cache_breakpoint: breakpoint,
                    ..CompactOptions::default()
                };
                let (remembered, known) = remembering_which(&mut host, &with, &values, format_opt, options, now);
                let forgot = forgetting(&without, &values, format_opt, options, now);
                prop_assert_eq!(&remembered.changed, &forgot.changed);
                prop_assert_eq!(&remembered.report, &forgot.report);
                for (i, (a, b)) in remembered.messages.iter().zip(&forgot.messages).enumerate() {
                    if forgot.changed[i] {
                        prop_assert_eq!(a, b);
                    }
                }
                let expected = model.send(&values, format, forgot.report.format, options, tool.as_ref(), &known);
                for (i, e) in expected.iter().enumerate() {
                    if let Some(e) = e {
                        prop_assert_eq!(known[i], *e, "message {} of step {} (sanitize {}, breakpoint {}): {}", i, n, sanitize, breakpoint, values[i]);
                    }
                }
                now += 1_000.0;
            }
        }
    }
}

/// The same messages sent again and again: from the third send, those
/// without an inline image are known, while the options allow it; a cache
/// breakpoint reads them all, sanitizing reads the tool result.
#[test]
fn the_memo_serves_a_third_send_unless_the_options_change_the_message() {
    let tool = tool_result(Format::OpenAi).unwrap();
    let image = json!({"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", b64(IMAGES[0].0))}}
    ]});
    let values = [
        image,
        json!({"role": "assistant", "content": "a call"}),
        tool,
        json!({"role": "user", "content": "and now?"}),
    ];
    let stash = MemoryBackend::new();
    let mut host = Host::default();
    let plain = CompactOptions::default();
    let sanitize = CompactOptions {
        sanitize_tool_results: true,
        ..plain
    };
    let breakpoint = CompactOptions {
        cache_breakpoint: true,
        ..plain
    };
    let sends = [
        (plain, [false; 4]),
        (plain, [false; 4]),
        (plain, [false, true, true, true]),
        (sanitize, [false, true, false, true]),
        (breakpoint, [false; 4]),
        (plain, [false, true, true, true]),
    ];
    for (n, (options, expected)) in sends.into_iter().enumerate() {
        let (_, known) = remembering_which(&mut host, &stash, &values, None, options, n as f64);
        assert_eq!(known, expected, "send {n}");
    }
}
