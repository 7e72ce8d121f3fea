//! The payload memos' storage: the core's [`Memo`] decides what is kept;
//! here a JavaScript `Map` finds an entry by the payload string itself.
//! Two memos: each payload's facts, and the forms the library's own
//! resizers made of it (a history sent again to `fitContext` is not
//! resized again). A `Map` compares string keys by their text, so a lookup answers
//! for an equal string or not at all — never for a look-alike — and once a
//! string was used as a key the engine remembers its hash, so finding the
//! very same string again costs nothing that grows with its length.

use ctxpack_core::media::{FactsMemo, Memo, MemoLimits, PayloadFacts};
use js_sys::{JsString, Map};
use std::cell::RefCell;
use wasm_bindgen::JsValue;

/// Resized forms of one payload: (what was asked, the result).
type Resized = Vec<(String, JsString)>;

/// The memos of this wasm instance, each with its index.
struct PayloadMemo {
    slots: Map,
    memo: FactsMemo<JsString>,
    resized_slots: Map,
    resized: Memo<JsString, Resized>,
}

thread_local! {
    static MEMO: RefCell<PayloadMemo> = RefCell::new(PayloadMemo {
        slots: Map::new(),
        memo: FactsMemo::new(MemoLimits::default()),
        resized_slots: Map::new(),
        resized: Memo::new(MemoLimits::default()),
    });
}

fn forget(index: &Map, keys: Vec<JsString>) {
    for k in keys {
        index.delete(&k);
    }
}

/// Starts a call that uses the memo; returns its number.
pub fn begin_call() -> u32 {
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        // Both memos count the same calls.
        let (call, gone) = m.memo.begin_call();
        forget(&m.slots, gone);
        let (_, gone) = m.resized.begin_call();
        forget(&m.resized_slots, gone);
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
        let (slot, gone) = m.memo.remember(source.clone(), facts, head_bytes, call);
        forget(&m.slots, gone);
        if let Some(slot) = slot {
            m.slots.set(&source, &JsValue::from(slot));
        }
    })
}

/// The form of the payload `source` stands for that the library's own
/// resizer made for `asked` (the source's type and size and the target's).
pub fn resized(source: &JsString, call: u32, asked: &str) -> Option<JsString> {
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        let slot = m.resized_slots.get(source).as_f64()? as u32;
        let forms = m.resized.get_mut(slot, call)?;
        forms
            .iter()
            .find(|(a, _)| a == asked)
            .map(|(_, out)| out.clone())
    })
}

/// Remembers `output`, what the library's own resizer made of the payload
/// `source` stands for when asked for `asked`.
pub fn remember_resized(source: JsString, call: u32, asked: String, output: JsString) {
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        let bytes = u64::from(output.length());
        if let Some(slot) = m.resized_slots.get(&source).as_f64().map(|s| s as u32) {
            if let Some(forms) = m.resized.get_mut(slot, call) {
                forms.push((asked, output));
                m.resized.grow(slot, bytes);
                return;
            }
        }
        let held = bytes + u64::from(source.length());
        let (slot, gone) = m
            .resized
            .insert(source.clone(), vec![(asked, output)], held, call);
        forget(&m.resized_slots, gone);
        if let Some(slot) = slot {
            m.resized_slots.set(&source, &JsValue::from(slot));
        }
    })
}
