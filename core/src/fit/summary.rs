//! Phase 6, report: the request as it will be sent, measured again, and
//! what is still over its limits.

use super::call::{Before, FitCall};
use super::inputs::measure_sent;
use super::planning::Plan;
use super::report::{Action, FitReport, ImageFit};
use super::target::Reason;
use crate::budget::EstimateReport;
use crate::history::{Digest, Outcome};
use crate::messages::{Format, MessageError};
use serde_json::Value;
use std::rc::Rc;

/// What the phases did, gathered for the report.
pub(super) struct Tally {
    /// Every image's account, in document order.
    pub images: Vec<ImageFit>,
    /// Per message: did the fitting change it?
    pub changed: Vec<bool>,
    /// What went wrong or is still over, as sentences.
    pub problems: Vec<String>,
    /// The first message holding an image stashed for the first time.
    pub first_changed: Option<usize>,
}

/// The request a fitting sends: its `values` in `format`, a `known`
/// message `null` there and counted from its digest.
pub(super) struct Sent<'k> {
    /// Every message's value.
    pub values: Vec<Value>,
    /// The digest of each known message.
    pub known: &'k [Option<Rc<Digest>>],
    /// Their format.
    pub format: Format,
}

/// The outcome of a fitting that sends `sent`.
pub(super) fn summarize<B, R>(
    call: &FitCall<'_, B, R>,
    sent: Sent<'_>,
    before: &Before,
    plan: &Plan,
    tally: Tally,
) -> Result<Outcome<FitReport>, MessageError> {
    let Tally {
        images,
        changed,
        mut problems,
        first_changed,
    } = tally;
    let Sent {
        values,
        known,
        format,
    } = sent;
    let (bytes_after, after) = measure_sent(&values, known, format, call.profile, call.payloads)?;
    still_over(&mut problems, &images, &after, plan.limits.max_tokens);
    let report = FitReport {
        model: call.profile.matched,
        provider: call.profile.provider,
        format: format.name(),
        fits: problems.is_empty(),
        problems,
        images_before: before.estimate.image_count,
        images_after: after.image_count,
        tokens_before: before.estimate.total_tokens,
        tokens_after: after.total_tokens,
        bytes_before: before.bytes,
        bytes_after,
        changed: images
            .iter()
            .filter(|i| matches!(i.action, Action::Downscaled | Action::Reencoded))
            .count(),
        stashed: images
            .iter()
            .filter(|i| i.action == Action::Stashed)
            .count(),
        first_changed_index: first_changed,
        images,
        offload: None,
    };
    Ok(Outcome {
        messages: values,
        changed,
        report,
    })
}

/// Adds to `problems` what is still over in the request as sent (`after`):
/// the estimate's limits, images in a format the model does not take, and
/// tokens over `max_tokens`.
fn still_over(
    problems: &mut Vec<String>,
    images: &[ImageFit],
    after: &EstimateReport,
    max_tokens: Option<u64>,
) {
    problems.extend(after.exceeded.iter().cloned());
    problems.extend(
        images
            .iter()
            .filter(|i| {
                i.action == Action::Failed && i.reasons.contains(&Reason::UnsupportedFormat)
            })
            .map(|i| {
                format!(
                    "{} is {}, which the model does not take, and could not be converted",
                    i.path,
                    i.before
                        .as_ref()
                        .map_or("an unreadable image", |b| b.mime.as_str())
                )
            }),
    );
    if let Some(m) = max_tokens.filter(|m| after.total_tokens > *m) {
        problems.push(format!(
            "the request is about {} tokens; the limit is {m}",
            after.total_tokens
        ));
    }
    problems.dedup();
}
