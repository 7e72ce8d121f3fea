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

use super::binary_text::{binary_mime, min_base64_len, mixes_like_encoded_binary};
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

/// The reference that ends string `s` when it stands for a held text its
/// facts can judge, with the length of the text before it: nothing (the
/// whole string is held) or a data URL's header up to its first comma (the
/// boundary held only the payload). Anything else is read whole.
pub(crate) fn held_reference(s: &str) -> Option<(usize, &str)> {
    let (before, _, _) = crate::media::payload::find_external_ref(s)?;
    let reference = &s[before.len()..];
    let header = is_data_url(before) && before.find(',') == Some(before.len() - 1);
    (kept_kind(reference) == Some(KeptKind::Text) && (before.is_empty() || header))
        .then_some((before.len(), reference))
}

/// A held text found to be binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeldBinary {
    /// MIME type from the bytes, else as a data URL declares it, else
    /// `application/octet-stream`.
    pub mime: String,
    /// Decoded size in bytes.
    pub size: u64,
    /// MD5 of the held text.
    pub md5: String,
}

/// The verdict on the string made of `before` and the text `reference`
/// holds (as [`held_reference`] splits it), from that text's facts:
/// `Some(found)` when they decide, `None` when only the whole text can. It
/// is the verdict the same string gets in memory: a held data URL's payload
/// is judged with its header.
pub(crate) fn classify_held(
    before: &str,
    reference: &str,
    known_field: bool,
    threshold: usize,
    payloads: &dyn Payloads,
) -> Option<Option<HeldBinary>> {
    let facts = payloads.facts(reference, SNIFF_BYTES);
    let full_len = before.len() + facts.len;
    if facts.valid.is_err() {
        // A data URL whose payload is not base64 is not binary; a held text
        // that is not base64 may be a whole data URL itself.
        return if before.is_empty() { None } else { Some(None) };
    }
    let sniffed = sniff_mime(&facts.head);
    let found = |mime| {
        Some(Some(HeldBinary {
            mime,
            size: facts.decoded_len as u64,
            md5: facts.md5.clone(),
        }))
    };
    if !before.is_empty() {
        if before.contains('\u{0}') || (!known_field && full_len <= threshold) {
            return Some(None);
        }
        let Ok(url) = DataUrl::parse_unchecked(before) else {
            return Some(None);
        };
        return found(binary_mime(sniffed, url.mime));
    }
    if full_len < min_base64_len(known_field, threshold) {
        return Some(None);
    }
    // Whole groups of the decoded head encode back to exactly the text's
    // first characters.
    let head = payloads.head(reference, MIX_HEAD_BYTES).head;
    let text = encode_base64(&head[..head.len() - head.len() % 3]);
    if !mixes_like_encoded_binary(text.as_bytes()) {
        return None;
    }
    found(binary_mime(sniffed, ""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::payload::external_ref;

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
        // Text before the reference other than a data URL's header is read
        // whole: its facts would not tell.
        let header = format!("data:image/png;base64,{reference}");
        assert_eq!(held_reference(&header), Some((22, reference.as_str())));
        assert_eq!(held_reference(&format!("see {reference}")), None);
        assert_eq!(
            held_reference(&format!("data:a,b;base64,{reference}")),
            None
        );
    }
}
