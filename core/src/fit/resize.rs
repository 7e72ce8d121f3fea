//! Phase 3, resize: each image that is sent and has a target goes through
//! the caller's [`Resizer`], one at a time; the same image (same md5, or
//! same text without a stash, and same detail) is resized once.

use super::call::FitCall;
use super::measure::Found;
use super::one_image::{fit_one, Outcome};
use super::planning::Plan;
use super::resizer::Resizer;

/// What became of each image of `found` (in its order): `None` for one
/// that goes as it is, is protected, or is planned to be stashed.
pub(super) async fn resize<B, R: Resizer>(
    call: &FitCall<'_, B, R>,
    found: &[Found],
    plan: &Plan,
) -> Vec<Option<Outcome>> {
    let mut outcomes: Vec<Option<Outcome>> = Vec::with_capacity(found.len());
    // (md5 or payload, low detail) → the first image resized, sorted by key.
    let mut done: Vec<((&str, bool), usize)> = Vec::new();
    for (k, f) in found.iter().enumerate() {
        let outcome = match &f.inline {
            Some(img) if !f.protected && !plan.is_stashed(k, plan.choice.stash) => {
                // Without a stash nothing was hashed: the same text is the same image.
                let key = if img.md5.is_empty() {
                    img.payload.as_str()
                } else {
                    img.md5.as_str()
                };
                match done.binary_search_by(|d| d.0.cmp(&(key, f.low))) {
                    Ok(at) => done
                        .get(at)
                        .and_then(|d| outcomes.get(d.1))
                        .cloned()
                        .flatten(),
                    Err(at) => {
                        done.insert(at, ((key, f.low), k));
                        call.slicer.checkpoint().await;
                        let many = plan.choice.many;
                        fit_one(call.resizer, call.profile, img, f.low, many, call.payloads).await
                    }
                }
            }
            _ => None,
        };
        outcomes.push(outcome);
    }
    outcomes
}
