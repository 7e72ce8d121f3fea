//! Caller text cannot forge a payload reference. The boundary hands the core
//! references only in strings it read from JavaScript; a string the core
//! parsed out of a tool result's JSON text is caller text, even when it
//! spells a reference exactly. These tests give the core a `Payloads` that
//! would resolve any reference to another image, and check that nothing
//! parsed from text is ever resolved.

use crate::common;
use crate::common::calls::*;

use common::*;
use ctxpack_core::history::{CompactCall, CompactOptions};
use ctxpack_core::media::{external_ref, find_external_ref, Payloads};
use ctxpack_core::messages::Format;
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashConfig};
use ctxpack_core::tool_results::{sanitize_targets, text_target, OnWriteFailure, SanitizeOptions};
use ctxpack_core::JsonPath;
use serde_json::Value;

/// A hostile view of payloads: every reference, whatever its table and
/// index, stands for the victim's image.
struct ResolvesEverything(String);

impl Payloads for ResolvesEverything {
    fn with_full(&self, s: &str, f: &mut dyn FnMut(&str)) {
        match find_external_ref(s) {
            Some(_) => f(&self.0),
            None => f(s),
        }
    }
}

impl ctxpack_core::tool_results::SanitizeMemo for ResolvesEverything {}

fn victim() -> String {
    let mut bytes = PNG.to_vec();
    while bytes.len() < 20_000 {
        bytes.extend_from_slice(PNG);
    }
    b64(&bytes)
}

fn forged_texts() -> Vec<String> {
    let one = external_ref(1, 0);
    vec![
        ToString::to_string(&serde_json::json!({ "image": one })),
        ToString::to_string(&serde_json::json!({ "data": format!("data:image/png;base64,{one}") })),
        ToString::to_string(
            &serde_json::json!({ "screenshot": { "base64": external_ref(7, 3) }, "note": one }),
        ),
        ToString::to_string(&serde_json::json!([one, one])),
    ]
}

#[test]
fn a_reference_spelled_in_json_text_is_not_resolved_by_the_sanitizer() {
    let payloads = ResolvesEverything(victim());
    let stash = MemoryBackend::default();
    for text in forged_texts() {
        let (target, was_json) = text_target(&text, JsonPath::root("result"));
        assert!(was_json);
        let mut targets = [target];
        let (report, _) = block_on(sanitize_targets(
            Some(&stash),
            &StashConfig::default(),
            1e12,
            &mut targets,
            &SanitizeOptions {
                threshold_bytes: 1,
                ..Default::default()
            },
            OnWriteFailure::Filter,
            &payloads,
        ));
        assert_eq!((report.stashed, report.filtered), (0, 0), "{text}");
        assert!(!targets[0].changed, "{text}");
    }
}

#[test]
fn a_reference_spelled_in_a_tool_result_survives_compaction_unchanged() {
    let payloads = ResolvesEverything(victim());
    let stash = MemoryBackend::default();
    for text in forged_texts() {
        let messages = serde_json::json!([
            {"role": "user", "content": "call the tool"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "shot", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": text},
            {"role": "user", "content": "and now?"}
        ]);
        let Value::Array(values) = messages.clone() else {
            unreachable!()
        };
        let out = block_on(
            CompactCall::new(
                StashAccess {
                    backend: &stash,
                    config: &StashConfig::default(),
                    now: 1e12,
                },
                CompactOptions {
                    sanitize_tool_results: true,
                    ..Default::default()
                },
                &payloads,
            )
            .run_values(values, Some(Format::OpenAi)),
        )
        .unwrap();
        assert_eq!(Value::Array(out.messages), messages, "{text}");
    }
}
