//! Link syntax shared by inline links and reference definitions:
//! destinations, titles, labels and the definitions themselves.

use super::entities::scan_entity;

/// Parentheses a bare destination may nest, as in pulldown-cmark and cmark.
const MAX_NESTED_PARENS: usize = 32;

/// A link target: destination and title, both decoded.
#[derive(Debug, Clone, Default)]
pub(super) struct LinkTarget {
    /// Destination with escapes and entities decoded.
    pub(super) url: String,
    /// Title with escapes and entities decoded; empty when absent.
    pub(super) title: String,
}

/// Reference definitions of a document by normalized label, each with its
/// position in the document; the first definition of a label wins.
/// Collected in document order, then sorted once for lookups (a sorted
/// vector costs less code than a map).
#[derive(Default)]
pub(super) struct Definitions(Vec<(String, usize, LinkTarget)>);

impl Definitions {
    /// Records a definition; call [`Definitions::seal`] before lookups.
    pub(super) fn insert(&mut self, label: &str, target: LinkTarget) {
        self.0.push((fold_label(label), self.0.len(), target));
    }

    /// Sorts by label, keeping the first definition of each. A heap sort
    /// on (label, position) keeps the code small and the order stable.
    pub(super) fn seal(&mut self) {
        crate::heap_sort::heap_sort(&mut self.0, |a, b| {
            (a.0.as_str(), a.1) < (b.0.as_str(), b.1)
        });
        self.0.dedup_by(|later, earlier| later.0 == earlier.0);
    }

    /// The definition for `label` (as scanned, not yet folded).
    pub(super) fn get(&self, label: &str) -> Option<&LinkTarget> {
        if self.0.is_empty() {
            return None;
        }
        let key = fold_label(label);
        let i = self.0.binary_search_by(|d| d.0.as_str().cmp(&key)).ok()?;
        self.0.get(i).map(|d| &d.2)
    }
}

/// Case-folds a label for matching. Full Unicode case folding needs tables
/// that would cost more than this whole scanner, so this folds ASCII,
/// Latin-1, Greek and Cyrillic capitals and the sharp s, the letters chat
/// labels realistically use; other scripts match only as written.
fn fold_label(label: &str) -> String {
    let mut out = String::with_capacity(label.len());
    for c in label.chars() {
        let cp = c as u32;
        let folded = match cp {
            0x41..=0x5a | 0xc0..=0xd6 | 0xd8..=0xde | 0x391..=0x3a1 | 0x3a3..=0x3ab => cp + 0x20,
            0x410..=0x42f => cp + 0x20,
            0x400..=0x40f => cp + 0x50,
            0x3c2 => 0x3c3,
            0xdf | 0x1e9e => {
                out.push_str("ss");
                continue;
            }
            _ => cp,
        };
        out.push(char::from_u32(folded).unwrap_or(c));
    }
    out
}

/// Space, tab, line tabulation and form feed.
pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | 0x0b | 0x0c)
}

/// [`is_space`] or a line ending.
pub(super) fn is_whitespace(b: u8) -> bool {
    is_space(b) || b == b'\n' || b == b'\r'
}

/// Bytes of `is_space` at the start of `bytes`.
pub(super) fn count_spaces(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|b| is_space(**b)).count()
}

/// How many times `c` repeats at the start of `bytes` (one routine for the
/// many runs the scanner measures).
#[inline(never)]
pub(super) fn run_of(bytes: &[u8], c: u8) -> usize {
    bytes.iter().take_while(|&&b| b == c).count()
}

/// Scans a link destination at `text[start..]`: `<…>` or a bare run with
/// balanced parentheses. Returns its length and raw (undecoded) text.
pub(super) fn scan_destination(text: &str, start: usize) -> Option<(usize, &str)> {
    let bytes = text.as_bytes().get(start..)?;
    if bytes.first() == Some(&b'<') {
        let mut i = 1;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'\n' | b'\r' | b'<' => return None,
                b'>' => return Some((i + 1, text.get(start + 1..start + i)?)),
                b'\\' if bytes.get(i + 1).is_some_and(u8::is_ascii_punctuation) => i += 1,
                _ => {}
            }
            i += 1;
        }
        return None;
    }
    let mut nest = 0;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            0..=b' ' => break,
            b'(' => {
                if nest > MAX_NESTED_PARENS {
                    return None;
                }
                nest += 1;
            }
            b')' => {
                if nest == 0 {
                    break;
                }
                nest -= 1;
            }
            b'\\' if bytes.get(i + 1).is_some_and(u8::is_ascii_punctuation) => i += 1,
            _ => {}
        }
        i += 1;
    }
    if nest != 0 {
        return None;
    }
    Some((i, text.get(start..start + i)?))
}

/// Decodes backslash escapes and character references, dropping carriage
/// returns.
pub(super) fn unescape(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut mark = 0;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' if bytes.get(i + 1).is_some_and(u8::is_ascii_punctuation) => {
                out.push_str(text.get(mark..i).unwrap_or_default());
                mark = i + 1;
                i += 2;
            }
            b'&' => match scan_entity(bytes.get(i..).unwrap_or_default()) {
                Some((n, value)) => {
                    out.push_str(text.get(mark..i).unwrap_or_default());
                    value.push_to(&mut out);
                    i += n;
                    mark = i;
                }
                None => i += 1,
            },
            b'\r' => {
                out.push_str(text.get(mark..i).unwrap_or_default());
                i += 1;
                mark = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(text.get(mark..).unwrap_or_default());
    out
}

/// Scans the rest of a link label, `text` starting just after its `[`.
/// Returns the length including the closing `]` and the label with
/// whitespace runs collapsed and ends trimmed. Fails on an unescaped `[`,
/// a blank label, a blank line or one past the length limit (counted the
/// way pulldown-cmark counts it).
pub(super) fn scan_label(text: &str) -> Option<(usize, String)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut only_whitespace = true;
    let mut counted = 0;
    let mut label = String::new();
    let mut mark = 0;
    loop {
        if counted >= 1000 {
            return None;
        }
        match *bytes.get(i)? {
            b'[' => return None,
            b']' => break,
            b'\\' if bytes.get(i + 1)?.is_ascii_punctuation() => {
                i += 2;
                counted += 2;
                only_whitespace = false;
            }
            b if is_whitespace(b) => {
                let run_start = i;
                let mut weight = 0;
                let mut line_endings = 0;
                while bytes.get(i).is_some_and(|b| is_whitespace(*b)) {
                    if bytes[i] == b'\n' || bytes[i] == b'\r' {
                        line_endings += 1;
                        if line_endings > 1 {
                            return None;
                        }
                        i += if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                            2
                        } else {
                            1
                        };
                        weight += 2;
                    } else {
                        weight += if bytes[i] == b' ' { 1 } else { 2 };
                        i += 1;
                    }
                }
                if weight > 1 {
                    label.push_str(text.get(mark..run_start)?);
                    label.push(' ');
                    mark = i;
                    counted += i - run_start;
                } else {
                    counted += 1;
                }
            }
            b => {
                only_whitespace = false;
                i += 1;
                if b >= 0x80 {
                    counted += 1;
                }
            }
        }
    }
    if only_whitespace {
        return None;
    }
    label.push_str(text.get(mark..i)?);
    let kept = |b: &u8| !matches!(b, b' ' | b'\r' | b'\n' | b'\t');
    let start = label.bytes().position(|b| kept(&b)).unwrap_or(label.len());
    let end = label
        .as_bytes()
        .iter()
        .rposition(kept)
        .map_or(start, |e| e + 1);
    Some((i + 1, label.get(start..end).unwrap_or_default().to_owned()))
}

/// Scans a link title at `text[start..]`: `"…"`, `'…'` or `(…)`, possibly
/// over several lines, and returns its length and decoded value.
///
/// In an inline link (`definition` false) only `\n` ends a line (a `\r`
/// stays in the value) and each continuation line's leading
/// [`is_space`] bytes are dropped. In a reference definition a `\r` ends a
/// line too, each line ending becomes `\n`, only spaces and tabs are
/// dropped, and a blank line ends the definition: no title.
pub(super) fn scan_title(text: &str, start: usize, definition: bool) -> Option<(usize, String)> {
    let bytes = text.as_bytes();
    let open = *bytes.get(start)?;
    let close = match open {
        b'"' | b'\'' => open,
        b'(' => b')',
        _ => return None,
    };
    let mut title = String::new();
    let mut mark = start + 1;
    let mut i = start + 1;
    while let Some(&c) = bytes.get(i) {
        if c == close {
            title.push_str(text.get(mark..i)?);
            return Some((i + 1 - start, title));
        }
        if c == open {
            return None;
        }
        match c {
            b'\n' | b'\r' if c == b'\n' || definition => {
                title.push_str(text.get(mark..i)?);
                title.push('\n');
                i += if bytes.get(i..i + 2) == Some(b"\r\n") {
                    2
                } else {
                    1
                };
                let rest = bytes.get(i..)?;
                if definition {
                    i += rest
                        .iter()
                        .take_while(|b| **b == b' ' || **b == b'\t')
                        .count();
                    if matches!(
                        bytes.get(i + count_spaces(bytes.get(i..)?)),
                        None | Some(b'\n' | b'\r')
                    ) {
                        return None;
                    }
                } else {
                    i += count_spaces(rest);
                }
                mark = i;
                continue;
            }
            b'&' => {
                if let Some((n, value)) = scan_entity(bytes.get(i..)?) {
                    title.push_str(text.get(mark..i)?);
                    value.push_to(&mut title);
                    i += n;
                    mark = i;
                    continue;
                }
            }
            b'\\' if bytes.get(i + 1).is_some_and(u8::is_ascii_punctuation) => {
                title.push_str(text.get(mark..i)?);
                i += 1;
                mark = i;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Whitespace (no more than one line ending) after `i`: the position past
/// it and the number of line endings crossed, the end of `text` counting
/// as one.
fn scan_definition_space(bytes: &[u8], mut i: usize) -> Option<(usize, usize)> {
    let mut line_endings = 0;
    loop {
        i += count_spaces(bytes.get(i..)?);
        match bytes.get(i) {
            Some(b'\n' | b'\r') => {
                i += if bytes.get(i..i + 2) == Some(b"\r\n") {
                    2
                } else {
                    1
                };
                line_endings += 1;
                if line_endings > 1 {
                    return None;
                }
            }
            None => return Some((i, line_endings + 1)),
            _ => return Some((i, line_endings)),
        }
    }
}

/// A reference definition at the start of `text` (a paragraph's lines
/// joined by `\n`): where it ends and its label and target.
pub(super) fn scan_definition(text: &str) -> Option<(usize, String, LinkTarget)> {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'[') {
        return None;
    }
    let (label_len, label) = scan_label(text.get(1..)?)?;
    let mut i = 1 + label_len;
    if bytes.get(i) != Some(&b':') {
        return None;
    }
    i += 1;
    let (dest_start, _) = scan_definition_space(bytes, i)?;
    let (dest_len, dest) = scan_destination(text, dest_start)?;
    if dest_len == 0 {
        return None;
    }
    let url = unescape(dest);
    i = dest_start + dest_len;
    let untitled = |end| {
        Some((
            end,
            label.clone(),
            LinkTarget {
                url: url.clone(),
                title: String::new(),
            },
        ))
    };
    let Some((title_start, line_endings)) = scan_definition_space(bytes, i) else {
        return untitled(i);
    };
    if title_start == i && line_endings == 0 {
        return None;
    }
    if line_endings > 1 {
        return untitled(i);
    }
    if let Some((title_len, title)) = scan_title(text, title_start, true) {
        let end = title_start + title_len;
        let rest = bytes.get(end..)?;
        if matches!(rest.get(count_spaces(rest)), None | Some(b'\n' | b'\r')) {
            return Some((end, label, LinkTarget { url, title }));
        }
    }
    if line_endings > 0 {
        untitled(i)
    } else {
        None
    }
}
