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

/// The wire values of `messages` and their size after: a changed message
/// measured again, the others `sizes`. A message `known` by its digest (a
/// stand-in) is `null`, for the caller keeps its own.
pub(super) fn encode(
    messages: Vec<Message>,
    changed: &[bool],
    sizes: &[u64],
    known: &[bool],
    payloads: &dyn Payloads,
) -> (Vec<Value>, u64) {
    let mut after = 0;
    let values = messages
        .into_iter()
        .enumerate()
        .map(|(i, mut m)| {
            if known.get(i) == Some(&true) {
                after += sizes[i];
                return Value::Null;
            }
            if changed[i] {
                m.draw_pictures(payloads);
            }
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
