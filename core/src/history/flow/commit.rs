//! The committing phase of a compaction: each distinct image of the plan is
//! written to the stash once, and the phase waits for the commit. Only what
//! committed is replaced afterwards; what failed stays inline.

use super::access::Stash;
use crate::history::compact::{occurrence_templates, CompactReport, Plan};
use crate::messages::image::ImageTemplate;
use crate::messages::Message;
use crate::stash::WrittenAt;
use crate::stash::{Failure, NewRecord, RecordMeta, StashBackend, StashError};
use crate::ErrorCode;
use std::collections::{BTreeMap, BTreeSet};

/// What the stash holds after the writes.
pub(super) struct Committed {
    /// Every record the stash listed before the writes, by id.
    pub(super) listed: BTreeMap<String, RecordMeta>,
    /// The records written now, by id.
    pub(super) written: BTreeMap<String, RecordMeta>,
    /// Live records that already held what would have been written.
    pub(super) confirmed: BTreeSet<String>,
    /// Why each record that did not commit failed.
    pub(super) errors: BTreeMap<String, (ErrorCode, String)>,
}

impl Committed {
    /// Whether the image `md5` is in the stash now.
    pub(super) fn holds(&self, md5: &str) -> bool {
        self.written.contains_key(md5) || self.confirmed.contains(md5)
    }
}

/// Writes each distinct image of `plan` once and waits for the commit.
pub(super) async fn commit<B: StashBackend>(
    stash: Stash<'_, B>,
    messages: &[Message],
    plan: &Plan<'_>,
    report: &mut CompactReport,
) -> Committed {
    let listed = list(stash, report).await;
    let earlier = earlier_templates(stash, plan, &listed).await;
    let templates = occurrence_templates(messages, plan, &earlier);
    drop(earlier);
    let mut records = new_records(stash, plan, templates, &listed);
    let results = write(stash, &mut records).await;
    let committed = sort_results(&records, &results, listed);
    report.written = committed.written.len();
    committed
}

/// The metadata of every record, by id; none (and a failure in `report`)
/// when the listing fails.
async fn list<B: StashBackend>(
    stash: Stash<'_, B>,
    report: &mut CompactReport,
) -> BTreeMap<String, RecordMeta> {
    let metas = match stash.backend.list_meta().await {
        Ok(m) => m,
        Err(e) => {
            report.failures.push(Failure {
                path: String::new(),
                md5: None,
                code: e.kind.code(),
                reason: format!("listing the stash failed: {e}"),
            });
            Vec::new()
        }
    };
    metas.into_iter().map(|m| (m.id.clone(), m)).collect()
}

/// The templates the stash holds for each image of `plan` that earlier
/// placeholders still stand for: an image stashed again keeps their shapes.
async fn earlier_templates<B: StashBackend>(
    stash: Stash<'_, B>,
    plan: &Plan<'_>,
    listed: &BTreeMap<String, RecordMeta>,
) -> Vec<(String, Vec<ImageTemplate>)> {
    let mut earlier = Vec::new();
    for img in plan.images.iter().filter(|i| !i.duplicate) {
        if listed.contains_key(&img.md5) && plan.referenced.contains(&img.md5) {
            if let Ok(Some(rec)) = stash.backend.get_record(&img.md5).await {
                let list = rec
                    .part
                    .as_deref()
                    .map(ImageTemplate::list_from_json_text)
                    .unwrap_or_default();
                earlier.push((img.md5.clone(), list));
            }
        }
    }
    earlier
}

/// One record per distinct image of `plan`, with the template text of its
/// occurrences (`templates`, one per image of the plan).
fn new_records<'m, B>(
    stash: Stash<'_, B>,
    plan: &Plan<'m>,
    templates: Vec<Option<String>>,
    listed: &BTreeMap<String, RecordMeta>,
) -> Vec<NewRecord<'m>> {
    plan.images
        .iter()
        .zip(templates)
        .filter(|(img, _)| !img.duplicate)
        .map(|(img, template)| {
            let mut r = NewRecord::new(
                img.md5.clone(),
                img.mime.clone(),
                img.payload,
                img.size,
                img.text_len,
                template,
                WrittenAt {
                    now: stash.now,
                    ttl_ms: stash.config.ttl_ms,
                },
            );
            if let Some(old) = listed.get(&img.md5) {
                // Rewriting a record keeps when it was first stashed; a live
                // record that already holds this payload and part is only
                // confirmed (an app re-sending its history writes nothing new).
                r.meta.created_at = old.created_at;
                r.stored = holds_already(old, &r.meta, stash.now);
            }
            r
        })
        .collect()
}

/// Whether the live record `old` (as listed) already holds what `new` would
/// write: its id is the payload's MD5, and the size, type and part template
/// are the same.
fn holds_already(old: &RecordMeta, new: &RecordMeta, now: f64) -> bool {
    old.expires_at > now
        && old.stored_bytes == new.stored_bytes
        && old.size == new.size
        && old.mime == new.mime
        && old.part == new.part
}

/// Writes `records` and waits for the commit: one result per record. A
/// record the listing named but that is gone (another connection deleted
/// it) is written in full after all.
async fn write<B: StashBackend>(
    stash: Stash<'_, B>,
    records: &mut [NewRecord<'_>],
) -> Vec<Result<(), StashError>> {
    let mut results = if records.is_empty() {
        Vec::new()
    } else {
        stash.backend.put_records(records).await
    };
    let gone: Vec<usize> = (0..records.len())
        .filter(|&i| records[i].stored && matches!(results.get(i), Some(Err(_))))
        .collect();
    if !gone.is_empty() {
        let retry: Vec<NewRecord<'_>> = gone
            .iter()
            .map(|&i| NewRecord {
                stored: false,
                ..records[i].clone()
            })
            .collect();
        let again = stash.backend.put_records(&retry).await;
        for ((&i, r), result) in gone.iter().zip(retry).zip(again) {
            records[i] = r;
            results[i] = result;
        }
    }
    results
}

/// Sorts the records by their results: written, confirmed, or failed and why.
fn sort_results(
    records: &[NewRecord<'_>],
    results: &[Result<(), StashError>],
    listed: BTreeMap<String, RecordMeta>,
) -> Committed {
    let mut committed = Committed {
        listed,
        written: BTreeMap::new(),
        confirmed: BTreeSet::new(),
        errors: BTreeMap::new(),
    };
    for (i, rec) in records.iter().enumerate() {
        match results.get(i) {
            Some(Ok(())) if rec.stored => {
                committed.confirmed.insert(rec.id.clone());
            }
            Some(Ok(())) => {
                committed.written.insert(rec.id.clone(), rec.meta.clone());
            }
            Some(Err(e)) => {
                committed
                    .errors
                    .insert(rec.id.clone(), (e.kind.code(), e.message.clone()));
            }
            None => {
                committed.errors.insert(
                    rec.id.clone(),
                    (
                        ErrorCode::StashWriteFailed,
                        "the stash gave no answer for this record".into(),
                    ),
                );
            }
        }
    }
    committed
}
