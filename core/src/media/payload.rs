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

/// What a kept JavaScript value is, as its reference says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeptKind {
    /// A string: a long payload, or caller text that must stay in JavaScript.
    Text,
    /// Binary data, read as the base64 text of its bytes.
    Bytes(BytesKind),
    /// Any other value (a `URL`, a date, a class instance): passed through.
    Opaque,
}

/// The JavaScript type of a binary value, so a restored image comes back as
/// the same kind of value it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BytesKind {
    /// A `Uint8Array`.
    Uint8Array,
    /// A Node.js `Buffer`.
    Buffer,
    /// An `ArrayBuffer`.
    ArrayBuffer,
}

impl BytesKind {
    /// The one-letter tag of this kind inside a reference.
    fn tag(self) -> char {
        match self {
            BytesKind::Uint8Array => 'u',
            BytesKind::Buffer => 'b',
            BytesKind::ArrayBuffer => 'a',
        }
    }

    fn from_tag(tag: &str) -> Option<BytesKind> {
        Some(match tag {
            "u" => BytesKind::Uint8Array,
            "b" => BytesKind::Buffer,
            "a" => BytesKind::ArrayBuffer,
            _ => return None,
        })
    }

    /// The JavaScript type name (`"Uint8Array"`, `"Buffer"`, `"ArrayBuffer"`).
    pub fn name(self) -> &'static str {
        match self {
            BytesKind::Uint8Array => "Uint8Array",
            BytesKind::Buffer => "Buffer",
            BytesKind::ArrayBuffer => "ArrayBuffer",
        }
    }

    /// The kind named by [`BytesKind::name`].
    pub fn from_name(name: &str) -> Option<BytesKind> {
        Some(match name {
            "Uint8Array" => BytesKind::Uint8Array,
            "Buffer" => BytesKind::Buffer,
            "ArrayBuffer" => BytesKind::ArrayBuffer,
            _ => return None,
        })
    }
}

/// The reference that stands for payload `index` of table `table`.
pub fn external_ref(table: u32, index: u32) -> String {
    format!("{START}{table}\u{1}{index}\u{0}")
}

/// The reference that stands for value `index` of table `table`, a value of
/// `kind` (a string reference is [`external_ref`]).
pub fn kept_ref(table: u32, index: u32, kind: KeptKind) -> String {
    match kind {
        KeptKind::Text => external_ref(table, index),
        KeptKind::Bytes(b) => format!("{START}{table}\u{1}{index}\u{1}{}\u{0}", b.tag()),
        KeptKind::Opaque => format!("{START}{table}\u{1}{index}\u{1}o\u{0}"),
    }
}

/// Reads a whole reference: `(table, index, kind)`.
pub fn parse_kept_ref(s: &str) -> Option<(u32, u32, KeptKind)> {
    let rest = s.strip_prefix(START)?.strip_suffix('\u{0}')?;
    let mut fields = rest.split('\u{1}');
    let table = fields.next()?.parse().ok()?;
    let index = fields.next()?.parse().ok()?;
    let kind = match fields.next() {
        None => KeptKind::Text,
        Some("o") => KeptKind::Opaque,
        Some(tag) => KeptKind::Bytes(BytesKind::from_tag(tag)?),
    };
    if fields.next().is_some() {
        return None;
    }
    Some((table, index, kind))
}

/// Reads a reference made by [`external_ref`] or [`kept_ref`]: `(table, index)`.
pub fn parse_external_ref(s: &str) -> Option<(u32, u32)> {
    parse_kept_ref(s).map(|(t, i, _)| (t, i))
}

/// The kind of value `s` stands for, when `s` is a whole reference.
pub fn kept_kind(s: &str) -> Option<KeptKind> {
    parse_kept_ref(s).map(|(_, _, k)| k)
}

/// Marks a literal base64 payload that is to become binary data of a kind.
const BYTES_LITERAL: &str = "\u{0}ctxpack\u{1}=\u{1}";

/// A value the boundary turns into binary data of `kind` holding the bytes
/// of base64 `payload`: the payload's own reference retagged when it is
/// one, else the payload text itself, marked.
pub fn bytes_value(kind: BytesKind, payload: &str) -> String {
    match parse_kept_ref(payload) {
        Some((t, i, KeptKind::Text | KeptKind::Bytes(_))) => kept_ref(t, i, KeptKind::Bytes(kind)),
        _ => format!("{BYTES_LITERAL}{}\u{1}{payload}\u{0}", kind.tag()),
    }
}

/// Reads what [`bytes_value`] wrote for a literal payload: `(kind, base64)`.
pub fn parse_bytes_literal(s: &str) -> Option<(BytesKind, &str)> {
    let rest = s.strip_prefix(BYTES_LITERAL)?.strip_suffix('\u{0}')?;
    let (tag, payload) = rest.split_once('\u{1}')?;
    Some((BytesKind::from_tag(tag)?, payload))
}

/// The base64 payload a value of [`bytes_value`] or a bytes reference
/// stands for, when it is held in memory (a literal); `None` otherwise.
pub fn literal_bytes_payload(s: &str) -> Option<&str> {
    parse_bytes_literal(s).map(|(_, p)| p)
}

/// Finds the reference that ends `s` (a whole reference, or a data URL whose
/// payload is one): `(text before it, table, index)`.
pub fn find_external_ref(s: &str) -> Option<(&str, u32, u32)> {
    // A reference ends with U+0000: any other text (every caller's text, and
    // a payload of megabytes) is answered without being searched.
    if !s.ends_with('\u{0}') {
        return None;
    }
    let at = find_start(s)?;
    let (t, i) = parse_external_ref(&s[at..])?;
    Some((&s[..at], t, i))
}

/// Where the first reference in `s` may begin: its U+0000 is found with a
/// byte search (`memchr`), which a long text passes through many times faster
/// than the two-way search `str::find` makes for a string pattern.
fn find_start(s: &str) -> Option<usize> {
    let mut at = 0;
    while let Some(found) = s[at..].find('\u{0}') {
        let begin = at + found;
        if s[begin..].starts_with(START) {
            return Some(begin);
        }
        at = begin + 1;
    }
    None
}

/// One piece of a string that may hold references: text, or a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'a> {
    /// The caller's text between references, as it lies in the string.
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
    while let Some(found) = find_start(&rest[at..]) {
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

    /// The text of `s` when it is loose: a string held only so that a
    /// search for binary (in tool results) can read it in pieces, which is
    /// not a payload of its format. The text is what reading the string
    /// would have given. `None` for anything else.
    fn loose_text(&self, s: &str) -> Option<String> {
        let _ = s;
        None
    }

    /// The text `s` stands for when it is in wasm memory behind a
    /// reference (a request body's payload): what a stash record holds.
    /// `None` for anything else, `s` itself included.
    fn in_memory<'s>(&'s self, s: &'s str) -> Option<&'s str> {
        let _ = s;
        None
    }

    /// The length in bytes of the text `s` stands for, without reading it.
    fn text_len(&self, s: &str) -> usize {
        s.len()
    }

    /// The facts of payload `s` (see [`payload_facts`]). An implementation
    /// may compute them without bringing the whole text into wasm memory.
    fn facts(&self, s: &str, head_bytes: usize) -> PayloadFacts {
        facts_of_text(self, s, head_bytes)
    }

    /// The sizes and first `head_bytes` decoded bytes of payload `s`, without
    /// hashing or checking it: what an estimate needs.
    fn head(&self, s: &str, head_bytes: usize) -> PayloadHead {
        head_of_text(self, s, head_bytes)
    }

    /// The host's event loop, when the flows reading these payloads should
    /// stop between images to let it run (see [`crate::event_loop`]).
    fn event_loop(&self) -> Option<&dyn crate::event_loop::EventLoop> {
        None
    }

    /// The base64 PNG showing placeholder `text`, for a place that takes a
    /// picture and nothing else (a Responses `computer_call_output`, a
    /// Gemini `functionResponse.parts` entry). By default the core's own
    /// drawing ([`super::text_png::picture_of`], `None` in a build without
    /// the `picture` feature); a host without it draws the picture itself.
    /// `None` leaves the placeholder as text there.
    fn placeholder_picture(&self, text: &str) -> Option<String> {
        super::text_png::picture_of(text)
    }

    /// Reads the facts of payload `s` ahead of [`Payloads::facts`], letting
    /// the host run while a large payload is read (a
    /// [`crate::event_loop::Slicer`] checkpoint between pieces, see
    /// [`crate::media::FactsReader`]); the next `facts` of `s` in this call
    /// finds them. By default nothing: the text is read when `facts` asks.
    fn prepare_facts<'a>(
        &'a self,
        _s: &'a str,
        _head_bytes: usize,
        _slicer: &'a crate::event_loop::Slicer<'a>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + 'a>> {
        Box::pin(std::future::ready(()))
    }
}

/// The head of `s`, read from its full text.
pub fn head_of_text<P: Payloads + ?Sized>(payloads: &P, s: &str, head_bytes: usize) -> PayloadHead {
    let mut out = PayloadHead::default();
    payloads.with_full(s, &mut |text| {
        out = PayloadHead {
            len: text.len(),
            decoded_len: decoded_len(text),
            head: decode_prefix(text, head_bytes),
        };
    });
    out
}

/// A payload's sizes and leading bytes (see [`Payloads::head`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PayloadHead {
    /// Length of the text in bytes.
    pub len: usize,
    /// Decoded size in bytes.
    pub decoded_len: usize,
    /// The first decoded bytes.
    pub head: Vec<u8>,
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
    fn kept_references_carry_their_kind() {
        for kind in [
            KeptKind::Text,
            KeptKind::Opaque,
            KeptKind::Bytes(BytesKind::Uint8Array),
            KeptKind::Bytes(BytesKind::Buffer),
            KeptKind::Bytes(BytesKind::ArrayBuffer),
        ] {
            let r = kept_ref(4, 9, kind);
            assert_eq!(parse_kept_ref(&r), Some((4, 9, kind)));
            assert_eq!(find_external_ref(&r), Some(("", 4, 9)));
            assert!(!r.contains(':'));
        }
        assert_eq!(parse_kept_ref("\u{0}ctxpack\u{1}1\u{1}2\u{1}z\u{0}"), None);
        assert_eq!(
            parse_kept_ref("\u{0}ctxpack\u{1}1\u{1}2\u{1}u\u{1}u\u{0}"),
            None
        );
        for kind in [
            BytesKind::Uint8Array,
            BytesKind::Buffer,
            BytesKind::ArrayBuffer,
        ] {
            assert_eq!(BytesKind::from_name(kind.name()), Some(kind));
            // A referenced payload keeps its reference, retagged.
            assert_eq!(
                kept_kind(&bytes_value(kind, &external_ref(2, 3))),
                Some(KeptKind::Bytes(kind))
            );
            // A payload in memory is carried as a literal.
            let lit = bytes_value(kind, "aGVsbG8=");
            assert_eq!(parse_bytes_literal(&lit), Some((kind, "aGVsbG8=")));
            assert_eq!(parse_kept_ref(&lit), None);
        }
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
    fn a_reference_is_found_past_lone_nulls_and_only_where_it_ends_the_text() {
        let r = external_ref(5, 6);
        // U+0000 that begins no reference is passed over, in both searches.
        let s = format!("a\u{0}b\u{0}ctxpack{r}");
        assert_eq!(find_external_ref(&s), Some(("a\u{0}b\u{0}ctxpack", 5, 6)));
        assert_eq!(
            split_external_refs(&s),
            vec![Piece::Text("a\u{0}b\u{0}ctxpack"), Piece::Ref(5, 6)]
        );
        // Not at the end, or after an earlier lead that begins none: none.
        assert_eq!(find_external_ref(&format!("{r}x")), None);
        assert_eq!(find_external_ref(&format!("{r}\u{0}")), None);
        let early = format!("\u{0}ctxpack\u{1}x{r}");
        assert_eq!(find_external_ref(&early), None);
        assert_eq!(
            split_external_refs(&early),
            vec![Piece::Text("\u{0}ctxpack\u{1}x"), Piece::Ref(5, 6)]
        );
        // A long text, with and without a reference at its end.
        let long = "QUJD".repeat(1 << 18);
        assert_eq!(find_external_ref(&long), None);
        let held = format!("data:image/png;base64,{long}{r}");
        assert_eq!(
            find_external_ref(&held).map(|(_, t, i)| (t, i)),
            Some((5, 6))
        );
    }

    #[test]
    fn facts_of_an_in_memory_payload() {
        let f = payload_facts(&InMemory, "aGVsbG8=", 64);
        assert_eq!(f.head, b"hello");
        assert_eq!((f.len, f.decoded_len), (8, 5));
        assert!(f.valid.is_ok());
    }
}
