//! Expansion: placeholders back to the images the stash holds, each in the
//! exact shape it was stashed in, refreshing the records it read.

use super::flow::{decode, encode, refresh, sizes_of, Outcome};
use crate::event_loop::Slicer;
#[cfg(feature = "offload")]
use crate::history::expand::collect_file_references;
use crate::history::expand::{
    apply_expansion, collect_placeholders, missing_placeholders, ExpandReport, Restored,
    RestoredImages,
};
use crate::history::known::{decode_inputs, Decoded, Digest, Input, Settled};
use crate::media::payload::Payloads;
use crate::messages::image::ImageTemplate;
use crate::messages::{Format, Message, MessageError};
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

#[cfg(feature = "offload")]
/// Each file the parts of `messages` reference that an image was
/// offloaded as (the stash's records name their files), with the image's
/// id; none when no part references a file (the stash is not listed).
async fn offloaded_images<B: StashBackend>(
    backend: &B,
    messages: &[Message],
) -> Vec<(String, String)> {
    let names = collect_file_references(messages);
    if names.is_empty() {
        return Vec::new();
    }
    let metas = backend.list_meta().await.unwrap_or_default();
    let mut files = Vec::new();
    for name in names {
        let record = metas.iter().find(|m| {
            m.files.iter().any(|f| {
                f.id.as_deref() == Some(name.as_str()) || f.uri.as_deref() == Some(name.as_str())
            })
        });
        if let Some(m) = record {
            files.push((name, m.id.clone()));
        }
    }
    files
}

/// Puts originals back for every placeholder the stash can answer, and
/// refreshes their expiry.
pub async fn expand_history<B: StashBackend>(
    access: StashAccess<'_, B>,
    values: Vec<Value>,
    format: Option<Format>,
    payloads: &dyn Payloads,
) -> Result<Outcome<ExpandReport>, MessageError> {
    let sizes = sizes_of(&values, payloads);
    let (format, messages) = decode(values, format)?;
    let known = vec![false; messages.len()];
    Ok(expand_decoded(access, messages, format, &sizes, &known, payloads).await)
}

/// [`expand_history`] over inputs a host remembers, settled for expansion
/// (see [`crate::history::settle_inputs_for_expansion`]: a known message
/// names no placeholder, so expansion leaves it as it is, and it is not
/// read; its outcome value is `null`). Of each message sent again unchanged
/// a digest is made; they are returned too, one per message.
pub async fn expand_inputs<B: StashBackend>(
    access: StashAccess<'_, B>,
    inputs: Vec<Input>,
    settled: &Settled,
    payloads: &dyn Payloads,
) -> Result<(Outcome<ExpandReport>, Vec<Option<Digest>>), MessageError> {
    let (decoded, digests) = decode_inputs(inputs, settled, payloads)?;
    let known: Vec<bool> = decoded
        .iter()
        .map(|(m, _)| matches!(m, Decoded::Known(_)))
        .collect();
    let (messages, sizes): (Vec<Message>, Vec<u64>) = decoded
        .into_iter()
        .map(|(m, size)| match m {
            Decoded::Known(d) => (d.stand_in.clone(), size),
            Decoded::Read(m) => (m, size),
        })
        .unzip();
    let outcome = expand_decoded(access, messages, settled.format, &sizes, &known, payloads).await;
    Ok((outcome, digests))
}

/// Expands decoded `messages` of `format` (of `sizes` bytes; a `known`
/// one is a stand-in naming no placeholder, returned as `null`).
async fn expand_decoded<B: StashBackend>(
    access: StashAccess<'_, B>,
    mut messages: Vec<Message>,
    format: Format,
    sizes: &[u64],
    known: &[bool],
    payloads: &dyn Payloads,
) -> Outcome<ExpandReport> {
    let StashAccess {
        backend,
        config,
        now,
    } = access;
    let mut ids = collect_placeholders(&messages);
    // Only a build that offloads looks for files (see `offload`).
    #[cfg(feature = "offload")]
    let files = offloaded_images(backend, &messages).await;
    #[cfg(not(feature = "offload"))]
    let files: Vec<(String, String)> = Vec::new();
    ids.extend(files.iter().map(|(_, id)| id.clone()));
    let (restored, corrupted) = restore_all(backend, now, &ids, payloads).await;
    let missing = missing_placeholders(&messages, &restored);
    refresh(backend, config, now, restored.ids()).await;
    let changed = apply_expansion(&mut messages, format, &restored, &files);
    let report = ExpandReport {
        format: format.name(),
        restored: restored.len(),
        missing,
        corrupted,
        bytes_before: sizes.iter().sum(),
        bytes_after: 0,
    };
    drop(restored);
    let (values, after) = encode(messages, &changed, sizes, known, payloads);
    Outcome {
        messages: values,
        changed,
        report: ExpandReport {
            bytes_after: after,
            ..report
        },
    }
}
