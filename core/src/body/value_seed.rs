//! One message of the body read into a value where it lies: every string
//! is copied into the value but a long image payload (the base64 of a
//! `data:` URL, or a long base64 string under a payload key), which the
//! value references where it lies in the body, and a string holding
//! U+0000, which the value references too (see [`Entry`]).

use crate::media::external_ref;
use crate::messages::is_payload_key;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::fmt;

/// What a reference into the body stands for.
#[derive(Debug)]
pub(super) enum Entry {
    /// Bytes `start..end` of the text: a string with no escape, as it lies.
    Span(usize, usize),
    /// A string unescaped by the parser: one that holds U+0000 (the
    /// character references begin with, so no text of the caller's can
    /// pass for one), or a long payload with escapes in it.
    Owned(String),
}

/// The shortest string, in bytes, that may be a payload left in the body.
pub(super) const PAYLOAD_MIN: usize = 1024;

/// How far into a `data:` URL its `;base64,` header may end.
const HEADER_MAX: usize = 256;

/// The references made while reading a body: where its text begins in
/// memory (a string the parser borrows lies in it), and what each stands
/// for.
pub(super) struct Refs<'e> {
    base: usize,
    len: usize,
    entries: &'e mut Vec<Entry>,
}

impl<'e> Refs<'e> {
    /// References into `text`, added to `entries`.
    pub(super) fn new(text: &str, entries: &'e mut Vec<Entry>) -> Refs<'e> {
        Refs {
            base: text.as_ptr() as usize,
            len: text.len(),
            entries,
        }
    }

    /// Where `s`, a slice of the body's text, begins in it.
    fn offset_of(&self, s: &str) -> Option<usize> {
        let at = (s.as_ptr() as usize).checked_sub(self.base)?;
        (at + s.len() <= self.len).then_some(at)
    }

    /// A reference to `payload`: where it lies in the text when the parser
    /// borrowed it, else the unescaped string itself.
    fn reference(&mut self, payload: Cow<'_, str>) -> String {
        let entry = match &payload {
            Cow::Borrowed(s) => match self.offset_of(s) {
                Some(at) => Entry::Span(at, at + s.len()),
                None => Entry::Owned(s.to_string()),
            },
            Cow::Owned(_) => Entry::Owned(payload.into_owned()),
        };
        self.entries.push(entry);
        external_ref(super::BODY_TABLE, self.entries.len() as u32 - 1)
    }

    /// The value of string `s`, found under `key`.
    fn string(&mut self, s: Cow<'_, str>, key: Option<&str>) -> Value {
        if s.contains('\u{0}') {
            return Value::String(self.reference(s));
        }
        if s.len() >= PAYLOAD_MIN {
            if let Some(comma) = data_url_comma(&s) {
                let header = s[..=comma].to_string();
                let payload = match s {
                    Cow::Borrowed(b) => Cow::Borrowed(&b[comma + 1..]),
                    Cow::Owned(o) => Cow::Owned(o[comma + 1..].to_string()),
                };
                return Value::String(header + &self.reference(payload));
            }
            if key.is_some_and(is_payload_key) && is_base64_head(&s) {
                return Value::String(self.reference(s));
            }
        }
        Value::String(s.into_owned())
    }
}

/// Where the `;base64,` header of data URL `s` ends (its comma), when `s`
/// is one.
fn data_url_comma(s: &str) -> Option<usize> {
    if !s.get(..5)?.eq_ignore_ascii_case("data:") {
        return None;
    }
    let head = &s.as_bytes()[..s.len().min(HEADER_MAX)];
    let comma = head.iter().position(|&c| c == b',')?;
    let header = &s[..comma];
    header
        .to_ascii_lowercase()
        .ends_with(";base64")
        .then_some(comma)
}

/// Whether the first 128 bytes of `s` are all of the base64 alphabet.
fn is_base64_head(s: &str) -> bool {
    s.bytes()
        .take(128)
        .all(|c| c.is_ascii_alphanumeric() || c == b'+' || c == b'/' || c == b'=')
}

/// Reads one JSON value, making references through `refs`.
pub(super) struct ValueSeed<'r, 'e, 'k> {
    pub(super) refs: &'r mut Refs<'e>,
    pub(super) key: Option<&'k str>,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_, '_, '_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_, '_, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Value, E> {
        Ok(self.refs.string(Cow::Borrowed(v), self.key))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(self.refs.string(Cow::Owned(v.to_string()), self.key))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(self.refs.string(Cow::Owned(v), self.key))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        // Entries of an Ollama `images` array are payloads like keyed ones.
        let key = self.key.filter(|k| *k == "images");
        while let Some(item) = seq.next_element_seed(ValueSeed {
            refs: &mut *self.refs,
            key,
        })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(ValueSeed {
                refs: &mut *self.refs,
                key: Some(&key),
            })?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}
