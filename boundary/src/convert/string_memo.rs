//! A memo found by the caller's string itself: a JavaScript `Map` from the
//! string to its slot in the core's [`Memo`], which decides what is kept. A
//! `Map` compares string keys by their text, so a lookup answers for an
//! equal string or not at all — never for a look-alike — and once a string
//! was used as a key the engine remembers its hash, so finding the very
//! same string again costs nothing that grows with its length. The payload
//! memo and the memo of sanitized tool texts are two of them.

use ctxpack_core::media::{Memo, MemoLimits};
use js_sys::{JsString, Map};
use wasm_bindgen::JsValue;

/// A [`Memo`] of values of type `V` and its index by string.
pub struct StringMemo<V> {
    slots: Map,
    /// The entries; after inserting one, hand what the memo answered to
    /// [`StringMemo::settle`].
    pub memo: Memo<JsString, V>,
}

impl<V> StringMemo<V> {
    /// An empty memo within the default limits.
    pub fn new() -> Self {
        StringMemo {
            slots: Map::new(),
            memo: Memo::new(MemoLimits::default()),
        }
    }

    /// Starts a call that uses the memo; returns its number.
    pub fn begin_call(&mut self) -> u32 {
        let (call, gone) = self.memo.begin_call();
        self.forget(gone);
        call
    }

    /// The slot of the entry for `key`, if there is one.
    pub fn slot(&self, key: &JsString) -> Option<u32> {
        self.slots.get(key).as_f64().map(|s| s as u32)
    }

    /// Indexes what an insertion under `key` answered: the slot it took (if
    /// any; none leaves `key` without an entry) and the keys it dropped.
    pub fn settle(&mut self, key: &JsString, (slot, gone): (Option<u32>, Vec<JsString>)) {
        self.forget(gone);
        match slot {
            Some(slot) => {
                self.slots.set(key, &JsValue::from(slot));
            }
            None => {
                self.slots.delete(key);
            }
        }
    }

    fn forget(&self, keys: Vec<JsString>) {
        for k in keys {
            self.slots.delete(&k);
        }
    }
}
