//! What calls remember between calls: the digests of messages (by the key
//! the JavaScript side keeps beside each), of request bodies' messages (by
//! their text), the facts of payloads and what sanitizing tool texts made
//! of them (by the caller's string), and the request bodies read last. It belongs to what the caller holds:
//! the `Stash` a call was made with, which lets go of it when it is closed
//! or freed, or, for a call without a stash, the call itself. Two stashes
//! share nothing. Each memo keeps its own bounds (see `MessageMemo`,
//! `BodyMemo` and `MemoLimits` in the core).

use super::string_memo::StringMemo;
use ctxpack_core::body::{BodyMemo, PreviousBody};
use ctxpack_core::history::MessageMemo;
use ctxpack_core::media::RememberedFacts;
use ctxpack_core::tool_results::SanitizedText;
use js_sys::JsString;
use std::cell::RefCell;

/// The memos of one stash, or of one call.
pub struct Memory {
    /// Message digests by the JavaScript side's keys (`message_memo`).
    pub(super) messages: RefCell<MessageMemo>,
    /// Request bodies' message digests by their text (`body_memo`).
    pub(super) bodies: RefCell<BodyMemo>,
    /// Payload facts by the caller's string (`payload_memo`).
    pub(super) payloads: RefCell<StringMemo<RememberedFacts<JsString>>>,
    /// Sanitized tool texts by the caller's string (`text_memo`).
    pub(super) texts: RefCell<StringMemo<SanitizedText>>,
    /// The request bodies read last, the newest last (`previous_body`).
    pub(super) previous_bodies: RefCell<Vec<PreviousBody>>,
}

impl Memory {
    /// Memos holding nothing yet.
    pub fn new() -> Memory {
        Memory {
            messages: RefCell::new(MessageMemo::new()),
            bodies: RefCell::new(BodyMemo::new()),
            payloads: RefCell::new(StringMemo::new()),
            texts: RefCell::new(StringMemo::new()),
            previous_bodies: RefCell::new(Vec::new()),
        }
    }

    /// Lets go of everything remembered (a stash being closed).
    pub fn clear(&self) {
        *self.messages.borrow_mut() = MessageMemo::new();
        *self.bodies.borrow_mut() = BodyMemo::new();
        *self.payloads.borrow_mut() = StringMemo::new();
        *self.texts.borrow_mut() = StringMemo::new();
        self.previous_bodies.borrow_mut().clear();
    }

    /// How many message digests are remembered (for tests of whose memory
    /// a call used).
    pub fn message_count(&self) -> usize {
        self.messages.borrow().len()
    }
}

impl Default for Memory {
    fn default() -> Self {
        Memory::new()
    }
}
