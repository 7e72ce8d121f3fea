//! The core's access to payload text in JavaScript ([`Payloads`]): a
//! reference of this call's [`Table`] is read from the JavaScript value it
//! stands for, one payload at a time, through the payload memo (and, in
//! Node, the host's decoder and hash); a held tool text through the memo of
//! sanitized texts.

use super::external::{Loose, Table};
use super::node_host::NodeHost;
use super::text::ascii_text;
use ctxpack_core::event_loop::Slicer;
use ctxpack_core::media::{
    decoded_len_of, facts_of_text, head_of_text, FactsReader, PayloadFacts, PayloadHead, Payloads,
    PIECE_CHARS,
};
use ctxpack_core::tool_results::{HeldJson, SanitizeMemo, SanitizedText};
use js_sys::JsString;
use std::future::Future;
use std::pin::Pin;
use wasm_bindgen::JsCast;

/// Payload text for the core: references of this call's table are read
/// from JavaScript (one payload at a time), anything else is its own text.
pub struct JsPayloads<'t>(pub &'t Table);

impl Payloads for JsPayloads<'_> {
    /// Drawn by this module, or by the host's function (see
    /// [`crate::picture`]).
    fn placeholder_picture(&self, text: &str) -> Option<String> {
        crate::picture::placeholder_picture(text)
    }

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
        let miss =
            match super::payload_memo::facts(self.0.memory(), &source, call, head_bytes, || {
                self.read_head(s, head_bytes).head
            }) {
                Ok(facts) => return facts,
                Err(miss) => miss,
            };
        // Read without a pause: the memo is as `facts` left it.
        let facts = self.read_facts(s, head_bytes);
        super::payload_memo::remember_after(
            self.0.memory(),
            miss,
            source,
            call,
            facts.clone(),
            head_bytes,
        );
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
        if let Some(head) =
            super::payload_memo::head(self.0.memory(), &source, call, head_bytes, || {
                self.read_head(s, head_bytes).head
            })
        {
            return head;
        }
        let head = self.read_head(s, head_bytes);
        super::payload_memo::remember_head(self.0.memory(), source, call, head_bytes, head.clone());
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
            let keep = |facts| self.0.keep_prepared(s, head_bytes, facts);
            if let Some(source) = &source {
                // Remembered: handed on, so that `facts` does not look again.
                let read_head = || self.read_head(s, head_bytes).head;
                if let Ok(facts) =
                    super::payload_memo::facts(self.0.memory(), source, call, head_bytes, read_head)
                {
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
                super::payload_memo::remember(
                    self.0.memory(),
                    source,
                    call,
                    facts.clone(),
                    head_bytes,
                );
            }
            // For the `facts` that follows, even when the memo keeps no more.
            keep(facts);
        })
    }

    /// A loose string (see `Table::keep_loose`) read as text, exactly as
    /// it would have been read had it not been held.
    fn loose_text(&self, s: &str) -> Option<String> {
        let (text, _) = self.0.loose(s)?;
        Some(self.0.caller_text(&text))
    }

    fn text_len(&self, s: &str) -> usize {
        match self.0.payload(s) {
            Some(v) => v.dyn_ref::<JsString>().map_or(0, |j| j.length() as usize),
            None => s.len(),
        }
    }
}

impl SanitizeMemo for JsPayloads<'_> {
    /// A tool text held as JSON: what sanitizing the very same string made
    /// of it before (see `text_memo`), else its text. A text the core would
    /// get as a reference (U+0000, a lone surrogate) is left to
    /// `loose_text`, as any other loose string.
    fn held_json(&self, s: &str) -> Option<HeldJson> {
        let (text, Loose::Json) = self.0.loose(s)? else {
            return None;
        };
        if let Some(outcome) =
            super::text_memo::get(self.0.memory(), &text, self.0.text_memo_call())
        {
            return Some(HeldJson::Remembered(outcome));
        }
        let read = self.0.caller_text(&text);
        (!read.contains('\u{0}')).then_some(HeldJson::Text(read))
    }

    fn remember_sanitized(&self, s: &str, outcome: SanitizedText) {
        if let Some((text, Loose::Json)) = self.0.loose(s) {
            super::text_memo::remember(self.0.memory(), text, self.0.text_memo_call(), outcome);
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
