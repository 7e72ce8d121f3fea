//! How many of the oldest history images to stash so that a request fits:
//! pure arithmetic over each image's tokens and bytes as it will be sent.

/// One image of the request, as it will be sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Account {
    /// Tokens when the many-image rule does not apply.
    pub tokens: u64,
    /// Tokens under the many-image rule (smaller sides).
    pub tokens_many: u64,
    /// Bytes it adds to the request body when the many-image rule does not apply.
    pub bytes: u64,
    /// Bytes under the many-image rule.
    pub bytes_many: u64,
    /// True for a history image that may become a placeholder.
    pub stashable: bool,
}

/// The request's limits, as the fitting sees them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limits {
    /// Images per request.
    pub max_images: Option<usize>,
    /// Tokens per request.
    pub max_tokens: Option<u64>,
    /// Bytes per request body.
    pub max_request_bytes: Option<u64>,
    /// With more images than this, the many-image rule applies.
    pub many_images: Option<usize>,
    /// Images are stashed in batches of this many (0 or 1: one at a time),
    /// so the next turns only append (see [`crate::budget::Slack`]).
    pub batch: usize,
}

/// What the request holds besides its images.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rest {
    /// Text tokens.
    pub tokens: u64,
    /// Bytes of the body without image payloads.
    pub bytes: u64,
}

/// Tokens of one `[Picture:history_<md5>]` placeholder.
pub const PLACEHOLDER_TOKENS: u64 = 12;

/// Bytes of one placeholder in the body.
pub const PLACEHOLDER_BYTES: u64 = 60;

/// The choice: stash the `stash` oldest stashable images.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StashChoice {
    /// How many of the oldest stashable images to stash.
    pub stash: usize,
    /// Whether the many-image rule applies to what is left.
    pub many: bool,
    /// Why each stashed image goes, in order (one reason per image).
    pub reasons: Vec<super::Reason>,
    /// What is still over when every stashable image is stashed.
    pub problems: Vec<String>,
}

/// The fewest oldest stashable images to stash so that `images` (in
/// document order) and `rest` fit `limits`, rounded up to a whole batch
/// (`limits.batch`). Linear in the images.
pub fn choose_stash(images: &[Account], rest: Rest, limits: Limits) -> StashChoice {
    use super::Reason;
    let stashable: Vec<usize> = (0..images.len()).filter(|i| images[*i].stashable).collect();
    let total = |f: fn(&Account) -> u64| images.iter().map(f).sum::<u64>();
    let (mut tokens_few, mut tokens_many) = (total(|a| a.tokens), total(|a| a.tokens_many));
    let (mut bytes_few, mut bytes_many) = (total(|a| a.bytes), total(|a| a.bytes_many));
    let mut choice = StashChoice::default();
    loop {
        let n = choice.stash;
        let count = images.len() - n;
        let many = limits.many_images.is_some_and(|m| count > m);
        let placeholders = n as u64;
        let tokens = rest.tokens
            + placeholders * PLACEHOLDER_TOKENS
            + if many { tokens_many } else { tokens_few };
        let bytes = rest.bytes
            + placeholders * PLACEHOLDER_BYTES
            + if many { bytes_many } else { bytes_few };
        let over_images = limits.max_images.filter(|m| count > *m);
        let over_tokens = limits.max_tokens.filter(|m| tokens > *m);
        let over_bytes = limits.max_request_bytes.filter(|m| bytes > *m);
        choice.many = many;
        let reason = if over_images.is_some() {
            Reason::TooManyImages
        } else if over_tokens.is_some() {
            Reason::OverContext
        } else if over_bytes.is_some() {
            Reason::OverRequestBytes
        } else {
            // It fits: a batch begun is stashed whole, for the same reason.
            match choice.reasons.last() {
                Some(&last) if n % limits.batch.max(1) != 0 && n < stashable.len() => last,
                _ => return choice,
            }
        };
        let Some(&next) = stashable.get(n) else {
            if let Some(m) = over_images {
                choice.problems.push(format!(
                    "{count} images remain outside the history (the limit is {m})"
                ));
            }
            if let Some(m) = over_tokens {
                choice.problems.push(format!(
                    "the request is still about {tokens} tokens (the limit is {m})"
                ));
            }
            if let Some(m) = over_bytes {
                choice.problems.push(format!(
                    "the request is still about {bytes} bytes (the limit is {m})"
                ));
            }
            return choice;
        };
        let a = images[next];
        tokens_few -= a.tokens;
        tokens_many -= a.tokens_many;
        bytes_few -= a.bytes;
        bytes_many -= a.bytes_many;
        choice.stash += 1;
        choice.reasons.push(reason);
    }
}

#[cfg(test)]
mod tests {
    use super::super::Reason;
    use super::*;

    fn img(tokens: u64, bytes: u64, stashable: bool) -> Account {
        Account {
            tokens,
            tokens_many: tokens / 2,
            bytes,
            bytes_many: bytes / 2,
            stashable,
        }
    }

    #[test]
    fn stashes_the_oldest_until_the_count_fits() {
        let mut images = vec![img(100, 1000, true); 110];
        images.extend(vec![img(100, 1000, false); 10]);
        let c = choose_stash(
            &images,
            Rest::default(),
            Limits {
                max_images: Some(100),
                ..Limits::default()
            },
        );
        assert_eq!(c.stash, 20);
        assert!(c.reasons.iter().all(|r| *r == Reason::TooManyImages));
        assert!(c.problems.is_empty());
    }

    #[test]
    fn tokens_and_bytes_and_the_many_image_rule() {
        let images = vec![img(1000, 10, true); 30];
        // Over the many-image threshold of 20 each image costs half.
        let limits = Limits {
            max_tokens: Some(16_000),
            many_images: Some(20),
            ..Limits::default()
        };
        let c = choose_stash(
            &images,
            Rest {
                tokens: 500,
                bytes: 0,
            },
            limits,
        );
        // With n stashed: 500 + 12n + (30-n)·500 ≤ 16 000 while 30-n > 20.
        assert_eq!((c.stash, c.many), (0, true));
        let limits = Limits {
            max_tokens: Some(10_000),
            ..limits
        };
        let c = choose_stash(
            &images,
            Rest {
                tokens: 500,
                bytes: 0,
            },
            limits,
        );
        // Once 20 or fewer are left every image costs 1000 again:
        // 500 + 12n + (30-n)·1000 ≤ 10 000 → n = 21.
        assert_eq!((c.stash, c.many), (21, false));
        assert!(c.reasons.iter().all(|r| *r == Reason::OverContext));
        let c = choose_stash(
            &[img(10, 600, true), img(10, 600, false)],
            Rest {
                tokens: 0,
                bytes: 100,
            },
            Limits {
                max_request_bytes: Some(800),
                ..Limits::default()
            },
        );
        assert_eq!(
            (c.stash, c.reasons.clone()),
            (1, vec![Reason::OverRequestBytes])
        );
    }

    #[test]
    fn says_what_is_still_over_when_nothing_is_left_to_stash() {
        let c = choose_stash(
            &[img(10, 10, false)],
            Rest {
                tokens: 5000,
                bytes: 0,
            },
            Limits {
                max_tokens: Some(1000),
                ..Limits::default()
            },
        );
        assert_eq!(c.stash, 0);
        assert_eq!(c.problems.len(), 1);
        assert!(c.problems[0].contains("tokens"), "{:?}", c.problems);
    }
}
