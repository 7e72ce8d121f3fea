//! The last phase of a compaction: every record the conversation references
//! is kept alive (its expiry refreshed), and the stash is swept of expired
//! records and, over budget, of the least recently used.

use super::access::Stash;
use super::commit::Committed;
use crate::history::compact::CompactReport;
use crate::stash::{plan_maintenance, Failure, RecordMeta, StashBackend};
use std::collections::{BTreeMap, BTreeSet};

/// Refreshes every record in `referenced` and sweeps the rest, sparing
/// those written now and `protected` (the tool results' records).
pub(super) async fn sweep<B: StashBackend>(
    stash: Stash<'_, B>,
    referenced: &[String],
    committed: Committed,
    protected: BTreeSet<String>,
    report: &mut CompactReport,
) {
    let Committed {
        listed: mut metas,
        written,
        ..
    } = committed;
    let mut protected = protected;
    protected.extend(written.keys().cloned());
    refresh(
        stash,
        referenced,
        &mut metas,
        &written,
        &mut protected,
        report,
    )
    .await;
    metas.extend(written);
    let metas: Vec<RecordMeta> = metas.into_values().collect();
    maintain(stash, &metas, &protected, report).await;
}

/// Refreshes the live records of `referenced` in `metas` (and protects
/// them); a referenced record neither live nor `written` now is missing.
async fn refresh<B: StashBackend>(
    stash: Stash<'_, B>,
    referenced: &[String],
    metas: &mut BTreeMap<String, RecordMeta>,
    written: &BTreeMap<String, RecordMeta>,
    protected: &mut BTreeSet<String>,
    report: &mut CompactReport,
) {
    let now = stash.now;
    let mut touched = Vec::new();
    for id in referenced {
        match metas.get_mut(id) {
            Some(m) if m.expires_at > now => {
                protected.insert(id.clone());
                // Expiry is kept within a tenth of the TTL: a record is
                // rewritten only once that much of its life has passed.
                if m.expires_at - now < stash.config.ttl_ms * 0.9 {
                    m.expires_at = stash.expires_at();
                    m.last_used_at = now;
                    touched.push(m.clone());
                }
            }
            _ if written.contains_key(id) => {}
            _ => report.missing += 1,
        }
    }
    report.refreshed = touched.len();
    if !touched.is_empty() {
        if let Err(e) = stash.backend.put_meta(&touched).await {
            report.failures.push(Failure {
                path: String::new(),
                md5: None,
                code: e.kind.code(),
                reason: format!("refreshing expiry failed: {e}"),
            });
        }
    }
}

/// Deletes the expired records of `metas`, and the least recently used
/// while the stash is over budget, sparing `protected`.
async fn maintain<B: StashBackend>(
    stash: Stash<'_, B>,
    metas: &[RecordMeta],
    protected: &BTreeSet<String>,
    report: &mut CompactReport,
) {
    let maintenance = plan_maintenance(metas, stash.now, stash.config, protected);
    let doomed: Vec<String> = maintenance
        .expired
        .iter()
        .chain(&maintenance.evicted)
        .cloned()
        .collect();
    if !doomed.is_empty() {
        if let Err(e) = stash.backend.delete_records(&doomed).await {
            report.failures.push(Failure {
                path: String::new(),
                md5: None,
                code: e.kind.code(),
                reason: format!("sweeping the stash failed: {e}"),
            });
        } else {
            report.expired = maintenance.expired.len();
            report.evicted = maintenance.evicted.len();
        }
    }
    report.over_budget = maintenance.over_budget;
}
