//! One fitting's request context ([`FitCall`]), what every phase reads,
//! and the options and stash access a caller gives.

use crate::budget::{EstimateReport, ModelProfile};
use crate::event_loop::Slicer;
use crate::history::CompactPayloads;
use crate::stash::StashAccess;

/// Options of a fitting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FitOptions {
    /// Send the newest user turn's images as they are.
    pub keep_newest: bool,
    /// Tokens the request may hold (default: the model's context window).
    pub max_tokens: Option<u64>,
    /// How stashing moves: in batches, with slack.
    pub slack: crate::budget::Slack,
}

/// What a repair fits to: the provider's refusal, and the options of the
/// fitting it runs.
#[derive(Debug, Clone, Copy)]
pub struct RepairOptions<'r> {
    /// The refusal the request must no longer meet.
    pub refusal: &'r crate::budget::ProviderRefusal,
    /// The fitting's own options.
    pub fit: FitOptions,
}

/// One fitting's request context: what every phase reads.
pub(super) struct FitCall<'a, B, R> {
    /// The stash for originals; `None` when the caller gave none.
    pub stash: Option<StashAccess<'a, B>>,
    /// Changes pixels.
    pub resizer: &'a R,
    /// The model's rules.
    pub profile: &'a ModelProfile,
    pub options: FitOptions,
    /// Where payloads are read.
    pub payloads: &'a dyn CompactPayloads,
    /// Long work in short tasks: the host runs between images.
    pub slicer: Slicer<'a>,
}

/// The request as given: its serialized size and its estimate.
pub(super) struct Before {
    /// Serialized request bytes.
    pub bytes: u64,
    /// Tokens and images, as the model counts them.
    pub estimate: EstimateReport,
}
