//! JavaScript values kept in JavaScript during one call. Long image payloads
//! (and values JSON cannot carry, such as a `Uint8Array` or a string with a
//! lone surrogate, and every caller string containing U+0000, the character
//! that begins a reference; for a compaction that sanitizes tool results,
//! any long string that begins as base64 or may be JSON text, held as loose
//! text) stay JavaScript values; the message given to the core carries a
//! short reference instead. The core reads a payload's text through
//! `Payloads` (`js_payloads`) when it must (hashing, one at a time); writing
//! it to the stash or returning it uses the JavaScript value, never a copy.

use super::bytes::{from_base64, to_base64};
use super::memory::Memory;
use super::text::{ascii_text, well_formed};
use ctxpack_core::media::{
    find_external_ref, kept_ref, parse_bytes_literal, parse_kept_ref, split_external_refs,
    KeptKind, PayloadFacts, Piece,
};
use js_sys::JsString;
use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

thread_local! {
    static NEXT: Cell<u32> = const { Cell::new(1) };
}

/// The values kept for one call, owned by that call and dropped when it
/// ends. A reference resolves only in the table that made it: one call's
/// text can never reach another call's values.
pub struct Table {
    id: u32,
    values: RefCell<Vec<Kept>>,
    /// This call's number in the payload memo, once it used the memo.
    memo_call: Cell<Option<u32>>,
    /// This call's number in the memo of sanitized texts, once it used it.
    text_memo_call: Cell<Option<u32>>,
    /// Facts read ahead of `facts` (see `Payloads::prepare_facts`): the
    /// payload's reference, the head size read and the facts.
    prepared: RefCell<Option<(String, usize, PayloadFacts)>>,
    /// What this call remembers between calls: its stash's memory, else
    /// its own (made when first used).
    memory: OnceCell<Rc<Memory>>,
}

/// One kept value, with the base64 text of its bytes once read.
struct Kept {
    value: JsValue,
    kind: KeptKind,
    text: Option<JsString>,
    /// The caller's string the payload was read from (itself, or a data URL
    /// whose payload it is): what the payload memo knows it by.
    source: Option<JsString>,
    /// Held only so that a search for binary can read it in pieces, or
    /// the memo of sanitized texts can answer for it: text anywhere else
    /// (`Payloads::loose_text`).
    loose: Option<Loose>,
}

/// Why a caller's string that is no payload was held as loose text.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Loose {
    /// It begins as base64.
    Base64,
    /// It may be a tool result's JSON text (`Payloads::held_json`).
    Json,
}

/// The longest caller text (in UTF-16 code units) searched for U+0000 after
/// it was copied into wasm rather than before.
const SEARCHED_AFTER_COPY: u32 = 4096;

impl Table {
    /// A new, empty table for a call that remembers in `memory` (its
    /// stash's) what later calls may use.
    pub fn remembering(memory: Rc<Memory>) -> Table {
        let table = Table::new();
        let _ = table.memory.set(memory);
        table
    }

    /// What this call remembers between calls (see [`Table::remembering`];
    /// else the call's own, which ends with it).
    pub fn memory(&self) -> &Memory {
        self.memory.get_or_init(|| Rc::new(Memory::new()))
    }

    /// A new, empty table; what it remembers is its own.
    pub fn new() -> Table {
        let id = NEXT.with(|n| {
            let id = n.get();
            n.set(id.wrapping_add(1).max(1));
            id
        });
        Table {
            id,
            values: RefCell::new(Vec::new()),
            memo_call: Cell::new(None),
            text_memo_call: Cell::new(None),
            prepared: RefCell::new(None),
            memory: OnceCell::new(),
        }
    }

    /// Keeps `payload`, a payload string read from the caller's string
    /// `source`, and returns the reference that stands for it.
    pub fn keep_payload(&self, payload: JsString, source: JsString) -> String {
        self.push(Kept {
            value: payload.into(),
            kind: KeptKind::Text,
            text: None,
            source: Some(source),
            loose: None,
        })
    }

    /// Keeps `text`, a caller's string under no payload key held for
    /// `why`, as loose text, and returns the reference that stands for it.
    pub fn keep_loose(&self, text: JsString, why: Loose) -> String {
        self.push(Kept {
            value: text.clone().into(),
            kind: KeptKind::Text,
            text: None,
            source: Some(text),
            loose: Some(why),
        })
    }

    /// The caller's string a loose reference `s` stands for, and why it
    /// was held.
    pub fn loose(&self, s: &str) -> Option<(JsString, Loose)> {
        let (t, i, KeptKind::Text) = parse_kept_ref(s)? else {
            return None;
        };
        if t != self.id {
            return None;
        }
        let values = self.values.borrow();
        let kept = values.get(i as usize)?;
        Some((kept.value.clone().dyn_into().ok()?, kept.loose?))
    }

    /// The caller's string `js` as text for the core. A lone surrogate has
    /// no UTF-8 form, and U+0000 begins a payload reference: such a string
    /// is kept as it is and the core gets a reference to it, so caller text
    /// can never be read as a reference.
    pub fn caller_text(&self, js: &JsString) -> String {
        if !well_formed(js) {
            return self.keep(js.clone().into());
        }
        // A short text is copied first and searched here (a search in
        // JavaScript copies the searched-for text across the boundary on
        // every call); a long one is searched where it is, so one that is
        // kept is never copied.
        if js.length() <= SEARCHED_AFTER_COPY {
            let text: String = js.into();
            if !text.contains('\u{0}') {
                return text;
            }
        } else if js.index_of("\u{0}", 0) < 0 {
            // A long text (a tool's JSON result, a pasted document) is
            // copied by the engine when it is ASCII.
            return ascii_text(js).unwrap_or_else(|| js.into());
        }
        self.keep(js.clone().into())
    }

    /// The caller's string the payload `s` (a reference, or a data URL whose
    /// payload is one) was read from.
    pub fn source(&self, s: &str) -> Option<JsString> {
        let (_, t, i) = find_external_ref(s)?;
        if t != self.id {
            return None;
        }
        self.values.borrow().get(i as usize)?.source.clone()
    }

    /// The facts read ahead for payload `s` with `head_bytes` leading bytes,
    /// once.
    pub fn take_prepared(&self, s: &str, head_bytes: usize) -> Option<PayloadFacts> {
        let mut prepared = self.prepared.borrow_mut();
        match prepared.take() {
            Some((r, h, facts)) if r == s && h == head_bytes => Some(facts),
            other => {
                *prepared = other;
                None
            }
        }
    }

    /// Keeps `facts`, read ahead for payload `s` with `head_bytes` leading
    /// bytes, for the next [`Table::take_prepared`].
    pub fn keep_prepared(&self, s: &str, head_bytes: usize, facts: PayloadFacts) {
        *self.prepared.borrow_mut() = Some((s.to_owned(), head_bytes, facts));
    }

    /// This call's number in the payload memo.
    pub fn memo_call(&self) -> u32 {
        match self.memo_call.get() {
            Some(c) => c,
            None => {
                let c = super::payload_memo::begin_call(self.memory());
                self.memo_call.set(Some(c));
                c
            }
        }
    }

    /// This call's number in the memo of sanitized texts.
    pub fn text_memo_call(&self) -> u32 {
        let call = self
            .text_memo_call
            .get()
            .unwrap_or_else(|| super::text_memo::begin_call(self.memory()));
        self.text_memo_call.set(Some(call));
        call
    }

    /// Keeps the string `value` and returns the reference that stands for it.
    pub fn keep(&self, value: JsValue) -> String {
        self.keep_as(value, KeptKind::Text)
    }

    /// Keeps `value`, a value of `kind`, and returns the reference that
    /// stands for it.
    pub fn keep_as(&self, value: JsValue, kind: KeptKind) -> String {
        self.push(Kept {
            value,
            kind,
            text: None,
            source: None,
            loose: None,
        })
    }

    /// Keeps `kept` and returns the reference that stands for it.
    fn push(&self, kept: Kept) -> String {
        let kind = kept.kind;
        let mut values = self.values.borrow_mut();
        values.push(kept);
        kept_ref(self.id, (values.len() - 1) as u32, kind)
    }

    /// The value kept as `(table, index)`, when this table made it.
    fn get(&self, table: u32, index: u32) -> Option<JsValue> {
        if table != self.id {
            return None;
        }
        self.values
            .borrow()
            .get(index as usize)
            .map(|k| k.value.clone())
    }

    /// The text kept as `(table, index)`: the string itself, or the base64
    /// text of kept bytes (read once, then remembered). `None` for other values.
    fn text(&self, table: u32, index: u32) -> Option<JsString> {
        if table != self.id {
            return None;
        }
        let mut values = self.values.borrow_mut();
        let kept = values.get_mut(index as usize)?;
        match kept.kind {
            KeptKind::Text => kept.value.clone().dyn_into().ok(),
            KeptKind::Bytes(_) => {
                if kept.text.is_none() {
                    kept.text = Some(to_base64(&kept.value));
                }
                kept.text.clone()
            }
            KeptKind::Opaque => None,
        }
    }

    /// The JavaScript value for a string that holds references made by this
    /// table: a whole reference is the kept value itself; text around
    /// references is joined with the kept strings. `None` when `s` holds no
    /// reference of this table.
    pub fn resolve(&self, s: &str) -> Option<JsValue> {
        if !s.contains('\u{0}') {
            return None;
        }
        if let Some((t, i, kind)) = parse_kept_ref(s) {
            let value = self.get(t, i)?;
            return Some(match kind {
                // Base64 text that is to become binary data again.
                KeptKind::Bytes(k) if value.is_string() => from_base64(&value, k),
                _ => value,
            });
        }
        if let Some((kind, text)) = parse_bytes_literal(s) {
            return Some(from_base64(&JsValue::from_str(text), kind));
        }
        let mut out = JsString::from("");
        let mut found = false;
        for piece in split_external_refs(s) {
            let text = match piece {
                Piece::Text(t) => JsString::from(t),
                Piece::Ref(t, i) => match self.get(t, i) {
                    Some(v) => {
                        found = true;
                        v.dyn_into::<JsString>().ok()?
                    }
                    None => return None,
                },
            };
            out = out.concat(&text);
        }
        found.then(|| out.into())
    }

    /// The text a payload string (a reference, or a data URL whose payload
    /// is one) stands for: a kept string, or the base64 text of kept bytes.
    pub fn payload(&self, s: &str) -> Option<JsValue> {
        let (_, t, i) = find_external_ref(s)?;
        self.text(t, i).map(Into::into)
    }
}

impl Default for Table {
    fn default() -> Self {
        Table::new()
    }
}
