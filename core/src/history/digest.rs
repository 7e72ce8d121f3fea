//! A message compaction can never change, as a plan needs it ([`Digest`]):
//! its format's evidence, its role, its size, a stand-in holding its
//! placeholders and image URLs, and the ids of those placeholders. Made
//! once, when the message is first read again unchanged (see `known`).

use crate::budget::{message_text_tokens, Tally};
use crate::history::compact::CompactOptions;
use crate::messages::placeholder::{for_each_placeholder_id, names_placeholder};
use crate::messages::walk::{for_each_image, for_each_text_without_paths};
use crate::messages::{
    tool_result_slots, verdict_of, Format, ImagePart, ImageSource, Message, Verdict,
};
use crate::JsonPath;
use serde_json::Value;

/// What a compaction needs of a message it cannot change.
#[derive(Debug, Clone)]
pub struct Digest {
    /// The format it was decoded in.
    format: Format,
    /// What it says of its format, whole, for a call that detects.
    pub(super) verdict: Verdict,
    /// Its serialized size.
    pub(crate) size: u64,
    /// It holds tool results sanitizing would search.
    tool_slots: bool,
    /// Its role, placeholders and image URLs, in order.
    pub(crate) stand_in: Message,
    /// Some text of it names a placeholder, or a part of it references a
    /// file (expansion would change it).
    names_placeholders: bool,
    /// The id of each placeholder its stand-in's texts name, in order, as
    /// [`crate::hash::md5_number`] reads it: what a plan reads of a known
    /// message's texts, read once.
    placeholder_ids: Vec<(u64, u64)>,
    /// Its text's tokens as an estimate counts them.
    text_tokens: u64,
    /// The path of each of its images (all by URL) in the message, in the
    /// stand-in's order, as a suffix of the message's own path.
    image_paths: Vec<String>,
}

/// What a digest keeps of a message's value as read, before it is
/// decoded.
pub(super) struct RawFacts {
    format: Format,
    verdict: Verdict,
    tool_slots: bool,
}

impl RawFacts {
    /// The facts of `raw`, a message of `format` (with its whole
    /// `verdict`, when detection read it already).
    pub(super) fn of(raw: &Value, format: Format, verdict: Option<Verdict>) -> RawFacts {
        RawFacts {
            format,
            verdict: verdict.unwrap_or_else(|| verdict_of(raw)),
            tool_slots: !tool_result_slots(format, raw).is_empty(),
        }
    }
}

impl Digest {
    /// The digest of `message` (whose value as read gave `raw`, `size`
    /// bytes), when compaction can never change it: it holds no image but
    /// by URL. `None` otherwise.
    pub(super) fn of(raw: RawFacts, message: &Message, size: u64) -> Option<Digest> {
        let mut inline = false;
        let mut image_paths = Vec::new();
        for_each_image(message, &JsonPath::root(""), &mut |_, path, img| {
            inline |= !matches!(img.source(), ImageSource::Url(_));
            image_paths.push(path.to_string());
        });
        if inline {
            return None;
        }
        let placeholders = |text: &str| names_placeholder(text);
        // A file reference (an offloaded image) is put back by expansion too.
        let mut names_placeholders = crate::history::expand::has_file_reference(message);
        for_each_text_without_paths(message, &mut |t| names_placeholders |= placeholders(t));
        let stand_in = message.stand_in(&placeholders);
        let mut placeholder_ids = Vec::new();
        for_each_text_without_paths(&stand_in, &mut |text| {
            for_each_placeholder_id(text, &mut |id| {
                placeholder_ids.extend(crate::hash::md5_number(id));
            });
        });
        Some(Digest {
            format: raw.format,
            verdict: raw.verdict,
            size,
            tool_slots: raw.tool_slots,
            stand_in,
            names_placeholders,
            placeholder_ids,
            text_tokens: message_text_tokens(message),
            image_paths,
        })
    }

    /// The id of each placeholder its stand-in's texts name, in order.
    pub(crate) fn placeholder_ids(&self) -> &[(u64, u64)] {
        &self.placeholder_ids
    }

    /// Whether its stand-in holds nothing a plan reads: no image, no text
    /// (only its role and turn).
    pub(crate) fn stands_for_nothing(&self) -> bool {
        matches!(self.stand_in.content, crate::messages::Content::Absent)
    }

    /// Counts the message into an estimate as message `i`: its text's
    /// tokens, and its images at their own paths.
    pub(crate) fn tally(&self, tally: &mut Tally<'_>, i: usize) {
        tally.text(self.text_tokens);
        self.for_each_image(i, &mut |_, path, img| tally.image(img, path));
    }

    /// Each image of the message as message `i` (all by URL: the
    /// stand-in's), in order, with its place among them and its path in
    /// the message as sent.
    pub(crate) fn for_each_image<'d>(
        &'d self,
        i: usize,
        f: &mut dyn FnMut(usize, &JsonPath, &'d ImagePart),
    ) {
        let at = JsonPath::root("messages").index(i);
        for_each_image(
            &self.stand_in,
            &at,
            &mut |k, own, img| match self.image_paths.get(k) {
                Some(suffix) => f(k, &JsonPath::root(&format!("{at}{suffix}")), img),
                None => f(k, own, img),
            },
        );
    }

    /// Whether this digest may stand for its message in a compaction of
    /// `format` with `options`: the same format, and no option that could
    /// change the message (sanitizing its tool results, a cache breakpoint
    /// placed on it).
    pub fn serves(&self, format: Format, options: &CompactOptions) -> bool {
        Digest::serving(self.format, self.tool_slots, format, options)
    }

    /// [`Digest::serves`] of a digest read in `read_in`, holding tool
    /// results sanitizing would search (`tool_slots`).
    pub(super) fn serving(
        read_in: Format,
        tool_slots: bool,
        format: Format,
        options: &CompactOptions,
    ) -> bool {
        read_in == format
            && !(options.sanitize_tool_results && tool_slots)
            && !options.cache_breakpoint
    }

    /// The format it was decoded in.
    pub(super) fn format(&self) -> Format {
        self.format
    }

    /// Whether it holds tool results sanitizing would search.
    pub(super) fn has_tool_slots(&self) -> bool {
        self.tool_slots
    }

    /// Whether this digest may stand for its message in an expansion of
    /// `format`: the same format, and no placeholder it names (expansion
    /// changes every message that names one).
    pub fn serves_expansion(&self, format: Format) -> bool {
        self.format == format && !self.names_placeholders
    }
}

/// The digest of an OpenAI user message of `text`, for tests.
#[cfg(test)]
pub(crate) fn digest_of_text(text: &str) -> Digest {
    let raw = serde_json::json!({"role": "user", "content": text});
    let message = Message::decode(Format::OpenAi, raw.clone(), &JsonPath::root("m")).unwrap();
    Digest::of(RawFacts::of(&raw, Format::OpenAi, None), &message, 10).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_message_with_an_inline_image_has_no_digest_and_one_by_url_has() {
        let of = |content: Value| {
            let raw = json!({"role": "user", "content": content});
            let message =
                Message::decode(Format::OpenAi, raw.clone(), &JsonPath::root("m")).unwrap();
            Digest::of(RawFacts::of(&raw, Format::OpenAi, None), &message, 1)
        };
        let inline =
            json!([{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]);
        assert!(of(inline).is_none());
        let url = json!([{"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}]);
        assert!(of(url).is_some());
    }
}
