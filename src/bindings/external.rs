//! JavaScript values kept in JavaScript during one call. Long image payloads
//! (and values JSON cannot carry, such as a `Uint8Array` or a string with a
//! lone surrogate) stay JavaScript values; the message given to the core
//! carries a short reference instead. The core reads a payload's text through
//! [`Payloads`] when it must (hashing, one at a time); writing it to the
//! stash or returning it uses the JavaScript value, never a copy.

use crate::payload::{
    external_ref, facts_of_text, find_external_ref, parse_external_ref, PayloadFacts, Payloads,
};
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

    fn facts(&self, s: &str, head_bytes: usize) -> PayloadFacts {
        let Some(value) = find_external_ref(s).and_then(|(_, t, i)| lookup(t, i)) else {
            return facts_of_text(self, s, head_bytes);
        };
        if !has_host_md5() || !value.is_string() {
            return facts_of_text(self, s, head_bytes);
        }
        // Node: hash, measure and check in JavaScript; only the head crosses.
        let text: JsString = value.unchecked_into();
        let len = text.length();
        let Some(md5) = host_md5(&text) else {
            return facts_of_text(self, s, head_bytes);
        };
        let ok = base64_test(&text);
        let tail: String = text.slice(len.saturating_sub(2), len).into();
        let padding = tail.bytes().filter(|b| *b == b'=').count();
        let head_chars = (head_bytes.div_ceil(3) * 4) as u32;
        let head_text: String = text.slice(0, head_chars.min(len)).into();
        let n = len as usize;
        PayloadFacts {
            md5,
            len: n,
            decoded_len: (n / 4 * 3).saturating_sub(padding),
            head: crate::media::base64_text::decode_prefix(&head_text, head_bytes),
            valid: if ok && n % 4 == 0 {
                Ok(())
            } else {
                Err(crate::media::base64_text::Base64Problem::BadLength)
            },
        }
    }

    fn text_len(&self, s: &str) -> usize {
        match find_external_ref(s).and_then(|(_, t, i)| lookup(t, i)) {
            Some(v) => v.dyn_ref::<JsString>().map_or(0, |j| j.length() as usize),
            None => s.len(),
        }
    }
}

thread_local! {
    static NOT_BASE64: js_sys::RegExp = js_sys::RegExp::new("[^A-Za-z0-9+/=]", "");
    static HOST_MD5: Option<(JsValue, js_sys::Function)> = make_host_md5();
}

/// Standard padded base64, checked in JavaScript (no copy into wasm): only
/// the alphabet, `=` only as the last one or two characters.
fn base64_test(text: &JsString) -> bool {
    let len = text.length();
    if len % 4 != 0 {
        return false;
    }
    let bad = NOT_BASE64.with(|re| {
        let test = js_sys::Reflect::get(re, &"test".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        test.and_then(|f| f.call1(re, text).ok())
            .and_then(|v| v.as_bool())
            .unwrap_or(true)
    });
    if bad {
        return false;
    }
    let eq = text.index_of("=", 0);
    eq < 0
        || (eq as u32 >= len.saturating_sub(2)
            && (eq as u32 == len - 1 || text.char_code_at(len - 1) == f64::from(b'=')))
}

/// Node's native MD5 (`crypto.hash('md5', text)` through
/// `process.getBuiltinModule`): hex of `text`; `None` in browsers and workers.
fn host_md5(text: &JsString) -> Option<String> {
    HOST_MD5.with(|h| {
        let (crypto, hash) = h.as_ref()?;
        hash.call2(crypto, &"md5".into(), text).ok()?.as_string()
    })
}

fn has_host_md5() -> bool {
    HOST_MD5.with(|h| h.is_some())
}

fn make_host_md5() -> Option<(JsValue, js_sys::Function)> {
    use js_sys::{Function, Reflect};
    let process = Reflect::get(&js_sys::global(), &"process".into()).ok()?;
    let get = Reflect::get(&process, &"getBuiltinModule".into())
        .ok()?
        .dyn_into::<Function>()
        .ok()?;
    let crypto = get.call1(&process, &"crypto".into()).ok()?;
    let hash = Reflect::get(&crypto, &"hash".into())
        .ok()?
        .dyn_into::<Function>()
        .ok()?;
    Some((crypto, hash))
}
