//! How many recent history images a request's limits leave inline: the
//! newest kept by `keepRecentImages` are stashed too, oldest first, until
//! the request fits its limits on images and bytes.

use super::compact::{CompactOptions, Found, Plan};
use crate::budget::RequestLimits;
use crate::media::payload::Payloads;

/// How many of the newest of `found` stay inline, at most `wanted_keep`,
/// for the request to fit `limits`: each stashed image saves its payload
/// and costs a placeholder. When even stashing all cannot fit, `plan` says
/// why.
pub(super) fn keep_within_limits(
    plan: &mut Plan<'_>,
    found: &[Found<'_>],
    wanted_keep: usize,
    limits: RequestLimits,
    options: CompactOptions,
    payloads: &dyn Payloads,
) -> usize {
    let saving = |f: &Found<'_>| -> u64 {
        let payload = f
            .inline_payload()
            .map_or(0, |(_, p)| payloads.text_len(p) as u64);
        payload.saturating_sub(60)
    };
    let fixed_images = plan.kept + plan.urls;
    let mut keep = wanted_keep;
    let stashed_saving: u64 = found[..found.len() - keep].iter().map(saving).sum();
    let mut bytes = options.request_bytes.saturating_sub(stashed_saving);
    let over = |keep: usize, bytes: u64| {
        limits.max_images.is_some_and(|m| fixed_images + keep > m)
            || limits.max_request_bytes.is_some_and(|m| bytes > m)
    };
    while keep > 0 && over(keep, bytes) {
        keep -= 1;
        bytes = bytes.saturating_sub(saving(&found[found.len() - keep - 1]));
    }
    if over(keep, bytes) {
        plan.limit_problem = Some(limit_problem(limits, fixed_images + keep, bytes));
    }
    keep
}

/// Why a request does not fit `limits` even with every history image
/// stashed: `images` remain and it is about `bytes` long.
fn limit_problem(limits: RequestLimits, images: usize, bytes: u64) -> String {
    let mut why = Vec::new();
    if let Some(m) = limits.max_images.filter(|m| images > *m) {
        why.push(format!(
            "{images} images remain in the newest turn (the limit is {m})"
        ));
    }
    if let Some(m) = limits.max_request_bytes.filter(|m| bytes > *m) {
        why.push(format!(
            "the request is still about {bytes} bytes (the limit is {m})"
        ));
    }
    format!(
        "the request does not fit even with every history image stashed: {}",
        why.join("; ")
    )
}
