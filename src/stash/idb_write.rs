//! Writing records to the IndexedDB stash: every record's put (or, for a
//! record the stash already holds, its count) queued in one transaction,
//! in batches that keep each task short, and one outcome per record once
//! the transaction commits. A call's renewals and deletions join the same
//! transaction ([`IdbBackend::commit_in`]).

use super::idb_future::{request, transaction};
use super::indexeddb::{store_of, IdbBackend, IMAGES, META};
use super::js_error::stash_error;
use super::record_js::{meta_to_js, record_to_js};
use crate::convert::external::Table;
use ctxpack_core::stash::{Commit, Committed, NewRecord, StashError, StashErrorKind};
use wasm_bindgen::prelude::*;
use web_sys::{IdbObjectStore, IdbTransactionMode};

/// Payload text queued in one task of a write before the next records wait
/// for a task of their own (copying it takes a few ms per MB).
const BATCH_BYTES: u64 = 4 << 20;

/// A request queued in a write: a record's last put, or the count that
/// confirms a record already stored.
struct Queued {
    /// The request whose success says the record is written (or counted).
    request: web_sys::IdbRequest,
    /// Whether it is a count, whose result must find the record.
    count: bool,
}

impl IdbBackend {
    /// Writes records; payloads that are references of `table` are written
    /// as the JavaScript values they stand for. Records the stash already
    /// holds ([`NewRecord::stored`]) are counted in the same transaction,
    /// not written: one commit for the whole call.
    pub async fn put_records_in(
        &self,
        records: &[NewRecord<'_>],
        table: &Table,
    ) -> Vec<Result<(), StashError>> {
        let commit = Commit {
            records: records.to_vec(),
            ..Commit::default()
        };
        self.commit_in(&commit, table).await.records
    }

    /// Commits a call's records, renewals and deletions in one transaction:
    /// all of it, or (when the transaction fails) none.
    pub async fn commit_in(&self, commit: &Commit<'_>, table: &Table) -> Committed {
        match self.queue_commit(commit, table).await {
            Ok(queued) => Committed {
                records: queued.iter().map(Queued::outcome).collect(),
                renewed: Ok(()),
                deleted: Ok(()),
            },
            Err(e) => Committed {
                renewed: Err(StashError::new(e.kind, e.message.clone())),
                deleted: Err(StashError::new(e.kind, e.message.clone())),
                records: each_failed(commit.records.len(), e),
            },
        }
    }

    /// Queues each record's put (or, for one already stored, its count),
    /// then the renewed metadata and the deletions, in one transaction, and
    /// waits for it to commit.
    async fn queue_commit(
        &self,
        commit: &Commit<'_>,
        table: &Table,
    ) -> Result<Vec<Queued>, StashError> {
        let records = &commit.records;
        let mode = if commit.reads_only() {
            IdbTransactionMode::Readonly
        } else {
            IdbTransactionMode::Readwrite
        };
        let tx = self.tx(&[IMAGES, META], mode).await?;
        let images = store_of(&tx, IMAGES, "writing images")?;
        let meta = store_of(&tx, META, "writing images")?;
        let mut counts: Vec<Queued> = Vec::with_capacity(records.len());
        // Queuing a put copies its payload on this thread: after every
        // BATCH_BYTES the next records wait for the last put to succeed,
        // in a task of their own, so no task runs long (the pending
        // request keeps the transaction open meanwhile).
        let mut queued_bytes = 0u64;
        for r in records {
            if queued_bytes >= BATCH_BYTES {
                if let Some(last) = counts.last() {
                    request(&last.request).await.map_err(|e| {
                        stash_error(e, StashErrorKind::WriteFailed, "writing images")
                    })?;
                }
                queued_bytes = 0;
            }
            if !r.stored {
                queued_bytes += r.meta.stored_bytes;
            }
            match Queued::queue(r, table, &images, &meta) {
                Ok(q) => counts.push(q),
                Err(e) => {
                    let _ = tx.abort();
                    return Err(stash_error(
                        e,
                        StashErrorKind::WriteFailed,
                        "writing images",
                    ));
                }
            }
        }
        if let Err(e) = queue_upkeep(commit, &images, &meta) {
            let _ = tx.abort();
            return Err(stash_error(
                e,
                StashErrorKind::WriteFailed,
                "writing images",
            ));
        }
        transaction(&tx)
            .await
            .map_err(|e| stash_error(e, StashErrorKind::WriteFailed, "writing images"))?;
        Ok(counts)
    }
}

impl Queued {
    /// Queues record `r` in the `images` and `meta` stores: the count of
    /// its id when the stash already holds it, else the put of its payload
    /// and of its meta (the last put is the one waited for).
    fn queue(
        r: &NewRecord<'_>,
        table: &Table,
        images: &IdbObjectStore,
        meta: &IdbObjectStore,
    ) -> Result<Queued, JsValue> {
        if r.stored {
            images
                .count_with_key(&JsValue::from_str(&r.id))
                .map(|request| Queued {
                    request,
                    count: true,
                })
        } else {
            images
                .put(&record_to_js(r, table))
                .and_then(|_| meta.put(&meta_to_js(&r.meta)))
                .map(|request| Queued {
                    request,
                    count: false,
                })
        }
    }

    /// The outcome of the record queued, once its transaction committed: a
    /// put succeeded; a record counted is gone unless the count found it.
    fn outcome(&self) -> Result<(), StashError> {
        let found = || self.request.result().ok().and_then(|n| n.as_f64()) == Some(1.0);
        if !self.count || found() {
            Ok(())
        } else {
            Err(StashError::gone())
        }
    }
}

/// Queues the renewed metadata and the deletions of `commit`.
fn queue_upkeep(
    commit: &Commit<'_>,
    images: &IdbObjectStore,
    meta: &IdbObjectStore,
) -> Result<(), JsValue> {
    for m in &commit.renewed {
        meta.put(&meta_to_js(m))?;
    }
    for id in &commit.deleted {
        let key = JsValue::from_str(id);
        images.delete(&key)?;
        meta.delete(&key)?;
    }
    Ok(())
}

/// The outcome of each of `n` records when their write failed with `error`:
/// the first record gets it, the others the same kind and message.
fn each_failed(n: usize, error: StashError) -> Vec<Result<(), StashError>> {
    let (kind, message) = (error.kind, error.message.clone());
    let mut first = Some(error);
    (0..n)
        .map(|_| {
            Err(first
                .take()
                .unwrap_or_else(|| StashError::new(kind, message.clone())))
        })
        .collect()
}
