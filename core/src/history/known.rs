//! Messages remembered between compactions. Most of a long conversation is
//! messages compaction can never change: text, tool calls, placeholders,
//! images by URL. Each is read once; its [`Digest`] keeps what a plan needs
//! of it (its format's evidence, its role, its size, a stand-in holding its
//! placeholders and image URLs). When the host tells a later call that a
//! message is unchanged (its every leaf equal to what was read), the call
//! plans with the digest instead of reading, decoding and sizing the
//! message again, and gives the caller's own message back.
//!
//! The host decides "unchanged"; this module decides what may be remembered
//! and when a digest may stand for its message ([`Digest::serves`]), and
//! bounds the memory ([`MessageMemo`]).

use crate::budget::{message_text_tokens, Tally};
use crate::history::compact::CompactOptions;
use crate::history::known_message::KnownMessage;
use crate::messages::placeholder::{for_each_placeholder_id, names_placeholder};
use crate::messages::walk::{for_each_image, for_each_text_without_paths};
use crate::messages::{
    tool_result_slots, verdict_after, verdict_of, Detection, Format, ImagePart, ImageSource,
    Message, Verdict,
};
use crate::JsonPath;
use serde_json::Value;
use std::collections::HashMap;
use std::rc::Rc;

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

/// One message handed to a compaction: read, or known by its digest.
#[derive(Debug, Clone)]
pub enum Input {
    /// The message as read, seen for the first time (or changed since):
    /// no digest is made of it, for a message sent once (a server parses
    /// new objects from every request) would only fill the memo.
    Read(Value),
    /// The message as read, sent before unchanged: a digest is made of it
    /// when compaction cannot change it.
    Again(Value),
    /// A message unchanged since its digest was made.
    Known(KnownMessage),
}

impl Input {
    /// A message known by `digest`.
    pub fn known(digest: Rc<Digest>) -> Input {
        Input::Known(KnownMessage::from(digest))
    }
}

/// The inputs of one compaction, settled: their format, and the verdict of
/// each message read when detection needed it (a digest keeps it).
#[derive(Debug, Clone)]
pub struct Settled {
    /// The format of the messages.
    pub format: Format,
    /// Per message: its verdict, when detection read it.
    pub(super) verdicts: Vec<Option<Verdict>>,
}

impl Settled {
    /// Messages all read in `format`, given (no detection).
    pub fn given(format: Format) -> Settled {
        Settled {
            format,
            verdicts: Vec::new(),
        }
    }
}

/// The format of `inputs` (`format` when given, else detected from their
/// verdicts), each known message that cannot serve a compaction with
/// `options` in it read after all (`read(i)` reads message `i`).
pub fn settle_inputs<E>(
    inputs: &mut [Input],
    format: Option<Format>,
    options: &CompactOptions,
    read: &mut dyn FnMut(usize) -> Result<Value, E>,
) -> Result<Settled, E> {
    settle_with(inputs, format, &|d, f| d.serves(f, options), read)
}

/// [`settle_inputs`] for an expansion: a known message that names a
/// placeholder, or was read in another format, is read after all.
pub fn settle_inputs_for_expansion<E>(
    inputs: &mut [Input],
    format: Option<Format>,
    read: &mut dyn FnMut(usize) -> Result<Value, E>,
) -> Result<Settled, E> {
    settle_with(inputs, format, &|d, f| d.digest().serves_expansion(f), read)
}

/// Settles `inputs`: their format, and each known message whose digest
/// does not `serve` the call in that format read (`read(i)`).
fn settle_with<E>(
    inputs: &mut [Input],
    format: Option<Format>,
    serves: &dyn Fn(&KnownMessage, Format) -> bool,
    read: &mut dyn FnMut(usize) -> Result<Value, E>,
) -> Result<Settled, E> {
    let mut verdicts = Vec::new();
    let mut detection = Detection::default();
    if format.is_none() {
        // Detection reads every message for what it still needs; the
        // verdict of a message to remember is read whole, for its digest.
        for input in inputs.iter() {
            let verdict = match input {
                Input::Known(d) => Some(d.digest().verdict),
                Input::Again(v) => Some(verdict_of(v)),
                Input::Read(v) => {
                    detection.add(verdict_after(v, &detection));
                    None
                }
            };
            if let Some(v) = verdict {
                detection.add(v);
            }
            verdicts.push(verdict);
        }
    }
    let format = format.unwrap_or_else(|| detection.format());
    for (i, input) in inputs.iter_mut().enumerate() {
        if matches!(input, Input::Known(d) if !serves(d, format)) {
            *input = Input::Again(read(i)?);
        }
    }
    Ok(Settled { format, verdicts })
}

/// Message `i` decoded from `value` (`size` bytes) in the settled format;
/// when it was sent before unchanged (`again`), also its digest, if
/// compaction can never change it.
pub(crate) fn decode_with_digest(
    value: Value,
    settled: &Settled,
    i: usize,
    again: bool,
    size: u64,
) -> Result<(Message, Option<Digest>), crate::messages::MessageError> {
    let format = settled.format;
    let verdict = settled.verdicts.get(i).copied().flatten();
    let raw = again.then(|| RawFacts::of(&value, format, verdict));
    let message = Message::decode(format, value, &JsonPath::root("messages").index(i))?;
    let digest = raw.and_then(|raw| Digest::of(raw, &message, size));
    Ok((message, digest))
}

/// One input as a call that only reads it finds it: decoded, or known by
/// its digest.
pub(crate) enum Decoded {
    /// Known by its digest, not read.
    Known(Rc<Digest>),
    /// Decoded in the settled format.
    Read(Message),
}

/// Each input decoded with its size, and the digests made (see
/// [`decode_inputs`]).
pub(crate) type DecodedInputs = (Vec<(Decoded, u64)>, Vec<Option<Digest>>);

/// Each of `inputs` decoded in the settled format (a known one as its
/// digest) with its size; and the digest of each message sent again
/// unchanged that compaction cannot change, one per message.
pub(crate) fn decode_inputs(
    inputs: Vec<Input>,
    settled: &Settled,
    payloads: &dyn crate::media::Payloads,
) -> Result<DecodedInputs, crate::messages::MessageError> {
    let mut decoded = Vec::with_capacity(inputs.len());
    let mut digests = vec![None; inputs.len()];
    for (i, input) in inputs.into_iter().enumerate() {
        let (value, again) = match input {
            Input::Known(d) => {
                decoded.push((Decoded::Known(Rc::clone(d.digest())), d.size));
                continue;
            }
            Input::Read(v) => (v, false),
            Input::Again(v) => (v, true),
        };
        let size = crate::budget::json_len_with(&value, payloads);
        let (message, digest) = decode_with_digest(value, settled, i, again, size)?;
        decoded.push((Decoded::Read(message), size));
        digests[i] = digest;
    }
    Ok((decoded, digests))
}

/// The digests a host keeps between calls, by key, at most
/// [`MessageMemo::CAPACITY`]: past it, those least recently used go first.
/// A call looks up the digests it uses ([`MessageMemo::get`]) and keeps the
/// ones it made ([`MessageMemo::keep`]). A digest never changes, so
/// concurrent calls share it.
#[derive(Debug, Default)]
pub struct MessageMemo {
    /// Each digest with the call that last used it.
    digests: HashMap<u64, (Rc<Digest>, u64)>,
    /// The next key to give.
    next_key: u64,
    calls: u64,
}

impl MessageMemo {
    /// Digests kept at most (about 100 bytes each, plus their
    /// placeholders' and URLs' text).
    pub const CAPACITY: usize = 65_536;

    /// An empty memo.
    pub fn new() -> MessageMemo {
        MessageMemo::default()
    }

    /// Starts a call.
    pub fn begin_call(&mut self) {
        self.calls += 1;
    }

    /// The digest under `key`, used by this call.
    pub fn get(&mut self, key: u64) -> Option<Rc<Digest>> {
        let calls = self.calls;
        self.digests.get_mut(&key).map(|(d, used)| {
            *used = calls;
            Rc::clone(d)
        })
    }

    /// Keeps `digest` under `key` (a new key when `None`), as used by this
    /// call; returns the key.
    pub fn keep(&mut self, key: Option<u64>, digest: impl Into<Rc<Digest>>) -> u64 {
        let key = key.unwrap_or_else(|| {
            self.next_key += 1;
            self.next_key
        });
        self.digests.insert(key, (digest.into(), self.calls));
        if self.digests.len() > Self::CAPACITY {
            self.evict();
        }
        key
    }

    /// Digests held.
    pub fn len(&self) -> usize {
        self.digests.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.digests.is_empty()
    }

    /// Lets go of the least recently used, down to three quarters of
    /// [`MessageMemo::CAPACITY`].
    fn evict(&mut self) {
        let target = Self::CAPACITY * 3 / 4;
        // Pairs as the body memo sorts them (`body/memo.rs`): one sort
        // compiled for both.
        let mut used: Vec<(u64, usize)> =
            self.digests.values().map(|(_, call)| (*call, 0)).collect();
        used.sort_unstable();
        let threshold = used[self.digests.len() - target].0;
        self.digests.retain(|_, (_, call)| *call >= threshold);
        // Ties at the threshold (one call of more messages than that).
        let extra: Vec<u64> = self
            .digests
            .keys()
            .take(self.digests.len().saturating_sub(target))
            .copied()
            .collect();
        for key in extra {
            self.digests.remove(&key);
        }
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

    fn digest(text: &str) -> Digest {
        digest_of_text(text)
    }

    #[test]
    fn the_memo_keeps_at_most_its_capacity_and_lets_go_of_the_least_recently_used() {
        let mut memo = MessageMemo::new();
        memo.begin_call();
        let old = memo.keep(None, digest("old"));
        let mut last = 0;
        for i in 0..MessageMemo::CAPACITY + 10 {
            if i % 1000 == 0 {
                memo.begin_call();
                // Used on every call: it stays.
                assert!(memo.get(old).is_some());
            }
            last = memo.keep(None, digest("x"));
        }
        assert!(memo.len() <= MessageMemo::CAPACITY);
        assert!(memo.len() >= MessageMemo::CAPACITY * 3 / 4);
        assert!(memo.get(old).is_some());
        assert!(memo.get(last).is_some());
        // The first kept after `old`, never used again, went first.
        assert!(memo.get(old + 1).is_none());
    }

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
