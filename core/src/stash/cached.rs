//! A backend seen through a metadata cache. Listing every record's metadata
//! is the one read each compaction makes whatever it finds; a stash keeps
//! the last listing for [`META_CACHE_MS`] and updates it with its own
//! writes. Other tabs may write to the same storage, so the listing is only
//! trusted for that long, and not at all once the storage was reset under
//! the connection (its [`Generation`] changed): then, too, nothing written
//! during the reset counts as committed.

use super::{
    metas_by_id, Commit, Committed, Metas, NewRecord, RecordMeta, StashBackend, StashError,
    StashErrorKind, StoredRecord,
};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// How long a metadata listing is trusted, in milliseconds.
pub const META_CACHE_MS: f64 = 30_000.0;

/// A backend whose storage another connection may delete or upgrade. The
/// number changes whenever that happened; it stays 0 for backends that
/// cannot be reset under them.
pub trait Generation {
    /// The current generation of the connection.
    fn generation(&self) -> u64;
}

impl<T: Generation + ?Sized> Generation for &T {
    fn generation(&self) -> u64 {
        (**self).generation()
    }
}

/// The metadata of a stash as last listed: when, under which generation,
/// and the records by id.
#[derive(Debug, Default)]
pub struct MetaCache {
    listed: RefCell<Option<Listing>>,
}

#[derive(Debug)]
struct Listing {
    at: f64,
    generation: u64,
    /// Shared with the calls that read it: a change made while a call
    /// still holds it copies it once (`Rc::make_mut`).
    metas: Rc<Metas>,
}

impl MetaCache {
    /// An empty cache.
    pub fn new() -> MetaCache {
        MetaCache::default()
    }

    /// Forgets the listing (the next read asks the backend).
    pub fn clear(&self) {
        self.listed.borrow_mut().take();
    }

    /// The listing, when it was made less than [`META_CACHE_MS`] before
    /// `now` under `generation`.
    fn fresh(&self, now: f64, generation: u64) -> Option<Rc<Metas>> {
        let listed = self.listed.borrow();
        let l = listed.as_ref()?;
        (now - l.at < META_CACHE_MS && l.generation == generation).then(|| Rc::clone(&l.metas))
    }

    fn store(&self, now: f64, generation: u64, metas: Rc<Metas>) {
        *self.listed.borrow_mut() = Some(Listing {
            at: now,
            generation,
            metas,
        });
    }

    /// Applies a change that committed; a failed one drops the listing,
    /// since what the storage holds is no longer known. So does a change
    /// made while a call still reads the listing (a call's write during its
    /// own listing's use, which is rare): the listing is not copied, the
    /// next call lists the storage again.
    fn apply<T>(
        &self,
        outcome: &Result<T, StashError>,
        change: impl FnOnce(&mut BTreeMap<String, RecordMeta>),
    ) {
        let mut listed = self.listed.borrow_mut();
        let metas = listed.as_mut().map(|l| Rc::get_mut(&mut l.metas));
        match (outcome, metas) {
            (Ok(_), Some(Some(metas))) => change(metas),
            (Err(_), _) | (Ok(_), Some(None)) => *listed = None,
            (Ok(_), None) => {}
        }
    }
}

/// `backend` for one call, its metadata listing read through `cache`.
/// `now` is the wall-clock time of the call in milliseconds (not the
/// stash's own clock, which tests may move).
pub struct CachedBackend<'a, B> {
    backend: B,
    cache: &'a MetaCache,
    now: f64,
}

impl<'a, B> CachedBackend<'a, B> {
    /// `backend` seen through `cache` at wall-clock time `now`.
    pub fn new(backend: B, cache: &'a MetaCache, now: f64) -> Self {
        CachedBackend {
            backend,
            cache,
            now,
        }
    }
}

impl<B: Generation> CachedBackend<'_, B> {
    /// The `results` of writing `records`, each an error when the storage
    /// was reset (generation moved from `before`) during the write; the
    /// listing follows the records written, or is dropped when any failed.
    fn after_put(
        &self,
        before: u64,
        records: &[NewRecord<'_>],
        results: Vec<Result<(), StashError>>,
    ) -> Vec<Result<(), StashError>> {
        let mut results = results;
        if self.backend.generation() != before {
            // Another connection deleted or upgraded the storage while we
            // wrote: what committed may already be gone, so nothing counts.
            results = results
                .into_iter()
                .map(|r| {
                    r.and(Err(StashError::new(
                        StashErrorKind::VersionChange,
                        "another connection deleted or upgraded the database during the write",
                    )))
                })
                .collect();
        }
        if results.iter().any(Result::is_err) {
            self.cache.clear();
        } else {
            self.cache.apply(&Ok::<(), StashError>(()), |metas| {
                // A confirmed record keeps the metadata it was listed with.
                for r in records.iter().filter(|r| !r.stored) {
                    metas.insert(r.id.clone(), r.meta.clone());
                }
            });
        }
        results
    }

    /// The listing follows renewed `metas` once written.
    fn after_renew(&self, out: &Result<(), StashError>, metas: &[RecordMeta]) {
        self.cache.apply(out, |cached| {
            for m in metas {
                cached.insert(m.id.clone(), m.clone());
            }
        });
    }

    /// The listing forgets `ids` once deleted.
    fn after_delete(&self, out: &Result<(), StashError>, ids: &[String]) {
        self.cache.apply(out, |cached| {
            for id in ids {
                cached.remove(id);
            }
        });
    }
}

impl<B: StashBackend + Generation> StashBackend for CachedBackend<'_, B> {
    async fn put_records(&self, records: &[NewRecord<'_>]) -> Vec<Result<(), StashError>> {
        let before = self.backend.generation();
        let results = self.backend.put_records(records).await;
        self.after_put(before, records, results)
    }

    async fn get_record(&self, id: &str) -> Result<Option<StoredRecord>, StashError> {
        self.backend.get_record(id).await
    }

    async fn list_meta(&self) -> Result<Vec<RecordMeta>, StashError> {
        Ok(self.listing().await?.values().cloned().collect())
    }

    async fn listing(&self) -> Result<Rc<Metas>, StashError> {
        let generation = self.backend.generation();
        if let Some(metas) = self.cache.fresh(self.now, generation) {
            return Ok(metas);
        }
        match self.backend.list_meta().await {
            Ok(m) => {
                let metas = Rc::new(metas_by_id(m));
                self.cache.store(self.now, generation, Rc::clone(&metas));
                Ok(metas)
            }
            Err(e) => {
                self.cache.clear();
                Err(e)
            }
        }
    }

    async fn metas_of(&self, ids: &[String]) -> Result<Vec<RecordMeta>, StashError> {
        if self.backend.expires_by_itself() {
            return self.backend.metas_of(ids).await;
        }
        let listing = self.listing().await?;
        Ok(ids
            .iter()
            .filter_map(|id| listing.get(id).cloned())
            .collect())
    }

    fn expires_by_itself(&self) -> bool {
        self.backend.expires_by_itself()
    }

    async fn put_meta(&self, metas: &[RecordMeta]) -> Result<(), StashError> {
        let out = self.backend.put_meta(metas).await;
        self.after_renew(&out, metas);
        out
    }

    async fn delete_records(&self, ids: &[String]) -> Result<(), StashError> {
        let out = self.backend.delete_records(ids).await;
        self.after_delete(&out, ids);
        out
    }

    async fn commit(&self, commit: &Commit<'_>) -> Committed {
        let before = self.backend.generation();
        let Committed {
            records,
            renewed,
            deleted,
        } = self.backend.commit(commit).await;
        let records = self.after_put(before, &commit.records, records);
        self.after_renew(&renewed, &commit.renewed);
        self.after_delete(&deleted, &commit.deleted);
        Committed {
            records,
            renewed,
            deleted,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stash::{MemoryBackend, WrittenAt};
    use std::cell::Cell;
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    fn block_on<F: Future>(f: F) -> F::Output {
        let mut f = pin!(f);
        let mut cx = Context::from_waker(Waker::noop());
        loop {
            if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                return v;
            }
        }
    }

    /// A memory backend that counts listings and whose generation a test
    /// can move, as if another connection reset the storage.
    #[derive(Default)]
    struct Counting {
        inner: MemoryBackend,
        listings: Cell<usize>,
        generation: Cell<u64>,
        reset_on_put: Cell<bool>,
    }

    impl Generation for Counting {
        fn generation(&self) -> u64 {
            self.generation.get()
        }
    }

    impl StashBackend for Counting {
        async fn put_records(&self, records: &[NewRecord<'_>]) -> Vec<Result<(), StashError>> {
            let out = self.inner.put_records(records).await;
            if self.reset_on_put.get() {
                self.generation.set(self.generation.get() + 1);
            }
            out
        }
        async fn get_record(&self, id: &str) -> Result<Option<StoredRecord>, StashError> {
            self.inner.get_record(id).await
        }
        async fn list_meta(&self) -> Result<Vec<RecordMeta>, StashError> {
            self.listings.set(self.listings.get() + 1);
            self.inner.list_meta().await
        }
        async fn put_meta(&self, metas: &[RecordMeta]) -> Result<(), StashError> {
            self.inner.put_meta(metas).await
        }
        async fn delete_records(&self, ids: &[String]) -> Result<(), StashError> {
            self.inner.delete_records(ids).await
        }
    }

    fn record(id: &str) -> NewRecord<'static> {
        NewRecord::new(
            id.to_owned(),
            "image/png".into(),
            "aGVsbG8=",
            5,
            8,
            None,
            WrittenAt {
                now: 0.0,
                ttl_ms: 1000.0,
            },
        )
    }

    #[test]
    fn a_listing_is_reused_until_it_is_stale_and_follows_own_writes() {
        let backend = Counting::default();
        let cache = MetaCache::new();
        let at = |now| CachedBackend::new(&backend, &cache, now);
        assert!(block_on(at(0.0).list_meta()).unwrap().is_empty());
        assert_eq!(block_on(at(1.0).put_records(&[record("a")])).len(), 1);
        let metas = block_on(at(2.0).list_meta()).unwrap();
        assert_eq!(metas.len(), 1, "own writes are in the cached listing");
        assert_eq!(backend.listings.get(), 1);
        block_on(at(3.0).delete_records(&["a".into()])).unwrap();
        assert!(block_on(at(4.0).list_meta()).unwrap().is_empty());
        assert_eq!(backend.listings.get(), 1);
        block_on(at(META_CACHE_MS + 1.0).list_meta()).unwrap();
        assert_eq!(backend.listings.get(), 2, "a stale listing is read again");
    }

    #[test]
    fn a_listing_is_shared_with_the_calls_and_not_copied_for_a_write() {
        let backend = Counting::default();
        let cache = MetaCache::new();
        let at = |now| CachedBackend::new(&backend, &cache, now);
        block_on(at(0.0).put_records(&[record("a")]));
        let first = block_on(at(1.0).listing()).unwrap();
        let again = block_on(at(2.0).listing()).unwrap();
        assert!(Rc::ptr_eq(&first, &again), "read without a copy");
        assert_eq!(backend.listings.get(), 1);
        drop(again);
        // With no call holding it, a write changes it in place.
        let at_before = Rc::as_ptr(&first);
        drop(first);
        block_on(at(3.0).put_records(&[record("b")]));
        let after = block_on(at(4.0).listing()).unwrap();
        assert_eq!(Rc::as_ptr(&after), at_before);
        assert_eq!(after.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(backend.listings.get(), 1);
        // A write while a call holds it: the call's stays as it was, the
        // next call lists the storage again and finds the write.
        block_on(at(5.0).delete_records(&["a".into()])).unwrap();
        assert_eq!(after.keys().collect::<Vec<_>>(), ["a", "b"]);
        let last = block_on(at(6.0).listing()).unwrap();
        assert_eq!(last.keys().collect::<Vec<_>>(), ["b"]);
        assert_eq!(backend.listings.get(), 2);
        let ids = ["b".to_owned(), "c".to_owned()];
        let found = block_on(at(7.0).metas_of(&ids)).unwrap();
        assert_eq!(
            found.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
            ["b"]
        );
    }

    #[test]
    fn a_reset_during_a_write_counts_nothing_as_committed_and_drops_the_listing() {
        let backend = Counting::default();
        let cache = MetaCache::new();
        let call = CachedBackend::new(&backend, &cache, 0.0);
        block_on(call.list_meta()).unwrap();
        backend.reset_on_put.set(true);
        let results = block_on(call.put_records(&[record("a"), record("b")]));
        assert!(results
            .iter()
            .all(|r| matches!(r, Err(e) if e.kind == StashErrorKind::VersionChange)));
        backend.reset_on_put.set(false);
        block_on(call.list_meta()).unwrap();
        assert_eq!(backend.listings.get(), 2, "the listing was dropped");
    }

    #[test]
    fn a_listing_made_under_another_generation_is_not_trusted() {
        let backend = Counting::default();
        let cache = MetaCache::new();
        let call = CachedBackend::new(&backend, &cache, 0.0);
        block_on(call.list_meta()).unwrap();
        backend.generation.set(7);
        block_on(call.list_meta()).unwrap();
        assert_eq!(backend.listings.get(), 2);
    }
}
