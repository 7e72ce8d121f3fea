//! Long data-URL payloads inside a text (a markdown message), left in
//! JavaScript. The text that crosses into wasm carries a short token in
//! place of each: the markdown parser then reads a small text, and each
//! payload crosses at most once (when it is checked), never with the text.
//! A token is made of base64 letters, so the parser sees an ordinary data
//! URL, and holds a nonce the caller's text does not contain, so no caller
//! text can stand for a payload.

use super::external::Table;
use super::EXTERNAL_MIN;
use ctxpack_core::event_loop::Slicer;
use js_sys::{Array, Function, JsString, Reflect, RegExp};
use serde_json::Value;
use wasm_bindgen::JsCast;

/// A text with its long data-URL payloads cut out.
pub struct CutText {
    /// The text with a token in place of each long payload.
    pub text: String,
    /// What every token begins with: `ctxpack<nonce>i`.
    prefix: String,
    /// The table reference of each payload, by token number.
    refs: Vec<String>,
    /// Where each token ends in the cut text, and how much longer the
    /// payload it stands for is, in UTF-16 units (as JavaScript counts).
    cuts: Vec<(usize, usize)>,
}

/// Cuts the long base64 payloads of the data URLs in `text` into `table`,
/// letting the host run between them. A run of base64 letters (and `=`)
/// holds nothing markdown reads specially, so a token in its place leaves
/// the text's structure as it was.
pub async fn cut_payloads(text: &JsString, table: &Table, slicer: &Slicer<'_>) -> CutText {
    let headers = RegExp::new(r#"data:[^\s()<>,"']{0,200};base64,"#, "gi");
    let run_end = RegExp::new("[^A-Za-z0-9+/=]", "g");
    let mut pieces: Vec<String> = Vec::new();
    let mut refs = Vec::new();
    let mut run_lens: Vec<u32> = Vec::new();
    let mut copied = 0u32;
    while exec(&headers, text).is_some() {
        let start = headers.last_index();
        run_end.set_last_index(start);
        let end = match exec(&run_end, text) {
            Some(m) => Reflect::get(&m, &"index".into())
                .ok()
                .and_then(|i| i.as_f64())
                .map_or(text.length(), |i| i as u32),
            None => text.length(),
        };
        headers.set_last_index(end.max(start + 1));
        if end - start < EXTERNAL_MIN {
            continue;
        }
        pieces.push(String::from(text.slice(copied, start)));
        let payload = text.slice(start, end);
        refs.push(table.keep_payload(payload.clone(), payload));
        run_lens.push(end - start);
        copied = end;
        slicer.checkpoint().await;
    }
    pieces.push(String::from(text.slice(copied, text.length())));
    // A nonce no piece of the caller's text holds.
    let prefix = loop {
        let nonce = (js_sys::Math::random() * 1e12) as u64;
        let prefix = format!("ctxpack{nonce}i");
        if !pieces.iter().any(|p| p.contains(&prefix)) {
            break prefix;
        }
    };
    let mut out =
        String::with_capacity(pieces.iter().map(String::len).sum::<usize>() + 24 * refs.len());
    let mut cuts = Vec::with_capacity(refs.len());
    let mut at = 0usize;
    for (i, piece) in pieces.iter().enumerate() {
        out.push_str(piece);
        at += piece.encode_utf16().count();
        if let Some(&len) = run_lens.get(i) {
            let token = format!("{prefix}{i}e");
            at += token.len();
            cuts.push((at, len as usize - token.len()));
            out.push_str(&token);
        }
    }
    CutText {
        text: out,
        prefix,
        refs,
        cuts,
    }
}

/// `re.exec(text)` on the JavaScript string itself (js-sys's `exec` takes a
/// Rust string, which would copy the text into wasm).
fn exec(re: &RegExp, text: &JsString) -> Option<Array> {
    let exec: Function = Reflect::get(re, &"exec".into()).ok()?.dyn_into().ok()?;
    exec.call1(re, text).ok()?.dyn_into().ok()
}

impl CutText {
    /// The offset in the caller's text (UTF-16 units) of `offset` in the
    /// cut text: every token before it stood for a longer payload.
    pub fn original_offset(&self, offset: usize) -> usize {
        offset
            + self
                .cuts
                .iter()
                .take_while(|(token_end, _)| *token_end <= offset)
                .map(|(_, longer)| longer)
                .sum::<usize>()
    }

    /// `s` with every token replaced by its payload's table reference.
    pub fn restore(&self, s: &str) -> String {
        if self.refs.is_empty() || !s.contains(&self.prefix) {
            return s.to_owned();
        }
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(at) = rest.find(&self.prefix) {
            out.push_str(&rest[..at]);
            let after = &rest[at + self.prefix.len()..];
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            let reference = after[..digits]
                .parse::<usize>()
                .ok()
                .filter(|_| after[digits..].starts_with('e'))
                .and_then(|i| self.refs.get(i));
            match reference {
                Some(r) => {
                    out.push_str(r);
                    rest = &after[digits + 1..];
                }
                None => {
                    out.push_str(&self.prefix);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// `value` with every token in its strings replaced (see [`Self::restore`]).
    pub fn restore_value(&self, value: Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.restore(&s)),
            Value::Array(items) => {
                Value::Array(items.into_iter().map(|v| self.restore_value(v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(k, v)| (k, self.restore_value(v)))
                    .collect(),
            ),
            other => other,
        }
    }
}
