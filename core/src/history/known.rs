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

use crate::history::compact::CompactOptions;
use crate::messages::placeholder::placeholder_ids;
use crate::messages::walk::for_each_image;
use crate::messages::{
    raw_role, tool_result_slots, verdict_of, Format, ImageSource, Message, MessageError, Role,
    Verdict,
};
use crate::JsonPath;
use serde_json::Value;
use std::collections::HashMap;

/// What a compaction needs of a message it cannot change.
#[derive(Debug, Clone)]
pub struct Digest {
    /// The format it was decoded in.
    format: Format,
    /// What it says of its format, for detection.
    pub(super) verdict: Verdict,
    /// Its raw role is the user's (where sanitizing starts).
    pub(super) raw_user: bool,
    /// Its serialized size.
    pub(super) size: u64,
    /// It holds tool results sanitizing would search.
    tool_slots: bool,
    /// Its role, placeholders and image URLs, in order.
    pub(super) stand_in: Message,
}

/// What a digest keeps of a message's value as read, before it is
/// decoded.
pub(super) struct RawFacts {
    format: Format,
    verdict: Verdict,
    raw_user: bool,
    tool_slots: bool,
}

impl RawFacts {
    /// The facts of `raw`, a message of `format`.
    pub(super) fn of(raw: &Value, format: Format) -> RawFacts {
        RawFacts {
            format,
            verdict: verdict_of(raw),
            raw_user: raw_role(format, raw) == Some(Role::User),
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
        for_each_image(message, &JsonPath::root(""), &mut |_, _, img| {
            inline |= !matches!(img.source(), ImageSource::Url(_));
        });
        if inline {
            return None;
        }
        let placeholders = |text: &str| !placeholder_ids(text).is_empty();
        Some(Digest {
            format: raw.format,
            verdict: raw.verdict,
            raw_user: raw.raw_user,
            size,
            tool_slots: raw.tool_slots,
            stand_in: message.stand_in(&placeholders),
        })
    }

    /// Whether this digest may stand for its message in a compaction of
    /// `format` with `options`: the same format, and no option that could
    /// change the message (sanitizing its tool results, a cache breakpoint
    /// placed on it).
    pub fn serves(&self, format: Format, options: &CompactOptions) -> bool {
        self.format == format
            && !(options.sanitize_tool_results && self.tool_slots)
            && !options.cache_breakpoint
    }
}

/// One message handed to a compaction: read, or known by its digest.
#[derive(Debug, Clone)]
pub enum Input {
    /// The message as read.
    Read(Value),
    /// A message unchanged since its digest was made.
    Known(Box<Digest>),
}

/// The format of `inputs` (`format` when given, else detected from their
/// verdicts), each known message that cannot serve a compaction with
/// `options` in it read after all (`read(i)` reads message `i`).
pub fn settle_inputs(
    inputs: &mut [Input],
    format: Option<Format>,
    options: &CompactOptions,
    read: &mut dyn FnMut(usize) -> Result<Value, MessageError>,
) -> Result<Format, MessageError> {
    let format = format.unwrap_or_else(|| {
        Verdict::fold(inputs.iter().map(|input| match input {
            Input::Read(v) => verdict_of(v),
            Input::Known(d) => d.verdict,
        }))
    });
    for (i, input) in inputs.iter_mut().enumerate() {
        if matches!(input, Input::Known(d) if !d.serves(format, options)) {
            *input = Input::Read(read(i)?);
        }
    }
    Ok(format)
}

/// The digests a host keeps between calls, by key, at most
/// [`MessageMemo::CAPACITY`]: past it, those least recently used go first.
/// A call takes the digests it uses ([`MessageMemo::take`]) and gives them
/// back with the ones it made ([`MessageMemo::keep`]), so a concurrent call
/// reads those messages instead of sharing them.
#[derive(Debug, Default)]
pub struct MessageMemo {
    /// Each digest with the call that last used it.
    digests: HashMap<u64, (Digest, u64)>,
    /// The next key to give.
    next_key: u64,
    /// Calls begun so far.
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

    /// The digest under `key`, taken out for this call.
    pub fn take(&mut self, key: u64) -> Option<Box<Digest>> {
        self.digests.remove(&key).map(|(d, _)| Box::new(d))
    }

    /// Keeps `digest` under `key` (a new key when `None`), as used by this
    /// call; returns the key.
    pub fn keep(&mut self, key: Option<u64>, digest: Digest) -> u64 {
        let key = key.unwrap_or_else(|| {
            self.next_key += 1;
            self.next_key
        });
        self.digests.insert(key, (digest, self.calls));
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
        let mut used: Vec<u64> = self.digests.values().map(|(_, call)| *call).collect();
        used.sort_unstable();
        let threshold = used[self.digests.len() - target];
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
