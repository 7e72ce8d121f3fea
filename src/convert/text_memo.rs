//! The memo of sanitized tool texts: what sanitizing a tool result's JSON
//! text made of it, found by the caller's string itself (a JavaScript
//! `Map` compares string keys by their text: an equal string or nothing);
//! the core's [`Memo`] decides what is kept. Whether a remembered outcome
//! is used is the core's decision (see `Payloads::held_json`).

use ctxpack_core::media::{Memo, MemoLimits};
use ctxpack_core::tool_results::SanitizedText;
use js_sys::{JsString, Map};
use std::cell::RefCell;
use wasm_bindgen::JsValue;

/// The memo of this wasm instance, with its index.
struct TextMemo {
    slots: Map,
    memo: Memo<JsString, SanitizedText>,
}

thread_local! {
    static MEMO: RefCell<TextMemo> = RefCell::new(TextMemo {
        slots: Map::new(),
        memo: Memo::new(MemoLimits::default()),
    });
}

fn forget(slots: &Map, keys: Vec<JsString>) {
    for k in keys {
        slots.delete(&k);
    }
}

/// Starts a call that uses the memo; returns its number.
pub fn begin_call() -> u32 {
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        let (call, gone) = m.memo.begin_call();
        forget(&m.slots, gone);
        call
    })
}

/// What sanitizing `source` made of it, when remembered.
pub fn get(source: &JsString, call: u32) -> Option<SanitizedText> {
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        let slot = m.slots.get(source).as_f64()? as u32;
        m.memo.get_mut(slot, call).cloned()
    })
}

/// Remembers `outcome`, what sanitizing `source` made of it. The entry
/// keeps the caller's string alive and holds the outcome's text.
pub fn remember(source: JsString, call: u32, outcome: SanitizedText) {
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if let Some(slot) = m.slots.get(&source).as_f64() {
            m.memo.remove(slot as u32);
        }
        let bytes = u64::from(source.length()) + outcome.text.len() as u64;
        let (slot, gone) = m.memo.insert(source.clone(), outcome, bytes, call);
        forget(&m.slots, gone);
        if let Some(slot) = slot {
            m.slots.set(&source, &JsValue::from(slot));
        } else {
            m.slots.delete(&source);
        }
    })
}
