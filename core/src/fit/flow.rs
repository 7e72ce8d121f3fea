//! Fitting end to end, in named phases over one request context
//! ([`FitCall`]): measure every image's header ([`super::measure`]), plan
//! targets and what to stash ([`super::planning`]), resize each distinct
//! image once through the caller's [`Resizer`] ([`super::resize`]), stash
//! the originals of changed images and wait for the commit
//! ([`super::commit`]), replace only what committed ([`super::replace`]),
//! stash the oldest history images the plan names through compaction
//! ([`super::stash_oldest`]), report ([`super::summary`]), and, with an
//! offload, send the history images left inline by reference
//! ([`super::offload_after`]).

use super::call::{Before, FitCall};
use super::commit::commit;
use super::inputs::FitMessages;
use super::measure::measure;
use super::offload_after::offload_after;
use super::planning::Plan;
use super::replace::replace;
use super::report::FitReport;
use super::resize::resize;
use super::resizer::Resizer;
use super::stash_oldest::stash_oldest;
use super::summary::{summarize, Sent, Tally};
use crate::history::{Digest, Input, Outcome, Settled};
use crate::messages::MessageError;
use crate::stash::StashBackend;

impl<B: StashBackend, R: Resizer> FitCall<'_, B, R> {
    /// Fits `inputs` as [`crate::history::settle_inputs`] settled them
    /// with default compaction options (a digest of the same format
    /// serves). A known message is not read; a fitting never changes it (it
    /// holds no inline image), and its value in the outcome is `null`, for
    /// the caller keeps its own. Also returns the digest of each message
    /// sent again unchanged that a fitting cannot change, one per message.
    pub async fn run(&self, inputs: Vec<Input>, settled: &Settled) -> Fitted {
        let format = settled.format;
        let (read, digests) = FitMessages::read(inputs, settled, self.payloads)?;
        let bytes: u64 = read.sizes.iter().sum();
        self.slicer.checkpoint().await;
        // Measured first, one image at a time: the estimate then finds each
        // header read (a first sight of a large payload costs the host a
        // pass over its text, too long to make for every image at once).
        let found = measure(self, &read).await;
        let estimate = read.estimate(self.profile, bytes, self.payloads);
        let before = Before { bytes, estimate };
        self.slicer.checkpoint().await;
        let mut plan = Plan::new(self, &found, &before);
        let mut outcomes = resize(self, &found, &plan).await;
        let mut problems = Vec::new();
        plan.settle(self, &found, &mut outcomes, &mut problems);
        let committed = commit(self, &found, &outcomes, &mut problems).await;
        let mut read = read;
        let (images, changed) = replace(
            self,
            &mut read.messages,
            &found,
            &outcomes,
            &plan,
            committed.as_ref(),
        );
        drop(outcomes);
        let (values, known) = read.into_values(self.payloads, &changed);

        let mut tally = Tally {
            images,
            changed,
            problems,
            first_changed: plan.first_new,
        };
        let values = stash_oldest(self, values, &known, format, &plan, &mut tally).await?;
        let sent = Sent {
            values,
            known: &known,
            format,
        };
        let fitted = summarize(self, sent, &before, &plan, tally)?;
        Ok((offload_after(self, fitted, &known, format).await?, digests))
    }
}

/// A fitting's outcome, and the digests it made.
pub type Fitted = Result<(Outcome<FitReport>, Vec<Option<Digest>>), MessageError>;
