//! Where a body keeps its messages, and each message read where it lies.

use super::error::{BodyError, BODY};
use super::text::BodyText;
use crate::history::{Digest, Input};
use crate::messages::Format;
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;
use std::fmt;
use std::rc::Rc;

/// The keys that hold a body's messages, in the order they are looked for
/// when the call names no format: each format's `messages_key`.
const MESSAGE_KEYS: [&str; 3] = ["messages", "contents", "input"];

/// A request body read: its text, its messages as inputs of a compaction
/// and where each lies.
pub struct RequestBody {
    /// The text and what the values reference in it.
    pub text: BodyText,
    /// Each message: known by its digest, or read.
    pub inputs: Vec<Input>,
    /// Where each message lies in the text, in bytes.
    pub(super) spans: Vec<(usize, usize)>,
    /// The key holding the messages (`None`: the body is their array).
    pub key: Option<&'static str>,
}

impl RequestBody {
    /// Message `i`'s text as it lies in the body.
    pub fn raw(&self, i: usize) -> &str {
        let (start, end) = self.spans.get(i).copied().unwrap_or_default();
        self.text.text().get(start..end).unwrap_or_default()
    }

    /// Reads the inputs of the messages after those it holds: each one
    /// whose text `known` gives a digest of is that digest, every other one
    /// is read.
    pub(super) fn read_inputs(
        &mut self,
        known: &mut dyn FnMut(&str) -> Option<Rc<Digest>>,
    ) -> Result<(), BodyError> {
        for i in self.inputs.len()..self.spans.len() {
            let input = match known(self.raw(i)) {
                Some(digest) => Input::known(digest),
                None => Input::Again(self.read_message(i)?),
            };
            self.inputs.push(input);
        }
        Ok(())
    }

    /// Reads message `i` (one that was known by its digest, when the digest
    /// cannot serve the call).
    pub fn read_message(&mut self, i: usize) -> Result<Value, BodyError> {
        let span = self.spans.get(i).copied().unwrap_or_default();
        let key = self.key;
        self.text.read_value(span, || path_of(key, i))
    }
}

/// The JSON path of message `i` under `key`.
fn path_of(key: Option<&str>, i: usize) -> String {
    match key {
        Some(k) => format!("{BODY}.{k}[{i}]"),
        None => format!("{BODY}[{i}]"),
    }
}

/// Reads `text`, a request body of `format` (looked for under each key
/// that may hold messages when `None`): the messages of an object's
/// `messages`, `contents` or `input` key, or of a body that is an array.
/// A body whose `input` is a string (an OpenAI Responses request of one
/// prompt) holds no message. A message whose text `known` gives a digest
/// of is not read: it is that digest; every other one is read, to be
/// remembered ([`Input::Again`]), for a message a server receives is sent
/// again with the next request.
pub fn read_body(
    text: String,
    format: Option<Format>,
    known: &mut dyn FnMut(&str) -> Option<Rc<Digest>>,
) -> Result<RequestBody, BodyError> {
    let (key, spans) = locate(&text, format)?;
    let mut body = RequestBody {
        text: BodyText::new(text),
        inputs: Vec::with_capacity(spans.len()),
        spans,
        key,
    };
    body.read_inputs(known)?;
    Ok(body)
}

/// [`read_body`] of `bytes`, the body's UTF-8 text.
pub fn read_body_bytes(
    bytes: Vec<u8>,
    format: Option<Format>,
    known: &mut dyn FnMut(&str) -> Option<Rc<Digest>>,
) -> Result<RequestBody, BodyError> {
    let text = String::from_utf8(bytes).map_err(|e| BodyError::NotUtf8 {
        at: e.utf8_error().valid_up_to(),
    })?;
    read_body(text, format, known)
}

/// Where a body's messages lie: the key holding them, and each one's bytes.
pub(super) type Located = (Option<&'static str>, Vec<(usize, usize)>);

/// Where the messages lie in `text`.
pub(super) fn locate(text: &str, format: Option<Format>) -> Result<Located, BodyError> {
    let not_json = |e: serde_json::Error| BodyError::NotJson {
        path: BODY.into(),
        reason: e.to_string(),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let top = Top::deserialize(&mut de).map_err(not_json)?;
    de.end().map_err(not_json)?;
    let (key, items) = match top {
        Top::Array(items) => (None, items),
        Top::Object(slots) => choose(slots, format)?,
        Top::Other => {
            return Err(BodyError::NoMessages {
                path: BODY.into(),
                reason: "a request body is an object or an array of messages".into(),
            })
        }
    };
    let base = text.as_ptr() as usize;
    let spans = items
        .iter()
        .map(|raw| {
            let start = raw.get().as_ptr() as usize - base;
            (start, start + raw.get().len())
        })
        .collect();
    Ok((key, spans))
}

/// The messages under the key `format` keeps them in (or the first key
/// that holds any), from the keys the body holds.
fn choose<'a>(
    mut slots: Vec<(&'static str, Slot<'a>)>,
    format: Option<Format>,
) -> Result<(Option<&'static str>, Vec<&'a RawValue>), BodyError> {
    let wanted: Vec<&'static str> = match format {
        Some(f) => vec![f.messages_key()],
        None => MESSAGE_KEYS.to_vec(),
    };
    for key in &wanted {
        let Some(at) = slots.iter().rposition(|(k, _)| k == key) else {
            continue;
        };
        return match slots.swap_remove(at).1 {
            Slot::Array(items) => Ok((Some(key), items)),
            Slot::Text if *key == "input" => Ok((Some(key), Vec::new())),
            Slot::Text | Slot::Other => Err(BodyError::NoMessages {
                path: format!("{BODY}.{key}"),
                reason: "holds no array of messages".into(),
            }),
        };
    }
    Err(BodyError::NoMessages {
        path: BODY.into(),
        reason: format!(
            "has no {} key holding messages",
            wanted
                .iter()
                .map(|k| crate::quoted(k))
                .collect::<Vec<_>>()
                .join(" or ")
        ),
    })
}

/// The body, read only as far as finding its messages needs.
pub(super) enum Top<'a> {
    /// An array: the messages themselves.
    Array(Vec<&'a RawValue>),
    /// An object: each key that may hold messages, with what it holds.
    Object(Vec<(&'static str, Slot<'a>)>),
    /// Anything else.
    Other,
}

/// What a key that may hold messages holds.
pub(super) enum Slot<'a> {
    /// An array: its items, unread.
    Array(Vec<&'a RawValue>),
    /// A string.
    Text,
    /// Anything else.
    Other,
}

impl<'de> Deserialize<'de> for Top<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TopVisitor)
    }
}

struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = Top<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a request body")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Top<'de>, A::Error> {
        items(seq).map(Top::Array)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top<'de>, A::Error> {
        let mut slots = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            match MESSAGE_KEYS.iter().find(|k| **k == key.as_str()) {
                Some(k) => slots.push((*k, map.next_value::<Slot<'de>>()?)),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Top::Object(slots))
    }

    fn visit_bool<E>(self, _: bool) -> Result<Top<'de>, E> {
        Ok(Top::Other)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Top<'de>, E> {
        Ok(Top::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Top<'de>, E> {
        Ok(Top::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Top<'de>, E> {
        Ok(Top::Other)
    }
    fn visit_str<E>(self, _: &str) -> Result<Top<'de>, E> {
        Ok(Top::Other)
    }
    fn visit_unit<E>(self) -> Result<Top<'de>, E> {
        Ok(Top::Other)
    }
}

/// The items of an array, unread.
fn items<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<Vec<&'de RawValue>, A::Error> {
    let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
    while let Some(item) = seq.next_element::<&'de RawValue>()? {
        items.push(item);
    }
    Ok(items)
}

impl<'de> Deserialize<'de> for Slot<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SlotVisitor)
    }
}

struct SlotVisitor;

impl<'de> Visitor<'de> for SlotVisitor {
    type Value = Slot<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of messages")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Slot<'de>, A::Error> {
        items(seq).map(Slot::Array)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Slot<'de>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Slot::Other)
    }

    fn visit_str<E>(self, _: &str) -> Result<Slot<'de>, E> {
        Ok(Slot::Text)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Slot<'de>, E> {
        Ok(Slot::Other)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Slot<'de>, E> {
        Ok(Slot::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Slot<'de>, E> {
        Ok(Slot::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Slot<'de>, E> {
        Ok(Slot::Other)
    }
    fn visit_unit<E>(self) -> Result<Slot<'de>, E> {
        Ok(Slot::Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_looked_for_are_the_formats_own() {
        let mut own: Vec<&str> = Format::ALL.iter().map(|f| f.messages_key()).collect();
        own.sort_unstable();
        own.dedup();
        let mut looked_for = MESSAGE_KEYS.to_vec();
        looked_for.sort_unstable();
        assert_eq!(looked_for, own);
    }
}
