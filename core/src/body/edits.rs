//! What compaction changed, as edits of the body's text: each changed
//! message written by `serde_json` (its references into the body expanded
//! again) in place of the text it was read from.

use super::locate::RequestBody;
use super::text::BodyText;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;
use std::fmt;

/// One edit of the body's text: bytes `start..end` become `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyEdit {
    /// Where the replaced text begins, in bytes.
    pub start: usize,
    /// Where it ends, in bytes.
    pub end: usize,
    /// The message's new text.
    pub text: String,
}

/// The edits that make `body` hold the `changed` messages of an operation
/// on its messages (each by its index, in order): a message's new text in
/// place of the text it was read from.
pub fn body_edits<'v>(
    body: &RequestBody,
    changed: impl IntoIterator<Item = (usize, &'v Value)>,
) -> Vec<BodyEdit> {
    let mut edits = Vec::new();
    for (i, message) in changed {
        let Some(&(start, end)) = body.spans.get(i) else {
            continue;
        };
        let written = serde_json::to_string(&Expanded {
            value: message,
            body: &body.text,
        });
        // Writing a value with string keys cannot fail; a message that did
        // would stay as it was sent.
        let Ok(written) = written else {
            continue;
        };
        edits.push(BodyEdit {
            start,
            end,
            text: written,
        });
    }
    edits
}

/// A value written with each reference into the body replaced by the
/// text it stands for.
struct Expanded<'a> {
    value: &'a Value,
    body: &'a BodyText,
}

impl Serialize for Expanded<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let body = self.body;
        match self.value {
            Value::String(s) => match body.resolve(s) {
                Some((before, text)) => serializer.collect_str(&Joined(before, text)),
                None => serializer.serialize_str(s),
            },
            Value::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for value in items {
                    seq.serialize_element(&Expanded { value, body })?;
                }
                seq.end()
            }
            Value::Object(object) => {
                let mut map = serializer.serialize_map(Some(object.len()))?;
                for (key, value) in object {
                    map.serialize_entry(key, &Expanded { value, body })?;
                }
                map.end()
            }
            other => other.serialize(serializer),
        }
    }
}

/// Two texts written one after the other.
struct Joined<'a>(&'a str, &'a str);

impl fmt::Display for Joined<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)?;
        f.write_str(self.1)
    }
}
