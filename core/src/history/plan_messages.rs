//! The messages a compaction plans with. In a long conversation sent
//! again, most messages are known by their digest and hold nothing a plan
//! reads: no image, no text naming a placeholder (a stand-in with no
//! content). Such a message counts only by its size and its turn, which
//! the compaction has without it, so it is left out of the messages the
//! plan walks, hashes against, rewrites and encodes; the others keep their
//! place in the request ([`PlanMessages::request_index`]).

use super::untouched::Untouched;
use crate::messages::Message;

/// Messages a plan reads, each with its index in the request, and the rule
/// of history over the whole request.
#[derive(Debug, Clone, Copy)]
pub struct PlanMessages<'m> {
    /// The messages read, in order.
    pub messages: &'m [Message],
    /// Each one's index in the request; `None` when they are the whole
    /// request, in order.
    at: Option<&'m [usize]>,
    /// Of each one that stands for a known message's texts alone, the ids
    /// of the placeholders they name, read when its digest was made (its
    /// texts are left out of the message); none given: each message's
    /// texts are read.
    known_ids: &'m [Option<&'m [(u64, u64)]>],
    /// The ids of the placeholders named by known messages left out before
    /// all of `messages`, in order, each time one is named.
    pub(super) named_before: &'m [(u64, u64)],
    /// Which messages of the request are history.
    pub rule: Untouched,
}

impl<'m> PlanMessages<'m> {
    /// `messages`, the whole request.
    pub fn whole(messages: &'m [Message]) -> PlanMessages<'m> {
        PlanMessages {
            messages,
            at: None,
            known_ids: &[],
            named_before: &[],
            rule: Untouched::of(messages),
        }
    }

    /// `messages` of a request whose message `at[i]` each is, the request's
    /// history cut by `rule`; `known_ids[i]`, the placeholder ids of a
    /// message standing for a known message's texts alone; `named_before`,
    /// the placeholder ids named by known messages left out before them
    /// all.
    pub(super) fn within(
        messages: &'m [Message],
        at: &'m [usize],
        known_ids: &'m [Option<&'m [(u64, u64)]>],
        named_before: &'m [(u64, u64)],
        rule: Untouched,
    ) -> PlanMessages<'m> {
        PlanMessages {
            messages,
            at: Some(at),
            known_ids,
            named_before,
            rule,
        }
    }

    /// The ids of the placeholders message `i`'s texts name, in order,
    /// when it stands for a known message's texts alone (its digest read
    /// them once, and the message holds none).
    pub fn known_ids(&self, i: usize) -> Option<&'m [(u64, u64)]> {
        self.known_ids.get(i).copied().flatten()
    }

    /// The index in the request of message `i` of [`PlanMessages::messages`].
    pub fn request_index(&self, i: usize) -> usize {
        self.at.and_then(|at| at.get(i).copied()).unwrap_or(i)
    }
}
