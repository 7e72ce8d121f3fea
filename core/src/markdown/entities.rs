//! Character references: `&name;` for the named entities of HTML 4 (and
//! `&apos;`), with their HTML5 values, and numeric `&#123;` / `&#x1F600;`.
//!
//! CommonMark accepts all 2,125 HTML5 names; that table costs about 12 KB of
//! the gzipped wasm, more than the rest of this module's data together. The
//! 253 HTML 4 names are the ones people type (`&amp;`, `&nbsp;`, `&eacute;`,
//! `&rarr;`, `&hearts;` …); a name only HTML5 knows (`&check;`, `&bigstar;`,
//! `&NewLine;`) stays literal text, as an unknown name does in CommonMark.

/// The HTML 4 entity names and `apos`, one `name\tvalue\n` record per line,
/// sorted by name. A single string keeps the table free of the pointer pairs
/// a slice of tuples would need.
const TABLE: &str = include_str!("entities.txt");

/// The character reference at the start of `bytes` (which begins with `&`):
/// its length in bytes and its value, or `None` when it is not one.
/// Numeric references that name no character (zero, surrogates, past
/// U+10FFFF) decode to U+FFFD.
pub(super) fn scan_entity(bytes: &[u8]) -> Option<(usize, Decoded)> {
    let mut end = 1;
    if bytes.get(end) == Some(&b'#') {
        end += 1;
        let hex = bytes.get(end).is_some_and(|b| b | 0x20 == b'x');
        if hex {
            end += 1;
        }
        let (radix, limit) = if hex { (16, 6) } else { (10, 7) };
        let mut code = 0u32;
        let mut digits = 0;
        while let Some(d) = bytes
            .get(end + digits)
            .and_then(|&b| (b as char).to_digit(radix))
            .filter(|_| digits < limit)
        {
            code = code * radix + d;
            digits += 1;
        }
        end += digits;
        if digits == 0 || bytes.get(end) != Some(&b';') {
            return None;
        }
        let c = match code {
            0 => '\u{FFFD}',
            _ => char::from_u32(code).unwrap_or('\u{FFFD}'),
        };
        return Some((end + 1, Decoded::Char(c)));
    }
    let name_len = bytes
        .get(1..)
        .unwrap_or_default()
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    end += name_len;
    if bytes.get(end) != Some(&b';') {
        return None;
    }
    let name = bytes.get(1..end)?;
    named(name).map(|value| (end + 1, Decoded::Str(value)))
}

/// A decoded character reference.
#[derive(Clone, Copy)]
pub(super) enum Decoded {
    /// A numeric reference.
    Char(char),
    /// A named reference's value.
    Str(&'static str),
}

impl Decoded {
    /// Appends the value to `out`.
    pub(super) fn push_to(self, out: &mut String) {
        match self {
            Decoded::Char(c) => out.push(c),
            Decoded::Str(s) => out.push_str(s),
        }
    }
}

/// The value of the named entity `name` (without `&` and `;`), by binary
/// search over the records of [`TABLE`].
fn named(name: &[u8]) -> Option<&'static str> {
    let table = TABLE.as_bytes();
    let (mut lo, mut hi) = (0, table.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        // The record holding `mid` starts after the previous line ending.
        let start = table
            .get(lo..mid)?
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(lo, |i| lo + i + 1);
        let end = start + table.get(start..hi)?.iter().position(|&b| b == b'\n')?;
        let tab = start + table.get(start..end)?.iter().position(|&b| b == b'\t')?;
        match table.get(start..tab)?.cmp(name) {
            std::cmp::Ordering::Equal => return TABLE.get(tab + 1..end),
            std::cmp::Ordering::Less => lo = end + 1,
            std::cmp::Ordering::Greater => hi = start,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(s: &str) -> Option<(usize, String)> {
        scan_entity(s.as_bytes()).map(|(n, d)| {
            let mut out = String::new();
            d.push_to(&mut out);
            (n, out)
        })
    }

    #[test]
    fn every_table_record_is_found() {
        for line in TABLE.lines() {
            let (name, value) = line.split_once('\t').unwrap();
            assert_eq!(named(name.as_bytes()), Some(value), "{name}");
        }
        assert_eq!(TABLE.lines().count(), 253);
        assert_eq!(named(b"lang"), Some("\u{27E8}"), "HTML5's value");
        assert_eq!(named(b"apos"), Some("'"));
        // Names only HTML5 has are not references here (see the module docs).
        assert_eq!(named(b"NewLine"), None);
        assert_eq!(named(b"check"), None);
        assert_eq!(named(b"nosuch"), None);
        assert_eq!(named(b""), None);
        assert_eq!(named(b"zzzzzz"), None);
        assert_eq!(named(b"AAA"), None);
    }

    #[test]
    fn numeric_references() {
        assert_eq!(decode("&#35;"), Some((5, "#".into())));
        assert_eq!(decode("&#x1F600;x"), Some((9, "😀".into())));
        assert_eq!(decode("&#X41;"), Some((6, "A".into())));
        assert_eq!(decode("&#0;"), Some((4, "\u{FFFD}".into())));
        assert_eq!(decode("&#xD800;"), Some((8, "\u{FFFD}".into())));
        assert_eq!(decode("&#1234567;"), Some((10, "\u{FFFD}".into())));
        assert_eq!(decode("&#12345678;"), None);
        assert_eq!(decode("&#;"), None);
        assert_eq!(decode("&#x;"), None);
        assert_eq!(decode("&amp"), None);
        assert_eq!(decode("&copy;"), Some((6, "©".into())));
    }
}
