//! The stash's records as one compaction sees them: listed once, when a
//! phase first needs them, and followed by what the call itself writes. A
//! store that expires records by itself is never listed: each phase looks
//! up the records it names that were not looked up yet.

use crate::stash::{metas_by_id, Failure, Metas, RecordMeta, StashBackend};
use std::rc::Rc;

/// The records of the stash, by id, for one call.
#[derive(Debug, Default)]
pub(super) struct Listing {
    /// The records, once listed (none when listing failed).
    listed: Option<Listed>,
    /// Why listing failed, until the report takes it.
    failure: Option<Failure>,
    /// For a store that expires records by itself: the ids looked up.
    looked_up: Vec<String>,
}

/// The records as one call sees them: the stash's listing, shared with
/// the stash and not copied (a call's cost does not grow with what the
/// stash holds), and over it what the call wrote or renewed.
#[derive(Debug, Default)]
pub(super) struct Listed {
    /// The stash's listing.
    stash: Rc<Metas>,
    /// What this call wrote or renewed, or looked up one by one.
    call: Metas,
}

impl Listed {
    /// Record `id`'s metadata as the call sees it.
    pub(super) fn get(&self, id: &str) -> Option<&RecordMeta> {
        self.call.get(id).or_else(|| self.stash.get(id))
    }

    /// True when the call sees record `id`.
    pub(super) fn contains_key(&self, id: &str) -> bool {
        self.get(id).is_some()
    }

    /// Follows `meta`, written or renewed by the call.
    pub(super) fn insert(&mut self, meta: RecordMeta) {
        self.call.insert(meta.id.clone(), meta);
    }

    /// Every record the call sees, each once.
    pub(super) fn all(&self) -> impl Iterator<Item = &RecordMeta> {
        let call = &self.call;
        call.values().chain(
            self.stash
                .values()
                .filter(move |m| !call.contains_key(&m.id)),
        )
    }
}

impl Listing {
    /// The records, listed from `backend` on the first call only; from a
    /// store that expires records by itself, those of `ids` (the ids this
    /// phase names) not looked up before.
    pub(super) async fn of<B: StashBackend>(&mut self, backend: &B, ids: &[String]) -> &Listed {
        if backend.expires_by_itself() {
            let mut wanted = Vec::new();
            for id in ids {
                if !self.looked_up.contains(id) && !wanted.contains(id) {
                    wanted.push(id.clone());
                }
            }
            let listed = self.listed.get_or_insert_with(Listed::default);
            if !wanted.is_empty() {
                match backend.metas_of(&wanted).await {
                    Ok(found) => listed.call.extend(metas_by_id(found)),
                    Err(e) => {
                        self.failure = Some(Failure::of_stash(
                            e.kind.code(),
                            format!("looking up the stash failed: {e}"),
                        ))
                    }
                }
                self.looked_up.extend(wanted);
            }
        } else if self.listed.is_none() {
            let stash = match backend.listing().await {
                Ok(metas) => metas,
                Err(e) => {
                    self.failure = Some(Failure::of_stash(
                        e.kind.code(),
                        format!("listing the stash failed: {e}"),
                    ));
                    Rc::default()
                }
            };
            self.listed = Some(Listed {
                stash,
                call: Metas::new(),
            });
        }
        self.listed.get_or_insert_with(Listed::default)
    }

    /// The records as [`Listing::of`] finds them, `None` when that failed.
    pub(super) async fn listed<B: StashBackend>(
        &mut self,
        backend: &B,
        ids: &[String],
    ) -> Option<&Listed> {
        self.of(backend, ids).await;
        match (&self.failure, &self.listed) {
            (None, Some(listed)) => Some(listed),
            _ => None,
        }
    }

    /// Follows records the call committed, when already listed (a listing
    /// made later finds them in the stash).
    pub(super) fn add(&mut self, written: Vec<RecordMeta>) {
        if let Some(listed) = &mut self.listed {
            for meta in written {
                listed.insert(meta);
            }
        }
    }

    /// The records, and why listing failed, for the call's last phases.
    pub(super) fn take(&mut self) -> (Listed, Option<Failure>) {
        (self.listed.take().unwrap_or_default(), self.failure.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stash::{NewRecord, WrittenAt};

    fn meta(id: &str, expires_at: f64) -> RecordMeta {
        let written = WrittenAt {
            now: 0.0,
            ttl_ms: expires_at,
        };
        NewRecord::new(id.into(), "image/png".into(), "", 1, 4, None, written).meta
    }

    #[test]
    fn a_call_sees_its_own_records_over_the_stashs_and_each_once() {
        let stash = Rc::new(metas_by_id([meta("a", 10.0), meta("b", 10.0)]));
        let mut listed = Listed {
            stash: Rc::clone(&stash),
            call: Metas::new(),
        };
        listed.insert(meta("b", 99.0));
        listed.insert(meta("c", 99.0));
        assert_eq!(listed.get("b").map(|m| m.expires_at), Some(99.0));
        assert!(listed.contains_key("a") && listed.contains_key("c") && !listed.contains_key("d"));
        let mut all: Vec<(&str, f64)> = listed
            .all()
            .map(|m| (m.id.as_str(), m.expires_at))
            .collect();
        all.sort_by(|x, y| x.0.cmp(y.0));
        assert_eq!(all, [("a", 10.0), ("b", 99.0), ("c", 99.0)]);
        // The stash's listing is not changed by what the call sees.
        assert_eq!(stash.get("b").map(|m| m.expires_at), Some(10.0));
        assert!(!stash.contains_key("c"));
    }
}
