//! The stash's records as one compaction sees them: listed once, when a
//! phase first needs them, and followed by what the call itself writes. A
//! store that expires records by itself is never listed: each phase looks
//! up the records it names that were not looked up yet.

use crate::stash::{Failure, RecordMeta, StashBackend};
use std::collections::BTreeMap;

/// The records of the stash, by id, for one call.
#[derive(Debug, Default)]
pub(super) struct Listing {
    /// The records, once listed (none when listing failed).
    metas: Option<BTreeMap<String, RecordMeta>>,
    /// Why listing failed, until the report takes it.
    failure: Option<Failure>,
    /// For a store that expires records by itself: the ids looked up.
    looked_up: Vec<String>,
}

impl Listing {
    /// The records, listed from `backend` on the first call only; from a
    /// store that expires records by itself, those of `ids` (the ids this
    /// phase names) not looked up before.
    pub(super) async fn of<B: StashBackend>(
        &mut self,
        backend: &B,
        ids: &[String],
    ) -> &mut BTreeMap<String, RecordMeta> {
        if backend.expires_by_itself() {
            let mut wanted = Vec::new();
            for id in ids {
                if !self.looked_up.contains(id) && !wanted.contains(id) {
                    wanted.push(id.clone());
                }
            }
            let metas = self.metas.get_or_insert_with(BTreeMap::new);
            if !wanted.is_empty() {
                match backend.metas_of(&wanted).await {
                    Ok(found) => metas.extend(found.into_iter().map(|m| (m.id.clone(), m))),
                    Err(e) => {
                        self.failure = Some(Failure::of_stash(
                            e.kind.code(),
                            format!("looking up the stash failed: {e}"),
                        ))
                    }
                }
                self.looked_up.extend(wanted);
            }
        } else if self.metas.is_none() {
            let mut listed = BTreeMap::new();
            match backend.list_meta().await {
                Ok(metas) => listed.extend(metas.into_iter().map(|m| (m.id.clone(), m))),
                Err(e) => {
                    self.failure = Some(Failure::of_stash(
                        e.kind.code(),
                        format!("listing the stash failed: {e}"),
                    ))
                }
            }
            self.metas = Some(listed);
        }
        self.metas.get_or_insert_with(BTreeMap::new)
    }

    /// The records as [`Listing::of`] finds them, `None` when that failed.
    pub(super) async fn listed<B: StashBackend>(
        &mut self,
        backend: &B,
        ids: &[String],
    ) -> Option<&BTreeMap<String, RecordMeta>> {
        self.of(backend, ids).await;
        match (&self.failure, &self.metas) {
            (None, Some(metas)) => Some(metas),
            _ => None,
        }
    }

    /// Follows records the call committed, when already listed (a listing
    /// made later finds them in the stash).
    pub(super) fn add(&mut self, written: Vec<RecordMeta>) {
        if let Some(metas) = &mut self.metas {
            metas.extend(written.into_iter().map(|m| (m.id.clone(), m)));
        }
    }

    /// The records, and why listing failed, for the call's last phases.
    pub(super) fn take(&mut self) -> (BTreeMap<String, RecordMeta>, Option<Failure>) {
        (self.metas.take().unwrap_or_default(), self.failure.take())
    }
}
