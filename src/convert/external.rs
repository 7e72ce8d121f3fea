//! JavaScript values kept in JavaScript during one call. Long image payloads
//! (and values JSON cannot carry, such as a `Uint8Array` or a string with a
//! lone surrogate, and every caller string containing U+0000, the character
//! that begins a reference; for a compaction that sanitizes tool results,
//! any long string that begins as base64, held as loose text) stay
//! JavaScript values; the message given to the core carries a short
//! reference instead. The core reads a payload's text through
//! [`Payloads`] when it must (hashing, one at a time); writing it to the
//! stash or returning it uses the JavaScript value, never a copy.

use super::bytes::{from_base64, to_base64};
use super::node_host::NodeHost;
use super::text::{ascii_text, well_formed};
use ctxpack_core::event_loop::Slicer;
use ctxpack_core::media::{
    decoded_len_of, facts_of_text, find_external_ref, head_of_text, kept_ref, parse_bytes_literal,
    parse_kept_ref, split_external_refs, FactsReader, KeptKind, PayloadFacts, PayloadHead,
    Payloads, Piece, PIECE_CHARS,
};
use js_sys::JsString;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
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
    /// Facts read ahead of `facts` (see `Payloads::prepare_facts`): the
    /// payload's reference, the head size read and the facts.
    prepared: RefCell<Option<(String, usize, PayloadFacts)>>,
}

/// One kept value, with the base64 text of its bytes once read.
struct Kept {
    value: JsValue,
    kind: KeptKind,
    text: Option<JsString>,
    /// The caller's string the payload was read from (itself, or a data URL
    /// whose payload it is): what the payload memo knows it by.
    source: Option<JsString>,
    /// Held only so that a search for binary can read it in pieces: text
    /// anywhere else (`Payloads::loose_text`).
    loose: bool,
}

/// The longest caller text (in UTF-16 code units) searched for U+0000 after
/// it was copied into wasm rather than before.
const SEARCHED_AFTER_COPY: u32 = 4096;

impl Table {
    /// A new, empty table.
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
            prepared: RefCell::new(None),
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
            loose: false,
        })
    }

    /// Keeps `text`, a caller's string that begins as base64 under no
    /// payload key, as loose text, and returns the reference that stands
    /// for it.
    pub fn keep_loose(&self, text: JsString) -> String {
        self.push(Kept {
            value: text.clone().into(),
            kind: KeptKind::Text,
            text: None,
            source: Some(text),
            loose: true,
        })
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
    fn take_prepared(&self, s: &str, head_bytes: usize) -> Option<PayloadFacts> {
        let mut prepared = self.prepared.borrow_mut();
        match prepared.take() {
            Some((r, h, facts)) if r == s && h == head_bytes => Some(facts),
            other => {
                *prepared = other;
                None
            }
        }
    }

    /// This call's number in the payload memo.
    pub fn memo_call(&self) -> u32 {
        match self.memo_call.get() {
            Some(c) => c,
            None => {
                let c = super::payload_memo::begin_call();
                self.memo_call.set(Some(c));
                c
            }
        }
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
            loose: false,
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

/// Payload text for the core: references of this call's table are read
/// from JavaScript (one payload at a time), anything else is its own text.
pub struct JsPayloads<'t>(pub &'t Table);

impl Payloads for JsPayloads<'_> {
    fn with_full(&self, s: &str, f: &mut dyn FnMut(&str)) {
        match self.0.payload(s) {
            Some(v) => {
                let text = v
                    .dyn_ref::<JsString>()
                    .and_then(ascii_text)
                    .or_else(|| v.as_string())
                    .unwrap_or_default();
                f(&text);
            }
            None => f(s),
        }
    }

    /// Facts of a payload read from a caller's string are remembered
    /// between calls (see `payload_memo`): a history sent again is not
    /// read or hashed again.
    fn facts(&self, s: &str, head_bytes: usize) -> PayloadFacts {
        if let Some(facts) = self.0.take_prepared(s, head_bytes) {
            return facts;
        }
        let Some(source) = self.0.source(s) else {
            return self.read_facts(s, head_bytes);
        };
        let call = self.0.memo_call();
        let miss = match super::payload_memo::facts(&source, call, head_bytes, || {
            self.read_head(s, head_bytes).head
        }) {
            Ok(facts) => return facts,
            Err(miss) => miss,
        };
        // Read without a pause: the memo is as `facts` left it.
        let facts = self.read_facts(s, head_bytes);
        super::payload_memo::remember_after(miss, source, call, facts.clone(), head_bytes);
        facts
    }

    /// Sizes and heads of payloads read from a caller's string are
    /// remembered between calls too: an estimate of a history sent again
    /// reads no header again.
    fn head(&self, s: &str, head_bytes: usize) -> PayloadHead {
        let Some(source) = self.0.source(s) else {
            return self.read_head(s, head_bytes);
        };
        let call = self.0.memo_call();
        if let Some(head) = super::payload_memo::head(&source, call, head_bytes, || {
            self.read_head(s, head_bytes).head
        }) {
            return head;
        }
        let head = self.read_head(s, head_bytes);
        super::payload_memo::remember_head(source, call, head_bytes, head.clone());
        head
    }

    fn event_loop(&self) -> Option<&dyn ctxpack_core::event_loop::EventLoop> {
        Some(&crate::event_loop::HOST_LOOP)
    }

    /// A payload of more than one piece is read a piece at a time in
    /// browsers and workers (Node hashes it natively at once), the host
    /// running between pieces; its facts are kept for the next `facts` of it
    /// and, for a caller's string, go to the memo. A payload that is not
    /// ASCII is left to `facts`.
    fn prepare_facts<'a>(
        &'a self,
        s: &'a str,
        head_bytes: usize,
        slicer: &'a Slicer<'a>,
    ) -> Pin<Box<dyn Future<Output = ()> + 'a>> {
        Box::pin(async move {
            let Some(text) = self
                .0
                .payload(s)
                .and_then(|v| v.dyn_into::<JsString>().ok())
            else {
                return;
            };
            let len = text.length() as usize;
            if len <= PIECE_CHARS || NODE_HOST.with(Option::is_some) {
                return;
            }
            let source = self.0.source(s);
            let call = self.0.memo_call();
            let keep =
                |facts| *self.0.prepared.borrow_mut() = Some((s.to_owned(), head_bytes, facts));
            if let Some(source) = &source {
                // Remembered: handed on, so that `facts` does not look again.
                let read_head = || self.read_head(s, head_bytes).head;
                if let Ok(facts) = super::payload_memo::facts(source, call, head_bytes, read_head) {
                    keep(facts);
                    return;
                }
            }
            let mut reader = FactsReader::new(len, head_bytes);
            for start in (0..len).step_by(PIECE_CHARS) {
                let end = (start + PIECE_CHARS).min(len);
                let Some(piece) = ascii_text(&text.slice(start as u32, end as u32)) else {
                    return;
                };
                reader.read(&piece);
                drop(piece);
                slicer.checkpoint().await;
            }
            let facts = reader.finish();
            // Other calls may have changed the memo while this one paused:
            // looked up afresh.
            if let Some(source) = source {
                super::payload_memo::remember(source, call, facts.clone(), head_bytes);
            }
            // For the `facts` that follows, even when the memo keeps no more.
            keep(facts);
        })
    }

    /// A loose string (see `Table::keep_loose`) read as text, exactly as
    /// it would have been read had it not been held.
    fn loose_text(&self, s: &str) -> Option<String> {
        let (t, i, KeptKind::Text) = parse_kept_ref(s)? else {
            return None;
        };
        if t != self.0.id {
            return None;
        }
        let text = {
            let values = self.0.values.borrow();
            let kept = values.get(i as usize).filter(|k| k.loose)?;
            kept.value.clone().dyn_into::<JsString>().ok()?
        };
        Some(self.0.caller_text(&text))
    }

    fn text_len(&self, s: &str) -> usize {
        match self.0.payload(s) {
            Some(v) => v.dyn_ref::<JsString>().map_or(0, |j| j.length() as usize),
            None => s.len(),
        }
    }
}

impl JsPayloads<'_> {
    /// The sizes and `head_bytes` leading bytes of payload `s`, read now.
    fn read_head(&self, s: &str, head_bytes: usize) -> PayloadHead {
        match self
            .0
            .payload(s)
            .and_then(|v| v.dyn_into::<JsString>().ok())
        {
            Some(text) => js_head(&text, padding_of(&text), head_bytes),
            None => head_of_text(self, s, head_bytes),
        }
    }

    /// The facts of payload `s`, read now.
    fn read_facts(&self, s: &str, head_bytes: usize) -> PayloadFacts {
        let Some(value) = self.0.payload(s) else {
            return facts_of_text(self, s, head_bytes);
        };
        if !value.is_string() {
            return facts_of_text(self, s, head_bytes);
        }
        // Node: hash, measure and check in JavaScript; only the head crosses.
        let text: JsString = value.unchecked_into();
        let padding = padding_of(&text);
        let Some((md5, ok)) = NODE_HOST.with(|h| {
            let host = h.as_ref()?;
            Some((host.md5(&text)?, host.is_base64(&text, padding)))
        }) else {
            return facts_of_text(self, s, head_bytes);
        };
        let head = js_head(&text, padding, head_bytes);
        PayloadFacts {
            md5,
            len: head.len,
            decoded_len: head.decoded_len,
            head: head.head,
            valid: if ok {
                Ok(())
            } else {
                Err(ctxpack_core::media::Base64Problem::BadLength)
            },
        }
    }
}

thread_local! {
    static NODE_HOST: Option<NodeHost> = NodeHost::find();
}

/// The sizes of base64 `text` (with `padding` `=` at its end) and its first
/// `head_bytes` decoded bytes: only the head crosses into wasm.
fn js_head(text: &JsString, padding: usize, head_bytes: usize) -> PayloadHead {
    let len = text.length();
    let head_chars = (head_bytes.div_ceil(3) * 4) as u32;
    // Node decodes the head where it is (a dimension read asks for 64 KB:
    // copying 87 K characters across as text took most of an estimate);
    // elsewhere, or when Node's decoder would not decode it as the core's
    // does, the text crosses and the core decodes it.
    let head = NODE_HOST
        .with(|h| h.as_ref()?.decode_head(text, head_chars))
        .unwrap_or_else(|| {
            let slice = text.slice(0, head_chars.min(len));
            let head_text = ascii_text(&slice).unwrap_or_else(|| slice.into());
            ctxpack_core::media::decode_prefix(&head_text, head_bytes)
        });
    let n = len as usize;
    PayloadHead {
        len: n,
        decoded_len: decoded_len_of(n, padding),
        head,
    }
}

/// How many `=` end `text` (0, 1 or 2).
fn padding_of(text: &JsString) -> usize {
    let len = text.length();
    (len.saturating_sub(2)..len)
        .filter(|&i| text.char_code_at(i) == f64::from(b'='))
        .count()
}
