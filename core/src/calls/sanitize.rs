//! `sanitizeToolResult`: its options, and its flow — a tool result held as
//! text that may be JSON is parsed, sanitized and written back as text; any
//! other value is sanitized as it is; without a stash, payloads are filtered.

use crate::json_path::JsonPath;
use crate::media::payload::Payloads;
use crate::stash::{StashAccess, StashBackend, StashConfig};
use crate::tool_results::{
    sanitize_targets, target_text, text_may_be_json, text_target, OnWriteFailure, SanitizeOptions,
    Target, DEFAULT_THRESHOLD_BYTES,
};
use serde_json::Value;

/// `sanitizeToolResult`'s options, each as the caller gave it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SanitizeInput {
    /// `thresholdBytes`: a JavaScript number.
    pub threshold_bytes: Option<f64>,
    /// `fields`.
    pub fields: Vec<String>,
}

/// The options of a sanitization, read from `input`: strings over 10 KiB
/// are checked unless `thresholdBytes` says otherwise (a fraction is cut
/// to its whole part).
pub fn sanitize_options(input: SanitizeInput) -> SanitizeOptions {
    SanitizeOptions {
        threshold_bytes: input
            .threshold_bytes
            .map_or(DEFAULT_THRESHOLD_BYTES, |n| n as usize),
        extra_fields: input.fields,
    }
}

/// How many characters of a text result a host reads to tell, by
/// [`text_is_read_whole`], whether to hand the text over whole.
pub const TEXT_HEAD: u32 = 64;

/// Whether a text result whose first characters are `head` is handed over
/// whole, as [`ToolResult::Text`]: when it may be a JSON object or array.
/// Any other text is a [`ToolResult::Value`], handed over as every string
/// is (a long base64 run may stay with the host).
pub fn text_is_read_whole(head: &str) -> bool {
    text_may_be_json(head)
}

/// A tool result as handed over.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolResult {
    /// A text that may be JSON (see [`text_is_read_whole`]): read as JSON
    /// when it is, and given back as text.
    Text(String),
    /// Any other value, text that cannot be JSON among them.
    Value(Value),
}

/// What became of a tool result.
#[derive(Debug, Clone, PartialEq)]
pub enum Sanitized {
    /// Nothing in it was replaced: the caller's own value stands.
    Unchanged,
    /// A text result, with its payloads replaced.
    Text(String),
    /// Any other result, with its payloads replaced.
    Value(Value),
}

/// Replaces every binary payload in `result` with a marker: with `stash`,
/// once the payload is written there (a failed write filters it); without,
/// filtered.
pub async fn sanitize_tool_result<B: StashBackend>(
    stash: Option<StashAccess<'_, B>>,
    result: ToolResult,
    options: &SanitizeOptions,
    payloads: &dyn Payloads,
) -> Sanitized {
    let path = JsonPath::root("result");
    let (target, as_text) = match result {
        ToolResult::Text(text) => {
            let (target, was_json) = text_target(&text, path);
            (target, Some(was_json))
        }
        ToolResult::Value(value) => (
            Target {
                value,
                path,
                changed: false,
                holds_references: true,
            },
            None,
        ),
    };
    let mut targets = [target];
    // Without a stash there is no backend, the default settings and no clock.
    let default_config = StashConfig::default();
    let (backend, config, now) = match &stash {
        Some(s) => (Some(s.backend), s.config, s.now),
        None => (None, &default_config, 0.0),
    };
    sanitize_targets(
        backend,
        config,
        now,
        &mut targets,
        options,
        OnWriteFailure::Filter,
        payloads,
    )
    .await;
    let [target] = targets;
    match (target.changed, as_text) {
        (false, _) => Sanitized::Unchanged,
        (true, Some(was_json)) => Sanitized::Text(target_text(target, was_json)),
        (true, None) => Sanitized::Value(target.value),
    }
}

#[cfg(test)]
#[path = "sanitize_tests.rs"]
mod tests;
