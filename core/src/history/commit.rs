//! Compaction's commit phase, the parts that decide: the records a plan
//! writes, what the stash's answers mean for each record, and which images
//! are replaced (only those whose record committed) or reported as failed.
//! The writing itself is in `flow`.

use crate::history::compact::{CompactReport, Plan};
use crate::history::listing::Listed;
use crate::stash::{Failure, NewRecord, RecordMeta, StashError, WriteErrors, WrittenAt};
use std::collections::{BTreeMap, BTreeSet};

/// The records to write for `plan`'s images, one per distinct image, each
/// with its occurrences' templates (`templates`, in the order of the plan's
/// images). A record the stash lists (`listed`) keeps when it was first
/// stashed; one that already holds this payload and part, live, is only
/// confirmed: an app re-sending its history writes nothing new.
pub(super) fn new_records<'m>(
    plan: &Plan<'m>,
    templates: Vec<Option<String>>,
    listed: &Listed,
    written: WrittenAt,
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
                written,
            );
            if let Some(old) = listed.get(&img.md5) {
                r.meta.created_at = old.created_at;
                // The files it was uploaded as stay with it.
                r.meta.files = old.files.clone();
                r.stored = holds_already(old, &r.meta, written.now);
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

/// The records only to be confirmed whose confirmation failed (another
/// connection deleted them behind the listing): their indexes, and the
/// records to write in full instead.
pub(super) fn gone_records<'m>(
    records: &[NewRecord<'m>],
    results: &[Result<(), StashError>],
) -> (Vec<usize>, Vec<NewRecord<'m>>) {
    let gone: Vec<usize> = (0..records.len())
        .filter(|&i| records[i].stored && matches!(results.get(i), Some(Err(_))))
        .collect();
    let retry = gone
        .iter()
        .map(|&i| NewRecord {
            stored: false,
            ..records[i].clone()
        })
        .collect();
    (gone, retry)
}

/// What the stash's answers mean for each record.
#[derive(Debug, Default)]
pub(super) struct Written {
    /// Records written now, with their metadata.
    pub committed: BTreeMap<String, RecordMeta>,
    /// Records the stash already held, confirmed.
    pub confirmed: BTreeSet<String>,
    /// Why each record that did not commit failed.
    pub errors: WriteErrors,
}

/// Sorts the stash's `results` for `records` (in the same order).
pub(super) fn sort_results(
    records: &[NewRecord<'_>],
    results: &[Result<(), StashError>],
) -> Written {
    let mut written = Written::default();
    for (i, rec) in records.iter().enumerate() {
        match results.get(i) {
            Some(Ok(())) if rec.stored => {
                written.confirmed.insert(rec.id.clone());
            }
            Some(Ok(())) => {
                written.committed.insert(rec.id.clone(), rec.meta.clone());
            }
            Some(Err(e)) => {
                written
                    .errors
                    .insert(&rec.id, e.kind.code(), e.message.clone());
            }
            None => {
                written.errors.insert(
                    &rec.id,
                    crate::ErrorCode::StashWriteFailed,
                    "the stash gave no answer for this record".into(),
                );
            }
        }
    }
    written
}

/// The images of `plan` to replace by placeholders, ((message, image
/// ordinal), md5): those whose record committed or was confirmed, counted
/// into `report`; every other image stays inline and is a failure in it.
pub(super) fn replacements(
    plan: &Plan<'_>,
    written: &Written,
    report: &mut CompactReport,
) -> Vec<((usize, usize), String)> {
    let mut replacements = Vec::new();
    // An image to offload goes by reference, not placeholder (see
    // `offload`).
    for img in plan.images.iter().filter(|i| !i.offload) {
        if written.committed.contains_key(&img.md5) || written.confirmed.contains(&img.md5) {
            replacements.push(((img.message, img.ordinal), img.md5.clone()));
            report.stashed += 1;
            if img.duplicate {
                report.deduplicated += 1;
            }
        } else {
            let (code, reason) = written
                .errors
                .get(&img.md5)
                .unwrap_or((crate::ErrorCode::StashWriteFailed, "not written".into()));
            report.failures.push(Failure {
                path: img.path.clone(),
                md5: Some(img.md5.clone()),
                code,
                reason,
            });
        }
    }
    report.failed = report
        .failures
        .iter()
        .filter(|f| !f.path.is_empty())
        .count();
    replacements
}
