//! The first phase of a compaction, on the raw messages before decoding:
//! binary payloads in tool results before the newest user message go to
//! the stash, and markers take their place.

use super::access::Stash;
use crate::json_path::JsonPath;
use crate::media::payload::Payloads;
use crate::messages::{Format, Role};
use crate::stash::StashBackend;
use crate::tool_results::binary_stash::{
    sanitize_targets, target_text, text_target, BinaryReport, OnWriteFailure, Target,
};
use crate::tool_results::sanitize::{pointer_get, pointer_get_mut, SanitizeOptions, Seg};
use crate::tool_results::slots::{raw_role, tool_result_slots, Slot, SlotKind};
use serde_json::Value;
use std::collections::BTreeSet;

/// What the tool-result phase did.
pub(super) struct Sanitized {
    /// Per message: did it change?
    pub(super) changed: Vec<bool>,
    /// The ids of the records it wrote (the markers now in the messages).
    pub(super) written: BTreeSet<String>,
    /// Its report.
    pub(super) report: BinaryReport,
}

impl Sanitized {
    /// Nothing done, over `len` messages.
    pub(super) fn nothing(len: usize) -> Self {
        Sanitized {
            changed: vec![false; len],
            written: BTreeSet::new(),
            report: BinaryReport::default(),
        }
    }
}

/// Where a target came from: its message, its slot, and whether its text
/// was JSON.
type Place = (usize, Slot, bool);

/// Stashes binary payloads in the tool results of `values` before the newest
/// user message (on the raw messages, before decoding).
pub(super) async fn sanitize_tool_results<B: StashBackend>(
    stash: Stash<'_, B>,
    values: &mut [Value],
    format: Format,
    payloads: &dyn Payloads,
) -> Sanitized {
    let (mut targets, places) = tool_result_targets(values, format);
    if targets.is_empty() {
        return Sanitized::nothing(values.len());
    }
    let report = sanitize_targets(
        Some(stash.backend),
        stash.config,
        stash.now,
        &mut targets,
        &SanitizeOptions::default(),
        OnWriteFailure::KeepInline,
        payloads,
    )
    .await;
    let (changed, written) = write_back(values, targets, places);
    Sanitized {
        changed,
        written,
        report,
    }
}

/// Every tool result before the newest user message, as a target to
/// sanitize, with where it came from.
fn tool_result_targets(values: &[Value], format: Format) -> (Vec<Target>, Vec<Place>) {
    let cutoff = values
        .iter()
        .rposition(|v| raw_role(v) == Some(Role::User))
        .unwrap_or(0);
    let root = JsonPath::root("messages");
    let mut targets = Vec::new();
    let mut places = Vec::new();
    for (i, message) in values.iter().enumerate().take(cutoff) {
        for slot in tool_result_slots(format, message) {
            let Some(value) = pointer_get(message, &slot.pointer) else {
                continue;
            };
            let path = pointer_path(&root.index(i), &slot.pointer);
            let (target, was_json) = match (slot.kind, value) {
                (SlotKind::Text, Value::String(text)) => text_target(text, path),
                (SlotKind::Structured, v) => (
                    Target {
                        value: v.clone(),
                        path,
                        changed: false,
                        holds_references: true,
                    },
                    true,
                ),
                _ => continue,
            };
            targets.push(target);
            places.push((i, slot, was_json));
        }
    }
    (targets, places)
}

/// Puts each changed target back in its place. Returns which messages
/// changed and the ids of the markers written.
fn write_back(
    values: &mut [Value],
    targets: Vec<Target>,
    places: Vec<Place>,
) -> (Vec<bool>, BTreeSet<String>) {
    let mut changed = vec![false; values.len()];
    let mut written = BTreeSet::new();
    for (target, (i, slot, was_json)) in targets.into_iter().zip(places) {
        if !target.changed {
            continue;
        }
        for id in crate::messages::placeholder::binary_marker_ids(&target.value) {
            written.insert(id);
        }
        let new_value = match slot.kind {
            SlotKind::Text => Value::String(target_text(target, was_json)),
            SlotKind::Structured => target.value,
        };
        if let Some(place) = pointer_get_mut(&mut values[i], &slot.pointer) {
            *place = new_value;
            changed[i] = true;
        }
    }
    (changed, written)
}

/// The JSON path of `pointer` below `base`.
fn pointer_path(base: &JsonPath, pointer: &[Seg]) -> JsonPath {
    pointer.iter().fold(base.clone(), |p, seg| match seg {
        Seg::Key(k) => p.key(k),
        Seg::Index(i) => p.index(*i),
    })
}
