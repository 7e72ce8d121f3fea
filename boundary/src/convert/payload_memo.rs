//! The payload memo: each payload's facts (or only its sizes and leading
//! bytes, for a payload measured but not hashed: an `estimate` of a history
//! sent again reads no header again), with the forms the library's own
//! resizers made of it (a history sent again to `fitContext` is not resized
//! again), found by the payload string itself (see `string_memo`); the
//! core's `FactsMemo` decides what is kept.

use super::memory::Memory;
use ctxpack_core::media::{PayloadFacts, PayloadHead};
use js_sys::JsString;

/// Starts a call that uses the memo; returns its number.
pub fn begin_call(memory: &Memory) -> u32 {
    memory.payloads.borrow_mut().begin_call()
}

/// What the memo knew of a payload it had no facts for: the slot of its
/// entry, when it was measured but not hashed. Good only until the memo
/// next changes: hand it to [`remember_after`] with nothing in between.
pub struct Miss(Option<u32>);

/// The remembered facts of the payload `source` stands for, with
/// `head_bytes` leading bytes (read with `read_head` if that size is new).
pub fn facts(
    memory: &Memory,
    source: &JsString,
    call: u32,
    head_bytes: usize,
    read_head: impl FnOnce() -> Vec<u8>,
) -> Result<PayloadFacts, Miss> {
    let mut m = memory.payloads.borrow_mut();
    let Some(slot) = m.slot(source) else {
        return Err(Miss(None));
    };
    m.memo
        .facts(slot, call, head_bytes, read_head)
        .ok_or(Miss(Some(slot)))
}

/// Remembers the facts of the payload `source` stands for.
pub fn remember(
    memory: &Memory,
    source: JsString,
    call: u32,
    facts: PayloadFacts,
    head_bytes: usize,
) {
    let miss = Miss(memory.payloads.borrow().slot(&source));
    remember_after(memory, miss, source, call, facts, head_bytes);
}

/// Remembers the facts of the payload `source` stands for, which [`facts`]
/// just missed with `miss`: the `Map` is not searched for it again (a
/// search compares the string with every other key of its length, as the
/// engine hashes a long string by its length alone).
pub fn remember_after(
    memory: &Memory,
    miss: Miss,
    source: JsString,
    call: u32,
    facts: PayloadFacts,
    head_bytes: usize,
) {
    let mut m = memory.payloads.borrow_mut();
    // Measured before: the same entry learns what hashing found.
    if let Miss(Some(slot)) = miss {
        if m.memo.hashed(slot, call, facts.clone(), head_bytes) {
            return;
        }
    }
    let answer = m.memo.remember(source.clone(), facts, head_bytes, call);
    m.settle(&source, answer);
}

/// The sizes and `head_bytes` leading bytes of the payload `source` stands
/// for, when it was seen before (a head of a new size is read with
/// `read_head`).
pub fn head(
    memory: &Memory,
    source: &JsString,
    call: u32,
    head_bytes: usize,
    read_head: impl FnOnce() -> Vec<u8>,
) -> Option<PayloadHead> {
    let mut m = memory.payloads.borrow_mut();
    let slot = m.slot(source)?;
    m.memo.head(slot, call, head_bytes, read_head)
}

/// Remembers `head`, the sizes and `head_bytes` leading bytes of the
/// payload `source` stands for (measured, not hashed).
pub fn remember_head(
    memory: &Memory,
    source: JsString,
    call: u32,
    head_bytes: usize,
    head: PayloadHead,
) {
    let mut m = memory.payloads.borrow_mut();
    let answer = m.memo.remember_head(source.clone(), head, head_bytes, call);
    m.settle(&source, answer);
}

/// The form of the payload `source` stands for that the library's own
/// resizer made for `asked` (the source's type and size and the target's).
pub fn resized(memory: &Memory, source: &JsString, call: u32, asked: &str) -> Option<JsString> {
    let mut m = memory.payloads.borrow_mut();
    let slot = m.slot(source)?;
    m.memo.resized(slot, call, asked)
}

/// Remembers `output`, what the library's own resizer made of the payload
/// `source` stands for when asked for `asked`, with what is remembered of
/// that payload (a payload the memo does not hold keeps nothing).
pub fn remember_resized(
    memory: &Memory,
    source: JsString,
    call: u32,
    asked: String,
    output: JsString,
) {
    let mut m = memory.payloads.borrow_mut();
    let bytes = u64::from(output.length());
    if let Some(slot) = m.slot(&source) {
        m.memo.remember_resized(slot, call, asked, output, bytes);
    }
}
