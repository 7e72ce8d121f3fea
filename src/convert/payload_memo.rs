//! The payload memo's storage: the core's [`FactsMemo`] decides what is
//! kept; here a JavaScript `Map` finds an entry by the payload string
//! itself. A `Map` compares string keys by their text, so a lookup answers
//! for an equal string or not at all — never for a look-alike — and once a
//! string was used as a key the engine remembers its hash, so finding the
//! very same string again costs nothing that grows with its length.

use ctxpack_core::media::{FactsMemo, MemoLimits, PayloadFacts};
use js_sys::{JsString, Map};
use std::cell::RefCell;
use wasm_bindgen::JsValue;

/// The memo of this wasm instance.
struct PayloadMemo {
    slots: Map,
    memo: FactsMemo<JsString>,
}

thread_local! {
    static MEMO: RefCell<PayloadMemo> = RefCell::new(PayloadMemo {
        slots: Map::new(),
        memo: FactsMemo::new(MemoLimits::default()),
    });
}

impl PayloadMemo {
    fn forget(&self, keys: Vec<JsString>) {
        for k in keys {
            self.slots.delete(&k);
        }
    }
}

/// Starts a call that uses the memo; returns its number.
pub fn begin_call() -> u32 {
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        let (call, gone) = m.memo.begin_call();
        m.forget(gone);
        call
    })
}

/// The remembered facts of the payload `source` stands for, with
/// `head_bytes` leading bytes (read with `read_head` if that size is new).
pub fn facts(
    source: &JsString,
    call: u32,
    head_bytes: usize,
    read_head: impl FnOnce() -> Vec<u8>,
) -> Option<PayloadFacts> {
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        let slot = m.slots.get(source).as_f64()? as u32;
        m.memo.facts(slot, call, head_bytes, read_head)
    })
}

/// Remembers the facts of the payload `source` stands for.
pub fn remember(source: JsString, call: u32, facts: PayloadFacts, head_bytes: usize) {
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        let (slot, gone) = m.memo.insert(source.clone(), facts, head_bytes, call);
        m.forget(gone);
        if let Some(slot) = slot {
            m.slots.set(&source, &JsValue::from(slot));
        }
    })
}
