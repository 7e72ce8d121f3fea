//! Phase 6, report: the request as it will be sent, measured again, and
//! what is still over its limits.

use super::call::{Before, FitCall};
use super::planning::Plan;
use super::report::{Action, FitReport, ImageFit};
use super::target::Reason;
use crate::budget::{estimate, json_len_with, EstimateReport};
use crate::history::Outcome;
use crate::json_path::JsonPath;
use crate::messages::{decode_messages, Format, MessageError};
use serde_json::Value;

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

/// The outcome of a fitting that sends `values`.
pub(super) fn summarize<B, R>(
    call: &FitCall<'_, B, R>,
    values: Vec<Value>,
    format: Format,
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
    let bytes_after: u64 = values.iter().map(|v| json_len_with(v, call.payloads)).sum();
    let (_, final_messages) =
        decode_messages(values.clone(), Some(format), &JsonPath::root("messages"))?;
    let after = estimate(
        &final_messages,
        call.profile,
        bytes_after,
        None,
        call.payloads,
    );
    drop(final_messages);
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
