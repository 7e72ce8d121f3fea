//! The request body read last, kept so that the next one is read only
//! where it differs. A client sends a conversation's whole history with
//! every request: the next body begins with the bytes of the last one, up
//! to where the new messages start. The host finds how many bytes the two
//! share, comparing against the text kept here ([`PreviousBody::text`]),
//! and hands over only the bytes that follow. The messages wholly within
//! the shared bytes are taken as they were handed to the last compaction,
//! and the facts of their payloads as they were read (no parsing,
//! decoding or hashing again); only what follows is read.

use super::error::BodyError;
use super::locate::{locate, RequestBody};
use super::resume::locate_after;
use super::text::BodyText;
use crate::history::{Digest, Input, KnownPrefix};
use crate::messages::Format;
use std::rc::Rc;

/// References into a body kept at most: past this, the next body is read
/// whole, its references made anew.
const MAX_ENTRIES: usize = 1 << 16;

/// The body read last, with each message as its compaction was handed it,
/// and what measuring made of its first known messages.
pub struct PreviousBody {
    body: RequestBody,
    format: Option<Format>,
    prefix: KnownPrefix,
}

/// The messages of a body's inputs that are read, not known, as they were
/// handed to its compaction (which takes their values out of its inputs):
/// kept for the next body with [`PreviousBody::keep`].
#[derive(Debug, Default)]
pub struct ReadInputs(Vec<(usize, Input)>);

impl ReadInputs {
    /// A copy of each message of `inputs` that is read, by its index.
    pub fn of(inputs: &[Input]) -> ReadInputs {
        ReadInputs::after(inputs, 0)
    }

    /// [`ReadInputs::of`] inputs whose first `known` are known messages
    /// (those a [`KnownPrefix`] gave the call): they are not looked at.
    pub fn after(inputs: &[Input], known: usize) -> ReadInputs {
        ReadInputs(
            inputs
                .iter()
                .enumerate()
                .skip(known)
                .filter(|(_, input)| !matches!(input, Input::Known(_)))
                .map(|(i, input)| (i, input.clone()))
                .collect(),
        )
    }

    /// How many messages are read: the others are known.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when every message is known.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A body read, and how many of its messages were taken from the body
/// read before it.
pub struct ReadAgain {
    /// The body.
    pub body: RequestBody,
    /// Its first messages, taken as they were.
    pub reused: usize,
    /// The byte the messages were looked for from: where the last message
    /// taken as it was ends, or 0 when the whole text was read.
    pub read_from: usize,
    /// What measuring made of the first known messages of those taken as
    /// they were, for the compaction ([`KnownPrefix::usable`]) and then
    /// for [`PreviousBody::keep`].
    pub prefix: KnownPrefix,
}

impl PreviousBody {
    /// Keeps `body`, read for `format` (and settled as `settled`), with
    /// `inputs` as its compaction left them (the known messages as they
    /// were handed) and `read`, the messages read as they were handed;
    /// where the compaction made a digest of a message, that digest.
    /// `prefix`, the one the body was read with (or a new one), is cut
    /// before the first message read and lengthened over the known
    /// messages that follow, those the compaction made digests of
    /// included.
    pub fn keep(
        mut body: RequestBody,
        format: Option<Format>,
        mut inputs: Vec<Input>,
        read: ReadInputs,
        digests: &[Option<Rc<Digest>>],
        mut prefix: KnownPrefix,
        settled: Format,
    ) -> PreviousBody {
        if let Some(&(first, _)) = read.0.first() {
            prefix.truncate(first);
        }
        for (i, input) in read.0 {
            if let Some(slot) = inputs.get_mut(i) {
                *slot = input;
            }
        }
        // Most messages have no digest made now: only those that do are
        // looked at.
        for (i, digest) in digests.iter().enumerate() {
            if let (Some(d), Some(slot)) = (digest, inputs.get_mut(i)) {
                *slot = Input::known(Rc::clone(d));
            }
        }
        prefix.truncate(inputs.len());
        prefix.extend(&inputs, settled);
        body.inputs = inputs;
        PreviousBody {
            body,
            format,
            prefix,
        }
    }

    /// The body's text, for the host to find how much of it the next body
    /// begins with.
    pub fn text(&self) -> &str {
        self.body.text.text()
    }

    /// Where the body's last message begins (where its text ends, when it
    /// has none). A conversation's next body shares every byte before it
    /// (the new messages follow the last one, or it is sent again
    /// changed): the host compares those bytes first, all at once, and
    /// looks for the first difference only after them.
    pub fn last_message_start(&self) -> usize {
        self.body
            .spans
            .last()
            .map_or(self.text().len(), |&(start, _)| start)
    }

    /// Reads the next body: its first `same` bytes are this body's, `rest`
    /// the bytes that follow (`format` and `known` as for [`read_body`](super::read_body)).
    /// Only the new bytes are checked as UTF-8 (a body that is not is
    /// refused with the byte where it stops being so); the whole is
    /// located as [`read_body`](super::read_body) locates it, and each message found where
    /// this body had it, within the shared bytes, is taken as it was read.
    pub fn read_next(
        self,
        same: usize,
        rest: &[u8],
        format: Option<Format>,
        known: &mut dyn FnMut(&str) -> Option<Rc<Digest>>,
    ) -> Result<ReadAgain, BodyError> {
        let PreviousBody {
            body: previous,
            format: was,
            mut prefix,
        } = self;
        let RequestBody {
            text,
            inputs,
            spans: before,
            key: had,
        } = previous;
        let same = same.min(text.text().len());
        let usable = was == format && text.entry_count() <= MAX_ENTRIES;
        let (mut text, entries, facts) = text.into_parts(same);
        // The new bytes, from the character `same` falls in, checked as
        // UTF-8; the bytes before were checked with the body before.
        let start = (0..=same)
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        let mut tail = text
            .as_bytes()
            .get(start..same)
            .unwrap_or_default()
            .to_vec();
        text.truncate(start);
        tail.extend_from_slice(rest);
        let tail = std::str::from_utf8(&tail).map_err(|e| BodyError::NotUtf8 {
            at: start + e.valid_up_to(),
        })?;
        if text.capacity() < start + tail.len() {
            // Room for the next body's new messages too.
            text.reserve_exact(tail.len() + start / 8);
        }
        text.push_str(tail);
        let usable = usable && inputs.len() == before.len();
        let Again {
            key,
            spans,
            reused,
            read_from,
        } = locate_again(&text, format, had, &before, same, usable)?;
        let mut inputs = inputs;
        inputs.truncate(reused);
        prefix.truncate(reused);
        let text = if reused > 0 {
            BodyText::resumed(text, entries, facts)
        } else {
            BodyText::new(text)
        };
        let mut body = RequestBody {
            text,
            inputs,
            spans,
            key,
        };
        body.read_inputs(known)?;
        Ok(ReadAgain {
            body,
            reused,
            read_from,
            prefix,
        })
    }
}

/// Where the messages of a body read again lie, and how many of them lie
/// where they lay in the body before.
struct Again {
    key: Option<&'static str>,
    spans: Vec<(usize, usize)>,
    /// Its first messages, as they lay before.
    reused: usize,
    /// See [`ReadAgain::read_from`].
    read_from: usize,
}

/// Where the messages of `text` lie, its first `same` bytes those of the
/// body before (whose messages lay at `before` under `had`; `usable` when
/// they may be taken as they were). The same bytes read the same: a
/// message that lay there lies there again, and the text is read from the
/// end of the last one on, unless what follows names another key for
/// messages, which may move them all: then it is read whole.
fn locate_again(
    text: &str,
    format: Option<Format>,
    had: Option<&'static str>,
    before: &[(usize, usize)],
    same: usize,
    usable: bool,
) -> Result<Again, BodyError> {
    let kept = if usable {
        // The spans lie in order.
        before.partition_point(|span| span.1 <= same)
    } else {
        0
    };
    if let Some(&(_, from)) = kept.checked_sub(1).and_then(|last| before.get(last)) {
        if let Some((key, spans)) = locate_after(text, had, &before[..kept], from) {
            return Ok(Again {
                key,
                spans,
                reused: kept,
                read_from: from,
            });
        }
    }
    let (key, spans) = locate(text, format)?;
    let reused = if usable && key == had {
        spans
            .iter()
            .zip(before)
            .take_while(|(now, then)| now == then && now.1 <= same)
            .count()
    } else {
        0
    };
    Ok(Again {
        key,
        spans,
        reused,
        read_from: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::read_body;
    use crate::media::Payloads;
    use serde_json::Value;

    const PAYLOAD_CHARS: usize = 2048;

    /// A body of `messages` under "messages", the first an image whose
    /// payload lies in the text.
    fn body(rest: &str) -> String {
        let payload = "iVBO".repeat(PAYLOAD_CHARS / 4);
        format!(
            r#"{{"model":"m","messages":[{{"role":"user","content":[{{"type":"image_url","image_url":{{"url":"data:image/png;base64,{payload}"}}}}]}},{{"role":"assistant","content":"é"}}{rest}],"stream":true}}"#
        )
    }

    fn read(text: &str) -> RequestBody {
        read_body(text.to_string(), None, &mut |_| None).unwrap()
    }

    /// Keeps `body` as the compaction would: each message as read.
    fn kept(mut body: RequestBody) -> PreviousBody {
        let inputs = std::mem::take(&mut body.inputs);
        PreviousBody::keep(
            body,
            None,
            inputs,
            ReadInputs::default(),
            &[],
            KnownPrefix::default(),
            Format::OpenAi,
        )
    }

    fn shared(a: &str, b: &str) -> usize {
        a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
    }

    fn next(previous: PreviousBody, text: &str) -> Result<ReadAgain, BodyError> {
        let same = shared(previous.text(), text);
        previous.read_next(same, &text.as_bytes()[same..], None, &mut |_| None)
    }

    fn values(body: &mut RequestBody) -> Vec<Value> {
        (0..body.spans.len())
            .map(|i| body.read_message(i).unwrap())
            .collect()
    }

    #[test]
    fn the_bytes_before_the_last_message_are_those_the_next_body_shares() {
        let first = body(r#",{"role":"user","content":"again"}"#);
        let previous = kept(read(&first));
        let start = previous.last_message_start();
        assert!(first[start..].starts_with(r#"{"role":"user","content":"again"}]"#));
        // The next turn: messages after the last one, or the last one sent
        // changed. Either shares every byte before it.
        for next in [
            body(r#",{"role":"user","content":"again"},{"role":"assistant","content":"ok"}"#),
            body(r#",{"role":"user","content":"again and again"}"#),
        ] {
            assert!(shared(previous.text(), &next) >= start);
        }
        let empty = format!("{}]}}", r#"{"model":"m","messages":["#);
        let none = kept(read(&empty));
        assert_eq!(none.last_message_start(), empty.len());
    }

    #[test]
    fn the_messages_before_the_new_ones_are_taken_as_read() {
        let first = body("");
        let second = body(r#",{"role":"user","content":"again"}"#);
        let mut again = next(kept(read(&first)), &second).unwrap();
        assert_eq!(again.reused, 2);
        // Read from the end of the second message on.
        assert_eq!(again.read_from, read(&first).spans[1].1);
        let mut whole = read(&second);
        assert_eq!(again.body.spans, whole.spans);
        assert_eq!(again.body.text.text(), second);
        assert_eq!(values(&mut again.body), values(&mut whole));
    }

    #[test]
    fn a_cut_inside_a_character_or_a_message_reads_from_the_message_before() {
        // "é" and "è" share their first byte.
        let first = body(r#",{"role":"user","content":"café"}"#);
        let second = body(r#",{"role":"user","content":"cafè"}"#);
        let mut again = next(kept(read(&first)), &second).unwrap();
        assert_eq!(again.reused, 2);
        assert_eq!(values(&mut again.body), values(&mut read(&second)));
    }

    #[test]
    fn a_later_key_that_holds_the_messages_now_has_every_message_read_again() {
        let first = body("");
        // Whether the text was read from the messages' end on: not after a
        // key that may hold messages, which may have moved them.
        for (later, reused, resumed) in [
            (r#","messages":[]"#, 0, false),
            (r#","mess\u0061ges":[]"#, 0, false),
            // "messages" is looked for first: it still holds them.
            (r#","input":"x""#, 2, false),
            (r#","tools":[{"input":1}]"#, 2, true),
        ] {
            let second = format!("{}{later}}}", &first[..first.len() - 1]);
            let again = next(kept(read(&first)), &second).unwrap();
            assert_eq!(again.reused, reused, "{later}");
            assert_eq!(again.read_from > 0, resumed, "{later}");
            assert_eq!(again.body.spans, read(&second).spans);
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_or_json_are_refused_as_a_whole_read_refuses_them() {
        let first = body("");
        let previous = kept(read(&first));
        let same = first.len() - 2;
        let err = previous
            .read_next(same, b"\xff]}", None, &mut |_| None)
            .err()
            .unwrap();
        assert_eq!(err, BodyError::NotUtf8 { at: same });
        let second = format!("{},]}}", &first[..first.len() - 2]);
        let err = next(kept(read(&first)), &second).err().unwrap();
        assert_eq!(err, read_body(second, None, &mut |_| None).err().unwrap());
    }

    #[test]
    fn the_facts_of_payloads_in_the_shared_bytes_are_kept() {
        let first = body("");
        let mut previous = read(&first);
        let image = previous.read_message(0).unwrap();
        let url = image["content"][0]["image_url"]["url"]
            .as_str()
            .unwrap()
            .to_string();
        let facts = previous.text.facts(&url, 8);
        assert_eq!(facts.len, PAYLOAD_CHARS);
        let again = next(kept(previous), &body(",{}")).unwrap();
        assert_eq!(again.body.text.facts_known(), 1, "kept, not read again");
        assert_eq!(again.body.text.facts(&url, 8), facts);
        // A body that shares less than the payload keeps none.
        let other = first.replacen("iVBO", "AAAA", 1);
        let again = next(kept(read(&first)), &other).unwrap();
        assert_eq!(again.reused, 0);
        assert_eq!(again.body.text.facts_known(), 0);
    }
}
