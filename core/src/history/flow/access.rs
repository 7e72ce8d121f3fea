//! The stash a flow works against: its backend, its settings and the clock,
//! passed along as one value.

use crate::stash::{RecordMeta, StashBackend, StashConfig};
use std::collections::BTreeSet;

/// The stash, its settings and the clock.
pub(super) struct Stash<'a, B> {
    /// Where originals go.
    pub(super) backend: &'a B,
    /// TTL and budget.
    pub(super) config: &'a StashConfig,
    /// Now, in ms since the epoch.
    pub(super) now: f64,
}

impl<B> Clone for Stash<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B> Copy for Stash<'_, B> {}

impl<B: StashBackend> Stash<'_, B> {
    /// When a record written or refreshed now expires.
    pub(super) fn expires_at(&self) -> f64 {
        self.now + self.config.ttl_ms
    }

    /// Gives the records named by `ids` a full TTL from now. Best effort: a
    /// failed listing or write changes nothing.
    pub(super) async fn refresh<'i>(&self, ids: impl Iterator<Item = &'i String>) {
        let mut wanted = BTreeSet::new();
        wanted.extend(ids);
        if wanted.is_empty() {
            return;
        }
        if let Ok(metas) = self.backend.list_meta().await {
            let touched: Vec<RecordMeta> = metas
                .into_iter()
                .filter(|m| wanted.contains(&m.id))
                .map(|m| RecordMeta {
                    expires_at: self.expires_at(),
                    last_used_at: self.now,
                    ..m
                })
                .collect();
            let _ = self.backend.put_meta(&touched).await;
        }
    }
}
