//! The contract a storage backend fulfils. Every write is committed when its
//! future resolves `Ok`: an image is replaced only after that.

use super::commit::{commit_in_steps, Commit, Committed};
use super::{NewRecord, RecordMeta, StashError, StoredRecord};
use std::collections::BTreeMap;
use std::rc::Rc;

/// The records' metadata by id.
pub type Metas = BTreeMap<String, RecordMeta>;

/// `metas` by id (inserted one by one: collecting would sort them first,
/// code the module carries for this alone).
pub fn metas_by_id(metas: impl IntoIterator<Item = RecordMeta>) -> Metas {
    let mut by_id = Metas::new();
    by_id.extend(metas.into_iter().map(|m| (m.id.clone(), m)));
    by_id
}

/// A place to keep records. Implemented by [`super::MemoryBackend`] here and
/// by IndexedDB and JavaScript adapters at the boundary.
#[allow(async_fn_in_trait)]
pub trait StashBackend {
    /// Writes records with their metadata. One result per record, in order;
    /// `Ok` means durably committed (for IndexedDB: transaction `complete`).
    /// A transactional backend fails or commits them all together.
    async fn put_records(&self, records: &[NewRecord<'_>]) -> Vec<Result<(), StashError>>;

    /// Reads one record, or `None` when there is none.
    async fn get_record(&self, id: &str) -> Result<Option<StoredRecord>, StashError>;

    /// The metadata of every record, without payloads.
    async fn list_meta(&self) -> Result<Vec<RecordMeta>, StashError>;

    /// The metadata of every record by id, as [`StashBackend::list_meta`]
    /// lists it; shared, where the backend keeps a listing (see
    /// [`super::CachedBackend`]), so that a call reads it without a copy:
    /// a call that copied the listing would cost more the more the stash
    /// holds. By default, made of [`StashBackend::list_meta`].
    async fn listing(&self) -> Result<Rc<Metas>, StashError> {
        Ok(Rc::new(metas_by_id(self.list_meta().await?)))
    }

    /// The metadata of the records `ids` names that exist (in any order):
    /// what a call looks up when the store expires records by itself. By
    /// default, [`StashBackend::list_meta`] filtered.
    async fn metas_of(&self, ids: &[String]) -> Result<Vec<RecordMeta>, StashError> {
        let mut metas = self.list_meta().await?;
        metas.retain(|m| ids.contains(&m.id));
        Ok(metas)
    }

    /// True for a store that expires and evicts records by itself (each
    /// record lives until its metadata's `expires_at`, renewed when its
    /// metadata is written; a shared server's own memory policy evicts):
    /// a call then looks up only the records it names
    /// ([`StashBackend::metas_of`]), never lists the store and never sweeps
    /// it, so its cost does not grow with what else the store holds.
    fn expires_by_itself(&self) -> bool {
        false
    }

    /// Rewrites metadata of existing records (expiry, last use).
    async fn put_meta(&self, metas: &[RecordMeta]) -> Result<(), StashError>;

    /// Deletes records and their metadata.
    async fn delete_records(&self, ids: &[String]) -> Result<(), StashError>;

    /// Writes one call's records, renewals and deletions: in one
    /// transaction where the backend has them, else in that order
    /// ([`commit_in_steps`]).
    async fn commit(&self, commit: &Commit<'_>) -> Committed {
        commit_in_steps(self, commit).await
    }
}

impl<T: StashBackend + ?Sized> StashBackend for &T {
    async fn put_records(&self, records: &[NewRecord<'_>]) -> Vec<Result<(), StashError>> {
        (**self).put_records(records).await
    }
    async fn get_record(&self, id: &str) -> Result<Option<StoredRecord>, StashError> {
        (**self).get_record(id).await
    }
    async fn list_meta(&self) -> Result<Vec<RecordMeta>, StashError> {
        (**self).list_meta().await
    }
    async fn listing(&self) -> Result<Rc<Metas>, StashError> {
        (**self).listing().await
    }
    async fn metas_of(&self, ids: &[String]) -> Result<Vec<RecordMeta>, StashError> {
        (**self).metas_of(ids).await
    }
    fn expires_by_itself(&self) -> bool {
        (**self).expires_by_itself()
    }
    async fn put_meta(&self, metas: &[RecordMeta]) -> Result<(), StashError> {
        (**self).put_meta(metas).await
    }
    async fn delete_records(&self, ids: &[String]) -> Result<(), StashError> {
        (**self).delete_records(ids).await
    }
    async fn commit(&self, commit: &Commit<'_>) -> Committed {
        (**self).commit(commit).await
    }
}
