//! Evictions in steps, with slack, so a provider's prompt cache survives.
//!
//! Providers bill an unchanged request prefix at a fraction of its price,
//! and any change to an early message voids the cache from there on. A
//! window that slides by one image per turn, or a limit met by stashing
//! "oldest first, just enough", changes an early message on every turn.
//! With slack, the recent-image window fills up to `keepRecentImages +
//! images - 1` and then drops `images` at once, and a limit is met with a
//! share of it to spare, stashing in batches: between the steps, turns only
//! append. [`Slack::EXACT`] is the one-image-per-turn rule.

use crate::json_path::JsonPath;
use crate::option_error::OptionError;

/// How evictions move: in batches, and with how much to spare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slack {
    /// The recent-image window drops this many images at once (1: one a
    /// turn); it is also the batch a byte limit is met in.
    pub images: usize,
    /// A limit on the number of images is met with this share of it to
    /// spare, in thousandths (0: just enough).
    pub headroom_permille: u16,
}

impl Slack {
    /// No slack: the window slides one image a turn, limits are met with
    /// the fewest images stashed.
    pub const EXACT: Slack = Slack {
        images: 1,
        headroom_permille: 0,
    };

    /// The default of `compactContext` and `fitContext`: windows drop 8
    /// images at once, limits on images are met with a fifth to spare
    /// (chosen from the benchmark's session figures).
    pub const DEFAULT: Slack = Slack {
        images: 8,
        headroom_permille: 200,
    };

    /// How many of `n` history images (oldest first) stay inline for a
    /// window of `keep` recent ones: all of them up to `keep`, then `keep`
    /// plus those the current step has let in (fewer than `images`).
    pub fn window(self, n: usize, keep: usize) -> usize {
        if n <= keep || keep == 0 {
            return n.min(keep);
        }
        keep + (n - keep) % self.images.max(1)
    }

    /// How many images are stashed at once to meet a limit of `max_images`:
    /// its headroom (at least one); with no limit on images (a byte or
    /// token limit alone), `images`. Without headroom, one.
    pub fn batch(self, max_images: Option<usize>) -> usize {
        if self.headroom_permille == 0 {
            return 1;
        }
        match max_images {
            Some(m) => (m * usize::from(self.headroom_permille)).div_ceil(1000),
            None => self.images,
        }
        .max(1)
    }

    /// `stash` images rounded up to a whole number of `batch`es counted
    /// from `base` (the images stashed anyway), at most `cap`.
    pub fn round_up(stash: usize, base: usize, batch: usize, cap: usize) -> usize {
        if stash <= base {
            return stash;
        }
        let batch = batch.max(1);
        (base + (stash - base).div_ceil(batch) * batch).min(cap)
    }
}

impl Default for Slack {
    /// [`Slack::EXACT`]: the core's flows are exact unless a caller asks;
    /// the options read at the boundary default to [`Slack::DEFAULT`].
    fn default() -> Self {
        Slack::EXACT
    }
}

/// `slack` as a caller gives it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum SlackOption {
    /// Not given: [`Slack::DEFAULT`].
    #[default]
    Default,
    /// `false`: [`Slack::EXACT`].
    Off,
    /// `{images?, headroom?}`: each JavaScript number, or the default's.
    Given {
        /// `images`: a whole number of at least 1.
        images: Option<f64>,
        /// `headroom`: a share from 0 to 0.9.
        headroom: Option<f64>,
    },
}

/// The slack `option` (at `at`) asks for.
pub fn resolve_slack(option: SlackOption, at: &JsonPath) -> Result<Slack, OptionError> {
    let (images, headroom) = match option {
        SlackOption::Default => return Ok(Slack::DEFAULT),
        SlackOption::Off => return Ok(Slack::EXACT),
        SlackOption::Given { images, headroom } => (images, headroom),
    };
    let images = match images {
        None => Slack::DEFAULT.images,
        Some(n) if n.fract() == 0.0 && (1.0..=1e6).contains(&n) => n as usize,
        Some(_) => {
            return Err(OptionError::new(
                &at.key("images"),
                "expected a whole number from 1",
            ))
        }
    };
    let headroom_permille = match headroom {
        None => Slack::DEFAULT.headroom_permille,
        Some(h) if (0.0..=0.9).contains(&h) => (h * 1000.0).round() as u16,
        Some(_) => {
            return Err(OptionError::new(
                &at.key("headroom"),
                "expected a share from 0 to 0.9",
            ))
        }
    };
    Ok(Slack {
        images,
        headroom_permille,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_fills_up_then_drops_a_batch() {
        let s = Slack {
            images: 4,
            headroom_permille: 0,
        };
        let kept: Vec<usize> = (0..12).map(|n| s.window(n, 3)).collect();
        assert_eq!(kept, [0, 1, 2, 3, 4, 5, 6, 3, 4, 5, 6, 3]);
        // No window keeps nothing; no slack slides one a turn.
        assert_eq!(s.window(9, 0), 0);
        let exact: Vec<usize> = (0..6).map(|n| Slack::EXACT.window(n, 3)).collect();
        assert_eq!(exact, [0, 1, 2, 3, 3, 3]);
    }

    #[test]
    fn a_limit_is_met_in_batches_of_its_headroom() {
        assert_eq!(Slack::DEFAULT.batch(Some(100)), 20);
        assert_eq!(Slack::DEFAULT.batch(Some(10)), 2);
        assert_eq!(Slack::DEFAULT.batch(None), 8);
        assert_eq!(Slack::EXACT.batch(Some(100)), 1);
        assert_eq!(Slack::round_up(21, 0, 20, 500), 40);
        assert_eq!(Slack::round_up(21, 5, 20, 500), 25);
        assert_eq!(Slack::round_up(21, 5, 20, 22), 22);
        assert_eq!(Slack::round_up(3, 5, 20, 500), 3);
    }

    #[test]
    fn the_option_reads_false_an_object_or_nothing() {
        let at = JsonPath::root("options").key("slack");
        assert_eq!(resolve_slack(SlackOption::Default, &at), Ok(Slack::DEFAULT));
        assert_eq!(resolve_slack(SlackOption::Off, &at), Ok(Slack::EXACT));
        let given = SlackOption::Given {
            images: Some(3.0),
            headroom: Some(0.5),
        };
        assert_eq!(
            resolve_slack(given, &at),
            Ok(Slack {
                images: 3,
                headroom_permille: 500
            })
        );
        for bad in [
            SlackOption::Given {
                images: Some(0.0),
                headroom: None,
            },
            SlackOption::Given {
                images: Some(1.5),
                headroom: None,
            },
            SlackOption::Given {
                images: None,
                headroom: Some(1.0),
            },
        ] {
            assert!(resolve_slack(bad, &at).is_err(), "{bad:?}");
        }
    }
}
