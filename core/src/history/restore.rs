//! Expansion: placeholders back to the images the stash holds, each in the
//! exact shape it was stashed in, refreshing the records it read.

use super::flow::{encode, refresh, Encoded, Outcome};
use crate::event_loop::Slicer;
use crate::history::digest::Digest;
use crate::history::expand::collect_file_references;
use crate::history::expand::{
    apply_expansion, collect_placeholders, missing_placeholders, ExpandReport, Restored,
    RestoredImages,
};
use crate::history::known::{decode_inputs, Decoded, Input, Settled};
use crate::media::payload::Payloads;
use crate::messages::image::ImageTemplate;
use crate::messages::names_file;
use crate::messages::{Format, Message, MessageError};
use crate::stash::{read_verified, Lookup, StashAccess, StashBackend};
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

/// A file the provider lost (a `file-missing` refusal), and whose: an
/// expansion given one puts back only the images offloaded as it, and the
/// records forget it, so that the next compaction with offload uploads
/// them anew.
#[derive(Debug, Clone, Copy)]
pub struct LostFile<'a> {
    /// Its id, URI or the URI's last segment (see
    /// [`crate::messages::names_file`]); `None`: every file the request
    /// references.
    pub name: Option<&'a str>,
    /// The app's name for the key or project it was uploaded with.
    pub account: &'a str,
}

/// Forgets each of the files `names` for `account` in the records naming
/// them. Returns each (file, image id) forgotten, and why writing failed.
async fn forget_files<B: StashBackend>(
    backend: &B,
    names: &[String],
    account: &str,
) -> (Vec<(String, String)>, Option<crate::stash::StashError>) {
    if names.is_empty() {
        return (Vec::new(), None);
    }
    let mut files = Vec::new();
    let mut forgotten = Vec::new();
    for mut meta in backend.list_meta().await.unwrap_or_default() {
        let before = meta.files.len();
        meta.files.retain(|f| {
            let named = [&f.id, &f.uri]
                .into_iter()
                .flatten()
                .find(|n| names.contains(n))
                .filter(|_| f.account == account);
            if let Some(name) = named {
                files.push((name.clone(), meta.id.clone()));
            }
            named.is_none()
        });
        if meta.files.len() != before {
            forgotten.push(meta);
        }
    }
    let failed = match forgotten.is_empty() {
        true => None,
        false => backend.put_meta(&forgotten).await.err(),
    };
    (files, failed)
}

/// What an expansion for `lost` puts back: the ids of the images offloaded
/// as the lost file(s), and each (file, image id), once their records
/// forgot the file; none when forgetting failed (the next compaction would
/// send the same reference again).
async fn lost_images<B: StashBackend>(
    backend: &B,
    messages: &[Message],
    lost: LostFile<'_>,
) -> (BTreeSet<String>, Vec<(String, String)>) {
    let names: Vec<String> = collect_file_references(messages)
        .into_iter()
        .filter(|n| lost.name.is_none_or(|name| names_file(n, name)))
        .collect();
    let mut ids = BTreeSet::new();
    match forget_files(backend, &names, lost.account).await {
        (files, None) => {
            // One by one: collecting would compile a sort for this alone.
            ids.extend(files.iter().map(|(_, id)| id.clone()));
            (ids, files)
        }
        (_, Some(_)) => (ids, Vec::new()),
    }
}

/// One expansion: the stash and where payloads are read;
/// [`ExpandCall::run`] puts originals back for every placeholder the stash
/// can answer, and refreshes their expiry.
pub struct ExpandCall<'a, B> {
    stash: StashAccess<'a, B>,
    payloads: &'a dyn Payloads,
    /// The file a provider lost: only the images offloaded as it are put
    /// back.
    lost: Option<LostFile<'a>>,
}

impl<'a, B: StashBackend> ExpandCall<'a, B> {
    /// An expansion against `stash`, reading payloads through `payloads`.
    pub fn new(stash: StashAccess<'a, B>, payloads: &'a dyn Payloads) -> Self {
        ExpandCall {
            stash,
            payloads,
            lost: None,
        }
    }

    /// The same call putting back only the images offloaded as `lost`,
    /// whose records forget it (see [`LostFile`]).
    pub fn with_lost_file(self, lost: LostFile<'a>) -> Self {
        ExpandCall {
            lost: Some(lost),
            ..self
        }
    }

    /// Expands `inputs` as
    /// [`crate::history::settle_inputs_for_expansion`] settled them: a
    /// known message names no placeholder, so expansion leaves it as it
    /// is, and it is not read; its outcome value is `null`. Of each message
    /// sent again unchanged a digest is made; they are returned too, one
    /// per message.
    pub async fn run(
        self,
        inputs: Vec<Input>,
        settled: &Settled,
    ) -> Result<(Outcome<ExpandReport>, Vec<Option<Digest>>), MessageError> {
        let (decoded, digests) = decode_inputs(inputs, settled, self.payloads)?;
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
        let each = Each {
            sizes: &sizes,
            known: &known,
        };
        let outcome = self.expand(messages, settled.format, each).await;
        Ok((outcome, digests))
    }
}

/// What decoding found of each message: its size, and whether it is a
/// stand-in for a known one (returned as `null`).
struct Each<'x> {
    sizes: &'x [u64],
    known: &'x [bool],
}

/// What an expansion puts back: the ids of the images to restore, and each
/// (file, image id) a reference names. Every placeholder and every file a
/// record names; with `lost`, only the images offloaded as the lost file,
/// which the records forget (see [`LostFile`]).
async fn to_restore<B: StashBackend>(
    backend: &B,
    messages: &[Message],
    lost: Option<LostFile<'_>>,
) -> (BTreeSet<String>, Vec<(String, String)>) {
    let files = match lost {
        Some(lost) => return lost_images(backend, messages, lost).await,
        None => offloaded_images(backend, messages).await,
    };
    let mut ids = collect_placeholders(messages);
    ids.extend(files.iter().map(|(_, id)| id.clone()));
    (ids, files)
}

impl<B: StashBackend> ExpandCall<'_, B> {
    /// Expands decoded `messages` of `format` (see [`Each`]); with a lost
    /// file, only the images offloaded as it (see [`LostFile`]).
    async fn expand(
        &self,
        mut messages: Vec<Message>,
        format: Format,
        each: Each<'_>,
    ) -> Outcome<ExpandReport> {
        let StashAccess {
            backend,
            config,
            now,
        } = self.stash;
        let (payloads, lost) = (self.payloads, self.lost);
        let (ids, files) = to_restore(backend, &messages, lost).await;
        let (restored, corrupted) = restore_all(backend, now, &ids, payloads).await;
        let missing = match lost {
            None => missing_placeholders(&messages, &restored),
            Some(_) => Vec::new(),
        };
        refresh(backend, config, now, restored.ids()).await;
        let changed = apply_expansion(&mut messages, format, &restored, &files);
        let report = ExpandReport {
            format: format.name(),
            restored: restored.len(),
            missing,
            corrupted,
            bytes_before: each.sizes.iter().sum(),
            bytes_after: 0,
        };
        drop(restored);
        let (values, after) = encode(messages, None, &changed, each.sizes, each.known, payloads);
        Encoded {
            values,
            changed,
            report: ExpandReport {
                bytes_after: after,
                ..report
            },
        }
        .into_outcome()
    }
}
