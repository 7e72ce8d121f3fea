//! One compaction is one request context: the stash is listed once, and
//! what the call writes (new records, confirmations, renewed expiries and
//! the sweep's deletions) goes to the stash in one commit.

use crate::common;

use common::history::*;
use common::*;
use ctxpack_core::history::CompactOptions;
use ctxpack_core::stash::{
    commit_in_steps, Commit, Committed, MemoryBackend, NewRecord, RecordMeta, StashBackend,
    StashConfig, StashError, StoredRecord, WrittenAt,
};
use serde_json::json;
use std::cell::RefCell;

/// Every call a compaction makes to the stash, in order.
#[derive(Default)]
struct Recording {
    inner: MemoryBackend,
    calls: RefCell<Vec<String>>,
}

impl Recording {
    fn log(&self, call: String) {
        self.calls.borrow_mut().push(call);
    }
    fn take(&self) -> Vec<String> {
        self.calls.take()
    }
}

impl StashBackend for Recording {
    async fn put_records(&self, records: &[NewRecord<'_>]) -> Vec<Result<(), StashError>> {
        self.log(format!("put_records {}", records.len()));
        self.inner.put_records(records).await
    }
    async fn get_record(&self, id: &str) -> Result<Option<StoredRecord>, StashError> {
        self.log("get_record".into());
        self.inner.get_record(id).await
    }
    async fn list_meta(&self) -> Result<Vec<RecordMeta>, StashError> {
        self.log("list_meta".into());
        self.inner.list_meta().await
    }
    async fn put_meta(&self, metas: &[RecordMeta]) -> Result<(), StashError> {
        self.log(format!("put_meta {}", metas.len()));
        self.inner.put_meta(metas).await
    }
    async fn delete_records(&self, ids: &[String]) -> Result<(), StashError> {
        self.log(format!("delete_records {}", ids.len()));
        self.inner.delete_records(ids).await
    }
    async fn commit(&self, commit: &Commit<'_>) -> Committed {
        let stored = commit.records.iter().filter(|r| r.stored).count();
        self.log(format!(
            "commit {} written, {} confirmed, {} renewed, {} deleted",
            commit.records.len() - stored,
            stored,
            commit.renewed.len(),
            commit.deleted.len()
        ));
        self.inner.commit(commit).await
    }
}

fn image(bytes: &[u8]) -> serde_json::Value {
    json!({"type":"image_url","image_url":{"url": data_url("image/png", bytes)}})
}

#[test]
fn a_compaction_lists_the_stash_once_and_writes_records_renewals_and_sweep_in_one_commit() {
    let ttl_ms = 1e6;
    // Room for two of the three images: the one no longer referenced goes.
    let budget = (b64(PNG).len() + b64(GIF).len() + 16) as u64;
    let cfg = StashConfig {
        ttl_ms,
        max_bytes: Some(budget),
    };
    let stash = Recording::default();
    let first = json!([
        {"role":"user","content":[image(PNG)]},
        {"role":"user","content":[image(JPEG)]},
        {"role":"user","content":"?"}
    ]);
    let out = compact_at(&stash, &first, CompactOptions::default(), T0, &cfg);
    assert_eq!(out.report.written, 2);
    assert_eq!(
        stash.take(),
        [
            "list_meta",
            "commit 2 written, 0 confirmed, 0 renewed, 0 deleted"
        ]
    );

    // Half the TTL later: the PNG's placeholder is still there (renewed),
    // the JPEG's is gone (swept to make room), a GIF is new, and the PNG is
    // sent again inline in an older turn (only confirmed).
    let second = json!([
        {"role":"user","content":[image(PNG)]},
        {"role":"user","content": placeholder(PNG)},
        {"role":"user","content":[image(GIF)]},
        {"role":"user","content":"?"}
    ]);
    let out = compact_at(
        &stash,
        &second,
        CompactOptions::default(),
        T0 + ttl_ms / 2.0,
        &cfg,
    );
    assert_eq!(out.report.written, 1);
    assert_eq!(out.report.refreshed, 1);
    assert_eq!(out.report.evicted, 1);
    assert_eq!(
        stash.take(),
        [
            "list_meta",
            "get_record",
            "commit 1 written, 1 confirmed, 1 renewed, 1 deleted"
        ]
    );
    let ids: Vec<String> = block_on(stash.inner.list_meta())
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect();
    assert!(ids.contains(&md5(&b64(PNG))) && ids.contains(&md5(&b64(GIF))));
    assert!(
        !ids.contains(&md5(&b64(JPEG))),
        "the unreferenced record was swept"
    );
}

#[test]
fn a_renewal_never_makes_metadata_for_a_record_whose_write_failed() {
    // Committed in steps, the renewal of a record whose confirmation found
    // it gone is not written, so no metadata is left without its image.
    let stash = Recording::default();
    let cfg = StashConfig::default();
    let m = json!([{"role":"user","content":[image(PNG)]},{"role":"user","content":"?"}]);
    compact_at(&stash, &m, CompactOptions::default(), T0, &cfg);
    let meta = block_on(stash.inner.list_meta()).unwrap().remove(0);
    block_on(stash.inner.delete_records(std::slice::from_ref(&meta.id))).unwrap();
    stash.take();
    let record = NewRecord {
        stored: true,
        ..NewRecord::new(
            meta.id.clone(),
            meta.mime.clone(),
            "",
            meta.size,
            meta.stored_bytes,
            None,
            WrittenAt {
                now: T0,
                ttl_ms: 1.0,
            },
        )
    };
    let committed = block_on(commit_in_steps(
        &stash,
        &Commit {
            records: vec![record],
            renewed: vec![meta],
            deleted: Vec::new(),
        },
    ));
    assert!(committed.records[0].is_err());
    assert!(committed.renewed.is_ok());
    assert_eq!(stash.take(), ["put_records 1"]);
}
