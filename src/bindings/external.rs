//! JavaScript values kept in JavaScript during one call. Long image payloads
//! (and values JSON cannot carry, such as a `Uint8Array` or a string with a
//! lone surrogate) stay JavaScript values; the message given to the core
//! carries a short reference instead. The core reads a payload's text through
//! [`Payloads`] when it must (hashing, one at a time); writing it to the
//! stash or returning it uses the JavaScript value, never a copy.

use crate::payload::{external_ref, find_external_ref, parse_external_ref, Payloads};
use js_sys::JsString;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

thread_local! {
    static TABLES: RefCell<HashMap<u32, Vec<JsValue>>> = RefCell::new(HashMap::new());
    static NEXT: Cell<u32> = const { Cell::new(1) };
}

/// The values kept for one call; dropped when the call ends.
pub struct Table {
    id: u32,
}

impl Table {
    /// A new, empty table.
    pub fn new() -> Table {
        let id = NEXT.with(|n| {
            let id = n.get();
            n.set(id.wrapping_add(1).max(1));
            id
        });
        TABLES.with(|t| t.borrow_mut().insert(id, Vec::new()));
        Table { id }
    }

    /// Keeps `value` and returns the reference that stands for it.
    pub fn keep(&self, value: JsValue) -> String {
        let index = TABLES.with(|t| {
            let mut t = t.borrow_mut();
            let list = t.entry(self.id).or_default();
            list.push(value);
            list.len() - 1
        });
        external_ref(self.id, index as u32)
    }
}

impl Default for Table {
    fn default() -> Self {
        Table::new()
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        TABLES.with(|t| t.borrow_mut().remove(&self.id));
    }
}

/// The JavaScript value a reference stands for, in any live table.
pub fn lookup(table: u32, index: u32) -> Option<JsValue> {
    TABLES.with(|t| {
        t.borrow()
            .get(&table)
            .and_then(|l| l.get(index as usize).cloned())
    })
}

/// The JavaScript value for a string that is a reference, or a data URL
/// whose payload is one (the header is prepended in JavaScript).
pub fn resolve(s: &str) -> Option<JsValue> {
    if let Some((t, i)) = parse_external_ref(s) {
        return lookup(t, i);
    }
    let (before, t, i) = find_external_ref(s)?;
    let value = lookup(t, i)?;
    let text: &JsString = value.dyn_ref()?;
    Some(JsString::from(before).concat(text).into())
}

/// Payload text for the core: references are read from JavaScript (one
/// payload at a time), anything else is its own text.
pub struct JsPayloads;

impl Payloads for JsPayloads {
    fn with_full(&self, s: &str, f: &mut dyn FnMut(&str)) {
        match find_external_ref(s).and_then(|(_, t, i)| lookup(t, i)) {
            Some(v) => {
                let text = v.as_string().unwrap_or_default();
                f(&text);
            }
            None => f(s),
        }
    }

    fn text_len(&self, s: &str) -> usize {
        match find_external_ref(s).and_then(|(_, t, i)| lookup(t, i)) {
            Some(v) => v.dyn_ref::<JsString>().map_or(0, |j| j.length() as usize),
            None => s.len(),
        }
    }
}
