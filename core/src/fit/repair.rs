//! A refusal, turned into the limits a retry must meet: the limit the
//! provider named replaces the profile's, or, when it names none, the
//! request's own figure shrinks by a margin.

use crate::budget::{BytesOn, EstimateReport, ModelProfile, ProviderRefusal, RefusalKind};

/// The limits a retry must meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repair {
    /// The profile, tightened by what the refusal named.
    pub profile: ModelProfile,
    /// Tokens the retry may hold.
    pub max_tokens: Option<u64>,
}

/// Why a request could not be repaired.
#[derive(Debug, thiserror::Error)]
pub enum RepairError {
    /// The messages are not of a known format.
    #[error(transparent)]
    Message(#[from] crate::messages::MessageError),
    /// The refusal is not one a repair fixes: not about size or images,
    /// nor a lost file the stash put an image back for.
    #[error("not a refusal about context length, images or request size")]
    NotARefusal,
    /// Fitting to the tightened limits still leaves the request over them.
    #[error("cannot fix the {kind} refusal: {}", problems.join("; "))]
    CannotFit {
        /// The refusal's kind, as its name.
        kind: &'static str,
        /// What is still over.
        problems: Vec<String>,
    },
}

/// A limit a provider names is met with this margin (in thousandths) to
/// spare, because providers measure a little differently from us.
const MARGIN_MILLI: u64 = 970;

fn min_some(a: Option<u64>, b: u64) -> Option<u64> {
    Some(a.map_or(b, |a| a.min(b)))
}

/// The limits that fix `refusal` of a request `current` measured by
/// `profile` (with `max_tokens`, when the caller set one).
pub fn repair_profile(
    refusal: &ProviderRefusal,
    profile: &ModelProfile,
    current: &EstimateReport,
    max_tokens: Option<u64>,
) -> Repair {
    let mut p = *profile;
    let mut max_tokens = max_tokens.or(profile.context_tokens);
    match refusal.kind {
        RefusalKind::ContextLength => {
            // The provider counts tokens its own way: scale our estimate of
            // the input by how far over its count was, and keep 5 % to
            // spare. Output tokens the request asked for (`max_tokens`) are
            // counted in the refusal but not in our estimate: the input
            // must come down to the limit less them.
            let ours = current.total_tokens.max(1);
            let output = refusal.output_tokens.unwrap_or(0);
            let target = match (refusal.limit, refusal.actual) {
                (Some(limit), Some(actual)) if actual > output => {
                    let room = limit.saturating_sub(output);
                    let input = actual - output;
                    (u128::from(ours) * u128::from(room) * 95 / (u128::from(input) * 100)) as u64
                }
                (Some(limit), _) => limit.saturating_sub(output).min(ours) * 9 / 10,
                _ => ours * 8 / 10,
            };
            max_tokens = min_some(max_tokens, target);
        }
        RefusalKind::ImageTooLarge => {
            let largest = current.images.iter().map(|i| i.bytes).max().unwrap_or(0);
            if matches!(refusal.provider, "anthropic" | "bedrock") {
                p.image_bytes_on = BytesOn::Base64;
            }
            let limit = refusal
                .limit
                .map(|l| l * MARGIN_MILLI / 1000)
                .unwrap_or(largest * 8 / 10);
            p.max_image_bytes = min_some(p.max_image_bytes, limit);
        }
        RefusalKind::ImageDimensions => {
            let largest = current
                .images
                .iter()
                .map(|i| i.width.max(i.height))
                .max()
                .unwrap_or(2000);
            let limit = refusal.limit.map_or(largest * 3 / 4, |l| l as u32);
            p.max_long_edge = Some(p.max_long_edge.map_or(limit, |m| m.min(limit)));
            p.many_images_long_edge = p.many_images_long_edge.map(|m| m.min(limit));
        }
        RefusalKind::TooManyImages => {
            // Documents (or their pages) count against the same limit.
            let documents = refusal.documents.unwrap_or(0);
            let limit = refusal
                .limit
                .map_or(current.image_count.saturating_sub(1), |l| {
                    usize::try_from(l.saturating_sub(documents)).unwrap_or(usize::MAX)
                });
            p.max_images = Some(p.max_images.map_or(limit, |m| m.min(limit)));
        }
        RefusalKind::RequestTooLarge => {
            let limit = refusal
                .limit
                .map(|l| l * MARGIN_MILLI / 1000)
                .unwrap_or(current.request_bytes * 3 / 4);
            p.max_request_bytes = min_some(p.max_request_bytes, limit);
        }
        // No limit fixes a missing file: the caller never repairs one (see
        // `RefusalKind::is_about_size`).
        RefusalKind::FileMissing => {}
    }
    Repair {
        profile: p,
        max_tokens,
    }
}

/// The refusal kind's name, as JavaScript sees it.
pub fn kind_name(kind: RefusalKind) -> &'static str {
    kind.name()
}
