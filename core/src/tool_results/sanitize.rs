//! Binary out of tool results: finds base64 payloads and `data:` URLs
//! anywhere in a tool result (nested objects and arrays, known binary fields,
//! and any long string that is base64 by alphabet and length) and replaces
//! each with a short marker that names its size — and, when it was stashed,
//! its id. Long prose, code, JSON, hex digests, JWTs and minified JS are left
//! alone.

use crate::event_loop::Slicer;
use crate::json_path::JsonPath;
use crate::media::base64_payload::{check_base64, decode_prefix, decoded_len};
use crate::media::data_url::{is_data_url, DataUrl};
use crate::media::payload::{InMemory, Payloads};
use crate::media::sniff_mime;
use crate::tool_results::binary_text::{binary_mime, min_base64_len, mixes_like_encoded_binary};
use crate::tool_results::held_payload::{classify_held, held_reference, SNIFF_BYTES};
use serde_json::Value;

/// Fields known to carry binary payloads, whatever their length.
pub const KNOWN_BINARY_FIELDS: &[&str] = &[
    "imageBase64",
    "screenshotData",
    "pdfImages",
    "audioData",
    "videoData",
];

/// Default size above which any base64-looking string is treated as binary.
pub const DEFAULT_THRESHOLD_BYTES: usize = 10 * 1024;

/// Options of a sanitization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SanitizeOptions {
    /// Strings longer than this many bytes are checked for base64.
    pub threshold_bytes: usize,
    /// Further field names to treat as binary, beside [`KNOWN_BINARY_FIELDS`].
    pub extra_fields: Vec<String>,
}

impl Default for SanitizeOptions {
    fn default() -> Self {
        SanitizeOptions {
            threshold_bytes: DEFAULT_THRESHOLD_BYTES,
            extra_fields: Vec::new(),
        }
    }
}

pub use crate::messages::Seg;

/// A binary payload found in a value.
#[derive(Debug, Clone, PartialEq)]
pub struct Binary {
    /// Where it is.
    pub pointer: Vec<Seg>,
    /// The same, as a JSON path for reports.
    pub path: String,
    /// Byte range of the base64 payload inside the string (after `base64,` for data URLs).
    pub payload: (usize, usize),
    /// MIME type from the bytes, else as declared, else `application/octet-stream`.
    pub mime: String,
    /// Decoded size in bytes.
    pub size: u64,
    /// The payload's md5, when it was already read to find it (a payload
    /// held outside wasm memory is read once, not again to hash it).
    pub md5: Option<String>,
}

impl Binary {
    /// The payload text, read from `root`.
    pub fn payload_in<'a>(&self, root: &'a Value) -> Option<&'a str> {
        let s = pointer_get(root, &self.pointer)?.as_str()?;
        s.get(self.payload.0..self.payload.1)
    }
}

/// The value at `pointer` inside `root`.
pub fn pointer_get<'a>(root: &'a Value, pointer: &[Seg]) -> Option<&'a Value> {
    pointer.iter().try_fold(root, |v, seg| match seg {
        Seg::Key(k) => v.get(k.as_str()),
        Seg::Index(i) => v.get(*i),
    })
}

/// The value at `pointer` inside `root`, for writing.
pub fn pointer_get_mut<'a>(root: &'a mut Value, pointer: &[Seg]) -> Option<&'a mut Value> {
    pointer.iter().try_fold(root, |v, seg| match seg {
        Seg::Key(k) => v.get_mut(k.as_str()),
        Seg::Index(i) => v.get_mut(*i),
    })
}

/// Finds every binary payload in `root`, walking iteratively (no recursion,
/// so nesting depth cannot overflow the stack). `base` is `root`'s JSON path.
pub fn find_binaries(
    root: &Value,
    options: &SanitizeOptions,
    base: &JsonPath,
    payloads: &dyn Payloads,
) -> Vec<Binary> {
    let walk = Strings::of(root, options);
    walk.strings
        .iter()
        .filter_map(|&(s, step, known)| {
            let b = classify(s, known, options.threshold_bytes, payloads)?;
            Some(walk.place(b, step, base))
        })
        .collect()
}

/// As [`find_binaries`], letting the host run (see [`Slicer`]) after each
/// payload held outside wasm memory, whose facts the host may read a piece
/// at a time first (see [`Payloads::prepare_facts`]).
pub async fn find_binaries_sliced(
    root: &Value,
    options: &SanitizeOptions,
    base: &JsonPath,
    payloads: &dyn Payloads,
    slicer: &Slicer<'_>,
) -> Vec<Binary> {
    let walk = Strings::of(root, options);
    let mut found = Vec::new();
    for &(s, step, known) in &walk.strings {
        if let Some((_, reference)) = held_reference(s) {
            payloads.prepare_facts(reference, SNIFF_BYTES, slicer).await;
        }
        if let Some(b) = classify(s, known, options.threshold_bytes, payloads) {
            found.push(walk.place(b, step, base));
        }
        if crate::media::payload::find_external_ref(s).is_some() {
            slicer.checkpoint().await;
        }
    }
    found
}

/// Every string of a value, in document order, with the container step
/// that holds it and whether it sits under a known binary field.
struct Strings<'v> {
    /// Each visited container step: (parent step, segment). Paths are
    /// rebuilt only for what is found, so memory stays linear in the size
    /// of the value.
    steps: Vec<(usize, Seg)>,
    strings: Vec<(&'v str, usize, bool)>,
}

const ROOT: usize = usize::MAX;

impl<'v> Strings<'v> {
    fn of(root: &'v Value, options: &SanitizeOptions) -> Self {
        let mut walk = Strings {
            steps: Vec::new(),
            strings: Vec::new(),
        };
        let mut stack: Vec<(&Value, usize, bool)> = vec![(root, ROOT, false)];
        while let Some((value, step, known)) = stack.pop() {
            match value {
                Value::String(s) => walk.strings.push((s, step, known)),
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate().rev() {
                        walk.steps.push((step, Seg::Index(i)));
                        stack.push((item, walk.steps.len() - 1, known));
                    }
                }
                Value::Object(map) => {
                    let entries: Vec<_> = map.iter().collect();
                    for (k, v) in entries.into_iter().rev() {
                        let is_known = KNOWN_BINARY_FIELDS.contains(&k.as_str())
                            || options.extra_fields.iter().any(|f| f == k);
                        walk.steps.push((step, Seg::Key(k.clone())));
                        stack.push((v, walk.steps.len() - 1, known || is_known));
                    }
                }
                _ => {}
            }
        }
        walk
    }

    /// `b`, found in the string at `step`, with its pointer and path.
    fn place(&self, b: Binary, step: usize, base: &JsonPath) -> Binary {
        let mut pointer = Vec::new();
        let mut at = step;
        while at != ROOT {
            pointer.push(self.steps[at].1.clone());
            at = self.steps[at].0;
        }
        pointer.reverse();
        let path = pointer.iter().fold(base.clone(), |p, seg| match seg {
            Seg::Key(k) => p.key(k),
            Seg::Index(i) => p.index(*i),
        });
        Binary {
            pointer,
            path: path.to_string(),
            ..b
        }
    }
}

/// Decides whether one string is a binary payload.
fn classify(
    s: &str,
    known_field: bool,
    threshold: usize,
    payloads: &dyn Payloads,
) -> Option<Binary> {
    // A string held outside wasm memory: judge the text it stands for, by
    // its facts where they tell, else by reading it whole.
    if let Some((start, reference)) = held_reference(s) {
        if let Some(verdict) =
            classify_held(&s[..start], reference, known_field, threshold, payloads)
        {
            return verdict.map(|found| Binary {
                md5: Some(found.md5),
                ..blank(start, s.len(), found.mime, found.size)
            });
        }
    }
    if let Some((before, _, _)) = crate::media::payload::find_external_ref(s) {
        return classify_read_whole(s, before.len(), known_field, threshold, payloads);
    }
    classify_text(s, known_field, threshold)
}

/// Decides whether string `s`, whose held text starts at byte `start`, is a
/// binary payload by reading that text whole: the verdict on the string it
/// stands in for (the text before it and the held text), as if it were all
/// in memory.
pub(super) fn classify_read_whole(
    s: &str,
    start: usize,
    known_field: bool,
    threshold: usize,
    payloads: &dyn Payloads,
) -> Option<Binary> {
    let mut verdict = None;
    payloads.with_full(s, &mut |text| {
        // Copied only when a header comes before the held text.
        let full: std::borrow::Cow<str> = match &s[..start] {
            "" => text.into(),
            before => [before, text].concat().into(),
        };
        verdict = classify_text(&full, known_field, threshold).map(|b| {
            let md5 = full
                .get(b.payload.0..b.payload.1)
                .map(|p| crate::hash::md5_hex(p.as_bytes()));
            (b, md5)
        })
    });
    let (b, md5) = verdict?;
    Some(Binary {
        md5,
        ..blank(start, s.len(), b.mime, b.size)
    })
}

/// A binary found at `start..end` of its string, not yet placed.
fn blank(start: usize, end: usize, mime: String, size: u64) -> Binary {
    Binary {
        pointer: Vec::new(),
        path: String::new(),
        payload: (start, end),
        mime,
        size,
        md5: None,
    }
}

/// Decides whether a string in memory is a binary payload. A string holding
/// U+0000 never is (no base64 alphabet has it, and it begins a payload
/// reference, which caller text must never be taken for).
pub(super) fn classify_text(s: &str, known_field: bool, threshold: usize) -> Option<Binary> {
    if s.contains('\u{0}') {
        return None;
    }
    if is_data_url(s) {
        if !known_field && s.len() <= threshold {
            return None;
        }
        let d = DataUrl::parse(s).ok()?;
        let start = s.len() - d.payload.len();
        let mime = binary_mime(sniff(d.payload), d.mime);
        return Some(blank(start, s.len(), mime, decoded_len(d.payload) as u64));
    }
    if s.len() < min_base64_len(known_field, threshold) || !looks_like_base64(s) {
        return None;
    }
    let mime = binary_mime(sniff(s), "");
    Some(blank(0, s.len(), mime, decoded_len(s) as u64))
}

fn sniff(payload: &str) -> Option<&'static str> {
    sniff_mime(&decode_prefix(payload, SNIFF_BYTES))
}

/// True for standard base64 text: only the base64 alphabet, correctly
/// padded, a multiple of four long, mixing upper case, lower case and digits
/// (as encoded binary does) and not just hexadecimal digits (a hex digest or
/// dump is not base64).
pub fn looks_like_base64(s: &str) -> bool {
    s.len() % 4 == 0 && check_base64(s).is_ok() && mixes_like_encoded_binary(s.as_bytes())
}

/// The marker for a payload that was stashed: `[Binary:history_<md5> image/png 512.0KB]`.
pub fn stashed_marker(md5: &str, mime: &str, size: u64) -> String {
    format!("[Binary:history_{md5} {mime} {}]", kb(size))
}

/// The marker for a payload that was dropped: `[BINARY_DATA_FILTERED: 512.0KB]`.
pub fn filtered_marker(size: u64) -> String {
    format!("[BINARY_DATA_FILTERED: {}]", kb(size))
}

fn kb(size: u64) -> String {
    format!("{}KB", crate::media::type_names::one_decimal(size, 1024))
}

/// Replaces each string at a pointer with its marker. Returns how many were
/// replaced. A payload that is an MCP content block's own (`{type:'image' |
/// 'audio', data, mimeType}`) takes its block with it: the block becomes a
/// text block holding the marker, since an image block whose `data` is not
/// base64 is invalid. An embedded resource's `blob` becomes its `text`.
pub fn replace_binaries(root: &mut Value, replacements: Vec<(Vec<Seg>, String)>) -> usize {
    let mut n = 0;
    for (pointer, marker) in replacements {
        if let Some((Seg::Key(key), parent)) = pointer.split_last() {
            if let Some(Value::Object(block)) = pointer_get_mut(root, parent) {
                if let Some(text_block) = mcp_text_block(block, key, &marker) {
                    *block = text_block;
                    n += 1;
                    continue;
                }
            }
        }
        if let Some(slot) = pointer_get_mut(root, &pointer) {
            *slot = Value::String(marker);
            n += 1;
        }
    }
    n
}

/// What an MCP block becomes once its payload under `key` is replaced by
/// `marker`; `None` when the block is not one whose payload is its own.
fn mcp_text_block(
    block: &serde_json::Map<String, Value>,
    key: &str,
    marker: &str,
) -> Option<serde_json::Map<String, Value>> {
    let kind = block.get("type").and_then(Value::as_str);
    let mut out = serde_json::Map::new();
    match key {
        "data" if matches!(kind, Some("image" | "audio")) && block.contains_key("mimeType") => {
            out.insert("type".into(), "text".into());
            out.insert("text".into(), marker.into());
            for keep in ["annotations", "_meta"] {
                if let Some(v) = block.get(keep) {
                    out.insert(keep.into(), v.clone());
                }
            }
        }
        "blob" if block.get("uri").is_some_and(Value::is_string) => {
            for (k, v) in block {
                if k == "blob" {
                    out.insert("text".into(), marker.into());
                } else {
                    out.insert(k.clone(), v.clone());
                }
            }
        }
        _ => return None,
    }
    Some(out)
}

/// Sanitizes without a stash: every binary payload becomes
/// `[BINARY_DATA_FILTERED: <size>]`. Returns the value and how many were replaced.
pub fn filter_value(mut root: Value, options: &SanitizeOptions) -> (Value, usize) {
    let found = find_binaries(&root, options, &JsonPath::root("result"), &InMemory);
    let replacements = found
        .into_iter()
        .map(|b| (b.pointer, filtered_marker(b.size)))
        .collect();
    let n = replace_binaries(&mut root, replacements);
    (root, n)
}

#[cfg(test)]
#[path = "sanitize_tests.rs"]
mod tests;
