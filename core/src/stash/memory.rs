//! A stash held in memory, for tests, Node scripts and hosts without storage.

use super::{NewRecord, RecordMeta, StashBackend, StashError, StoredRecord};
use std::cell::RefCell;
use std::collections::BTreeMap;

/// Records in a map; gone when the stash is dropped.
#[derive(Debug, Default)]
pub struct MemoryBackend {
    records: RefCell<BTreeMap<String, (StoredRecord, RecordMeta)>>,
}

impl MemoryBackend {
    /// An empty stash.
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces a record's payload, as a disk error or a bug elsewhere might:
    /// lets tests check that corruption is detected on read.
    pub fn corrupt(&self, id: &str, payload: &str) -> bool {
        match self.records.borrow_mut().get_mut(id) {
            Some((rec, _)) => {
                rec.payload = payload.to_owned();
                true
            }
            None => false,
        }
    }
}

impl StashBackend for MemoryBackend {
    async fn put_records(&self, records: &[NewRecord<'_>]) -> Vec<Result<(), StashError>> {
        let mut map = self.records.borrow_mut();
        records
            .iter()
            .map(|r| {
                if r.stored {
                    return if map.contains_key(&r.id) {
                        Ok(())
                    } else {
                        Err(StashError::gone())
                    };
                }
                let stored = StoredRecord {
                    id: r.id.clone(),
                    mime: r.mime.clone(),
                    payload: r.payload.to_owned(),
                    part: r.part.clone(),
                    expires_at: r.meta.expires_at,
                };
                map.insert(r.id.clone(), (stored, r.meta.clone()));
                Ok(())
            })
            .collect()
    }

    async fn get_record(&self, id: &str) -> Result<Option<StoredRecord>, StashError> {
        Ok(self.records.borrow().get(id).map(|(r, m)| StoredRecord {
            expires_at: m.expires_at,
            ..r.clone()
        }))
    }

    async fn list_meta(&self) -> Result<Vec<RecordMeta>, StashError> {
        Ok(self
            .records
            .borrow()
            .values()
            .map(|(_, m)| m.clone())
            .collect())
    }

    async fn put_meta(&self, metas: &[RecordMeta]) -> Result<(), StashError> {
        let mut map = self.records.borrow_mut();
        for m in metas {
            if let Some((_, meta)) = map.get_mut(&m.id) {
                *meta = m.clone();
            }
        }
        Ok(())
    }

    async fn delete_records(&self, ids: &[String]) -> Result<(), StashError> {
        let mut map = self.records.borrow_mut();
        for id in ids {
            map.remove(id);
        }
        Ok(())
    }
}

impl super::Generation for MemoryBackend {
    /// Nothing can reset a memory stash under it.
    fn generation(&self) -> u64 {
        0
    }
}
