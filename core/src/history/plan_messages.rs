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
    /// Which messages of the request are history.
    pub rule: Untouched,
}

impl<'m> PlanMessages<'m> {
    /// `messages`, the whole request.
    pub fn whole(messages: &'m [Message]) -> PlanMessages<'m> {
        PlanMessages {
            messages,
            at: None,
            rule: Untouched::of(messages),
        }
    }

    /// `messages` of a request whose message `at[i]` each is, the request's
    /// history cut by `rule`.
    pub(super) fn within(
        messages: &'m [Message],
        at: &'m [usize],
        rule: Untouched,
    ) -> PlanMessages<'m> {
        PlanMessages {
            messages,
            at: Some(at),
            rule,
        }
    }

    /// The index in the request of message `i` of [`PlanMessages::messages`].
    pub fn request_index(&self, i: usize) -> usize {
        self.at.and_then(|at| at.get(i).copied()).unwrap_or(i)
    }
}
