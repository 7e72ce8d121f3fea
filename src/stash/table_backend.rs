//! The backend a call works through: the stash's own, for the length of
//! one call, its payloads kept in the call's table of JavaScript values and
//! its metadata listing read through the stash's cache.

use super::{Backend, StashInner};
use crate::convert::external::Table;
use ctxpack_core::stash::{
    commit_in_steps, CachedBackend, Commit, Committed, Generation, NewRecord, RecordMeta,
    StashBackend, StashError, StoredRecord,
};

/// A backend for the length of one call: payloads read from IndexedDB or an
/// adapter stay in JavaScript (referenced from `table`), and payloads the
/// call kept in JavaScript are written as those very values.
#[derive(Clone, Copy)]
pub struct TableBackend<'a> {
    backend: &'a Backend,
    table: &'a Table,
}

/// The backend a call works through: its [`TableBackend`] seen through the
/// stash's metadata cache (the policy lives in the core).
pub type CallBackend<'a> = CachedBackend<'a, TableBackend<'a>>;

/// The backend of `stash` for a call whose kept values live in `table`.
pub fn call_backend<'a>(stash: &'a StashInner, table: &'a Table) -> CallBackend<'a> {
    CachedBackend::new(
        TableBackend {
            backend: &stash.backend,
            table,
        },
        &stash.meta_cache,
        js_sys::Date::now(),
    )
}

impl StashBackend for TableBackend<'_> {
    async fn put_records(&self, records: &[NewRecord<'_>]) -> Vec<Result<(), StashError>> {
        match self.backend {
            Backend::Memory(b) => b.put_records_in(records, self.table).await,
            Backend::IndexedDb(b) => b.put_records_in(records, self.table).await,
            Backend::Adapter(b) => b.put_records_in(records, self.table).await,
        }
    }
    async fn get_record(&self, id: &str) -> Result<Option<StoredRecord>, StashError> {
        match self.backend {
            Backend::Memory(b) => Ok(b.get_record_in(id, Some(self.table))),
            Backend::IndexedDb(b) => b.get_record_in(id, Some(self.table)).await,
            Backend::Adapter(b) => b.get_record_in(id, Some(self.table)).await,
        }
    }
    async fn list_meta(&self) -> Result<Vec<RecordMeta>, StashError> {
        self.backend.list_meta().await
    }
    async fn metas_of(&self, ids: &[String]) -> Result<Vec<RecordMeta>, StashError> {
        self.backend.metas_of(ids).await
    }
    fn expires_by_itself(&self) -> bool {
        self.backend.expires_by_itself()
    }
    async fn put_meta(&self, metas: &[RecordMeta]) -> Result<(), StashError> {
        self.backend.put_meta(metas).await
    }
    async fn delete_records(&self, ids: &[String]) -> Result<(), StashError> {
        self.backend.delete_records(ids).await
    }
    async fn commit(&self, commit: &Commit<'_>) -> Committed {
        match self.backend {
            Backend::IndexedDb(b) => b.commit_in(commit, self.table).await,
            _ => commit_in_steps(self, commit).await,
        }
    }
}

impl Generation for TableBackend<'_> {
    /// The IndexedDB connection's generation (0 for other backends).
    fn generation(&self) -> u64 {
        match self.backend {
            Backend::IndexedDb(b) => b.generation(),
            _ => 0,
        }
    }
}
