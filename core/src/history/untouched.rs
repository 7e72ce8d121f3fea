//! The rule of history, in chats and agent loops alike: the person's newest
//! message (the newest user message that is not only tool results) and
//! whatever the model has not answered yet (everything after its last
//! output) reach the backend untouched; everything else the model has
//! already seen is history — earlier turns, and the tool results it has
//! answered since the person's newest message. Each format says which of
//! its messages are the person's, the model's output and tool results
//! ([`Turn`]). In a chat nothing follows the person's newest message but
//! the model's answer, so the rule is the chat's: the newest user message
//! and everything after it untouched.

use crate::messages::{Message, Turn};

/// Where the rule cuts `messages`: which are history.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Untouched {
    /// The person's newest message.
    pub person: Option<usize>,
    /// The model's last output.
    pub model: Option<usize>,
}

impl Untouched {
    /// The cut of `messages`.
    pub fn of(messages: &[Message]) -> Untouched {
        Untouched::of_turns(&messages.iter().map(Message::turn).collect::<Vec<_>>())
    }

    /// The cut of messages whose turns are `turns`, in order.
    pub fn of_turns(turns: &[Turn]) -> Untouched {
        Untouched {
            person: turns.iter().rposition(|t| *t == Turn::Person),
            model: turns.iter().rposition(|t| *t == Turn::Model),
        }
    }

    /// True when message `i` (`message`) is history: before the person's
    /// newest message, or tool results after it that the model has
    /// answered. Everything else passes untouched, the model's own output
    /// after the person's newest message too (as in a chat).
    pub fn is_history(&self, i: usize, message: &Message) -> bool {
        self.is_history_turn(i, message.turn())
    }

    /// [`Untouched::is_history`] for message `i`, whose turn is `turn`.
    pub fn is_history_turn(&self, i: usize, turn: Turn) -> bool {
        match self.person {
            Some(p) if i < p => true,
            Some(p) if i == p => false,
            _ => turn == Turn::ToolResults && self.model.is_some_and(|l| i < l),
        }
    }

    /// True when the model has answered something since the person's newest
    /// message (a loop is under way): the next request is likely its next
    /// step, in which the person's newest message stays untouched.
    pub fn in_loop(&self) -> bool {
        match (self.person, self.model) {
            (Some(p), Some(l)) => l > p,
            (None, Some(_)) => true,
            (_, None) => false,
        }
    }
}
