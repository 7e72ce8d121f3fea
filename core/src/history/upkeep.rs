//! Compaction's upkeep, the parts that decide: which records the
//! conversation keeps alive (their expiry renewed) and which the sweep
//! deletes. Both are decided before the commit, from the listing and the
//! records the call writes, so all of it is written in one commit.

use crate::history::compact::CompactReport;
use crate::history::listing::Listed;
use crate::stash::{plan_maintenance, Maintenance, NewRecord, RecordMeta, StashConfig};
use std::collections::BTreeSet;

/// What the conversation keeps alive.
pub(super) struct Renewals {
    /// The records the sweep must spare: those written now, the binaries
    /// and the live referenced ones.
    pub protected: BTreeSet<String>,
    /// The renewed metadata to write.
    pub renewed: Vec<RecordMeta>,
}

/// Renews the expiry of each live record in `referenced` that has used up a
/// tenth of its TTL (`listed` is updated); a referenced record neither
/// listed live nor written now (`records`, not only confirmed) counts as
/// missing in `report`.
pub(super) fn renewals(
    referenced: &[String],
    listed: &mut Listed,
    records: &[NewRecord<'_>],
    binary_ids: BTreeSet<String>,
    (now, config): (f64, &StashConfig),
    report: &mut CompactReport,
) -> Renewals {
    let mut protected = BTreeSet::new();
    for r in records.iter().filter(|r| !r.stored) {
        protected.insert(r.id.clone());
    }
    protected.extend(binary_ids);
    let mut renewed = Vec::new();
    for id in referenced {
        match listed.get(id) {
            Some(m) if m.expires_at > now => {
                protected.insert(id.clone());
                // Expiry is kept within a tenth of the TTL: a record is
                // rewritten only once that much of its life has passed.
                if m.expires_at - now < config.ttl_ms * 0.9 {
                    let mut m = m.clone();
                    m.expires_at = now + config.ttl_ms;
                    m.last_used_at = now;
                    listed.insert(m.clone());
                    renewed.push(m);
                }
            }
            _ if records.iter().any(|r| !r.stored && r.id == *id) => {}
            _ => report.missing += 1,
        }
    }
    report.refreshed = renewed.len();
    Renewals { protected, renewed }
}

/// What the sweep removes: expired records, then the least recently used
/// until the stash fits, among those listed and those written now
/// (`records`), sparing `protected`.
pub(super) fn sweep_plan(
    mut listed: Listed,
    records: &[NewRecord<'_>],
    (now, config): (f64, &StashConfig),
    protected: &BTreeSet<String>,
) -> Maintenance {
    for r in records.iter().filter(|r| !r.stored) {
        listed.insert(r.meta.clone());
    }
    let metas: Vec<&RecordMeta> = listed.all().collect();
    plan_maintenance(&metas, now, config, protected)
}
