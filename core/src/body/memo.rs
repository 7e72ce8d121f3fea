//! Messages of request bodies remembered by their text. A server receives
//! a conversation's whole history with every request, as new text: the
//! messages that compaction cannot change are recognized by their text,
//! byte for byte as they lie in the body, and planned with their digest
//! instead of being parsed, decoded and sized again.

use crate::history::Digest;
use std::collections::HashMap;
use std::rc::Rc;

/// The digests of messages a host received in request bodies, each under
/// the message's exact text. Bounded: at most [`BodyMemo::CAPACITY`]
/// messages and [`BodyMemo::MAX_TEXT_BYTES`] of their text; past either,
/// those least recently used go first, down to three quarters. A
/// conversation no longer sent is let go that way. Only messages with no
/// image but by URL have a digest, so no image payload is ever held here.
#[derive(Debug, Default)]
pub struct BodyMemo {
    /// Each message's text, with its digest and the call that last used it.
    texts: HashMap<Box<str>, (Rc<Digest>, u64)>,
    /// The bytes of text held.
    bytes: usize,
    calls: u64,
}

impl BodyMemo {
    /// Messages remembered at most.
    pub const CAPACITY: usize = 65_536;

    /// Bytes of message text held at most.
    pub const MAX_TEXT_BYTES: usize = 32 << 20;

    /// An empty memo.
    pub fn new() -> BodyMemo {
        BodyMemo::default()
    }

    /// Starts a call.
    pub fn begin_call(&mut self) {
        self.calls += 1;
    }

    /// The digest of the message whose text is exactly `raw`, used by this
    /// call.
    pub fn known(&mut self, raw: &str) -> Option<Rc<Digest>> {
        let calls = self.calls;
        self.texts.get_mut(raw).map(|(d, used)| {
            *used = calls;
            Rc::clone(d)
        })
    }

    /// Remembers `digest` for the message whose text is `raw`.
    pub fn keep(&mut self, raw: &str, digest: Rc<Digest>) {
        if raw.len() > Self::MAX_TEXT_BYTES / 4 {
            return;
        }
        let entry = (digest, self.calls);
        if self.texts.insert(raw.into(), entry).is_none() {
            self.bytes += raw.len();
        }
        if self.texts.len() > Self::CAPACITY || self.bytes > Self::MAX_TEXT_BYTES {
            self.evict();
        }
    }

    /// Messages held.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// Bytes of message text held.
    pub fn text_bytes(&self) -> usize {
        self.bytes
    }

    /// Lets go of the least recently used, until at most three quarters of
    /// each bound is held (those last used in the same call as the last
    /// one to go, go with it).
    fn evict(&mut self) {
        let mut order: Vec<(u64, usize)> = self
            .texts
            .iter()
            .map(|(text, (_, used))| (*used, text.len()))
            .collect();
        order.sort_unstable();
        let (count, bytes) = (Self::CAPACITY * 3 / 4, Self::MAX_TEXT_BYTES * 3 / 4);
        let (mut n, mut b) = (self.texts.len(), self.bytes);
        let mut last_gone = None;
        for (used, len) in order {
            if n <= count && b <= bytes {
                break;
            }
            n -= 1;
            b -= len;
            last_gone = Some(used);
        }
        if let Some(threshold) = last_gone {
            self.texts.retain(|_, (_, used)| *used > threshold);
            self.bytes = self.texts.keys().map(|t| t.len()).sum();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::digest::digest_of_text as digest_of;

    #[test]
    fn a_text_is_known_only_byte_for_byte() {
        let mut memo = BodyMemo::new();
        let raw = r#"{"role":"user","content":"hi"}"#;
        memo.keep(raw, Rc::new(digest_of("hi")));
        assert!(memo.known(raw).is_some());
        assert!(memo.known(r#"{"role":"user", "content":"hi"}"#).is_none());
        assert!(memo.known(r#"{"role":"user","content":"hi!"}"#).is_none());
        assert_eq!(memo.text_bytes(), raw.len());
    }

    #[test]
    fn the_least_recently_used_go_first_within_both_bounds() {
        let mut memo = BodyMemo::new();
        let digest = Rc::new(digest_of("x"));
        let big = "y".repeat(BodyMemo::MAX_TEXT_BYTES / 10);
        // Nine texts of a tenth each, the first used again before a tenth
        // passes the bound: the oldest others go, down to three quarters.
        for i in 0..9 {
            memo.begin_call();
            memo.keep(&format!("{i}{big}"), digest.clone());
        }
        assert_eq!(memo.len(), 9);
        memo.begin_call();
        assert!(memo.known(&format!("0{big}")).is_some());
        memo.keep(&format!("9{big}"), digest.clone());
        assert!(memo.text_bytes() <= BodyMemo::MAX_TEXT_BYTES * 3 / 4);
        memo.keep(&format!("a{big}"), digest.clone());
        let kept = |memo: &mut BodyMemo, c: char| memo.known(&format!("{c}{big}")).is_some();
        let held: String = "0123456789a"
            .chars()
            .filter(|c| kept(&mut memo, *c))
            .collect();
        assert_eq!(held, "0456789a", "the least recently used went");
        assert_eq!(
            memo.text_bytes(),
            memo.texts.keys().map(|t| t.len()).sum::<usize>()
        );
        // A count bound too.
        let mut memo = BodyMemo::new();
        for i in 0..=BodyMemo::CAPACITY {
            memo.keep(&i.to_string(), digest.clone());
        }
        assert!(memo.len() <= BodyMemo::CAPACITY * 3 / 4 + 1);
    }
}
