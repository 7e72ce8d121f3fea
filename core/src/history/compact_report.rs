//! What a compaction reports: its counts, sizes and failures.

use crate::stash::Failure;

/// Counts and sizes a compaction reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactReport {
    /// The wire format read and written.
    pub format: &'static str,
    /// Index of the person's newest message: the newest user message that is
    /// not only tool results (`null` when there is none).
    pub newest_user_index: Option<usize>,
    /// The first message holding an image this call stashed for the first
    /// time (`null` when none): images an earlier call stashed come back as
    /// the same placeholders, so a provider's prompt cache holds the
    /// messages before it from the previous request.
    pub first_changed_index: Option<usize>,
    /// The message given the cache breakpoint (`null` when none was asked,
    /// the format needs none, or the messages hold four already).
    pub cache_breakpoint_index: Option<usize>,
    /// Image parts replaced by placeholders.
    pub stashed: usize,
    /// Of those, parts whose image was already written earlier in this call.
    pub deduplicated: usize,
    /// Distinct images written to the stash.
    pub written: usize,
    /// Inline images left as they are on purpose (newest turn, `keepRecentImages`).
    pub kept: usize,
    /// Images given by URL, left as they are.
    pub urls: usize,
    /// History images that stayed inline because something failed.
    pub failed: usize,
    /// Placeholders already present whose records were refreshed.
    pub refreshed: usize,
    /// Placeholders already present whose record is gone.
    pub missing: usize,
    /// Serialized JSON size of the messages before, in bytes.
    pub bytes_before: u64,
    /// Serialized JSON size of the messages after, in bytes.
    pub bytes_after: u64,
    /// Why each failed image stayed inline.
    pub failures: Vec<Failure>,
    /// Records removed because they expired.
    pub expired: usize,
    /// Records evicted to fit `maxBytes`.
    pub evicted: usize,
    /// True when the records this conversation needs exceed `maxBytes` alone.
    pub over_budget: bool,
    /// Binary payloads in tool results replaced by `[Binary:history_…]` markers.
    pub binaries_stashed: usize,
    /// History images stashed beyond `keepRecentImages` to meet the model's limits.
    pub limit_stashed: usize,
    /// False when the request exceeds the model's limits even after compaction.
    pub fits: bool,
    /// Why it does not fit, when it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit_problem: Option<String>,
    /// Image parts sent as references to files at the provider (with
    /// `offload`).
    pub offloaded: usize,
    /// Images uploaded by this call.
    pub uploaded: usize,
    /// Base64 bytes the references carry in the images' place.
    pub offloaded_bytes: u64,
    /// Why no image went by reference, when `offload` was asked and the
    /// format's API takes none (or another provider's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offload_note: Option<String>,
}
