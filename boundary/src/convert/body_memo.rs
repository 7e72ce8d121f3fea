//! The body memo of this wasm instance: the digests of messages received
//! in request bodies, under their exact text (see
//! `ctxpack_core::body::BodyMemo`).

use ctxpack_core::body::{BodyMemo, RequestBody};
use ctxpack_core::history::Digest;
use std::cell::RefCell;
use std::rc::Rc;

thread_local! {
    /// The memo of this wasm instance.
    static MEMO: RefCell<BodyMemo> = RefCell::new(BodyMemo::new());
}

/// Starts a call that looks messages up.
pub fn begin_call() {
    MEMO.with(|m| m.borrow_mut().begin_call());
}

/// The digest of the message whose text is `raw`, when remembered.
pub fn known(raw: &str) -> Option<Rc<Digest>> {
    MEMO.with(|m| m.borrow_mut().known(raw))
}

/// Remembers the digests a compaction of `body` made (one per message,
/// `None` where it made none), each under its message's text.
pub fn keep(body: &RequestBody, digests: Vec<Option<Digest>>) {
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        for (i, digest) in digests.into_iter().enumerate() {
            if let Some(d) = digest {
                m.keep(body.raw(i), d);
            }
        }
    });
}
