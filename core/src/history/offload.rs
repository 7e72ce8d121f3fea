//! Offload: the history images the model still sees (those
//! `keepRecentImages` keeps) go as references to files at the provider,
//! uploaded once. The stash keeps the original and, in its record, each
//! file it was uploaded as, with the file's expiry: the same history sent
//! again uploads nothing, a file within [`RENEW_BEFORE_MS`] of its expiry is
//! uploaded again before it is used, and an image whose upload fails stays
//! inline. The app uploads ([`Uploader`]): its keys never reach ctxpack.

use crate::messages::{names_file, FileProvider, FileRef, Format};
use crate::stash::StashedFile;
use std::future::Future;
use std::pin::Pin;

/// A file within this long of its expiry (by the stash's clock) is
/// uploaded again before it is used: 10 minutes.
pub const RENEW_BEFORE_MS: f64 = 600_000.0;

/// Images smaller than this stay inline unless the caller says otherwise:
/// 32 KiB.
pub const DEFAULT_MIN_BYTES: u64 = 32 * 1024;

/// What the host's `upload` function is handed for one image, borrowed
/// from the message it lies in.
#[derive(Debug, Clone, Copy)]
pub struct UploadImage<'a> {
    /// Its base64 text.
    pub payload: &'a str,
    /// Its MIME type.
    pub mime: &'a str,
    /// Its id, as in its placeholder: the MD5 of its base64 text.
    pub md5: &'a str,
    /// Its decoded size.
    pub bytes: u64,
}

/// What an upload gave: the file and when the provider lets go of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Uploaded {
    /// The provider's file, as a reference part names it.
    pub file: FileRef,
    /// When the provider deletes it (ms since the epoch); `None`: never.
    pub expires_at: Option<f64>,
}

/// An upload in progress.
pub type Upload<'a> = Pin<Box<dyn Future<Output = Result<Uploaded, String>> + 'a>>;

/// Uploads images to a provider's Files API: the app's function.
pub trait Uploader {
    /// Uploads `image`; the file, or why it failed.
    fn upload<'a>(&'a self, image: UploadImage<'a>) -> Upload<'a>;
}

/// Offloading as a caller asks for it.
#[derive(Clone, Copy)]
pub struct Offload<'a> {
    /// The app's upload, called once for each image that has no file of
    /// this provider and account in the stash yet.
    pub uploader: &'a dyn Uploader,
    /// Whose Files API; `None`: the one the format's API is.
    pub provider: Option<FileProvider>,
    /// The app's name for the key or project files are uploaded with.
    pub account: &'a str,
    /// Smaller images stay inline.
    pub min_bytes: u64,
}

impl Offload<'_> {
    /// Whose files images of `format` go as: the provider asked for, or the
    /// format's own; or why none do (the format's API takes no reference,
    /// or another provider's).
    pub fn provider_for(&self, format: Format) -> Result<FileProvider, String> {
        let name = format.name();
        match (format.file_provider(), self.provider) {
            (Err(why), _) => Err(format!("{name} images stay inline: {why}")),
            (Ok(Some(own)), Some(asked)) if own != asked => Err(format!(
                "{name} images stay inline: its API takes references to {} files, not {}",
                own.name(),
                asked.name()
            )),
            (Ok(Some(own)), _) => Ok(own),
            (Ok(None), Some(asked)) => Ok(asked),
            (Ok(None), None) => Err(format!(
                "{name} images stay inline: name the provider (offload.provider)"
            )),
        }
    }
}

/// The file among `files` that `provider` and `account` may still use at
/// `now`: one that does not expire within [`RENEW_BEFORE_MS`].
pub fn usable_file(
    files: &[StashedFile],
    provider: FileProvider,
    account: &str,
    now: f64,
) -> Option<FileRef> {
    files
        .iter()
        .find(|f| f.provider == provider.name() && f.account == account)
        .filter(|f| f.expires_at.is_none_or(|at| at - now > RENEW_BEFORE_MS))
        .map(|f| FileRef {
            id: f.id.clone(),
            uri: f.uri.clone(),
        })
        .filter(|f| f.name_for(provider).is_some())
}

/// `files` with `uploaded` as the file of `provider` and `account` (in
/// place of the one it had).
pub fn remember_file(
    files: &mut Vec<StashedFile>,
    provider: FileProvider,
    account: &str,
    uploaded: &Uploaded,
) {
    files.retain(|f| !(f.provider == provider.name() && f.account == account));
    files.push(StashedFile {
        provider: provider.name().into(),
        account: account.into(),
        id: uploaded.file.id.clone(),
        uri: uploaded.file.uri.clone(),
        expires_at: uploaded.expires_at,
    });
}

/// `files` without the file of `provider` and `account` named `name` (its
/// id, URI or the URI's last segment): the provider lost it. True when one was forgotten.
pub fn forget_file(
    files: &mut Vec<StashedFile>,
    provider: FileProvider,
    account: &str,
    name: &str,
) -> bool {
    let before = files.len();
    files.retain(|f| {
        !(f.provider == provider.name()
            && f.account == account
            && [&f.id, &f.uri]
                .into_iter()
                .flatten()
                .any(|n| names_file(n, name)))
    });
    files.len() != before
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uploaded(id: &str, expires_at: Option<f64>) -> Uploaded {
        Uploaded {
            file: FileRef {
                id: Some(id.into()),
                uri: None,
            },
            expires_at,
        }
    }

    #[test]
    fn a_file_is_used_until_ten_minutes_before_it_expires() {
        let mut files = Vec::new();
        remember_file(
            &mut files,
            FileProvider::OpenAi,
            "",
            &uploaded("file-1", Some(1_000_000.0)),
        );
        let at = |files: &[StashedFile], now| {
            usable_file(files, FileProvider::OpenAi, "", now).and_then(|f| f.id)
        };
        assert_eq!(at(&files, 0.0).as_deref(), Some("file-1"));
        let last = 1_000_000.0 - RENEW_BEFORE_MS - 1.0;
        assert_eq!(at(&files, last).as_deref(), Some("file-1"));
        assert_eq!(at(&files, 1_000_000.0 - RENEW_BEFORE_MS), None);
        remember_file(
            &mut files,
            FileProvider::OpenAi,
            "",
            &uploaded("file-2", None),
        );
        assert_eq!(files.len(), 1, "one file per provider and account");
        let late = at(&files, 1e15);
        assert_eq!(
            late.as_deref(),
            Some("file-2"),
            "no expiry: kept until lost"
        );
    }

    #[test]
    fn accounts_and_providers_keep_their_own_files() {
        let mut files = Vec::new();
        remember_file(
            &mut files,
            FileProvider::OpenAi,
            "a",
            &uploaded("file-a", None),
        );
        remember_file(
            &mut files,
            FileProvider::OpenAi,
            "b",
            &uploaded("file-b", None),
        );
        remember_file(
            &mut files,
            FileProvider::Anthropic,
            "a",
            &uploaded("file_c", None),
        );
        let id = |files: &[StashedFile], p, acc| usable_file(files, p, acc, 0.0).and_then(|f| f.id);
        assert_eq!(
            id(&files, FileProvider::OpenAi, "a").as_deref(),
            Some("file-a")
        );
        assert_eq!(
            id(&files, FileProvider::OpenAi, "b").as_deref(),
            Some("file-b")
        );
        assert_eq!(
            id(&files, FileProvider::Anthropic, "a").as_deref(),
            Some("file_c")
        );
        assert_eq!(id(&files, FileProvider::Anthropic, "b"), None);
        // A Gemini reference needs the URI: a file with an id alone serves none.
        remember_file(
            &mut files,
            FileProvider::Gemini,
            "a",
            &uploaded("files/x", None),
        );
        assert_eq!(usable_file(&files, FileProvider::Gemini, "a", 0.0), None);
        assert!(forget_file(&mut files, FileProvider::OpenAi, "a", "file-a"));
        assert!(!forget_file(
            &mut files,
            FileProvider::OpenAi,
            "a",
            "file-a"
        ));
        assert_eq!(id(&files, FileProvider::OpenAi, "a"), None);
        assert_eq!(
            id(&files, FileProvider::OpenAi, "b").as_deref(),
            Some("file-b")
        );
    }
}
