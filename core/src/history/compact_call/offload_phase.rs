//! Compaction's offload phase (the `offload` feature): after the commit,
//! each history image kept for the model whose original the stash holds
//! goes by a reference to its file, uploaded once (see
//! [`crate::history::offload`]).

use super::CompactCall;
use crate::history::commit::Written;
use crate::history::compact::{CompactReport, HistoryImage, Plan};
use crate::history::offload::{remember_file, usable_file, Offload, UploadImage};
use crate::messages::{FileProvider, FileRef, Format, Message};
use crate::stash::{Failure, NewRecord, StashBackend};
use crate::ErrorCode;
use serde_json::Value;

impl<'a, B: StashBackend> CompactCall<'a, B> {
    /// The same call, sending the history images it keeps for the model
    /// (at least `offload.min_bytes`, where the format's API takes a file
    /// reference for `offload.provider`) as references to files uploaded
    /// once (see `offload`).
    pub fn with_offload(self, offload: Offload<'a>) -> Self {
        CompactCall {
            offload: Some(offload),
            ..self
        }
    }

    /// The offload asked for.
    pub(super) fn offloading(&self) -> Option<Offload<'a>> {
        self.offload
    }

    /// Whether `img` (of `messages`) goes by reference with `offload`: it
    /// is large enough, in a part the format's API takes a reference to
    /// this provider's file in.
    pub(super) fn offloads(
        offload: Option<Offload<'_>>,
        messages: &[Message],
        img: &HistoryImage<'_>,
    ) -> bool {
        let probe = FileRef {
            id: Some(String::new()),
            uri: Some(String::new()),
        };
        offload.is_some_and(|o| {
            let format = messages[img.message].format();
            let Ok(provider) = o.provider_for(format) else {
                return false;
            };
            img.size >= o.min_bytes
                && img.template.as_ref().is_some_and(|t| {
                    format
                        .reference_part(t, provider, &probe, &img.mime)
                        .is_some()
                })
        })
    }

    /// The reference part of each image offloaded, ((message, image
    /// ordinal), part), and the first message holding an image uploaded
    /// now; none without an offload.
    pub(super) async fn references(
        &self,
        plan: &Plan<'_>,
        records: &[NewRecord<'_>],
        written: &Written,
        report: &mut CompactReport,
    ) -> (Vec<((usize, usize), Value)>, Option<usize>) {
        let Some(offload) = self.offload else {
            return (Vec::new(), None);
        };
        let format = Format::from_name(report.format, "").unwrap_or(Format::DEFAULT);
        let provider = match offload.provider_for(format) {
            Ok(provider) => provider,
            Err(note) => {
                report.offload_note = Some(note);
                return (Vec::new(), None);
            }
        };
        let offloading = Offloading {
            offload,
            provider,
            format,
            records,
            written,
        };
        self.offload_images(offloading, plan, report).await
    }

    /// Offload: each image of `plan` to offload whose original the stash
    /// holds goes by a reference to its file, uploaded now unless its
    /// record names one still usable; the files uploaded are remembered in
    /// the records' metadata (one write). An image whose original is not
    /// stashed, or whose upload failed, stays inline and the report says
    /// why. Returns the reference part of each image offloaded, ((message,
    /// image ordinal), part), and the first message holding an image
    /// uploaded now (a reference the previous request did not have).
    async fn offload_images(
        &self,
        o: Offloading<'_, '_, 'a>,
        plan: &Plan<'_>,
        report: &mut CompactReport,
    ) -> (Vec<((usize, usize), Value)>, Option<usize>) {
        let Offloading {
            offload,
            provider,
            format,
            records,
            written,
        } = o;
        let now = self.stash.now;
        // Per image id: its file, or why there is none.
        let mut files: Vec<(&str, FileOrWhy)> = Vec::new();
        let mut metas = Vec::new();
        let mut references = Vec::new();
        let mut uploaded_at = None;
        for img in plan.images.iter().filter(|i| i.offload) {
            let found = files.iter().find(|(id, _)| *id == img.md5.as_str());
            let file = match found {
                Some((_, file)) => file.clone(),
                None => {
                    let record = records.iter().find(|r| r.id == img.md5);
                    let stored = written.committed.contains_key(&img.md5)
                        || written.confirmed.contains(&img.md5);
                    let file = match record {
                        Some(r) if stored => {
                            let usable = usable_file(&r.meta.files, provider, offload.account, now);
                            match usable {
                                Some(file) => Ok(file),
                                None => {
                                    let uploaded = self.upload(offload, provider, img).await;
                                    if let Ok(up) = &uploaded {
                                        report.uploaded += 1;
                                        uploaded_at = uploaded_at.or(Some(img.message));
                                        let mut meta = r.meta.clone();
                                        let account = offload.account;
                                        remember_file(&mut meta.files, provider, account, up);
                                        metas.push(meta);
                                    }
                                    uploaded.map(|up| up.file)
                                }
                            }
                        }
                        _ => Err(written.errors.get(&img.md5).unwrap_or((
                            ErrorCode::StashWriteFailed,
                            "its original could not be stashed".into(),
                        ))),
                    };
                    files.push((&img.md5, file.clone()));
                    file
                }
            };
            let part = file.and_then(|f| {
                img.template
                    .as_ref()
                    .and_then(|t| format.reference_part(t, provider, &f, &img.mime))
                    .ok_or((ErrorCode::UploadFailed, "no reference to its file".into()))
            });
            match part {
                Ok(part) => {
                    references.push(((img.message, img.ordinal), part));
                    report.offloaded += 1;
                    report.offloaded_bytes += img.text_len;
                }
                Err((code, reason)) => report.failures.push(Failure {
                    path: img.path.clone(),
                    md5: Some(img.md5.clone()),
                    code,
                    reason: format!("sent inline, not by reference: {reason}"),
                }),
            }
        }
        report.kept = report.kept.saturating_sub(report.offloaded);
        if !metas.is_empty() {
            if let Err(e) = self.stash.backend.put_meta(&metas).await {
                report.failures.push(Failure::of_stash(
                    e.kind.code(),
                    format!("remembering the uploaded files failed (they are uploaded again next time): {e}"),
                ));
            }
        }
        (references, uploaded_at)
    }

    /// Uploads `img` with `offload`'s uploader: its file, or why there is
    /// none (a file without what the provider's references name is none).
    async fn upload(
        &self,
        offload: Offload<'_>,
        provider: FileProvider,
        img: &HistoryImage<'_>,
    ) -> Result<crate::history::Uploaded, (ErrorCode, String)> {
        // A payload that lies in wasm memory behind its reference (a
        // request body's) is uploaded as its text.
        let payload = self.payloads.in_memory(img.payload).unwrap_or(img.payload);
        let image = UploadImage {
            payload,
            mime: &img.mime,
            md5: &img.md5,
            bytes: img.size,
        };
        let uploaded = offload.uploader.upload(image).await.map_err(|reason| {
            (
                ErrorCode::UploadFailed,
                format!("the upload failed: {reason}"),
            )
        })?;
        if uploaded.file.name_for(provider).is_none() {
            let what = if provider.names_by_uri() { "uri" } else { "id" };
            return Err((
                ErrorCode::UploadFailed,
                format!("the upload answered no file {what}"),
            ));
        }
        Ok(uploaded)
    }
}

/// An image's file, or why it has none (a code and a sentence).
type FileOrWhy = Result<FileRef, (ErrorCode, String)>;

/// What offloading reads: the caller's offload, the messages' format, the
/// records committed and what the stash answered for each.
struct Offloading<'o, 'r, 'a> {
    offload: Offload<'a>,
    /// Whose files (the format's, or the one asked for).
    provider: FileProvider,
    format: Format,
    records: &'o [NewRecord<'r>],
    written: &'o Written,
}
