//! The body memo: the digests of messages received
//! in request bodies, under their exact text (see
//! `ctxpack_core::body::BodyMemo`).

use super::memory::Memory;
use ctxpack_core::body::RequestBody;
use ctxpack_core::history::Digest;
use std::rc::Rc;

/// Starts a call that looks messages up.
pub fn begin_call(memory: &Memory) {
    memory.bodies.borrow_mut().begin_call();
}

/// The digest of the message whose text is `raw`, when remembered.
pub fn known(memory: &Memory, raw: &str) -> Option<Rc<Digest>> {
    memory.bodies.borrow_mut().known(raw)
}

/// Remembers the digests a compaction of `body` made (one per message,
/// `None` where it made none), each under its message's text.
pub fn keep(memory: &Memory, body: &RequestBody, digests: &[Option<Rc<Digest>>]) {
    let mut m = memory.bodies.borrow_mut();
    for (i, digest) in digests.iter().enumerate() {
        if let Some(d) = digest {
            m.keep(body.raw(i), Rc::clone(d));
        }
    }
}
