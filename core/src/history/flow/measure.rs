//! The measuring phase of a compaction: which history images there are,
//! and each one's facts (digest, type, sizes, template), hashed one at a
//! time while the host runs between them. The pure policy in
//! [`crate::history::compact`] decides which of them to stash.

use crate::event_loop::Slicer;
use crate::history::compact::{
    hash_found, select_history_images, CompactOptions, CompactReport, Plan,
};
use crate::media::payload::Payloads;
use crate::messages::Message;
use std::collections::BTreeSet;

/// The plan of a compaction over `messages`: the history images to stash,
/// hashed one at a time. `progress(done, total, bytes)` follows each image.
pub(super) async fn measure<'m>(
    messages: &'m [Message],
    options: CompactOptions,
    progress: &mut dyn FnMut(usize, usize, u64),
    payloads: &dyn Payloads,
    slicer: &Slicer<'_>,
) -> Plan<'m> {
    // Hash one image at a time, letting the host run between them.
    slicer.checkpoint().await;
    let (mut plan, found) = select_history_images(messages, options, payloads);
    let total = found.len();
    let mut hashed = BTreeSet::new();
    let mut hashed_bytes = 0u64;
    for (done, f) in found.into_iter().enumerate() {
        hashed_bytes += hash_found(&mut plan, f, &mut hashed, payloads);
        progress(done + 1, total, hashed_bytes);
        slicer.checkpoint().await;
    }
    plan
}

/// Copies what the plan found into `report`: the newest user message, the
/// images kept, given by URL or invalid, and whether the limits are met.
pub(super) fn report_plan(report: &mut CompactReport, plan: &Plan<'_>) {
    report.newest_user_index = plan.newest_user;
    report.limit_stashed = plan.limit_stashed;
    report.fits = plan.limit_problem.is_none();
    report.limit_problem = plan.limit_problem.clone();
    report.kept = plan.kept;
    report.urls = plan.urls;
    report.failures.extend(plan.invalid.iter().cloned());
}
