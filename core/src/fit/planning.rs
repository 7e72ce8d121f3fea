//! Phase 2, plan: each image's target and account, and which history
//! images must be stashed for the request to fit — first as predicted from
//! the headers, then settled with the sizes the resizer gave.

use super::call::{Before, FitCall};
use super::measure::Found;
use super::one_image::{target_of, Inline, Outcome};
use super::plan::{choose_stash, Account, Limits, Rest, StashChoice};
use crate::budget::{profile_image_tokens, BytesOn, ModelProfile};

/// What to stash, and each image's place in that order.
pub(super) struct Plan {
    /// The limits the request must meet.
    pub limits: Limits,
    /// Tokens and bytes outside the images.
    rest: Rest,
    /// The choice: from the predicted sizes until [`Plan::settle`], then final.
    pub choice: StashChoice,
    /// The problems of the predicted choice, reported only if it stands.
    deferred: Vec<String>,
    /// Each image's place among the stashable ones (`usize::MAX` when not
    /// stashable): the first `choice.stash` are stashed.
    rank: Vec<usize>,
    /// How many images are stashable.
    pub stashable: usize,
    /// The first message holding an image the final choice stashes that
    /// the previous request would have kept.
    pub first_new: Option<usize>,
}

impl Plan {
    /// The plan from the predicted sizes of `found`.
    pub(super) fn new<B, R>(call: &FitCall<'_, B, R>, found: &[Found], before: &Before) -> Plan {
        let profile = call.profile;
        let limits = Limits {
            max_images: profile.max_images,
            max_tokens: call.options.max_tokens.or(profile.context_tokens),
            max_request_bytes: profile.max_request_bytes,
            many_images: profile.many_images,
            batch: call.options.slack.batch(profile.max_images),
        };
        let inline_text: u64 = found
            .iter()
            .filter_map(|f| f.inline.as_ref())
            .map(|i| i.text_len)
            .sum();
        let rest = Rest {
            tokens: before.estimate.text_tokens,
            bytes: before.bytes.saturating_sub(inline_text),
        };
        let mut deferred = Vec::new();
        let choice = limit_choice(
            choose_stash(&accounts(profile, found, None), rest, limits),
            call.stash.is_some(),
            &mut deferred,
        );
        let mut rank = vec![usize::MAX; found.len()];
        let mut stashable = 0;
        for (k, f) in found.iter().enumerate() {
            if f.stashable {
                rank[k] = stashable;
                stashable += 1;
            }
        }
        Plan {
            limits,
            rest,
            choice,
            deferred,
            rank,
            stashable,
            first_new: None,
        }
    }

    /// True when image `k` is among the first `n` stashable images.
    pub(super) fn is_stashed(&self, k: usize, n: usize) -> bool {
        self.rank[k] < n
    }

    /// Image `k`'s place in the final choice, when it is stashed.
    pub(super) fn stashed_at(&self, k: usize) -> Option<usize> {
        Some(self.rank[k]).filter(|p| *p < self.choice.stash)
    }

    /// With the real sizes (`outcomes`), the request may need more stashed:
    /// makes the choice final, and drops the outcomes of the images stashed.
    pub(super) fn settle<B, R>(
        &mut self,
        call: &FitCall<'_, B, R>,
        found: &[Found],
        outcomes: &mut [Option<Outcome>],
        problems: &mut Vec<String>,
    ) {
        let accounts = accounts(call.profile, found, Some(&*outcomes));
        let settled = choose_stash(&accounts, self.rest, self.limits);
        if settled.stash > self.choice.stash {
            self.choice = limit_choice(settled, call.stash.is_some(), problems);
        } else {
            problems.append(&mut self.deferred);
        }
        self.first_new = self.first_new_stash(found, &accounts);
        for (k, o) in outcomes.iter_mut().enumerate() {
            if self.is_stashed(k, self.choice.stash) {
                *o = None;
            }
        }
    }

    /// The first message holding an image the choice stashes that the
    /// previous request — this one without its newest turn, whose last
    /// history turn was then the newest — would have kept (its choice made
    /// the same way): where this request moves from the previous one.
    fn first_new_stash(&self, found: &[Found], accounts: &[Account]) -> Option<usize> {
        let last = found
            .iter()
            .filter(|f| f.stashable)
            .map(|f| f.message)
            .max()?;
        let previous: Vec<Account> = found
            .iter()
            .zip(accounts)
            .filter(|(f, _)| f.stashable)
            .map(|(f, a)| Account {
                stashable: f.message < last,
                ..*a
            })
            .collect();
        let before = choose_stash(&previous, self.rest, self.limits).stash;
        found
            .iter()
            .enumerate()
            .filter(|(k, _)| self.rank[*k] >= before && self.rank[*k] < self.choice.stash)
            .map(|(_, f)| f.message)
            .min()
    }
}

/// `choice`, or none stashed (and a problem said) when there is no stash.
fn limit_choice(choice: StashChoice, can_stash: bool, problems: &mut Vec<String>) -> StashChoice {
    if choice.stash > 0 && !can_stash {
        problems.push(format!(
            "{} history images must be stashed to fit, and no stash was given",
            choice.stash
        ));
        return StashChoice {
            stash: 0,
            reasons: Vec::new(),
            ..choice
        };
    }
    choice
}

/// Each image's tokens and bytes as it would be sent, with the changes made
/// so far (`changes`) or, before any, as predicted from its target size.
fn accounts(
    profile: &ModelProfile,
    found: &[Found],
    changes: Option<&[Option<Outcome>]>,
) -> Vec<Account> {
    found
        .iter()
        .enumerate()
        .map(|(k, f)| {
            let Some(img) = &f.inline else {
                let dims = crate::budget::estimate::UNKNOWN_DIMENSIONS;
                let tokens = profile_image_tokens(profile, dims, f.low);
                return exact(tokens, 0, f.stashable);
            };
            if let Some(Some(Outcome::Changed(c))) = changes.map(|c| &c[k]) {
                let tokens = profile_image_tokens(profile, c.dims, f.low);
                return exact(tokens, c.text_len, f.stashable);
            }
            let (tokens, bytes) = predict(profile, f, img, false);
            let (tokens_many, bytes_many) = predict(profile, f, img, true);
            Account {
                tokens,
                tokens_many,
                bytes,
                bytes_many,
                stashable: f.stashable,
            }
        })
        .collect()
}

/// The account of an image whose size does not depend on the many-image rule.
fn exact(tokens: u64, bytes: u64, stashable: bool) -> Account {
    Account {
        tokens,
        tokens_many: tokens,
        bytes,
        bytes_many: bytes,
        stashable,
    }
}

/// The tokens and base64 bytes `img` is predicted to be sent at, under the
/// many-image rule or not.
fn predict(profile: &ModelProfile, f: &Found, img: &Inline, many: bool) -> (u64, u64) {
    let target = (!f.protected)
        .then(|| target_of(profile, img, many, f.low))
        .flatten();
    let size = target.as_ref().map_or(img.dims, |t| t.size);
    let ratio = (f64::from(size.width) * f64::from(size.height))
        / (f64::from(img.dims.width) * f64::from(img.dims.height));
    let mut bytes = ((img.text_len as f64) * ratio.min(1.0)).ceil() as u64;
    if let Some(max) = target.and_then(|t| t.max_bytes) {
        let max_text = match profile.image_bytes_on {
            BytesOn::Base64 => max,
            BytesOn::Decoded => max.div_ceil(3) * 4,
        };
        bytes = bytes.min(max_text);
    }
    (profile_image_tokens(profile, size, f.low), bytes)
}
