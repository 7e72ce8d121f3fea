//! What compaction and expansion share: their outcome, encoding the
//! messages, and renewing the records a call read.
//! Compaction runs in `compact_call`, expansion in `restore`, one image
//! for the `get_history_image` tool in `lookup`.

use crate::budget::json_len_with;
use crate::media::payload::Payloads;
use crate::messages::Message;
use crate::stash::{RecordMeta, StashBackend, StashConfig};
use serde_json::Value;

/// Messages after an operation: all of them, and which ones changed (an
/// unchanged message is the caller's value, moved through untouched).
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome<R> {
    /// Every message, in order.
    pub messages: Vec<Value>,
    /// Per message: did the operation change it?
    pub changed: Vec<bool>,
    /// What happened.
    pub report: R,
}

/// The changed messages of an operation's outcome, each with its index in
/// the request, in order, and what happened: all that a caller keeping its
/// own unchanged messages reads (a request body's text, edited where its
/// messages changed).
#[derive(Debug, Clone, PartialEq)]
pub struct Changes<R> {
    /// Each changed message, by its index in the request.
    pub messages: Vec<(usize, Value)>,
    /// What happened.
    pub report: R,
}

impl<R> Outcome<R> {
    /// Each changed message with its index, in order.
    pub fn changed_messages(&self) -> impl Iterator<Item = (usize, &Value)> {
        self.messages
            .iter()
            .zip(&self.changed)
            .enumerate()
            .filter(|(_, (_, &changed))| changed)
            .map(|(i, (value, _))| (i, value))
    }
}

/// The messages an operation wrote, before they are given as an
/// [`Outcome`] or as [`Changes`].
pub(super) struct Encoded<R> {
    /// The wire value of each message written (not `null`), by its index
    /// in the request, in order.
    pub values: Vec<(usize, Value)>,
    /// Per message of the request: did the operation change it?
    pub changed: Vec<bool>,
    pub report: R,
}

impl<R> Encoded<R> {
    /// Every message, in order: `null` where none was written (the
    /// caller's own stays).
    pub fn into_outcome(self) -> Outcome<R> {
        let mut messages = vec![Value::Null; self.changed.len()];
        for (i, value) in self.values {
            if let Some(slot) = messages.get_mut(i) {
                *slot = value;
            }
        }
        Outcome {
            messages,
            changed: self.changed,
            report: self.report,
        }
    }

    /// Only the changed messages.
    pub fn into_changes(self) -> Changes<R> {
        let changed = self.changed;
        Changes {
            messages: self
                .values
                .into_iter()
                .filter(|(i, _)| changed.get(*i) == Some(&true))
                .collect(),
            report: self.report,
        }
    }
}

/// The wire values of a request's messages and their size after:
/// `messages` are those at `at` in the request (all of them, in order, when
/// `None`), each of the request's messages is sized by `sizes`. A changed
/// message is measured again, the others keep their size. A message
/// `known` by its digest (a stand-in), or not among `messages`, is not
/// written, for the caller keeps its own: the values are those written, by
/// their index in the request.
pub(super) fn encode(
    messages: Vec<Message>,
    at: Option<&[usize]>,
    changed: &[bool],
    sizes: &[u64],
    known: &[bool],
    payloads: &dyn Payloads,
) -> (Vec<(usize, Value)>, u64) {
    let mut after: u64 = sizes.iter().sum();
    let mut values = Vec::with_capacity(messages.len());
    for (k, mut m) in messages.into_iter().enumerate() {
        let i = at.map_or(Some(k), |at| at.get(k).copied());
        let Some(i) = i.filter(|&i| i < sizes.len()) else {
            continue;
        };
        if known.get(i) == Some(&true) {
            continue;
        }
        let changed = changed.get(i) == Some(&true);
        if changed {
            m.draw_pictures(payloads);
        }
        let value = m.into_wire();
        if changed {
            after = after - sizes[i] + json_len_with(&value, payloads);
        }
        values.push((i, value));
    }
    (values, after)
}

pub(super) async fn refresh<'a, B: StashBackend>(
    backend: &B,
    config: &StashConfig,
    now: f64,
    ids: impl Iterator<Item = &'a String>,
) {
    let mut wanted: Vec<String> = Vec::new();
    for id in ids {
        if !wanted.contains(id) {
            wanted.push(id.clone());
        }
    }
    if wanted.is_empty() {
        return;
    }
    if let Ok(metas) = backend.metas_of(&wanted).await {
        let touched: Vec<RecordMeta> = metas
            .into_iter()
            .map(|m| RecordMeta {
                expires_at: now + config.ttl_ms,
                last_used_at: now,
                ..m
            })
            .collect();
        let _ = backend.put_meta(&touched).await;
    }
}
