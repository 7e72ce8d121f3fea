//! The plan's stashing: the oldest history images it names are replaced by
//! placeholders, as compaction does (their originals go to the stash first).

use super::call::FitCall;
use super::inputs::as_inputs;
use super::planning::Plan;
use super::report::Action;
use super::summary::Tally;
use crate::history::{CompactCall, CompactOptions, Digest, Settled};
use crate::messages::{Format, MessageError};
use crate::stash::StashBackend;
use serde_json::Value;
use std::rc::Rc;

/// Stashes the first `plan.choice.stash` stashable images of `values`
/// through compaction (a `known` message by its digest, `null` in
/// `values` and in the result), and marks in `tally` those it could not stash.
pub(super) async fn stash_oldest<B: StashBackend, R>(
    call: &FitCall<'_, B, R>,
    values: Vec<Value>,
    known: &[Option<Rc<Digest>>],
    format: Format,
    plan: &Plan,
    tally: &mut Tally,
) -> Result<Vec<Value>, MessageError> {
    let (Some(s), true) = (&call.stash, plan.choice.stash > 0) else {
        return Ok(values);
    };
    let options = CompactOptions {
        keep_recent_images: plan.stashable - plan.choice.stash,
        ..CompactOptions::default()
    };
    let mut inputs = as_inputs(values, known);
    let (out, _) = CompactCall::new(*s, options, call.payloads)
        .run(&mut inputs, &Settled::given(format))
        .await?;
    for failure in &out.report.failures {
        if let Some(img) = tally.images.iter_mut().find(|i| i.path == failure.path) {
            img.action = Action::Failed;
            img.id = None;
            img.after = img.before.clone();
            img.note = Some(format!("{}: {}", failure.code, failure.reason));
        } else if failure.path.is_empty() {
            tally.problems.push(failure.reason.clone());
        }
    }
    for (c, o) in tally.changed.iter_mut().zip(&out.changed) {
        *c |= *o;
    }
    Ok(out.messages)
}
