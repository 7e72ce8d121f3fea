//! The last phase of a fitting asked to offload: the history images the
//! fitting left inline go by reference to files uploaded once, through a
//! compaction that keeps every history image (so it stashes none but for
//! the model's limits, which the fitting met).

use super::call::FitCall;
use super::inputs::as_inputs;
use super::report::FitReport;
use crate::budget::{ModelProfile, Slack};
use crate::history::{
    CompactCall, CompactOptions, CompactPayloads, Digest, Offload, Outcome, Settled,
};
use crate::messages::{Format, MessageError};
use crate::stash::{StashAccess, StashBackend};
use std::rc::Rc;

/// A compaction that keeps every history image inline, one a turn, under
/// `profile`'s limits: what offloads a fitted request, and what uploads
/// again the images a lost file held.
fn keeping_every_image(profile: &ModelProfile) -> CompactOptions {
    CompactOptions {
        keep_recent_images: usize::MAX,
        slack: Slack::EXACT,
        limits: Some(profile.limits()),
        ..CompactOptions::default()
    }
}

/// `fitted` (its messages in `format`, a `known` one `null` and given by
/// its digest) with the history images it leaves inline sent by
/// reference, when `call` offloads and has a stash; else as it is.
pub(super) async fn offload_after<B: StashBackend, R>(
    call: &FitCall<'_, B, R>,
    fitted: Outcome<FitReport>,
    known: &[Option<Rc<Digest>>],
    format: Format,
) -> Result<Outcome<FitReport>, MessageError> {
    let (Some(stash), Some(offload)) = (call.stash, call.offload) else {
        return Ok(fitted);
    };
    let Outcome {
        messages,
        mut changed,
        mut report,
    } = fitted;
    let sent = compact_keeping_all(stash, call.profile, Some(offload), call.payloads);
    let (sent, _) = sent
        .run(&mut as_inputs(messages, known), &Settled::given(format))
        .await?;
    for (c, s) in changed.iter_mut().zip(&sent.changed) {
        *c |= *s;
    }
    report.offload = Some(sent.report);
    Ok(Outcome {
        messages: sent.messages,
        changed,
        report,
    })
}

/// A compaction over `stash` keeping every history image (see
/// [`keeping_every_image`]), offloading as `offload` asks.
pub(super) fn compact_keeping_all<'a, B: StashBackend>(
    stash: StashAccess<'a, B>,
    profile: &ModelProfile,
    offload: Option<Offload<'a>>,
    payloads: &'a dyn CompactPayloads,
) -> CompactCall<'a, B> {
    let call = CompactCall::new(stash, keeping_every_image(profile), payloads);
    match offload {
        Some(o) => call.with_offload(o),
        None => call,
    }
}
