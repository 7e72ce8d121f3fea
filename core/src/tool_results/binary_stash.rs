//! Sanitizing tool results against a stash: each binary payload found is
//! written to the stash and, once committed, replaced by
//! `[Binary:history_<md5> <mime> <size>]`, so `getHistoryImage` can return it
//! later. Without a stash (or when a write fails) the caller decides: drop it
//! as `[BINARY_DATA_FILTERED: <size>]`, or keep it and report why.

use crate::event_loop::Slicer;
use crate::json_path::JsonPath;
use crate::media::payload::{InMemory, Payloads};
use crate::stash::WrittenAt;
use crate::stash::{Failure, NewRecord, RecordMeta, StashBackend, StashConfig, WriteErrors};
use crate::tool_results::sanitize::{
    filtered_marker, find_binaries_sliced, replace_binaries, stashed_marker, Binary,
    SanitizeOptions,
};
use serde_json::Value;
use std::collections::BTreeSet;

/// What to do with a payload whose stash write failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnWriteFailure {
    /// Replace it with the filtered marker (the caller still holds the original).
    Filter,
    /// Leave it where it is and report the failure.
    KeepInline,
}

/// What a sanitization did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BinaryReport {
    /// Payloads replaced by a stashed marker.
    pub stashed: usize,
    /// Payloads replaced by the filtered marker.
    pub filtered: usize,
    /// Payloads left in place because their write failed.
    pub failures: Vec<Failure>,
}

/// A value to sanitize, with the JSON path reports use for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// The value; replaced in place.
    pub value: Value,
    /// Its JSON path.
    pub path: JsonPath,
    /// Set when something in it was replaced.
    pub changed: bool,
    /// Whether strings in `value` may be payload references: true for values
    /// the boundary read from JavaScript, false for values the core parsed
    /// from text, whose strings are caller text and never references.
    pub holds_references: bool,
}

/// Sanitizes every target. With `backend`, payloads are stashed first; the
/// metadata of the records committed comes back with the report.
pub async fn sanitize_targets<B: StashBackend>(
    backend: Option<&B>,
    config: &StashConfig,
    now: f64,
    targets: &mut [Target],
    options: &SanitizeOptions,
    on_failure: OnWriteFailure,
    payloads: &dyn Payloads,
) -> (BinaryReport, Vec<RecordMeta>) {
    // Payloads held in JavaScript are read one at a time, letting the host
    // run between them. The search and the write stay in this body: each
    // async function of their own costs the main module about 150 B
    // gzipped (the hashing before the write is one: records_of_found).
    let slicer = Slicer::of(payloads.event_loop());
    let mut found: Vec<_> = Vec::with_capacity(targets.len());
    for t in targets.iter() {
        found.push(
            find_binaries_sliced(
                &t.value,
                options,
                &t.path,
                payloads_for(t, payloads),
                &slicer,
            )
            .await,
        );
    }
    if found.iter().all(Vec::is_empty) {
        return (BinaryReport::default(), Vec::new());
    }
    let writes = match backend {
        Some(backend) => {
            let (records, md5s) =
                records_of_found(config, now, targets, &found, payloads, &slicer).await;
            let results = backend.put_records(&records).await;
            StashWrites::of(md5s, &records, results)
        }
        None => StashWrites::default(),
    };
    let report = replace_found(targets, found, &writes, on_failure, backend.is_some());
    (report, writes.written)
}

/// The payloads a target's strings are read through: the host's for a
/// target whose strings may be payload references, memory's for one parsed
/// from text.
fn payloads_for<'a>(target: &Target, payloads: &'a dyn Payloads) -> &'a dyn Payloads {
    if target.holds_references {
        payloads
    } else {
        &InMemory
    }
}

/// What writing the found payloads to the stash did.
#[derive(Default)]
struct StashWrites {
    /// Each found payload's md5, one list per target, in the order found.
    md5s: Vec<Vec<String>>,
    /// The md5s of the records the stash committed.
    committed: BTreeSet<String>,
    written: Vec<RecordMeta>,
    /// Why each record the stash did not commit failed.
    errors: WriteErrors,
}

/// The records to write for the payloads `found` in `targets`, one per
/// distinct payload, and each found payload's md5 (one list per target).
async fn records_of_found<'a>(
    config: &StashConfig,
    now: f64,
    targets: &'a [Target],
    found: &[Vec<Binary>],
    payloads: &dyn Payloads,
    slicer: &Slicer<'_>,
) -> (Vec<NewRecord<'a>>, Vec<Vec<String>>) {
    let mut md5s: Vec<Vec<String>> = Vec::with_capacity(found.len());
    let mut records = Vec::new();
    let mut seen = BTreeSet::new();
    for (t, list) in targets.iter().zip(found) {
        let mut ids = Vec::with_capacity(list.len());
        let payloads = payloads_for(t, payloads);
        for b in list {
            let payload = b.payload_in(&t.value).unwrap_or("");
            let id = match &b.md5 {
                Some(id) => id.clone(),
                None => crate::media::payload::payload_facts(payloads, payload, 0).md5,
            };
            slicer.checkpoint().await;
            if seen.insert(id.clone()) {
                records.push(NewRecord::new(
                    id.clone(),
                    b.mime.clone(),
                    payload,
                    b.size,
                    payloads.text_len(payload) as u64,
                    None,
                    WrittenAt {
                        now,
                        ttl_ms: config.ttl_ms,
                    },
                ));
            }
            ids.push(id);
        }
        md5s.push(ids);
    }
    (records, md5s)
}

impl StashWrites {
    /// The writes of `records` (of payloads whose md5s are `md5s`), sorted
    /// by the `results` of their write into committed and failed.
    fn of(
        md5s: Vec<Vec<String>>,
        records: &[NewRecord<'_>],
        results: Vec<Result<(), crate::stash::StashError>>,
    ) -> StashWrites {
        let mut writes = StashWrites {
            md5s,
            ..StashWrites::default()
        };
        for (r, res) in records.iter().zip(results) {
            match res {
                Ok(()) => {
                    writes.committed.insert(r.id.clone());
                    writes.written.push(r.meta.clone());
                }
                Err(e) => {
                    writes.errors.insert(&r.id, e.kind.code(), e.message);
                }
            }
        }
        writes
    }
}

/// Replaces each payload `found` in `targets`: by its stashed marker once
/// committed; else by the filtered marker, or, with `on_failure` keeping
/// it inline and a stash given (`has_stash`), left in place with its
/// failure reported.
fn replace_found(
    targets: &mut [Target],
    found: Vec<Vec<Binary>>,
    writes: &StashWrites,
    on_failure: OnWriteFailure,
    has_stash: bool,
) -> BinaryReport {
    let mut report = BinaryReport::default();
    for (ti, (t, list)) in targets.iter_mut().zip(found).enumerate() {
        let mut replacements = Vec::new();
        for (bi, b) in list.into_iter().enumerate() {
            let id = writes.md5s.get(ti).and_then(|ids| ids.get(bi));
            match id {
                Some(id) if writes.committed.contains(id) => {
                    replacements.push((b.pointer, stashed_marker(id, &b.mime, b.size)));
                    report.stashed += 1;
                }
                _ => {
                    let (code, reason) = id
                        .and_then(|id| writes.errors.get(id))
                        .unwrap_or((crate::ErrorCode::StashUnavailable, "no stash".to_owned()));
                    if on_failure == OnWriteFailure::KeepInline && has_stash {
                        report.failures.push(Failure {
                            path: b.path,
                            md5: id.cloned(),
                            code,
                            reason,
                        });
                    } else {
                        replacements.push((b.pointer, filtered_marker(b.size)));
                        report.filtered += 1;
                    }
                }
            }
        }
        if !replacements.is_empty() {
            replace_binaries(&mut t.value, replacements);
            t.changed = true;
        }
    }
    report
}

/// Whether a tool result held as text may be a JSON object or array, read
/// as JSON by [`text_target`], judged from its first characters `head`:
/// true when they open one, or are all white space (the rest may still open
/// one). A text that cannot be JSON is judged as the string it is, so a
/// host can hand it over as it hands over any other string.
pub fn text_may_be_json(head: &str) -> bool {
    let trimmed = head.trim_start();
    trimmed.is_empty() || trimmed.starts_with('{') || trimmed.starts_with('[')
}

/// A tool result held as text: parsed when it is a JSON object or array
/// (strings parsed from text hold no references), else kept as the string
/// itself.
pub fn text_target(text: &str, path: JsonPath) -> (Target, bool) {
    if text_may_be_json(text) {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
            return (
                Target {
                    value: v,
                    path,
                    changed: false,
                    holds_references: false,
                },
                true,
            );
        }
    }
    (
        Target {
            value: Value::String(text.to_owned()),
            path,
            changed: false,
            holds_references: true,
        },
        false,
    )
}

/// A sanitized text target back to text.
pub fn target_text(target: Target, was_json: bool) -> String {
    match (target.value, was_json) {
        (Value::String(s), false) => s,
        (v, _) => ToString::to_string(&v),
    }
}
