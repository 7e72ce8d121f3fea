//! What measuring makes of the known messages a request begins with, kept
//! from one request to the next ([`KnownPrefix`]). A conversation's next
//! request re-sends its history: the messages a body shares with the body
//! before are handed to the compaction as they were, most of them known by
//! their digests. Measuring such a message reads the same facts every
//! time (its size, its turn, the stand-in a plan reads, the placeholders
//! it names), spread over as many digests as there are messages. The
//! prefix keeps those facts in a few lists, in order, for the leading run
//! of known messages: the next compaction copies them instead of walking
//! the messages and following each one's digest again.
//!
//! The prefix describes inputs, not bytes: its holder keeps it with the
//! inputs it was made of, cuts it where they are cut
//! ([`KnownPrefix::truncate`]) and lengthens it over the known inputs that
//! follow ([`KnownPrefix::extend`]); a compaction reads it only for inputs
//! that a call settles as they are ([`KnownPrefix::usable`]).

use super::compact::CompactOptions;
use super::known::Input;
use super::known_message::KnownMessage;
use crate::messages::{Content, Format, Message, Turn};
use std::ops::Range;

/// The facts of a leading run of known messages, as measuring reads them.
#[derive(Debug, Default)]
pub struct KnownPrefix {
    /// The format their digests were read in (`None` while the run is
    /// empty).
    format: Option<Format>,
    /// Each message's serialized size.
    sizes: Vec<u64>,
    /// Each message's turn.
    turns: Vec<Turn>,
    /// The messages whose stand-in holds something a plan reads, in order.
    stand_ins: Vec<PrefixStandIn>,
    /// The placeholder ids the stand-ins of texts alone name, each one's in
    /// a range of this list.
    ids: Vec<(u64, u64)>,
    /// How many of the first stand-ins are of texts alone: a plan reads
    /// nothing of them but the ids they name, in order, so a call leaves
    /// them out of its plan and hands it those ids instead
    /// ([`KnownPrefix::named`]).
    texts_alone: usize,
}

/// One message of a prefix whose stand-in holds something.
#[derive(Debug)]
struct PrefixStandIn {
    /// Its index in the request.
    at: usize,
    /// Its stand-in as a plan reads it.
    message: Message,
    /// Of a stand-in of texts alone, the placeholder ids they name (a
    /// range of [`KnownPrefix::ids`]).
    ids: Option<Range<usize>>,
}

/// A known message's stand-in as a plan reads it, and the ids of the
/// placeholders it names when it stands for texts alone (left out of it).
pub(super) type PlanStandIn<'k> = (Message, Option<&'k [(u64, u64)]>);

/// What a plan reads of a known message: its stand-in (texts left out when
/// it holds texts alone), and then the ids of the placeholders those texts
/// name; `None` when its stand-in holds nothing.
pub(super) fn plan_stand_in(known: &KnownMessage) -> Option<PlanStandIn<'_>> {
    if known.stands_for_nothing {
        return None;
    }
    let digest = known.digest();
    // A stand-in of texts alone: the plan reads the ids of its
    // placeholders, read once, and not its texts.
    Some(if matches!(digest.stand_in.content, Content::Text(_)) {
        (digest.stand_in.bare(), Some(digest.placeholder_ids()))
    } else {
        (digest.stand_in.clone(), None)
    })
}

impl KnownPrefix {
    /// How many leading messages it describes.
    pub fn len(&self) -> usize {
        self.sizes.len()
    }

    /// True when it describes none.
    pub fn is_empty(&self) -> bool {
        self.sizes.is_empty()
    }

    /// How many of its messages a compaction of `format` (given, not
    /// detected) with `options` may take from it: all of them when every
    /// digest it was made of stands for its message in such a call (see
    /// [`KnownMessage::serves`]), else none.
    pub fn usable(&self, format: Option<Format>, options: &CompactOptions) -> usize {
        let serves = format.is_some()
            && format == self.format
            && !options.sanitize_tool_results
            && !options.cache_breakpoint;
        if serves {
            self.len()
        } else {
            0
        }
    }

    /// Describes only the first `n` messages.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.len() {
            return;
        }
        self.sizes.truncate(n);
        self.turns.truncate(n);
        let kept = self.stand_ins.partition_point(|s| s.at < n);
        self.stand_ins.truncate(kept);
        self.texts_alone = self.texts_alone.min(kept);
        let ids_end = self
            .stand_ins
            .iter()
            .rev()
            .find_map(|s| s.ids.as_ref().map(|r| r.end))
            .unwrap_or(0);
        self.ids.truncate(ids_end);
    }

    /// Lengthens it over the known messages of `inputs` that follow it,
    /// up to the first message that is read or whose digest was read in
    /// another format than `format`.
    pub fn extend(&mut self, inputs: &[Input], format: Format) {
        if self.is_empty() {
            self.format = Some(format);
        } else if self.format != Some(format) {
            return;
        }
        for (at, input) in inputs.iter().enumerate().skip(self.len()) {
            let Input::Known(known) = input else {
                return;
            };
            if !known.read_in(format) {
                return;
            }
            self.sizes.push(known.size);
            self.turns.push(known.turn);
            if let Some((message, ids)) = plan_stand_in(known) {
                if ids.is_some() && self.texts_alone == self.stand_ins.len() {
                    self.texts_alone += 1;
                }
                let ids = ids.map(|ids| {
                    let start = self.ids.len();
                    self.ids.extend_from_slice(ids);
                    start..self.ids.len()
                });
                self.stand_ins.push(PrefixStandIn { at, message, ids });
            }
        }
    }

    /// The sizes of its first `n` messages.
    pub(super) fn sizes(&self, n: usize) -> &[u64] {
        &self.sizes[..n.min(self.len())]
    }

    /// The turns of its first `n` messages.
    pub(super) fn turns(&self, n: usize) -> &[Turn] {
        &self.turns[..n.min(self.len())]
    }

    /// How many of its first `n` messages' stand-ins a plan reads (those
    /// [`KnownPrefix::named`] stands for left out).
    pub(super) fn stand_in_count(&self, n: usize) -> usize {
        let count = self.stand_ins.partition_point(|s| s.at < n);
        count - self.texts_alone.min(count)
    }

    /// Of its first `n` messages, the ids of the placeholders named by the
    /// stand-ins of texts alone that come before any other stand-in, in
    /// order, each time it is named: all that a plan would read of those
    /// stand-ins, which [`KnownPrefix::stand_ins`] leaves out.
    pub(super) fn named(&self, n: usize) -> &[(u64, u64)] {
        let end = self.stand_ins[..self.folded(n)]
            .last()
            .and_then(|s| s.ids.as_ref())
            .map_or(0, |r| r.end);
        &self.ids[..end]
    }

    /// How many stand-ins of its first `n` messages [`KnownPrefix::named`]
    /// stands for.
    fn folded(&self, n: usize) -> usize {
        self.texts_alone
            .min(self.stand_ins.partition_point(|s| s.at < n))
    }

    /// Of its first `n` messages, each one whose stand-in a plan reads
    /// (after those [`KnownPrefix::named`] stands for): its index, the
    /// stand-in as a plan reads it, and the placeholder ids of a stand-in
    /// of texts alone.
    pub(super) fn stand_ins(
        &self,
        n: usize,
    ) -> impl Iterator<Item = (usize, Message, Option<&[(u64, u64)]>)> + '_ {
        self.stand_ins[self.folded(n)..]
            .iter()
            .take_while(move |s| s.at < n)
            .map(|s| {
                let ids = s.ids.clone().map(|r| &self.ids[r]);
                (s.at, s.message.clone(), ids)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::digest::{digest_of_text, Digest, RawFacts};
    use crate::JsonPath;
    use serde_json::{json, Value};
    use std::rc::Rc;

    fn known(text: &str) -> Input {
        Input::known(Rc::new(digest_of_text(text)))
    }

    /// A known message of `value` (OpenAI's format).
    fn known_value(value: Value) -> Input {
        let message = Message::decode(Format::OpenAi, value.clone(), &JsonPath::root("m")).unwrap();
        let raw = RawFacts::of(&value, Format::OpenAi, None);
        Input::known(Rc::new(Digest::of(raw, &message, 10).unwrap()))
    }

    fn placeholder(c: char) -> String {
        format!("see [Picture:history_{}]", c.to_string().repeat(32))
    }

    fn id(c: char) -> (u64, u64) {
        crate::hash::md5_number(&c.to_string().repeat(32)).unwrap()
    }

    fn facts(inputs: &[Input]) -> Vec<(u64, Turn)> {
        inputs
            .iter()
            .filter_map(|i| match i {
                Input::Known(k) => Some((k.size, k.turn)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn it_holds_the_facts_of_the_leading_known_messages_and_cuts_where_they_are_cut() {
        let with_url = json!({"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
            {"type": "text", "text": placeholder('d')},
        ]});
        let inputs = vec![
            known("just text"),
            known(&placeholder('a')),
            known("more text"),
            known(&placeholder('b')),
            known(&format!("{} {}", placeholder('a'), placeholder('c'))),
            known_value(with_url),
            known(&placeholder('e')),
            Input::Again(json!({"role": "user", "content": "read"})),
            known(&placeholder('f')),
        ];
        let mut prefix = KnownPrefix::default();
        prefix.extend(&inputs, Format::OpenAi);
        // Up to the first message read.
        assert_eq!(prefix.len(), 7);
        let all = facts(&inputs[..7]);
        assert_eq!(prefix.sizes(9), all.iter().map(|f| f.0).collect::<Vec<_>>());
        assert_eq!(prefix.turns(7), all.iter().map(|f| f.1).collect::<Vec<_>>());
        // The stand-ins of texts alone before the one with a URL are left
        // out, their ids handed over in order, each time named.
        assert_eq!(prefix.named(7), [id('a'), id('b'), id('a'), id('c')]);
        assert_eq!(prefix.named(4), [id('a'), id('b')]);
        assert_eq!(prefix.named(1), []);
        // The others are read as measuring reads them.
        let read: Vec<usize> = prefix.stand_ins(7).map(|(at, _, _)| at).collect();
        assert_eq!(read, [5, 6]);
        assert_eq!(prefix.stand_in_count(7), 2);
        assert_eq!(prefix.stand_in_count(6), 1);
        assert_eq!(prefix.stand_in_count(5), 0);
        for (at, message, ids) in prefix.stand_ins(7) {
            let Input::Known(k) = &inputs[at] else {
                panic!("message {at} is known")
            };
            assert_eq!(Some((message, ids)), plan_stand_in(k));
        }
        // Cut before the message with a URL: the rest goes with it.
        prefix.truncate(4);
        assert_eq!(prefix.len(), 4);
        assert_eq!(prefix.named(9), [id('a'), id('b')]);
        assert_eq!(prefix.stand_ins(9).count(), 0);
        assert_eq!(prefix.ids.len(), 2);
        // Lengthened again over what follows, it is what it was made at once.
        prefix.extend(&inputs, Format::OpenAi);
        assert_eq!(prefix.len(), 7);
        assert_eq!(prefix.named(7), [id('a'), id('b'), id('a'), id('c')]);
        assert_eq!(prefix.stand_in_count(7), 2);
        prefix.truncate(0);
        assert!(prefix.is_empty() && prefix.ids.is_empty() && prefix.stand_ins.is_empty());
    }

    #[test]
    fn a_call_takes_it_only_in_the_format_it_was_read_in_with_every_digest_serving() {
        let inputs = vec![known("just text"), known(&placeholder('a'))];
        let mut prefix = KnownPrefix::default();
        prefix.extend(&inputs, Format::OpenAi);
        let plain = CompactOptions::default();
        assert_eq!(prefix.usable(Some(Format::OpenAi), &plain), 2);
        assert_eq!(prefix.usable(None, &plain), 0);
        assert_eq!(prefix.usable(Some(Format::Anthropic), &plain), 0);
        for options in [
            CompactOptions {
                sanitize_tool_results: true,
                ..plain
            },
            CompactOptions {
                cache_breakpoint: true,
                ..plain
            },
        ] {
            assert_eq!(prefix.usable(Some(Format::OpenAi), &options), 0);
        }
        // Digests of another format end it; emptied, it begins again in
        // the format of the call that lengthens it.
        let mut other = KnownPrefix::default();
        other.extend(&inputs, Format::Anthropic);
        assert_eq!(other.len(), 0);
        other.extend(&inputs, Format::OpenAi);
        assert_eq!(other.len(), 2);
    }
}
