//! History compaction end to end, over any [`StashBackend`], in phases:
//! measure (and sanitize tool results), plan and hash, commit (write to the
//! stash and wait: `commit` decides the records and what the answers mean),
//! replace only what committed, renew what the conversation references and
//! sweep (`upkeep` decides), report. This function does the stash's I/O; the
//! phases that decide are plain functions. (Async phase functions of their
//! own cost the main module over 4 KB gzipped in futures.) Expansion is in
//! `restore`, one image for the `get_history_image` tool in `lookup`.

use crate::budget::json_len_with;
use crate::event_loop::Slicer;
use crate::history::commit::{gone_records, new_records, replacements, sort_results, Written};
use crate::history::compact::{
    apply_compaction, hash_found, occurrence_templates, select_history_images, CompactOptions,
    CompactReport, Plan, HASH_HEAD_BYTES,
};
use crate::history::loose::put_back_loose;
use crate::history::payloads::CompactPayloads;
use crate::history::tool_results::{sanitize_tool_results, Sanitized};
use crate::history::upkeep::{referenced_ids, renewals, sweep_plan};
use crate::json_path::JsonPath;
use crate::media::payload::Payloads;
use crate::messages::image::ImageTemplate;
use crate::messages::{decode_messages, detect_format, Format, Message, MessageError, Role};
use crate::stash::{Failure, RecordMeta, StashAccess, StashBackend, StashConfig, WrittenAt};
use crate::tool_results::slots::{raw_role, tool_result_slots, Slot};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Messages after an operation: all of them, and which ones changed (an
/// unchanged message is the caller's value, moved through untouched).
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome<R> {
    /// Every message, in order.
    pub messages: Vec<Value>,
    /// Per message: did the operation change it?
    pub changed: Vec<bool>,
    /// What happened.
    pub report: R,
}

/// The serialized size of each message, payloads counted at their real length.
pub(super) fn sizes_of(values: &[Value], payloads: &dyn Payloads) -> Vec<u64> {
    values.iter().map(|v| json_len_with(v, payloads)).collect()
}

pub(super) fn decode(
    values: Vec<Value>,
    format: Option<Format>,
) -> Result<(Format, Vec<Message>), MessageError> {
    decode_messages(values, format, &JsonPath::root("messages"))
}

/// The index of the newest user message of the raw `values`: tool results
/// before it are sanitized (none when there is none).
fn sanitize_cutoff(format: Format, values: &[Value]) -> usize {
    values
        .iter()
        .rposition(|v| raw_role(format, v) == Some(Role::User))
        .unwrap_or(0)
}

pub(super) fn encode(
    messages: Vec<Message>,
    changed: &[bool],
    sizes: &[u64],
    payloads: &dyn Payloads,
) -> (Vec<Value>, u64) {
    let mut after = 0;
    let values = messages
        .into_iter()
        .enumerate()
        .map(|(i, m)| {
            let v = m.into_wire();
            after += if changed[i] {
                json_len_with(&v, payloads)
            } else {
                sizes[i]
            };
            v
        })
        .collect();
    (values, after)
}

/// Compacts `values` against `backend` at time `now` (ms since the epoch).
/// (The arguments are the stash, the clock, the input, the options, the
/// progress callback and payload access: each a separate concern.)
/// Stash failures never throw: the images stay inline and the report says why.
pub async fn compact_history<B: StashBackend>(
    access: StashAccess<'_, B>,
    values: Vec<Value>,
    format: Option<Format>,
    options: CompactOptions,
    progress: &mut dyn FnMut(usize, usize, u64),
    payloads: &dyn CompactPayloads,
) -> Result<Outcome<CompactReport>, MessageError> {
    let Measured {
        mut messages,
        sizes,
        sanitized,
        binary_ids,
        remembered,
        mut report,
    } = measure(access, values, format, options, payloads).await?;
    let options = CompactOptions {
        request_bytes: sizes.iter().sum(),
        ..options
    };
    let plan = plan_hashed(&messages, options, progress, payloads).await;
    report_plan(&mut report, &plan);
    let mut listed = listing(access.backend, &mut report).await;
    let written = commit(access, &messages, &plan, &listed).await;
    report.written = written.committed.len();
    let replacements = replacements(&plan, &written, &mut report);
    // Confirmed records are refreshed like the ones placeholders reference.
    let mut referenced = referenced_ids(&plan, &written);
    for id in remembered {
        if !referenced.contains(&id) {
            referenced.push(id);
        }
    }
    drop(plan);

    let mut changed = apply_compaction(&mut messages, &replacements, options.collapse_text);
    for (c, s) in changed.iter_mut().zip(&sanitized) {
        *c |= *s;
    }
    // Refresh every record the conversation references; sweep the rest.
    let (protected, touched) = renewals(
        &referenced,
        &mut listed,
        &written,
        binary_ids,
        (access.now, access.config),
        &mut report,
    );
    upkeep(access, &touched, listed, written, &protected, &mut report).await;

    let (values, after) = encode(messages, &changed, &sizes, payloads);
    report.bytes_after = after;
    Ok(Outcome {
        messages: values,
        changed,
        report,
    })
}

/// The messages decoded and measured, before any image is stashed.
struct Measured {
    /// The messages, decoded.
    messages: Vec<Message>,
    /// The serialized size of each (after sanitizing).
    sizes: Vec<u64>,
    /// Per message: did sanitizing its tool results change it?
    sanitized: Vec<bool>,
    /// The binaries sanitizing stashed.
    binary_ids: BTreeSet<String>,
    /// Of those, the ones remembered outcomes named, renewed as referenced
    /// records are.
    remembered: Vec<String>,
    /// The report, begun: format, size before, binaries.
    report: CompactReport,
}

/// Measure: the sizes of `values`, their tool results sanitized first when
/// `options` ask it, then decoded.
async fn measure<B: StashBackend>(
    access: StashAccess<'_, B>,
    mut values: Vec<Value>,
    format: Option<Format>,
    options: CompactOptions,
    payloads: &dyn CompactPayloads,
) -> Result<Measured, MessageError> {
    let format = format.unwrap_or_else(|| detect_format(&values));
    let slots: Vec<Vec<Slot>> = if options.sanitize_tool_results {
        sanitized_slots(format, &mut values, payloads)
    } else {
        Vec::new()
    };
    let mut sizes = sizes_of(&values, payloads);
    let Sanitized {
        changed: sanitized,
        ids: binary_ids,
        remembered,
        grown: held_grown,
        report: binaries,
    } = if options.sanitize_tool_results {
        let StashAccess {
            backend,
            config,
            now,
        } = access;
        sanitize_tool_results(backend, config, now, &mut values, &slots, payloads).await
    } else {
        Sanitized {
            changed: vec![false; values.len()],
            ..Sanitized::default()
        }
    };
    let bytes_before = loose_as_text(
        &mut values,
        &slots,
        &mut sizes,
        &sanitized,
        &held_grown,
        payloads,
    );
    let (format, messages) = decode(values, Some(format))?;
    let report = CompactReport {
        format: format.name(),
        bytes_before,
        binaries_stashed: binaries.stashed,
        failures: binaries.failures,
        ..CompactReport::default()
    };
    Ok(Measured {
        messages,
        sizes,
        sanitized,
        binary_ids,
        remembered,
        report,
    })
}

/// The tool results the search reads, per message before the newest user
/// message of `values`; loose strings anywhere else are text from here on.
fn sanitized_slots(
    format: Format,
    values: &mut [Value],
    payloads: &dyn Payloads,
) -> Vec<Vec<Slot>> {
    let cutoff = sanitize_cutoff(format, values);
    values
        .iter_mut()
        .enumerate()
        .map(|(i, message)| {
            let slots = if i < cutoff {
                tool_result_slots(format, message)
            } else {
                Vec::new()
            };
            put_back_loose(message, &slots, payloads);
            slots
        })
        .collect()
}

/// Makes the loose strings the search left text again (only messages with
/// tool results, at `slots`, can hold any now), and returns the size
/// before, which counts them as the text they are. `sizes` become those of
/// the sanitized messages, what the image pass starts from: a message
/// `sanitized` changed, or that held loose strings, is measured again; a
/// held text put back as it was grew it by `held_grown`, counted for it
/// already.
fn loose_as_text(
    values: &mut [Value],
    slots: &[Vec<Slot>],
    sizes: &mut [u64],
    sanitized: &[bool],
    held_grown: &[i64],
    payloads: &dyn Payloads,
) -> u64 {
    let mut bytes_before = 0i64;
    for (i, message) in values.iter_mut().enumerate() {
        let (grown, any) = if slots.get(i).is_some_and(|s| !s.is_empty()) {
            put_back_loose(message, &[], payloads)
        } else {
            (0, false)
        };
        let held = held_grown.get(i).copied().unwrap_or(0);
        bytes_before += sizes[i] as i64 + grown + held;
        if any || sanitized[i] {
            sizes[i] = json_len_with(message, payloads);
        } else {
            sizes[i] = (sizes[i] as i64 + held).max(0) as u64;
        }
    }
    bytes_before.max(0) as u64
}

/// Plan: the history images to stash, hashed one at a time with the host
/// running between them.
async fn plan_hashed<'m>(
    messages: &'m [Message],
    options: CompactOptions,
    progress: &mut dyn FnMut(usize, usize, u64),
    payloads: &dyn Payloads,
) -> Plan<'m> {
    let slicer = Slicer::of(payloads.event_loop());
    slicer.checkpoint().await;
    let (mut plan, found) = select_history_images(messages, options, payloads);
    let total = found.len();
    let mut hashed = BTreeSet::new();
    let mut hashed_bytes = 0u64;
    for (done, f) in found.into_iter().enumerate() {
        if let Some((_, payload)) = f.inline_payload() {
            payloads
                .prepare_facts(payload, HASH_HEAD_BYTES, &slicer)
                .await;
        }
        hashed_bytes += hash_found(&mut plan, f, &mut hashed, payloads);
        progress(done + 1, total, hashed_bytes);
        slicer.checkpoint().await;
    }
    plan
}

/// The records the stash lists, by id (none, with a failure in `report`,
/// when listing fails).
async fn listing<B: StashBackend>(
    backend: &B,
    report: &mut CompactReport,
) -> BTreeMap<String, RecordMeta> {
    let mut listed = BTreeMap::new();
    match backend.list_meta().await {
        Ok(metas) => listed.extend(metas.into_iter().map(|m| (m.id.clone(), m))),
        Err(e) => report.failures.push(stash_failure(
            e.kind.code(),
            format!("listing the stash failed: {e}"),
        )),
    }
    listed
}

/// Commit: writes each distinct image of `plan` once and waits for the
/// stash's answers. An image stashed again while earlier placeholders of it
/// remain keeps the shapes those placeholders stand for; a record the
/// listing named but that is gone (another connection deleted it) is
/// written in full after all.
async fn commit<B: StashBackend>(
    access: StashAccess<'_, B>,
    messages: &[Message],
    plan: &Plan<'_>,
    listed: &BTreeMap<String, RecordMeta>,
) -> Written {
    let backend = access.backend;
    let mut earlier = Vec::new();
    for img in plan.images.iter().filter(|i| !i.duplicate) {
        if listed.contains_key(&img.md5) && plan.referenced.contains(&img.md5) {
            if let Ok(Some(rec)) = backend.get_record(&img.md5).await {
                let list = rec
                    .part
                    .as_deref()
                    .map(ImageTemplate::list_from_json_text)
                    .unwrap_or_default();
                earlier.push((img.md5.clone(), list));
            }
        }
    }
    let templates = occurrence_templates(messages, plan, &earlier);
    drop(earlier);
    let written_at = WrittenAt {
        now: access.now,
        ttl_ms: access.config.ttl_ms,
    };
    let mut records = new_records(plan, templates, listed, written_at);
    let mut results = if records.is_empty() {
        Vec::new()
    } else {
        backend.put_records(&records).await
    };
    let (gone, retry) = gone_records(&records, &results);
    if !gone.is_empty() {
        let again = backend.put_records(&retry).await;
        for ((&i, r), result) in gone.iter().zip(retry).zip(again) {
            records[i] = r;
            results[i] = result;
        }
    }
    sort_results(&records, &results)
}

/// Upkeep: writes the renewed expiries (`touched`) and removes what the
/// sweep chooses among the records listed and written, sparing `protected`.
async fn upkeep<B: StashBackend>(
    access: StashAccess<'_, B>,
    touched: &[RecordMeta],
    listed: BTreeMap<String, RecordMeta>,
    written: Written,
    protected: &BTreeSet<String>,
    report: &mut CompactReport,
) {
    let backend = access.backend;
    if !touched.is_empty() {
        if let Err(e) = backend.put_meta(touched).await {
            report.failures.push(stash_failure(
                e.kind.code(),
                format!("refreshing expiry failed: {e}"),
            ));
        }
    }
    let when = (access.now, access.config);
    let maintenance = sweep_plan(listed, written.committed, when, protected);
    let doomed: Vec<String> = maintenance
        .expired
        .iter()
        .chain(&maintenance.evicted)
        .cloned()
        .collect();
    if !doomed.is_empty() {
        if let Err(e) = backend.delete_records(&doomed).await {
            report.failures.push(stash_failure(
                e.kind.code(),
                format!("sweeping the stash failed: {e}"),
            ));
        } else {
            report.expired = maintenance.expired.len();
            report.evicted = maintenance.evicted.len();
        }
    }
    report.over_budget = maintenance.over_budget;
}

/// What the plan tells the report: the newest turn, the images kept and
/// given by URL, those stashed for the limits, whether the request fits, and
/// the images that cannot be stashed.
fn report_plan(report: &mut CompactReport, plan: &Plan<'_>) {
    report.newest_user_index = plan.newest_user;
    report.limit_stashed = plan.limit_stashed;
    report.fits = plan.limit_problem.is_none();
    report.limit_problem = plan.limit_problem.clone();
    report.kept = plan.kept;
    report.urls = plan.urls;
    report.failures.extend(plan.invalid.iter().cloned());
}

/// A failure of the stash as a whole (no image's path).
fn stash_failure(code: crate::ErrorCode, reason: String) -> Failure {
    Failure {
        path: String::new(),
        md5: None,
        code,
        reason,
    }
}

pub(super) async fn refresh<'a, B: StashBackend>(
    backend: &B,
    config: &StashConfig,
    now: f64,
    ids: impl Iterator<Item = &'a String>,
) {
    let mut wanted = BTreeSet::new();
    wanted.extend(ids);
    if wanted.is_empty() {
        return;
    }
    if let Ok(metas) = backend.list_meta().await {
        let touched: Vec<RecordMeta> = metas
            .into_iter()
            .filter(|m| wanted.contains(&m.id))
            .map(|m| RecordMeta {
                expires_at: now + config.ttl_ms,
                last_used_at: now,
                ..m
            })
            .collect();
        let _ = backend.put_meta(&touched).await;
    }
}
