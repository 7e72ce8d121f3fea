//! One fitting ([`FitCall`]): what every phase reads, built by the caller
//! and configured with `with_…`; and the options a caller gives.

use super::resizer::Resizer;
use crate::budget::{EstimateReport, ModelProfile};
use crate::event_loop::Slicer;
use crate::history::{CompactPayloads, Offload};
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

/// One fitting of a request to `profile`: [`FitCall::run`] runs it (see
/// the module `flow`). Without a stash, images are still resized (the
/// caller keeps the originals it passed in), but no history image can be
/// stashed.
pub struct FitCall<'a, B, R> {
    /// The stash for originals; `None` when the caller gave none.
    pub(super) stash: Option<StashAccess<'a, B>>,
    /// Changes pixels.
    pub(super) resizer: &'a R,
    /// The model's rules.
    pub(super) profile: &'a ModelProfile,
    pub(super) options: FitOptions,
    pub(super) payloads: &'a dyn CompactPayloads,
    /// Long work in short tasks: the host runs between images.
    pub(super) slicer: Slicer<'a>,
    /// Where the history images the fitting leaves inline go by reference
    /// afterwards, when asked (with a stash).
    pub(super) offload: Option<Offload<'a>>,
}

impl<'a, B, R: Resizer> FitCall<'a, B, R> {
    /// A fitting to `profile` with `options`, resizing through `resizer`
    /// and reading payloads through `payloads`; no stash.
    pub fn new(
        profile: &'a ModelProfile,
        options: FitOptions,
        resizer: &'a R,
        payloads: &'a dyn CompactPayloads,
    ) -> Self {
        FitCall {
            stash: None,
            resizer,
            profile,
            options,
            payloads,
            slicer: Slicer::of(payloads.event_loop()),
            offload: None,
        }
    }

    /// The same call, stashing originals in `stash`.
    pub fn with_stash(self, stash: StashAccess<'a, B>) -> Self {
        FitCall {
            stash: Some(stash),
            ..self
        }
    }

    /// The same call, then sending the history images it leaves inline
    /// (before the newest user message) by reference to files uploaded
    /// once, as a compaction keeping every history image does (see
    /// [`crate::history::CompactCall::with_offload`]); the compaction's
    /// report is the fit report's `offload`. Needs a stash: without one,
    /// nothing is offloaded.
    pub fn with_offload(self, offload: Offload<'a>) -> Self {
        FitCall {
            offload: Some(offload),
            ..self
        }
    }
}

/// The request as given: its serialized size and its estimate.
pub(super) struct Before {
    /// Serialized request bytes.
    pub bytes: u64,
    /// Tokens and images, as the model counts them.
    pub estimate: EstimateReport,
}
