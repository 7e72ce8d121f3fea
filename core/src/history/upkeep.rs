//! Compaction's upkeep, the parts that decide: which records the
//! conversation keeps alive (their expiry renewed) and which the sweep
//! deletes. The writing itself is in `flow`.

use super::commit::Written;
use crate::history::compact::{CompactReport, Plan};
use crate::stash::{plan_maintenance, Maintenance, RecordMeta, StashConfig};
use std::collections::{BTreeMap, BTreeSet};

/// The records the conversation references: its placeholders' and the
/// images confirmed now (refreshed alike).
pub(super) fn referenced_ids(plan: &Plan<'_>, written: &Written) -> Vec<String> {
    let mut referenced = plan.referenced.clone();
    referenced.extend(
        written
            .confirmed
            .iter()
            .filter(|id| !plan.referenced.contains(id))
            .cloned(),
    );
    referenced
}

/// Renews the expiry of each live record in `referenced` that has used up a
/// tenth of its TTL (`listed` is updated); a referenced record neither
/// listed live nor written now counts as missing in `report`. Returns the
/// ids the sweep must spare (those written now, `binary_ids` and the live
/// referenced ones) and the renewed metadata to write.
pub(super) fn renewals(
    referenced: &[String],
    listed: &mut BTreeMap<String, RecordMeta>,
    written: &Written,
    binary_ids: BTreeSet<String>,
    (now, config): (f64, &StashConfig),
    report: &mut CompactReport,
) -> (BTreeSet<String>, Vec<RecordMeta>) {
    let mut protected = BTreeSet::new();
    protected.extend(written.committed.keys().cloned());
    protected.extend(binary_ids);
    let mut touched = Vec::new();
    for id in referenced {
        match listed.get_mut(id) {
            Some(m) if m.expires_at > now => {
                protected.insert(id.clone());
                // Expiry is kept within a tenth of the TTL: a record is
                // rewritten only once that much of its life has passed.
                if m.expires_at - now < config.ttl_ms * 0.9 {
                    m.expires_at = now + config.ttl_ms;
                    m.last_used_at = now;
                    touched.push(m.clone());
                }
            }
            _ if written.committed.contains_key(id) => {}
            _ => report.missing += 1,
        }
    }
    report.refreshed = touched.len();
    (protected, touched)
}

/// What the sweep removes: expired records, then the least recently used
/// until the stash fits, among those listed and those written now, sparing
/// `protected`.
pub(super) fn sweep_plan(
    mut listed: BTreeMap<String, RecordMeta>,
    committed: BTreeMap<String, RecordMeta>,
    (now, config): (f64, &StashConfig),
    protected: &BTreeSet<String>,
) -> Maintenance {
    listed.extend(committed);
    let metas: Vec<RecordMeta> = listed.into_values().collect();
    plan_maintenance(&metas, now, config, protected)
}
