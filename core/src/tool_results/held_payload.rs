//! A payload held outside wasm memory (a reference the boundary left in a
//! tool result) judged by its facts — MD5, sizes, leading bytes, base64
//! validity — instead of its whole text. The facts are what compaction
//! reads too: the host may read them a piece at a time
//! ([`Payloads::prepare_facts`]) and remember them between calls, so a large
//! payload is not read in one task, and one sent again is not read again.
//!
//! The verdict is the one the same string held in memory gets; where the
//! facts cannot tell (a text that is not base64, a character mix not
//! settled by its first kilobytes), the caller reads the whole text.

use super::sanitize::{blank, mixes_like_encoded_binary, Binary, KNOWN_FIELD_MIN};
use crate::media::base64_payload::encode_base64;
use crate::media::data_url::{is_data_url, DataUrl};
use crate::media::payload::{kept_kind, KeptKind, Payloads};
use crate::media::sniff_mime;

/// Leading decoded bytes read to sniff a payload's type: as many as
/// compaction reads with an image's MD5, so one set of facts serves both.
pub(crate) const SNIFF_BYTES: usize = 64;

/// Leading decoded bytes whose text is looked at for the character mix of
/// encoded binary: 4 KB of text, where any real payload shows it.
const MIX_HEAD_BYTES: usize = 3 * 1024;

/// The reference that ends string `s` when it stands for a held text,
/// with the length of the text before it (a data URL's header, when the
/// boundary held only the payload).
pub(crate) fn held_reference(s: &str) -> Option<(usize, &str)> {
    let (before, _, _) = crate::media::payload::find_external_ref(s)?;
    let reference = &s[before.len()..];
    (kept_kind(reference) == Some(KeptKind::Text)).then_some((before.len(), reference))
}

/// The verdict on string `s`, whose held text `reference` starts at byte
/// `start`, from that text's facts: `Some(found)` when they decide, `None`
/// when only the whole text can. It is the verdict on the string the
/// reference stands in for (the text before it and the held text), as if
/// it were all in memory: a held data URL's payload is judged with its
/// header.
pub(crate) fn classify_held(
    s: &str,
    (start, reference): (usize, &str),
    known_field: bool,
    threshold: usize,
    payloads: &dyn Payloads,
) -> Option<Option<Binary>> {
    let before = &s[..start];
    let header = is_data_url(before) && before.find(',') == Some(start.wrapping_sub(1));
    if !(before.is_empty() || header) {
        return None;
    }
    let facts = payloads.facts(reference, SNIFF_BYTES);
    let full_len = start + facts.len;
    if facts.valid.is_err() {
        // A data URL whose payload is not base64 is not binary; a held text
        // that is not base64 may be a whole data URL itself.
        return if before.is_empty() { None } else { Some(None) };
    }
    let sniffed = sniff_mime(&facts.head);
    let found = |mime: &str| Binary {
        md5: Some(facts.md5.clone()),
        ..blank(start, s.len(), mime.to_owned(), facts.decoded_len as u64)
    };
    if !before.is_empty() {
        if before.contains('\u{0}') || (!known_field && full_len <= threshold) {
            return Some(None);
        }
        let Ok(url) = DataUrl::parse_unchecked(before) else {
            return Some(None);
        };
        let declared = url.mime.to_ascii_lowercase();
        let mime = match sniffed {
            Some(mime) => mime,
            None if declared.is_empty() => "application/octet-stream",
            None => &declared,
        };
        return Some(Some(found(mime)));
    }
    let min = if known_field {
        KNOWN_FIELD_MIN
    } else {
        threshold + 1
    };
    if full_len < min {
        return Some(None);
    }
    // Whole groups of the decoded head encode back to exactly the text's
    // first characters.
    let head = payloads.head(reference, MIX_HEAD_BYTES).head;
    let text = encode_base64(&head[..head.len() - head.len() % 3]);
    if !mixes_like_encoded_binary(text.as_bytes()) {
        return None;
    }
    Some(Some(found(sniffed.unwrap_or("application/octet-stream"))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::payload::{external_ref, find_external_ref};
    use crate::tool_results::sanitize::{classify_read_whole, classify_text};

    /// Texts held outside "wasm memory": reference `i` of table 0 stands
    /// for `texts[i]`.
    struct Held(Vec<String>);

    impl Payloads for Held {
        fn with_full(&self, s: &str, f: &mut dyn FnMut(&str)) {
            match find_external_ref(s) {
                Some((_, 0, i)) => f(&self.0[i as usize]),
                _ => f(s),
            }
        }
    }

    fn b64_of(bytes: &[u8]) -> String {
        encode_base64(bytes)
    }

    /// `n` bytes starting with `magic`, the rest noise.
    fn bytes(magic: &[u8], n: usize) -> Vec<u8> {
        let mut out = magic.to_vec();
        let mut s: u32 = 11;
        while out.len() < n {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            out.push((s >> 24) as u8);
        }
        out
    }

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0";

    /// Held texts, each with whether its facts alone must decide.
    fn texts() -> Vec<(String, bool)> {
        let png = b64_of(&bytes(PNG, 20_000));
        vec![
            (png.clone(), true),
            (b64_of(&bytes(b"", 30_001)), true),
            (b64_of(&bytes(PNG, 20_002)), true),
            (b64_of(&bytes(b"\xff\xd8\xff\xe0", 100)), true),
            (b64_of(&bytes(PNG, 40)), true),
            ("A".repeat(40_000), false),
            ("0123456789abcdef".repeat(2_000), false),
            (format!("{}{png}", "A".repeat(8_192)), false),
            (format!("{}!{}", &png[..100], &png[101..]), false),
            (format!("{png}A"), false),
            (format!("data:image/png;base64,{png}"), false),
            (format!("data:text/plain;base64,{png}"), false),
            (String::new(), false),
        ]
    }

    /// The verdict on `full` held in memory, placed as a string whose held
    /// text starts at byte `start` and which is `len` bytes long.
    fn in_memory(
        full: &str,
        start: usize,
        len: usize,
        known: bool,
        threshold: usize,
    ) -> Option<Binary> {
        classify_text(full, known, threshold).map(|b| Binary {
            md5: Some(crate::hash::md5_hex(
                &full.as_bytes()[b.payload.0..b.payload.1],
            )),
            ..blank(start, len, b.mime, b.size)
        })
    }

    #[test]
    fn a_held_text_gets_the_verdict_it_gets_in_memory_by_its_facts_or_read_whole() {
        let texts = texts();
        let payloads = Held(texts.iter().map(|(t, _)| t.clone()).collect());
        for (i, (text, must_decide)) in texts.iter().enumerate() {
            let reference = external_ref(0, i as u32);
            for header in [
                "",
                "data:image/png;base64,",
                "DATA:Audio/X-Odd;BASE64,",
                "data:;base64,",
                "data:image/png,",
            ] {
                let s = format!("{header}{reference}");
                let full = format!("{header}{text}");
                let held = held_reference(&s).expect("a held text");
                assert_eq!(held, (header.len(), reference.as_str()));
                for known in [false, true] {
                    for threshold in [10, 100, 10 * 1024, 1 << 20] {
                        let what = format!(
                            "text {i} under {header:?}, known {known}, threshold {threshold}"
                        );
                        let expected = in_memory(&full, header.len(), s.len(), known, threshold);
                        let whole =
                            classify_read_whole(&s, header.len(), known, threshold, &payloads);
                        assert_eq!(whole, expected, "read whole: {what}");
                        match classify_held(&s, held, known, threshold, &payloads) {
                            Some(verdict) => assert_eq!(verdict, expected, "by its facts: {what}"),
                            None => assert!(!must_decide, "not decided by its facts: {what}"),
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn only_a_reference_to_held_text_is_judged_by_facts() {
        let reference = external_ref(2, 5);
        assert_eq!(held_reference(&reference), Some((0, reference.as_str())));
        let bytes = crate::media::payload::kept_ref(
            2,
            5,
            KeptKind::Bytes(crate::media::BytesKind::Uint8Array),
        );
        assert_eq!(held_reference(&bytes), None);
        assert_eq!(held_reference("plain text"), None);
        assert_eq!(held_reference(&format!("{reference} and more")), None);
    }
}
