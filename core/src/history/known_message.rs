//! A message handed to a compaction as its digest ([`KnownMessage`]), with
//! the few facts every pass over a request reads of it copied beside the
//! pointer. A long conversation sent again is mostly such messages, and
//! their digests lie apart in memory: a pass that followed each pointer
//! for its size or turn would wait on memory for every message. With the
//! facts in the list itself, a pass reads them in order, and only the
//! digests a plan reads (those whose stand-in holds something) are
//! followed.

use super::compact::CompactOptions;
use super::digest::Digest;
use crate::messages::{Format, Turn};
use std::rc::Rc;

/// A message known by its digest, with the facts passes read.
#[derive(Debug, Clone)]
pub struct KnownMessage {
    digest: Rc<Digest>,
    /// The digest's size: the message's serialized size.
    pub(crate) size: u64,
    /// Its turn.
    pub(crate) turn: Turn,
    /// The format it was decoded in.
    format: Format,
    /// It holds tool results sanitizing would search.
    tool_slots: bool,
    /// Its stand-in holds nothing a plan reads (see
    /// [`Digest::stands_for_nothing`]).
    pub(crate) stands_for_nothing: bool,
}

impl KnownMessage {
    /// The digest.
    pub fn digest(&self) -> &Rc<Digest> {
        &self.digest
    }

    /// Whether its digest was read in `format`.
    pub(crate) fn read_in(&self, format: Format) -> bool {
        self.format == format
    }

    /// Whether its digest may stand for it in a compaction of `format`
    /// with `options` (see [`Digest::serves`]).
    pub fn serves(&self, format: Format, options: &CompactOptions) -> bool {
        Digest::serving(self.format, self.tool_slots, format, options)
    }
}

impl From<Rc<Digest>> for KnownMessage {
    fn from(digest: Rc<Digest>) -> KnownMessage {
        KnownMessage {
            size: digest.size,
            turn: digest.stand_in.turn(),
            format: digest.format(),
            tool_slots: digest.has_tool_slots(),
            stands_for_nothing: digest.stands_for_nothing(),
            digest,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::digest::digest_of_text;

    #[test]
    fn the_facts_beside_the_pointer_are_the_digests_own() {
        let placeholder = format!("see [Picture:history_{}]", "a".repeat(32));
        for text in ["just text", placeholder.as_str()] {
            let digest = Rc::new(digest_of_text(text));
            let known = KnownMessage::from(Rc::clone(&digest));
            assert_eq!(known.size, digest.size);
            assert_eq!(known.turn, digest.stand_in.turn());
            assert_eq!(known.stands_for_nothing, digest.stands_for_nothing());
            for format in [Format::OpenAi, Format::Anthropic] {
                for sanitize_tool_results in [false, true] {
                    for cache_breakpoint in [false, true] {
                        let options = CompactOptions {
                            sanitize_tool_results,
                            cache_breakpoint,
                            ..CompactOptions::default()
                        };
                        assert_eq!(
                            known.serves(format, &options),
                            digest.serves(format, &options)
                        );
                    }
                }
            }
        }
    }
}
