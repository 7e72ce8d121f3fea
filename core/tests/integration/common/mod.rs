//! Helpers shared by the native integration tests.
#![allow(dead_code)]

pub mod calls;
pub mod codec;
pub mod fit_images;
pub mod history;

use base64::Engine;
use ctxpack_core::stash::{
    MemoryBackend, NewRecord, RecordMeta, StashBackend, StashError, StashErrorKind, StoredRecord,
};
use std::cell::Cell;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

pub const PNG: &[u8] = include_bytes!("../../../../tests/fixtures/chart.png");
pub const JPEG: &[u8] = include_bytes!("../../../../tests/fixtures/photo.jpg");
pub const GIF: &[u8] = include_bytes!("../../../../tests/fixtures/anim.gif");
pub const WEBP: &[u8] = include_bytes!("../../../../tests/fixtures/shot.webp");

pub fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

pub fn data_url(mime: &str, bytes: &[u8]) -> String {
    format!("data:{mime};base64,{}", b64(bytes))
}

pub fn md5(text: &str) -> String {
    ctxpack_core::md5_hex(text.as_bytes())
}

/// Runs a future whose I/O completes at once (the memory backend).
pub fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// A memory backend whose writes can be made to fail.
#[derive(Default)]
pub struct FlakyBackend {
    pub inner: MemoryBackend,
    /// Fail every write whose id is in this list; `"*"` fails all.
    pub fail_ids: std::cell::RefCell<Vec<String>>,
    pub puts: Cell<usize>,
}

impl StashBackend for FlakyBackend {
    async fn put_records(&self, records: &[NewRecord<'_>]) -> Vec<Result<(), StashError>> {
        self.puts.set(self.puts.get() + records.len());
        let fail = self.fail_ids.borrow().clone();
        let mut out = Vec::new();
        for r in records {
            if fail.iter().any(|f| f == "*" || *f == r.id) {
                out.push(Err(StashError::new(
                    StashErrorKind::QuotaExceeded,
                    "QuotaExceededError: quota exceeded",
                )));
            } else {
                out.extend(self.inner.put_records(std::slice::from_ref(r)).await);
            }
        }
        out
    }
    async fn get_record(&self, id: &str) -> Result<Option<StoredRecord>, StashError> {
        self.inner.get_record(id).await
    }
    async fn list_meta(&self) -> Result<Vec<RecordMeta>, StashError> {
        self.inner.list_meta().await
    }
    async fn put_meta(&self, metas: &[RecordMeta]) -> Result<(), StashError> {
        self.inner.put_meta(metas).await
    }
    async fn delete_records(&self, ids: &[String]) -> Result<(), StashError> {
        self.inner.delete_records(ids).await
    }
}

/// The placeholder that stands for an image of these bytes.
pub fn placeholder(bytes: &[u8]) -> String {
    format!("[Picture:history_{}]", md5(&b64(bytes)))
}
