//! What a flow that writes to the stash is given: the backend, its
//! settings and the clock, as one value.

use super::StashConfig;

/// The stash, its settings and the clock.
#[derive(Debug)]
pub struct StashAccess<'a, B> {
    /// Where records go.
    pub backend: &'a B,
    /// TTL and budget.
    pub config: &'a StashConfig,
    /// Now, in ms since the epoch.
    pub now: f64,
}

impl<B> Clone for StashAccess<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B> Copy for StashAccess<'_, B> {}
