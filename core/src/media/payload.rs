//! Payload text that may live outside wasm memory. At the JavaScript
//! boundary a long image payload stays a JavaScript string and the message
//! carries a short reference in its place; the core reads the real text
//! through [`Payloads`] one payload at a time, so wasm memory holds at most
//! one image, and a payload that is stashed or returned never crosses back.
//!
//! A reference starts with U+0000. The boundary never hands the core a
//! caller's string that contains U+0000 (such a string is itself kept in
//! JavaScript and referenced), so every U+0000 the core sees begins a
//! reference the boundary made: caller text cannot forge one.

use crate::media::base64_payload::{check_base64, decode_prefix, decoded_len, Base64Problem};

const START: &str = "\u{0}ctxpack\u{1}";

/// The reference that stands for payload `index` of table `table`.
pub fn external_ref(table: u32, index: u32) -> String {
    format!("{START}{table}\u{1}{index}\u{0}")
}

/// Reads a reference made by [`external_ref`]: `(table, index)`.
pub fn parse_external_ref(s: &str) -> Option<(u32, u32)> {
    let rest = s.strip_prefix(START)?.strip_suffix('\u{0}')?;
    let (t, i) = rest.split_once('\u{1}')?;
    Some((t.parse().ok()?, i.parse().ok()?))
}

/// Finds the reference that ends `s` (a whole reference, or a data URL whose
/// payload is one): `(text before it, table, index)`.
pub fn find_external_ref(s: &str) -> Option<(&str, u32, u32)> {
    let at = s.find(START)?;
    let (t, i) = parse_external_ref(&s[at..])?;
    Some((&s[..at], t, i))
}

/// One piece of a string that may hold references: text, or a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Text as it is.
    Text(&'a str),
    /// A reference: `(table, index)`.
    Ref(u32, u32),
}

/// Splits `s` into text and the references inside it, in order. A U+0000
/// that does not begin a well-formed reference stays text.
pub fn split_external_refs(s: &str) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut rest = s;
    let mut text_start = 0;
    let mut at = 0;
    while let Some(found) = rest[at..].find(START) {
        let begin = at + found;
        let after = &rest[begin + START.len()..];
        let parsed = after.find('\u{0}').and_then(|end| {
            let whole = &rest[begin..begin + START.len() + end + 1];
            parse_external_ref(whole).map(|r| (r, whole.len()))
        });
        match parsed {
            Some(((t, i), len)) => {
                if begin > text_start {
                    pieces.push(Piece::Text(&rest[text_start..begin]));
                }
                pieces.push(Piece::Ref(t, i));
                rest = &rest[begin + len..];
                text_start = 0;
                at = 0;
            }
            None => at = begin + 1,
        }
    }
    if !rest[text_start..].is_empty() {
        pieces.push(Piece::Text(&rest[text_start..]));
    }
    pieces
}

/// Access to payload text.
pub trait Payloads {
    /// Calls `f` with the full text `s` stands for: `s` itself, or the
    /// external string it references.
    fn with_full(&self, s: &str, f: &mut dyn FnMut(&str));

    /// The length in bytes of the text `s` stands for, without reading it.
    fn text_len(&self, s: &str) -> usize {
        s.len()
    }

    /// The facts of payload `s` (see [`payload_facts`]). An implementation
    /// may compute them without bringing the whole text into wasm memory.
    fn facts(&self, s: &str, head_bytes: usize) -> PayloadFacts {
        facts_of_text(self, s, head_bytes)
    }
}

/// Payloads that are all in memory: every string is its own text.
#[derive(Debug, Clone, Copy, Default)]
pub struct InMemory;

impl Payloads for InMemory {
    fn with_full(&self, s: &str, f: &mut dyn FnMut(&str)) {
        f(s)
    }
}

/// What compaction needs to know about one base64 payload, read in one pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayloadFacts {
    /// Lowercase hex MD5 of the text.
    pub md5: String,
    /// Length of the text in bytes.
    pub len: usize,
    /// Decoded size in bytes.
    pub decoded_len: usize,
    /// The first decoded bytes (for MIME sniffing and dimensions).
    pub head: Vec<u8>,
    /// Whether the text is valid padded base64.
    pub valid: Result<(), Base64Problem>,
}

/// Reads the facts of payload `s` with `head_bytes` leading decoded bytes.
pub fn payload_facts(payloads: &dyn Payloads, s: &str, head_bytes: usize) -> PayloadFacts {
    payloads.facts(s, head_bytes)
}

/// The facts of `s`, read from its full text.
pub fn facts_of_text<P: Payloads + ?Sized>(
    payloads: &P,
    s: &str,
    head_bytes: usize,
) -> PayloadFacts {
    let mut out = None;
    payloads.with_full(s, &mut |text| {
        out = Some(PayloadFacts {
            md5: crate::hash::md5_hex(text.as_bytes()),
            len: text.len(),
            decoded_len: decoded_len(text),
            head: decode_prefix(text, head_bytes),
            valid: check_base64(text),
        });
    });
    out.unwrap_or(PayloadFacts {
        md5: crate::hash::md5_hex(b""),
        len: 0,
        decoded_len: 0,
        head: Vec::new(),
        valid: Err(Base64Problem::BadLength),
    })
}

/// The MIME type to store for a payload: from its leading bytes, else as
/// declared, else `application/octet-stream`.
pub fn stored_mime(facts: &PayloadFacts, declared: Option<&str>) -> String {
    crate::media::sniff_mime(&facts.head)
        .or(declared)
        .unwrap_or("application/octet-stream")
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_round_trip_and_are_found_inside_data_urls() {
        let r = external_ref(7, 42);
        assert_eq!(parse_external_ref(&r), Some((7, 42)));
        assert!(
            !r.contains(':'),
            "an AI SDK image reference must not look like a URL"
        );
        let url = format!("data:image/png;base64,{r}");
        assert_eq!(
            find_external_ref(&url),
            Some(("data:image/png;base64,", 7, 42))
        );
        assert_eq!(parse_external_ref("plain"), None);
    }

    #[test]
    fn strings_split_into_text_and_references() {
        let (a, b) = (external_ref(3, 0), external_ref(3, 12));
        let s = format!("x{a}y{b}");
        assert_eq!(
            split_external_refs(&s),
            vec![
                Piece::Text("x"),
                Piece::Ref(3, 0),
                Piece::Text("y"),
                Piece::Ref(3, 12)
            ]
        );
        assert_eq!(split_external_refs(&a), vec![Piece::Ref(3, 0)]);
        // A lead character that begins no reference stays text.
        let broken = "\u{0}ctxpack\u{1}1\u{1}x\u{0}";
        assert_eq!(split_external_refs(broken), vec![Piece::Text(broken)]);
        assert_eq!(split_external_refs(""), vec![]);
    }

    #[test]
    fn facts_of_an_in_memory_payload() {
        let f = payload_facts(&InMemory, "aGVsbG8=", 64);
        assert_eq!(f.head, b"hello");
        assert_eq!((f.len, f.decoded_len), (8, 5));
        assert!(f.valid.is_ok());
    }
}
