//! One call's writes as one unit: the records it stashes or confirms, the
//! expiries it renews and the records its sweep removes. A transactional
//! backend commits them together; the others write them in that order.

use super::{NewRecord, RecordMeta, StashBackend, StashError};

/// Everything one call writes to the stash.
#[derive(Debug, Default)]
pub struct Commit<'a> {
    /// Records to write, or to confirm ([`NewRecord::stored`]).
    pub records: Vec<NewRecord<'a>>,
    /// Renewed metadata of records the stash holds (expiry, last use).
    pub renewed: Vec<RecordMeta>,
    /// Records to delete, with their metadata.
    pub deleted: Vec<String>,
}

/// What the stash answered for a [`Commit`].
#[derive(Debug)]
pub struct Committed {
    /// One result per record, in order: `Ok` once durably committed (or,
    /// for a record only confirmed, found).
    pub records: Vec<Result<(), StashError>>,
    /// Whether the renewed metadata was written.
    pub renewed: Result<(), StashError>,
    /// Whether the records were deleted.
    pub deleted: Result<(), StashError>,
}

impl Commit<'_> {
    /// Whether there is nothing to write.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty() && self.renewed.is_empty() && self.deleted.is_empty()
    }

    /// Whether every record is only confirmed and nothing else is written.
    pub fn reads_only(&self) -> bool {
        self.renewed.is_empty() && self.deleted.is_empty() && self.records.iter().all(|r| r.stored)
    }
}

/// Commits `commit` through `backend`'s separate writes, in order: the
/// records, then the renewed metadata of the records whose write did not
/// fail (a renewal never makes metadata for a record that is gone), then
/// the deletions. What [`StashBackend::commit`] does unless a backend
/// commits in one transaction.
pub async fn commit_in_steps<B: StashBackend + ?Sized>(
    backend: &B,
    commit: &Commit<'_>,
) -> Committed {
    let records = if commit.records.is_empty() {
        Vec::new()
    } else {
        backend.put_records(&commit.records).await
    };
    // A few ids at most: a list (a set collected from an iterator would
    // bring a sort of its own into the module).
    let failed: Vec<&str> = commit
        .records
        .iter()
        .zip(&records)
        .filter(|(_, r)| r.is_err())
        .map(|(rec, _)| rec.id.as_str())
        .collect();
    let renewed: Vec<RecordMeta> = commit
        .renewed
        .iter()
        .filter(|m| !failed.contains(&m.id.as_str()))
        .cloned()
        .collect();
    let renewed = if renewed.is_empty() {
        Ok(())
    } else {
        backend.put_meta(&renewed).await
    };
    let deleted = if commit.deleted.is_empty() {
        Ok(())
    } else {
        backend.delete_records(&commit.deleted).await
    };
    Committed {
        records,
        renewed,
        deleted,
    }
}
