//! Expansion: placeholders back to the images the stash holds, each in the
//! exact shape it was stashed in, refreshing the records it read.

use super::flow::{decode, encode, refresh, sizes_of, Outcome};
use crate::event_loop::Slicer;
use crate::history::expand::{
    apply_expansion, collect_placeholders, missing_placeholders, ExpandReport, Restored,
    RestoredImages,
};
use crate::media::payload::Payloads;
use crate::messages::image::ImageTemplate;
use crate::messages::{Format, MessageError};
use crate::stash::{read_verified, Lookup, StashAccess, StashBackend};
use serde_json::Value;
use std::collections::BTreeSet;
/// Looks up every placeholder's original; records that are expired, missing
/// or corrupted count as missing. Returns the found ones and the corrupt count.
async fn restore_all<B: StashBackend>(
    backend: &B,
    now: f64,
    ids: &BTreeSet<String>,
    payloads: &dyn Payloads,
) -> (RestoredImages, usize) {
    let mut restored = RestoredImages::default();
    let mut corrupted = 0;
    let slicer = Slicer::of(payloads.event_loop());
    for id in ids {
        slicer.checkpoint().await;
        match read_verified(backend, id, now, payloads, &slicer).await {
            Ok(Lookup::Found(rec)) => {
                let templates = rec
                    .part
                    .as_deref()
                    .map(ImageTemplate::list_from_json_text)
                    .unwrap_or_default();
                restored.push(
                    id.clone(),
                    Restored {
                        mime: rec.mime,
                        payload: rec.payload,
                        templates,
                    },
                );
            }
            Ok(Lookup::Corrupt) => corrupted += 1,
            Ok(Lookup::Missing | Lookup::Expired) | Err(_) => {}
        }
    }
    (restored, corrupted)
}

/// Puts originals back for every placeholder the stash can answer, and
/// refreshes their expiry.
pub async fn expand_history<B: StashBackend>(
    access: StashAccess<'_, B>,
    values: Vec<Value>,
    format: Option<Format>,
    payloads: &dyn Payloads,
) -> Result<Outcome<ExpandReport>, MessageError> {
    let StashAccess {
        backend,
        config,
        now,
    } = access;
    let sizes = sizes_of(&values, payloads);
    let (format, mut messages) = decode(values, format)?;
    let ids = collect_placeholders(&messages);
    let (restored, corrupted) = restore_all(backend, now, &ids, payloads).await;
    let missing = missing_placeholders(&messages, &restored);
    refresh(backend, config, now, restored.ids()).await;
    let changed = apply_expansion(&mut messages, format, &restored);
    let report = ExpandReport {
        format: format.name(),
        restored: restored.len(),
        missing,
        corrupted,
        bytes_before: sizes.iter().sum(),
        bytes_after: 0,
    };
    drop(restored);
    let (values, after) = encode(messages, &changed, &sizes, &[], payloads);
    Ok(Outcome {
        messages: values,
        changed,
        report: ExpandReport {
            bytes_after: after,
            ..report
        },
    })
}
