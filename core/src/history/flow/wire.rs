//! Between wire values and the message model: decoding, encoding and the
//! sizes a report gives, payloads counted at their real length.

use crate::budget::json_len_with;
use crate::json_path::JsonPath;
use crate::media::payload::Payloads;
use crate::messages::{decode_messages, Format, Message, MessageError};
use serde_json::Value;

/// The serialized size of each message, payloads counted at their real length.
pub(super) fn sizes_of(values: &[Value], payloads: &dyn Payloads) -> Vec<u64> {
    values.iter().map(|v| json_len_with(v, payloads)).collect()
}

/// Decodes `values` as `format` (detected when `None`).
pub(super) fn decode(
    values: Vec<Value>,
    format: Option<Format>,
) -> Result<(Format, Vec<Message>), MessageError> {
    decode_messages(values, format, &JsonPath::root("messages"))
}

/// Encodes `messages` back to wire values, with the serialized size of the
/// whole: a changed message is measured again, an unchanged one keeps its
/// size from `sizes`.
pub(super) fn encode(
    messages: Vec<Message>,
    changed: &[bool],
    sizes: &[u64],
    payloads: &dyn Payloads,
) -> (Vec<Value>, u64) {
    let mut after = 0;
    let values = messages
        .into_iter()
        .enumerate()
        .map(|(i, m)| {
            let v = m.into_wire();
            after += if changed[i] {
                json_len_with(&v, payloads)
            } else {
                sizes[i]
            };
            v
        })
        .collect();
    (values, after)
}
