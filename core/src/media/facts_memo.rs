//! What is remembered of payloads between calls, so a history sent again
//! costs only what is new. An app that keeps its original messages hands
//! the very same payload strings to every call; their facts (MD5, sizes,
//! head, validity) depend on the text alone, so they are read once.
//!
//! This is what one entry holds (see [`Memo`] for which entries stay).

use super::memo::Memo;
use super::payload::{PayloadFacts, PayloadHead};

/// What is remembered of one payload's text: its sizes, with its heads
/// by how many leading bytes were asked for (each exactly as
/// [`decode_prefix`](super::decode_prefix) gives it; a few sizes at most),
/// and its MD5 and validity once it was hashed (a payload only measured,
/// as an estimate measures it, is not hashed).
/// `R` is the host's value for a payload: the forms the library's own
/// resizer made of it are kept with it, by what was asked for.
#[derive(Debug)]
pub struct RememberedFacts<R = ()> {
    /// The facts; `head` is unused here (see `heads`), `md5` and `valid`
    /// only when `hashed`.
    facts: PayloadFacts,
    hashed: bool,
    heads: Vec<(usize, Vec<u8>)>,
    resized: Vec<(String, R)>,
}

/// How many head sizes an entry keeps (the flows ask for two or three).
const MAX_HEADS: usize = 4;

/// The facts of payloads seen before (with the resized forms of each, as
/// host values `R`).
pub type FactsMemo<K, R = ()> = Memo<K, RememberedFacts<R>>;

impl<K, R: Clone> Memo<K, RememberedFacts<R>> {
    /// Remembers `facts` (read with `head_bytes` leading bytes) under `key`
    /// for `call` (see [`Memo::insert`]).
    pub fn remember(
        &mut self,
        key: K,
        facts: PayloadFacts,
        head_bytes: usize,
        call: u32,
    ) -> (Option<u32>, Vec<K>) {
        let bytes = facts.len as u64;
        self.insert(key, RememberedFacts::new(facts, head_bytes), bytes, call)
    }

    /// Remembers `head`, the sizes and `head_bytes` leading bytes of a
    /// payload measured but not hashed, under `key` for `call`.
    pub fn remember_head(
        &mut self,
        key: K,
        head: PayloadHead,
        head_bytes: usize,
        call: u32,
    ) -> (Option<u32>, Vec<K>) {
        let bytes = head.len as u64;
        self.insert(
            key,
            RememberedFacts::measured(head, head_bytes),
            bytes,
            call,
        )
    }

    /// The facts in `slot` with `head_bytes` leading bytes, marked as used
    /// by `call` (see [`RememberedFacts::facts`]); `None` when the slot is
    /// empty or its payload was not hashed.
    pub fn facts(
        &mut self,
        slot: u32,
        call: u32,
        head_bytes: usize,
        read_head: impl FnOnce() -> Vec<u8>,
    ) -> Option<PayloadFacts> {
        self.get_mut(slot, call)?.facts(head_bytes, read_head)
    }

    /// The sizes and `head_bytes` leading bytes in `slot`, marked as used
    /// by `call`; `None` when the slot is empty.
    pub fn head(
        &mut self,
        slot: u32,
        call: u32,
        head_bytes: usize,
        read_head: impl FnOnce() -> Vec<u8>,
    ) -> Option<PayloadHead> {
        let entry = self.get_mut(slot, call)?;
        Some(PayloadHead {
            len: entry.facts.len,
            decoded_len: entry.facts.decoded_len,
            head: entry.head(head_bytes, read_head),
        })
    }

    /// Adds what hashing found to the payload in `slot` (see
    /// [`RememberedFacts::hashed`]); `false` when the slot is empty.
    pub fn hashed(&mut self, slot: u32, call: u32, facts: PayloadFacts, head_bytes: usize) -> bool {
        match self.get_mut(slot, call) {
            Some(entry) => {
                entry.hashed(facts, head_bytes);
                true
            }
            None => false,
        }
    }

    /// The form the resizer made of the payload in `slot` when asked for
    /// `asked`, if it was kept.
    pub fn resized(&mut self, slot: u32, call: u32, asked: &str) -> Option<R> {
        let entry = self.get_mut(slot, call)?;
        entry
            .resized
            .iter()
            .find(|(a, _)| a == asked)
            .map(|(_, r)| r.clone())
    }

    /// Keeps `form`, `bytes` long, as what the resizer made of the payload
    /// in `slot` when asked for `asked`; `false` when the slot is empty.
    pub fn remember_resized(
        &mut self,
        slot: u32,
        call: u32,
        asked: String,
        form: R,
        bytes: u64,
    ) -> bool {
        let Some(entry) = self.get_mut(slot, call) else {
            return false;
        };
        entry.resized.push((asked, form));
        self.grow(slot, bytes);
        true
    }
}

impl<R> RememberedFacts<R> {
    /// `facts`, read with `head_bytes` leading bytes.
    pub fn new(facts: PayloadFacts, head_bytes: usize) -> Self {
        let mut facts = facts;
        let head = std::mem::take(&mut facts.head);
        RememberedFacts {
            facts,
            hashed: true,
            heads: vec![(head_bytes, head)],
            resized: Vec::new(),
        }
    }

    /// A payload measured but not hashed: its sizes and `head_bytes`
    /// leading bytes.
    pub fn measured(head: PayloadHead, head_bytes: usize) -> Self {
        RememberedFacts {
            facts: PayloadFacts {
                md5: String::new(),
                len: head.len,
                decoded_len: head.decoded_len,
                head: Vec::new(),
                valid: Ok(()),
            },
            hashed: false,
            heads: vec![(head_bytes, head.head)],
            resized: Vec::new(),
        }
    }

    /// Adds what hashing the payload found: `facts`, read with
    /// `head_bytes` leading bytes.
    pub fn hashed(&mut self, facts: PayloadFacts, head_bytes: usize) {
        let mut facts = facts;
        let head = std::mem::take(&mut facts.head);
        self.keep_head(head_bytes, head);
        self.facts = facts;
        self.hashed = true;
    }

    /// The facts with `head_bytes` leading bytes; `None` when the payload
    /// was not hashed. A head of a size not asked for before is read with
    /// `read_head` (the leading text only, cheap) and kept.
    pub fn facts(
        &mut self,
        head_bytes: usize,
        read_head: impl FnOnce() -> Vec<u8>,
    ) -> Option<PayloadFacts> {
        if !self.hashed {
            return None;
        }
        let head = self.head(head_bytes, read_head);
        Some(PayloadFacts {
            head,
            ..self.facts.clone()
        })
    }

    /// The `head_bytes` leading bytes, read with `read_head` if that size
    /// was not asked for before.
    fn head(&mut self, head_bytes: usize, read_head: impl FnOnce() -> Vec<u8>) -> Vec<u8> {
        match self.heads.iter().find(|(n, _)| *n == head_bytes) {
            Some((_, h)) => h.clone(),
            None => {
                let h = read_head();
                self.keep_head(head_bytes, h.clone());
                h
            }
        }
    }

    fn keep_head(&mut self, head_bytes: usize, head: Vec<u8>) {
        if self.heads.iter().any(|(n, _)| *n == head_bytes) {
            return;
        }
        if self.heads.len() >= MAX_HEADS {
            self.heads.remove(0);
        }
        self.heads.push((head_bytes, head));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::memo::MemoLimits;
    use crate::media::payload::{facts_of_text, InMemory};

    fn facts(text: &str, head: usize) -> PayloadFacts {
        facts_of_text(&InMemory, text, head)
    }

    fn limits(max_bytes: u64, max_entries: usize) -> MemoLimits {
        MemoLimits {
            max_bytes,
            max_entries,
            max_idle_calls: 3,
        }
    }

    fn get(
        memo: &mut FactsMemo<&str>,
        slot: Option<u32>,
        call: u32,
        text: &str,
        head: usize,
    ) -> Option<PayloadFacts> {
        memo.facts(slot?, call, head, || facts(text, head).head)
    }

    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

    #[test]
    fn gives_back_what_it_was_given_and_reads_only_heads_of_new_sizes() {
        let mut memo: FactsMemo<_> = FactsMemo::new(MemoLimits::default());
        let (call, _) = memo.begin_call();
        let (slot, gone) = memo.remember("k", facts(PNG, 64), 64, call);
        assert!(gone.is_empty());
        let slot = slot.expect("room");
        let mut reads = Vec::new();
        for n in [64, 0, 8, 65_536, 8, 64] {
            let got = memo.facts(slot, call, n, || {
                reads.push(n);
                facts(PNG, n).head
            });
            assert_eq!(got, Some(facts(PNG, n)));
        }
        // Only sizes not asked for before were read.
        assert_eq!(reads, vec![0, 8, 65_536]);
    }

    #[test]
    fn a_payload_only_measured_gives_its_head_and_no_facts_until_hashed() {
        let mut memo: FactsMemo<_> = FactsMemo::new(MemoLimits::default());
        let (call, _) = memo.begin_call();
        let measured = facts(PNG, 64);
        let head = PayloadHead {
            len: measured.len,
            decoded_len: measured.decoded_len,
            head: measured.head.clone(),
        };
        let (slot, _) = memo.remember_head("k", head.clone(), 64, call);
        let slot = slot.expect("room");
        let mut reads = Vec::new();
        assert_eq!(memo.facts(slot, call, 64, Vec::new), None);
        assert_eq!(
            memo.head(slot, call, 64, || {
                reads.push(64);
                vec![]
            }),
            Some(head)
        );
        let h8 = memo.head(slot, call, 8, || {
            reads.push(8);
            facts(PNG, 8).head
        });
        assert_eq!(h8.map(|h| h.head), Some(facts(PNG, 8).head));
        assert_eq!(reads, vec![8]);
        // Hashed later: the same entry gives the facts, its heads kept.
        memo.get_mut(slot, call)
            .expect("entry")
            .hashed(facts(PNG, 0), 0);
        assert_eq!(memo.facts(slot, call, 64, Vec::new), Some(measured));
        assert_eq!(memo.facts(slot, call, 8, Vec::new), Some(facts(PNG, 8)));
    }

    #[test]
    fn resized_forms_are_kept_with_their_payload_and_counted_in_its_bytes() {
        let mut memo: FactsMemo<&str, &str> = FactsMemo::new(limits(400, 10));
        let (call, _) = memo.begin_call();
        let (slot, _) = memo.remember("k", facts(PNG, 0), 0, call);
        let slot = slot.expect("room");
        let held = memo.held_bytes();
        assert_eq!(memo.resized(slot, call, "png 1x1 to jpeg"), None);
        assert!(memo.remember_resized(slot, call, "png 1x1 to jpeg".into(), "out", 3));
        assert_eq!(memo.resized(slot, call, "png 1x1 to jpeg"), Some("out"));
        assert_eq!(memo.resized(slot, call, "png 1x1 to png"), None);
        assert_eq!(memo.held_bytes(), held + 3);
        // An empty slot keeps nothing.
        assert!(!memo.remember_resized(slot + 1, call, "x".into(), "y", 1));
    }

    #[test]
    fn makes_room_by_dropping_the_entry_unused_longest_never_one_of_this_call() {
        let mut memo: FactsMemo<_> = FactsMemo::new(limits(24, 10));
        let (c1, _) = memo.begin_call();
        let (a, _) = memo.remember("a", facts("YWFhYWFhYWE=", 0), 0, c1);
        let (c2, _) = memo.begin_call();
        let (b, _) = memo.remember("b", facts("YmJiYmJiYmI=", 0), 0, c2);
        let (c3, _) = memo.begin_call();
        // `b` was used more recently than `a`: `a` goes to make room.
        assert!(get(&mut memo, b, c3, "YmJiYmJiYmI=", 0).is_some());
        let (c, gone) = memo.remember("c", facts("Y2NjY2NjY2M=", 0), 0, c3);
        assert_eq!(gone, vec!["a"]);
        // `a`'s slot now holds `c` (the host forgot `a`'s key).
        assert_eq!(c, a);
        assert_eq!(get(&mut memo, c, c3, "", 0), Some(facts("Y2NjY2NjY2M=", 0)));
        assert_eq!(memo.len(), 2);
        assert_eq!(memo.held_bytes(), 24);
        // Everything left was used by this call: nothing more is remembered.
        let (d, gone) = memo.remember("d", facts("ZGRkZGRkZGQ=", 0), 0, c3);
        assert_eq!((d, gone), (None, vec![]));
        assert_eq!(memo.len(), 2);
    }

    #[test]
    fn a_history_larger_than_the_memo_keeps_its_oldest_part_remembered() {
        // A history sent again in the same order each call: what is
        // remembered stays remembered, instead of each entry pushing out the
        // one the next lookup needs.
        let mut memo: FactsMemo<_> = FactsMemo::new(limits(3 * 12, 100));
        let texts = [
            "MTExMTExMTE=",
            "MjIyMjIyMjI=",
            "MzMzMzMzMzM=",
            "NDQ0NDQ0NDQ=",
            "NTU1NTU1NTU=",
        ];
        let mut slots: Vec<Option<u32>> = vec![None; texts.len()];
        for _round in 0..3 {
            let (call, _) = memo.begin_call();
            for (i, t) in texts.iter().enumerate() {
                if slots[i]
                    .and_then(|s| memo.facts(s, call, 0, Vec::new))
                    .is_none()
                {
                    slots[i] = memo.remember(*t, facts(t, 0), 0, call).0;
                }
            }
        }
        let (call, _) = memo.begin_call();
        let hits = (0..texts.len())
            .filter(|&i| {
                slots[i]
                    .and_then(|s| memo.facts(s, call, 0, Vec::new))
                    .is_some()
            })
            .count();
        assert_eq!(hits, 3);
    }

    #[test]
    fn the_entry_count_is_bounded_too() {
        let mut memo: FactsMemo<_> = FactsMemo::new(limits(1 << 20, 2));
        let (c1, _) = memo.begin_call();
        memo.remember(1, facts("YQ==", 0), 0, c1);
        let (c2, _) = memo.begin_call();
        memo.remember(2, facts("Yg==", 0), 0, c2);
        memo.remember(3, facts("Yw==", 0), 0, c2);
        assert_eq!(memo.len(), 2);
    }

    #[test]
    fn entries_unused_for_too_many_calls_are_let_go() {
        let mut memo: FactsMemo<_> = FactsMemo::new(limits(1 << 20, 100));
        let (c1, _) = memo.begin_call();
        let (a, _) = memo.remember("a", facts("YQ==", 0), 0, c1);
        let (b, _) = memo.remember("b", facts("Yg==", 0), 0, c1);
        let mut gone = Vec::new();
        for _ in 0..4 {
            let (call, g) = memo.begin_call();
            assert!(get(&mut memo, b, call, "Yg==", 0).is_some());
            gone.extend(g);
        }
        assert_eq!(gone, vec!["a"]);
        assert_eq!(get(&mut memo, a, c1, "YQ==", 0), None);
        assert_eq!(memo.len(), 1);
    }

    #[test]
    fn a_payload_larger_than_the_memo_is_not_remembered() {
        let mut memo: FactsMemo<_> = FactsMemo::new(limits(4, 10));
        let (call, _) = memo.begin_call();
        assert_eq!(
            memo.remember("a", facts("YWFhYQ==", 0), 0, call),
            (None, vec![])
        );
        assert!(memo.is_empty());
    }
}
