//! Compaction's offload phase: after the commit,
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

    /// The reference part of each image offloaded (the messages are in
    /// `format`), ((message, image ordinal), part), and the first message
    /// holding an image uploaded now; none without an offload.
    pub(super) async fn references(
        &self,
        plan: &Plan<'_>,
        records: &[NewRecord<'_>],
        written: &Written,
        format: Format,
        report: &mut CompactReport,
    ) -> (Vec<((usize, usize), Value)>, Option<usize>) {
        let Some(offload) = self.offload else {
            return (Vec::new(), None);
        };
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
        // Per image id: its file, or why there is none.
        let mut files: Vec<(&str, FileOrWhy)> = Vec::new();
        let mut uploads = Uploads::default();
        let mut references = Vec::new();
        for img in plan.images.iter().filter(|i| i.offload) {
            let file = match files.iter().find(|(id, _)| *id == img.md5.as_str()) {
                Some((_, file)) => file.clone(),
                None => {
                    let file = self.file_for(&o, img, &mut uploads).await;
                    files.push((&img.md5, file.clone()));
                    file
                }
            };
            let part = file.and_then(|f| {
                img.template
                    .as_ref()
                    .and_then(|t| o.format.reference_part(t, o.provider, &f, &img.mime))
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
        report.uploaded = uploads.count;
        report.kept = report.kept.saturating_sub(report.offloaded);
        if !uploads.metas.is_empty() {
            if let Err(e) = self.stash.backend.put_meta(&uploads.metas).await {
                report.failures.push(Failure::of_stash(
                    e.kind.code(),
                    format!("remembering the uploaded files failed (they are uploaded again next time): {e}"),
                ));
            }
        }
        (references, uploads.first_at)
    }

    /// The file `img` goes by: the one its record names, still usable, or
    /// one uploaded now (its record's metadata with it kept in `uploads`);
    /// or why there is none (its original is not stashed, the upload
    /// failed).
    async fn file_for(
        &self,
        o: &Offloading<'_, '_, 'a>,
        img: &HistoryImage<'_>,
        uploads: &mut Uploads,
    ) -> FileOrWhy {
        let stored =
            o.written.committed.contains_key(&img.md5) || o.written.confirmed.contains(&img.md5);
        let record = o.records.iter().find(|r| r.id == img.md5);
        let Some(r) = record.filter(|_| stored) else {
            return Err(o.written.errors.get(&img.md5).unwrap_or((
                ErrorCode::StashWriteFailed,
                "its original could not be stashed".into(),
            )));
        };
        let (provider, account) = (o.provider, o.offload.account);
        if let Some(file) = usable_file(&r.meta.files, provider, account, self.stash.now) {
            return Ok(file);
        }
        let up = self.upload(o.offload, provider, img).await?;
        uploads.count += 1;
        uploads.first_at = uploads.first_at.or(Some(img.message));
        let mut meta = r.meta.clone();
        remember_file(&mut meta.files, provider, account, &up);
        uploads.metas.push(meta);
        Ok(up.file)
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

/// The uploads of one call: how many, the first message holding an image
/// uploaded, and the records' metadata naming the files.
#[derive(Default)]
struct Uploads {
    count: usize,
    first_at: Option<usize>,
    metas: Vec<crate::stash::RecordMeta>,
}

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
