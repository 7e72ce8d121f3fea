//! Messages remembered between compactions. Most of a long conversation is
//! messages compaction can never change: text, tool calls, placeholders,
//! images by URL. Each is read once; its [`Digest`] keeps what a plan needs
//! of it (its format's evidence, its role, its size, a stand-in holding its
//! placeholders and image URLs). When the host tells a later call that a
//! message is unchanged (its every leaf equal to what was read), the call
//! plans with the digest instead of reading, decoding and sizing the
//! message again, and gives the caller's own message back.
//!
//! The host decides "unchanged"; this module hands a compaction its
//! messages ([`Input`]), settles their format, decides what may be
//! remembered and when a digest may stand for its message (see
//! [`Digest::serves`]), and bounds the memory ([`MessageMemo`]).

use crate::history::compact::CompactOptions;
use crate::history::digest::{Digest, RawFacts};
use crate::history::known_message::KnownMessage;
use crate::messages::{verdict_after, verdict_of, Detection, Format, Message, Verdict};
use crate::JsonPath;
use serde_json::Value;
use std::collections::HashMap;
use std::rc::Rc;

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
    settle_inputs_after(inputs, 0, format, options, read)
}

/// [`settle_inputs`] of inputs whose first `taken` are known messages a
/// [`KnownPrefix`](super::KnownPrefix) says serve the call
/// ([`KnownPrefix::usable`](super::KnownPrefix::usable)): they are not
/// looked at again.
pub fn settle_inputs_after<E>(
    inputs: &mut [Input],
    taken: usize,
    format: Option<Format>,
    options: &CompactOptions,
    read: &mut dyn FnMut(usize) -> Result<Value, E>,
) -> Result<Settled, E> {
    settle_with(inputs, taken, format, &|d, f| d.serves(f, options), read)
}

/// [`settle_inputs`] for an expansion: a known message that names a
/// placeholder, or was read in another format, is read after all.
pub fn settle_inputs_for_expansion<E>(
    inputs: &mut [Input],
    format: Option<Format>,
    read: &mut dyn FnMut(usize) -> Result<Value, E>,
) -> Result<Settled, E> {
    settle_with(
        inputs,
        0,
        format,
        &|d, f| d.digest().serves_expansion(f),
        read,
    )
}

/// Settles `inputs`: their format, and each known message from `from` on
/// whose digest does not `serve` the call in that format read (`read(i)`).
fn settle_with<E>(
    inputs: &mut [Input],
    from: usize,
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
    for (i, input) in inputs.iter_mut().enumerate().skip(from) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::digest::digest_of_text;

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
}
