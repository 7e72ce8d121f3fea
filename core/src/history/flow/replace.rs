//! The replacing phase of a compaction: a placeholder takes the place of
//! each image whose record committed; every other image stays inline and
//! the report says why.

use super::commit::Committed;
use crate::history::compact::{apply_compaction, CompactReport, Plan};
use crate::messages::Message;
use crate::stash::Failure;
use crate::ErrorCode;

/// Which images to replace, and what the conversation references after.
pub(super) struct Replacements {
    /// ((message, image ordinal), md5) of each image to replace.
    pub(super) images: Vec<((usize, usize), String)>,
    /// The ids the conversation references: the placeholders already in it,
    /// then the records confirmed now, which are refreshed like them.
    pub(super) referenced: Vec<String>,
}

/// Decides the replacements of `plan`: each image whose record is in the
/// stash; each other one is a failure in `report`.
pub(super) fn replacements(
    plan: Plan<'_>,
    committed: &Committed,
    report: &mut CompactReport,
) -> Replacements {
    let mut images = Vec::new();
    for img in &plan.images {
        if committed.holds(&img.md5) {
            images.push(((img.message, img.ordinal), img.md5.clone()));
            report.stashed += 1;
            if img.duplicate {
                report.deduplicated += 1;
            }
        } else {
            let (code, reason) = committed
                .errors
                .get(&img.md5)
                .cloned()
                .unwrap_or((ErrorCode::StashWriteFailed, "not written".into()));
            report.failures.push(Failure {
                path: img.path.clone(),
                md5: Some(img.md5.clone()),
                code,
                reason,
            });
        }
    }
    report.failed = report
        .failures
        .iter()
        .filter(|f| !f.path.is_empty())
        .count();
    // Confirmed records are refreshed like the ones placeholders reference.
    let mut referenced = plan.referenced.clone();
    referenced.extend(
        committed
            .confirmed
            .iter()
            .filter(|id| !plan.referenced.contains(id))
            .cloned(),
    );
    Replacements { images, referenced }
}

/// Puts the placeholders in `messages`. Returns, per message, whether it
/// changed, here or in an earlier phase (`changed_before`).
pub(super) fn replace(
    messages: &mut [Message],
    replacements: &Replacements,
    collapse_text: bool,
    changed_before: &[bool],
) -> Vec<bool> {
    let mut changed = apply_compaction(messages, &replacements.images, collapse_text);
    for (c, s) in changed.iter_mut().zip(changed_before) {
        *c |= *s;
    }
    changed
}
