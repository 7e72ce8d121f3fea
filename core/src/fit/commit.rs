//! Phase 4, commit: the originals of changed images go to the stash, each
//! once, and the fitting waits for the write to commit; only what committed
//! may be replaced.

use super::call::FitCall;
use super::measure::Found;
use super::one_image::{Inline, Outcome};
use crate::messages::image::ImageTemplate;
use crate::stash::StashAccess;
use crate::stash::WrittenAt;
use crate::stash::{NewRecord, StashBackend};
use std::collections::BTreeSet;

/// One original to write: its md5, the first image of it and the templates
/// of every part that shows it.
type Original<'f> = (&'f str, &'f Inline, Vec<ImageTemplate>);

/// Writes the originals of changed images; returns the md5s the stash holds
/// after it (`None` without a stash: the caller keeps its originals).
pub(super) async fn commit<B: StashBackend, R>(
    call: &FitCall<'_, B, R>,
    found: &[Found],
    outcomes: &[Option<Outcome>],
    problems: &mut Vec<String>,
) -> Option<BTreeSet<String>> {
    let stash = call.stash.as_ref()?;
    Some(stash_originals(stash, found, outcomes, problems).await)
}

/// Writes the originals not yet in the stash; returns the md5s that
/// committed, with those already there.
async fn stash_originals<B: StashBackend>(
    stash: &StashAccess<'_, B>,
    found: &[Found],
    outcomes: &[Option<Outcome>],
    problems: &mut Vec<String>,
) -> BTreeSet<String> {
    // Inserted one by one: collecting into a set would build it with a
    // sort of its own, more code in the module for nothing a loop lacks.
    let mut changed_ids: Vec<String> = Vec::new();
    for (f, o) in found.iter().zip(outcomes) {
        if let (Some(img), Some(Outcome::Changed(_))) = (&f.inline, o) {
            if !changed_ids.contains(&img.md5) {
                changed_ids.push(img.md5.clone());
            }
        }
    }
    let existing = match stash.backend.metas_of(&changed_ids).await {
        Ok(metas) => {
            let mut live = BTreeSet::new();
            for m in metas {
                if m.expires_at > stash.now {
                    live.insert(m.id);
                }
            }
            live
        }
        Err(e) => {
            problems.push(format!("listing the stash failed: {e}"));
            return BTreeSet::new();
        }
    };
    let originals = originals(found, outcomes, &existing);
    let records: Vec<NewRecord<'_>> = originals
        .iter()
        .map(|(md5, img, templates)| {
            NewRecord::new(
                (*md5).to_owned(),
                img.mime.clone(),
                &img.payload,
                img.decoded,
                img.text_len,
                ImageTemplate::list_to_json_text(templates),
                WrittenAt {
                    now: stash.now,
                    ttl_ms: stash.config.ttl_ms,
                },
            )
        })
        .collect();
    let results = if records.is_empty() {
        Vec::new()
    } else {
        stash.backend.put_records(&records).await
    };
    let mut committed = existing;
    for (i, r) in records.iter().enumerate() {
        match results.get(i) {
            Some(Ok(())) => {
                committed.insert(r.id.clone());
            }
            Some(Err(e)) => problems.push(format!("stashing the original of an image failed: {e}")),
            None => problems.push("the stash gave no answer for an original".into()),
        }
    }
    committed
}

/// Each original of a changed image not in `existing` once, by md5 (kept in
/// md5 order).
fn originals<'f>(
    found: &'f [Found],
    outcomes: &[Option<Outcome>],
    existing: &BTreeSet<String>,
) -> Vec<Original<'f>> {
    let mut originals: Vec<Original<'f>> = Vec::new();
    for (f, o) in found.iter().zip(outcomes) {
        if let (Some(img), Some(Outcome::Changed(_))) = (&f.inline, o) {
            if existing.contains(&img.md5) {
                continue;
            }
            let at = match originals.binary_search_by(|o| o.0.cmp(img.md5.as_str())) {
                Ok(at) => at,
                Err(at) => {
                    originals.insert(at, (&img.md5, img, Vec::new()));
                    at
                }
            };
            if let Some(o) = originals.get_mut(at) {
                o.2.extend(img.template.clone());
            }
        }
    }
    originals
}
