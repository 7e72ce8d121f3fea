//! Fitting end to end, in named phases over one request context
//! ([`FitCall`]): measure every image's header ([`super::measure`]), plan
//! targets and what to stash ([`super::planning`]), resize each distinct
//! image once through the caller's [`Resizer`] ([`super::resize`]), stash
//! the originals of changed images and wait for the commit
//! ([`super::commit`]), replace only what committed ([`super::replace`]),
//! stash the oldest history images the plan names through compaction
//! ([`super::stash_oldest`]), then report ([`super::summary`]).

use super::call::{Before, FitCall, FitOptions, RepairOptions};
use super::commit::commit;
use super::inputs::FitMessages;
use super::measure::{measure, read_heads};
use super::planning::Plan;
use super::replace::replace;
use super::report::FitReport;
use super::resize::resize;
use super::resizer::Resizer;
use super::stash_oldest::stash_oldest;
use super::summary::{summarize, Sent, Tally};
use crate::budget::ModelProfile;
use crate::event_loop::Slicer;
use crate::history::{
    settle_inputs, CompactOptions, CompactPayloads, Digest, Input, Outcome, Settled,
};
use crate::messages::{Format, MessageError};
use crate::stash::StashAccess;
use crate::stash::StashBackend;
use serde_json::Value;

impl<B: StashBackend, R: Resizer> FitCall<'_, B, R> {
    /// Runs the phases over `inputs` (as settled); also returns the digest
    /// of each message sent again unchanged that a fitting cannot change.
    async fn run(&self, inputs: Vec<Input>, settled: &Settled) -> Fitted {
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
        let (values, known) = read.into_values();

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
        Ok((summarize(self, sent, &before, &plan, tally)?, digests))
    }
}

/// A fitting's outcome, and the digests it made.
type Fitted = Result<(Outcome<FitReport>, Vec<Option<Digest>>), MessageError>;

/// `values` (in `format`, detected when `None`) as inputs of a call that
/// remembers nothing: each read.
fn read_all(
    values: Vec<Value>,
    format: Option<Format>,
) -> Result<(Vec<Input>, Settled), MessageError> {
    let mut inputs: Vec<Input> = values.into_iter().map(Input::Read).collect();
    let settled = settle_inputs(&mut inputs, format, &CompactOptions::default(), &mut |_| {
        Ok(Value::Null)
    })?;
    Ok((inputs, settled))
}

/// Fits `values` to `profile`: see the module docs. Without `stash`, images
/// are still resized (the caller keeps the originals it passed in), but no
/// history image can be stashed.
pub async fn fit_context<B: StashBackend, R: Resizer>(
    stash: Option<StashAccess<'_, B>>,
    resizer: &R,
    values: Vec<Value>,
    format: Option<Format>,
    profile: &ModelProfile,
    options: FitOptions,
    payloads: &dyn CompactPayloads,
) -> Result<crate::history::Outcome<FitReport>, MessageError> {
    let (inputs, settled) = read_all(values, format)?;
    let fitted = fit_inputs(stash, resizer, inputs, &settled, profile, options, payloads);
    Ok(fitted.await?.0)
}

/// [`fit_context`] over inputs a host remembers, settled as for a
/// compaction with default options (see [`crate::history::settle_inputs`]:
/// a digest of the same format serves). A known message is not read; a
/// fitting never changes it (it holds no inline image), and its value in
/// the outcome is `null`, for the caller keeps its own. Also returns the
/// digest of each message sent again unchanged that a fitting cannot
/// change, one per message.
#[allow(clippy::too_many_arguments)]
pub async fn fit_inputs<B: StashBackend, R: Resizer>(
    stash: Option<StashAccess<'_, B>>,
    resizer: &R,
    inputs: Vec<Input>,
    settled: &Settled,
    profile: &ModelProfile,
    options: FitOptions,
    payloads: &dyn CompactPayloads,
) -> Fitted {
    let call = FitCall {
        stash,
        resizer,
        profile,
        options,
        payloads,
        slicer: Slicer::of(payloads.event_loop()),
    };
    call.run(inputs, settled).await
}

/// Fits `values` to the limits that fix `refusal` (see
/// [`super::repair_profile`]); an error when the result is still over them.
pub async fn repair_context<B: StashBackend, R: Resizer>(
    stash: Option<StashAccess<'_, B>>,
    resizer: &R,
    values: Vec<Value>,
    format: Option<Format>,
    profile: &ModelProfile,
    repair_options: RepairOptions<'_>,
    payloads: &dyn CompactPayloads,
) -> Result<Outcome<FitReport>, super::RepairError> {
    let (inputs, settled) = read_all(values, format)?;
    let repaired = repair_inputs(
        stash,
        resizer,
        inputs,
        &settled,
        profile,
        repair_options,
        payloads,
    );
    Ok(repaired.await?.0)
}

/// [`repair_context`] over inputs a host remembers, settled as for
/// [`fit_inputs`]; also returns the digests made, as it does.
#[allow(clippy::too_many_arguments)]
pub async fn repair_inputs<B: StashBackend, R: Resizer>(
    stash: Option<StashAccess<'_, B>>,
    resizer: &R,
    inputs: Vec<Input>,
    settled: &Settled,
    profile: &ModelProfile,
    repair_options: RepairOptions<'_>,
    payloads: &dyn CompactPayloads,
) -> Result<(Outcome<FitReport>, Vec<Option<Digest>>), super::RepairError> {
    let RepairOptions {
        refusal,
        fit: options,
    } = repair_options;
    let (read, _) = FitMessages::read(inputs.clone(), settled, payloads)?;
    let bytes: u64 = read.sizes.iter().sum();
    // One slicer for the whole call: the reads here and the fitting's.
    let slicer = Slicer::of(payloads.event_loop());
    read_heads(&slicer, payloads, &read.messages).await;
    let current = read.estimate(profile, bytes, payloads);
    drop(read);
    let repair = super::repair_profile(refusal, profile, &current, options.max_tokens);
    let options = FitOptions {
        max_tokens: repair.max_tokens,
        ..options
    };
    let call = FitCall {
        stash,
        resizer,
        profile: &repair.profile,
        options,
        payloads,
        slicer,
    };
    let (out, digests) = call.run(inputs, settled).await?;
    if !out.report.fits {
        return Err(super::RepairError::CannotFit {
            kind: super::kind_name(refusal.kind),
            problems: out.report.problems,
        });
    }
    Ok((out, digests))
}
