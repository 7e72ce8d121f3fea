//! Stash policy: verified reads, TTL expiry, refresh on use, and least
//! recently used eviction above a byte budget — never of a record the current
//! conversation references.

use super::{RecordMeta, StashBackend, StashError, StoredRecord};
use std::collections::BTreeSet;

/// The name a stash opens under when none is given (its database name).
pub const DEFAULT_STASH_NAME: &str = "ctxpack";

/// How long a record lives after its last reference when no TTL is given,
/// in seconds (2 h).
pub const DEFAULT_TTL_SECONDS: f64 = 7200.0;

/// How long records live and how much the stash may hold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StashConfig {
    /// Time to live after the last reference, in milliseconds (default 2 h).
    pub ttl_ms: f64,
    /// Upper bound on stored payload bytes; `None` for no bound.
    pub max_bytes: Option<u64>,
}

impl StashConfig {
    /// The settings as a caller gives them: a time to live in seconds
    /// (default 2 h) and a bound in bytes (a JavaScript number, cut to whole
    /// bytes).
    pub fn from_options(ttl_seconds: Option<f64>, max_bytes: Option<f64>) -> StashConfig {
        StashConfig {
            ttl_ms: ttl_seconds.unwrap_or(DEFAULT_TTL_SECONDS) * 1000.0,
            max_bytes: max_bytes.map(|n| n as u64),
        }
    }

    /// The time to live in seconds, as callers give it.
    pub fn ttl_seconds(&self) -> f64 {
        self.ttl_ms / 1000.0
    }
}

impl Default for StashConfig {
    fn default() -> Self {
        StashConfig {
            ttl_ms: DEFAULT_TTL_SECONDS * 1000.0,
            max_bytes: None,
        }
    }
}

/// What looking a record up found.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    /// The record, verified: its payload hashes to its id and it has not expired.
    Found(StoredRecord),
    /// No such record.
    Missing,
    /// The record is past its expiry.
    Expired,
    /// The payload no longer hashes to the id.
    Corrupt,
}

/// Reads a record at time `now` and checks it: expired records and records
/// whose payload no longer hashes to their id do not count as found. A
/// large payload is read in pieces, `slicer` letting the host run between.
pub async fn read_verified<B: StashBackend>(
    backend: &B,
    id: &str,
    now: f64,
    payloads: &dyn crate::media::payload::Payloads,
    slicer: &crate::event_loop::Slicer<'_>,
) -> Result<Lookup, StashError> {
    let Some(record) = backend.get_record(id).await? else {
        return Ok(Lookup::Missing);
    };
    if record.expires_at <= now {
        return Ok(Lookup::Expired);
    }
    payloads.prepare_facts(&record.payload, 0, slicer).await;
    let digest = payloads.facts(&record.payload, 0).md5;
    if record.id != id || digest != id {
        return Ok(Lookup::Corrupt);
    }
    Ok(Lookup::Found(record))
}

/// What a maintenance pass removes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Maintenance {
    /// Records past their expiry.
    pub expired: Vec<String>,
    /// Records evicted, least recently used first, to fit `max_bytes`.
    pub evicted: Vec<String>,
    /// Stored bytes after the pass.
    pub bytes_after: u64,
    /// True when protected records alone exceed `max_bytes`.
    pub over_budget: bool,
}

impl Maintenance {
    /// The records to delete: the expired, then the evicted.
    pub fn doomed(&self) -> Vec<String> {
        self.expired.iter().chain(&self.evicted).cloned().collect()
    }
}

/// Decides which records to remove at time `now`: expired ones, then the
/// least recently used until the stash fits `max_bytes`. Records in
/// `protected` (referenced by the conversation being processed) stay.
pub fn plan_maintenance(
    metas: &[&RecordMeta],
    now: f64,
    config: &StashConfig,
    protected: &BTreeSet<String>,
) -> Maintenance {
    let mut out = Maintenance::default();
    let mut live: Vec<&RecordMeta> = Vec::with_capacity(metas.len());
    for m in metas {
        if m.expires_at <= now && !protected.contains(&m.id) {
            out.expired.push(m.id.clone());
        } else {
            live.push(m);
        }
    }
    let mut total: u64 = live.iter().map(|m| m.stored_bytes).sum();
    if let Some(max) = config.max_bytes {
        sort_by_use(&mut live, false);
        for m in &live {
            if total <= max {
                break;
            }
            if protected.contains(&m.id) {
                continue;
            }
            total -= m.stored_bytes;
            out.evicted.push(m.id.clone());
        }
        out.over_budget = total > max;
    }
    out.bytes_after = total;
    out
}

/// What `Stash.sweep` removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SweepReport {
    /// Records past their expiry.
    pub expired: usize,
    /// Records evicted to fit the byte budget.
    pub evicted: usize,
    /// Stored bytes after the sweep.
    #[serde(serialize_with = "crate::number::u64_as_number")]
    pub bytes: u64,
}

/// Removes expired records, then the least recently used above the byte
/// budget (`Stash.sweep`); nothing is protected. Returns what was removed.
pub async fn sweep<B: StashBackend>(
    backend: &B,
    config: &StashConfig,
    now: f64,
) -> Result<SweepReport, StashError> {
    let metas = backend.list_meta().await?;
    let metas: Vec<&RecordMeta> = metas.iter().collect();
    let plan = plan_maintenance(&metas, now, config, &BTreeSet::new());
    let doomed = plan.doomed();
    if !doomed.is_empty() {
        backend.delete_records(&doomed).await?;
    }
    Ok(SweepReport {
        expired: plan.expired.len(),
        evicted: plan.evicted.len(),
        bytes: plan.bytes_after,
    })
}

/// Every record's metadata, most recently used first, ties by id
/// (`Stash.list`).
pub async fn list_by_recency<B: StashBackend>(backend: &B) -> Result<Vec<RecordMeta>, StashError> {
    let metas = backend.list_meta().await?;
    let mut order: Vec<&RecordMeta> = metas.iter().collect();
    sort_by_use(&mut order, true);
    Ok(order.into_iter().cloned().collect())
}

/// Sorts records by when they were last used, least recent first (most
/// recent first when `recent_first`), ties by id. (One sort serves both
/// orders, so it is compiled once.)
fn sort_by_use(metas: &mut [&RecordMeta], recent_first: bool) {
    metas.sort_unstable_by(|a, b| {
        let (x, y) = if recent_first { (b, a) } else { (a, b) };
        x.last_used_at
            .total_cmp(&y.last_used_at)
            .then_with(|| a.id.cmp(&b.id))
    });
}

#[cfg(test)]
mod tests {

    #[test]
    fn settings_read_as_callers_give_them() {
        let config = StashConfig::from_options(None, None);
        assert_eq!(config, StashConfig::default());
        assert_eq!(config.ttl_seconds(), DEFAULT_TTL_SECONDS);
        let config = StashConfig::from_options(Some(90.0), Some(1024.7));
        assert_eq!(config.ttl_ms, 90_000.0);
        assert_eq!(config.ttl_seconds(), 90.0);
        assert_eq!(config.max_bytes, Some(1024));
    }

    use super::*;

    fn meta(id: &str, bytes: u64, expires: f64, used: f64) -> RecordMeta {
        RecordMeta {
            id: id.into(),
            size: bytes,
            stored_bytes: bytes,
            mime: "image/png".into(),
            created_at: 0.0,
            expires_at: expires,
            last_used_at: used,
            part: None,
            files: Vec::new(),
        }
    }

    #[test]
    fn expires_then_evicts_least_recently_used() {
        let metas = [
            meta("a", 10, 50.0, 1.0),
            meta("b", 10, 500.0, 2.0),
            meta("c", 10, 500.0, 3.0),
            meta("d", 10, 500.0, 4.0),
        ];
        let cfg = StashConfig {
            ttl_ms: 100.0,
            max_bytes: Some(20),
        };
        let m = plan_maintenance(
            &metas.iter().collect::<Vec<_>>(),
            100.0,
            &cfg,
            &BTreeSet::new(),
        );
        assert_eq!(m.expired, vec!["a"]);
        assert_eq!(m.evicted, vec!["b"]);
        assert_eq!(m.bytes_after, 20);
        assert!(!m.over_budget);
    }

    #[test]
    fn never_removes_protected_records() {
        let metas = [meta("a", 10, 50.0, 1.0), meta("b", 30, 500.0, 2.0)];
        let cfg = StashConfig {
            ttl_ms: 100.0,
            max_bytes: Some(5),
        };
        let protected: BTreeSet<String> = ["a".to_owned(), "b".to_owned()].into();
        let m = plan_maintenance(&metas.iter().collect::<Vec<_>>(), 100.0, &cfg, &protected);
        assert!(m.expired.is_empty() && m.evicted.is_empty());
        assert!(m.over_budget);
    }

    #[test]
    fn listing_is_most_recent_first_and_eviction_least_recent_first_ties_by_id() {
        let metas = [
            meta("c", 10, 500.0, 2.0),
            meta("b", 10, 500.0, 2.0),
            meta("d", 10, 500.0, 9.0),
            meta("a", 10, 500.0, 1.0),
        ];
        let ids = |recent_first: bool| {
            let mut order: Vec<&RecordMeta> = metas.iter().collect();
            sort_by_use(&mut order, recent_first);
            order.iter().map(|m| m.id.as_str()).collect::<Vec<_>>()
        };
        assert_eq!(ids(true), ["d", "b", "c", "a"]);
        assert_eq!(ids(false), ["a", "b", "c", "d"]);
        let cfg = StashConfig {
            ttl_ms: 100.0,
            max_bytes: Some(15),
        };
        let m = plan_maintenance(
            &metas.iter().collect::<Vec<_>>(),
            100.0,
            &cfg,
            &BTreeSet::new(),
        );
        assert_eq!(m.evicted, ["a", "b", "c"]);
    }
}
