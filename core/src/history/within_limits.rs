//! How many recent history images a request's limits leave inline: the
//! newest kept by `keepRecentImages` are stashed too, oldest first, until
//! the request fits its limits on images and bytes.

use crate::budget::RequestLimits;

/// A request's history images and what it holds besides them.
pub(super) struct Request {
    /// The bytes stashing each history image saves, oldest first.
    pub savings: Vec<u64>,
    /// The images it keeps whatever happens (the newest turn's, URLs).
    pub fixed_images: usize,
    /// Its serialized size with every history image inline.
    pub bytes: u64,
}

/// How many of the newest history images of `request` stay inline, at
/// most `wanted_keep`, for it to fit `limits`, stashing `batch` more at a
/// time (the slack that lets the next turns only append); with why it
/// cannot fit when even stashing all leaves it over them.
pub(super) fn keep_within_limits(
    request: &Request,
    wanted_keep: usize,
    batch: usize,
    limits: RequestLimits,
) -> (usize, Option<String>) {
    let savings = &request.savings;
    let fixed_images = request.fixed_images;
    let mut keep = wanted_keep;
    let stashed_saving: u64 = savings[..savings.len() - keep].iter().sum();
    let mut bytes = request.bytes.saturating_sub(stashed_saving);
    let over = |keep: usize, bytes: u64| {
        limits.max_images.is_some_and(|m| fixed_images + keep > m)
            || limits.max_request_bytes.is_some_and(|m| bytes > m)
    };
    while keep > 0 && over(keep, bytes) {
        let next = keep.saturating_sub(batch.max(1));
        for oldest_kept in next..keep {
            bytes = bytes.saturating_sub(savings[savings.len() - oldest_kept - 1]);
        }
        keep = next;
    }
    let problem = over(keep, bytes).then(|| limit_problem(limits, fixed_images + keep, bytes));
    (keep, problem)
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
