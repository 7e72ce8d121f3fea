//! Estimates, expansions and fittings that remember the messages they
//! cannot change give the very result of those that remember nothing, over
//! random histories and random edits between calls (compaction's property,
//! with the memo's hits, is in `memo_serves.rs`). The host here recognizes
//! a message by an equal value, as the JavaScript binding does by comparing
//! every leaf with what it read.
#![cfg(not(target_arch = "wasm32"))]

use crate::common::calls::*;
use crate::common::*;
use crate::properties::{format_strategy, message_strategy, render, GenMessage, GenPart, IMAGES};
use ctxpack_core::budget::{model_profile, RequestLimits};
use ctxpack_core::calls::EstimateCall;
use ctxpack_core::fit::{FitCall, FitOptions, FitReport};
use ctxpack_core::history::{
    settle_inputs, settle_inputs_for_expansion, CompactCall, CompactOptions, CompactReport, Digest,
    ExpandCall, Input, MessageMemo, Outcome,
};
use ctxpack_core::media::InMemory;
use ctxpack_core::messages::Format;
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashBackend, StashConfig};
use proptest::prelude::*;
use serde_json::Value;

/// A host: the memo, the key of each message value it remembers, and the
/// values it read once.
#[derive(Default)]
pub(crate) struct Host {
    memo: MessageMemo,
    read: Vec<(Value, u64)>,
    seen: Vec<Value>,
}

impl Host {
    /// Each message known by its digest, or read (as sent again when seen
    /// before); and the key each had.
    fn inputs(&mut self, msgs: &[Value]) -> (Vec<Input>, Vec<Option<u64>>) {
        self.memo.begin_call();
        let mut keys = Vec::new();
        let inputs = msgs
            .iter()
            .map(|m| {
                let key = self.read.iter().find(|(v, _)| v == m).map(|(_, k)| *k);
                keys.push(key);
                match key.and_then(|k| self.memo.get(k)) {
                    Some(d) => Input::known(d),
                    None if key.is_some() || self.seen.contains(m) => Input::Again(m.clone()),
                    None => {
                        self.seen.push(m.clone());
                        Input::Read(m.clone())
                    }
                }
            })
            .collect();
        (inputs, keys)
    }

    /// Keeps the digests a call made.
    fn keep<D: Into<std::rc::Rc<Digest>>>(
        &mut self,
        keys: &[Option<u64>],
        digests: Vec<Option<D>>,
        msgs: &[Value],
    ) {
        for (i, digest) in digests.into_iter().enumerate() {
            if let Some(d) = digest {
                let key = self.memo.keep(keys[i], d);
                if keys[i].is_none() {
                    self.read.push((msgs[i].clone(), key));
                }
            }
        }
    }
}

fn access(stash: &MemoryBackend, now: f64) -> StashAccess<'_, MemoryBackend> {
    static CONFIG: std::sync::OnceLock<StashConfig> = std::sync::OnceLock::new();
    StashAccess {
        backend: stash,
        config: CONFIG.get_or_init(StashConfig::default),
        now,
    }
}

fn call<'a, B: StashBackend>(
    stash: &'a B,
    options: CompactOptions,
    now: f64,
) -> CompactCall<'a, B> {
    static CONFIG: std::sync::OnceLock<StashConfig> = std::sync::OnceLock::new();
    CompactCall::new(
        StashAccess {
            backend: stash,
            config: CONFIG.get_or_init(StashConfig::default),
            now,
        },
        options,
        &ctxpack_core::media::InMemory,
    )
}

/// Compacts `msgs` remembering, the caller's own value put back where the
/// outcome has a known message's `null`; also returns how many were known.
fn remembering(
    host: &mut Host,
    stash: &MemoryBackend,
    msgs: &[Value],
    format: Option<Format>,
    options: CompactOptions,
    now: f64,
) -> (Outcome<CompactReport>, usize) {
    let (outcome, known) = remembering_which(host, stash, msgs, format, options, now);
    (outcome, known.iter().filter(|k| **k).count())
}

/// [`remembering`], with whether each message was known (its digest
/// served the call: it was not read).
pub(crate) fn remembering_which(
    host: &mut Host,
    stash: &MemoryBackend,
    msgs: &[Value],
    format: Option<Format>,
    options: CompactOptions,
    now: f64,
) -> (Outcome<CompactReport>, Vec<bool>) {
    let (mut inputs, keys) = host.inputs(msgs);
    let format = settle_inputs(&mut inputs, format, &options, &mut |i| {
        Ok::<_, ()>(msgs[i].clone())
    })
    .unwrap();
    let known = inputs
        .iter()
        .map(|i| matches!(i, Input::Known(_)))
        .collect();
    let (mut outcome, digests) =
        block_on(call(stash, options, now).run(&mut inputs, &format)).unwrap();
    host.keep(&keys, digests, msgs);
    for (i, value) in msgs.iter().enumerate() {
        if outcome.messages[i].is_null() && !outcome.changed[i] {
            outcome.messages[i] = value.clone();
        }
    }
    (outcome, known)
}

pub(crate) fn forgetting(
    stash: &MemoryBackend,
    msgs: &[Value],
    format: Option<Format>,
    options: CompactOptions,
    now: f64,
) -> Outcome<CompactReport> {
    block_on(call(stash, options, now).run_values(msgs.to_vec(), format)).unwrap()
}

/// An edit between two calls.
#[derive(Debug, Clone)]
pub(crate) enum Edit {
    Append(GenMessage),
    Retext(usize, String),
    Remove(usize),
    Swap(usize, usize),
    Placeholder(usize, usize),
}

pub(crate) fn edit_strategy() -> impl Strategy<Value = Edit> {
    prop_oneof![
        message_strategy().prop_map(Edit::Append),
        (0..16usize, "[a-z ]{0,6}").prop_map(|(i, t)| Edit::Retext(i, t)),
        (0..16usize).prop_map(Edit::Remove),
        (0..16usize, 0..16usize).prop_map(|(i, j)| Edit::Swap(i, j)),
        (0..16usize, 0..IMAGES.len()).prop_map(|(i, k)| Edit::Placeholder(i, k)),
    ]
}

pub(crate) fn apply(msgs: &mut Vec<GenMessage>, edit: &Edit) {
    let n = msgs.len();
    match edit.clone() {
        Edit::Append(m) => msgs.push(m),
        Edit::Retext(i, t) if n > 0 => msgs[i % n].text.push_str(&t),
        Edit::Remove(i) if n > 1 => {
            msgs.remove(i % n);
        }
        Edit::Swap(i, j) if n > 0 => msgs.swap(i % n, j % n),
        Edit::Placeholder(i, k) if n > 0 => {
            let id = md5(&b64(IMAGES[k].0));
            let text = GenPart::Text(format!("see [Picture:history_{id}]"));
            msgs[i % n].parts.get_or_insert_with(Vec::new).push(text);
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// An estimate that remembers, interleaved with compactions that
    /// remember (their digests serve it), gives what reading every message
    /// gives: the same report, image paths included.
    #[test]
    fn remembered_estimates_give_what_reading_gives(
        format in format_strategy(),
        givens in prop::collection::vec(any::<bool>(), 4),
        start in prop::collection::vec(message_strategy(), 1..8),
        edits in prop::collection::vec(prop::collection::vec(edit_strategy(), 0..4), 1..4),
        url_images in any::<bool>(),
    ) {
        let target = model_profile("claude-sonnet-4-5");
        let stash = MemoryBackend::new();
        let mut host = Host::default();
        let mut msgs = start;
        for (n, step) in std::iter::once(Vec::new()).chain(edits).enumerate() {
            let format_opt = givens[n].then_some(format);
            for e in &step {
                apply(&mut msgs, e);
            }
            let mut values = render(format, &msgs);
            if url_images {
                // Images by URL, which digests keep in their stand-ins.
                for v in &mut values {
                    with_urls(v);
                }
            }
            for _ in 0..2 {
                let (mut inputs, keys) = host.inputs(&values);
                let options = CompactOptions::default();
                let settled = settle_inputs(&mut inputs, format_opt, &options, &mut |i| Ok::<_, ()>(values[i].clone())).unwrap();
                let (report, digests) = EstimateCall::new(&target, &InMemory).run(inputs, &settled).unwrap();
                host.keep(&keys, digests, &values);
                let (all, read_settled) = read_all(values.clone(), format_opt);
                let read = EstimateCall::new(&target, &InMemory).run(all, &read_settled).unwrap().0;
                prop_assert_eq!(serde_json::to_value(&report).unwrap(), serde_json::to_value(&read).unwrap());
            }
            // A compaction's digests serve the next estimate too.
            remembering(&mut host, &stash, &values, format_opt, CompactOptions::default(), 1_000.0 + n as f64);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// An expansion that remembers, interleaved with compactions that
    /// remember, gives what reading every message gives: a message naming
    /// a placeholder is always read, one naming none is known.
    #[test]
    fn remembered_expansions_give_what_reading_gives(
        format in format_strategy(),
        givens in prop::collection::vec(any::<bool>(), 4),
        start in prop::collection::vec(message_strategy(), 1..8),
        edits in prop::collection::vec(prop::collection::vec(edit_strategy(), 0..4), 1..4),
    ) {
        let (with, without) = (MemoryBackend::new(), MemoryBackend::new());
        let mut host = Host::default();
        let mut msgs = start;
        for (n, step) in std::iter::once(Vec::new()).chain(edits).enumerate() {
            let format_opt = givens[n].then_some(format);
            for e in &step {
                apply(&mut msgs, e);
            }
            let values = render(format, &msgs);
            let now = 1_000.0 + n as f64;
            let options = CompactOptions::default();
            remembering(&mut host, &with, &values, format_opt, options, now);
            forgetting(&without, &values, format_opt, options, now);
            for _ in 0..2 {
                let (mut inputs, keys) = host.inputs(&values);
                let settled = settle_inputs_for_expansion(&mut inputs, format_opt, &mut |i| Ok::<_, ()>(values[i].clone())).unwrap();
                let (mut remembered, digests) = block_on(ExpandCall::new(access(&with, now), &InMemory).run(inputs, &settled)).unwrap();
                host.keep(&keys, digests, &values);
                let read = block_on(expand_values(access(&without, now), values.clone(), format_opt, &InMemory)).unwrap();
                prop_assert_eq!(&remembered.changed, &read.changed);
                prop_assert_eq!(serde_json::to_value(&remembered.report).unwrap(), serde_json::to_value(&read.report).unwrap());
                for (i, value) in values.iter().enumerate() {
                    if remembered.messages[i].is_null() && !remembered.changed[i] {
                        remembered.messages[i] = value.clone();
                    }
                }
                prop_assert_eq!(&remembered.messages, &read.messages);
            }
        }
    }
}

/// `v` with every data URL of an image made an https URL.
fn with_urls(v: &mut Value) {
    match v {
        Value::String(s) if s.starts_with("data:") => {
            *s = format!("https://x.test/{}.png", s.len())
        }
        Value::Array(items) => items.iter_mut().for_each(with_urls),
        Value::Object(map) => map.values_mut().for_each(with_urls),
        _ => {}
    }
}

/// A long chat is known message by message from its third send: sent a
/// second time, its messages are read and remembered; then only the new
/// ones are read.
#[test]
fn a_chat_sent_again_reads_only_its_new_messages() {
    let stash = MemoryBackend::new();
    let mut host = Host::default();
    let id = md5(&b64(PNG));
    let mut chat: Vec<Value> = (0..40)
        .map(|i| {
            if i % 2 == 0 {
                serde_json::json!({"role": "user", "content": [{"type": "text", "text": format!("q{i} [Picture:history_{id}]")}]})
            } else {
                serde_json::json!({"role": "assistant", "content": format!("a{i}")})
            }
        })
        .collect();
    let options = CompactOptions::default();
    let (first, known) = remembering(&mut host, &stash, &chat, None, options, 1.0);
    assert_eq!((known, host.memo.len()), (0, 0));
    assert_eq!(first.report.format, "openai");
    chat.push(serde_json::json!({"role": "user", "content": "and now?"}));
    let (_, known) = remembering(&mut host, &stash, &chat, None, options, 2.0);
    assert_eq!((known, host.memo.len()), (0, 40));
    chat.insert(
        40,
        serde_json::json!({"role": "assistant", "content": "well"}),
    );
    let (again, known) = remembering(&mut host, &stash, &chat, None, options, 3.0);
    assert_eq!(known, 40);
    let forgot = forgetting(&MemoryBackend::new(), &chat, None, options, 3.0);
    assert_eq!(again.report.bytes_before, forgot.report.bytes_before);
    assert_eq!(again.report.bytes_after, forgot.report.bytes_after);
    // A digest serves no other format: the messages are read again.
    let (_, known) = remembering(
        &mut host,
        &stash,
        &chat,
        Some(Format::Anthropic),
        options,
        4.0,
    );
    assert_eq!(known, 0);
}

/// Fits `values` over `stash`, with what `host` remembers when given
/// (interleaving with compactions, whose digests serve a fitting), the
/// caller's own value put back where the outcome has a known message's
/// `null`; also returns how many were known.
fn fitted(
    host: Option<&mut Host>,
    stash: &MemoryBackend,
    values: &[Value],
    format: Option<Format>,
    profile: &ctxpack_core::budget::ModelProfile,
    now: f64,
) -> (Outcome<FitReport>, usize) {
    let resizer = crate::common::codec::Codec::default();
    let options = FitOptions::default();
    let Some(host) = host else {
        let out = block_on(fit_values(
            FitCall::new(profile, options, &resizer, &InMemory).with_stash(access(stash, now)),
            values.to_vec(),
            format,
        ))
        .unwrap();
        return (out, 0);
    };
    let (mut inputs, keys) = host.inputs(values);
    let settled = settle_inputs(&mut inputs, format, &CompactOptions::default(), &mut |i| {
        Ok::<_, ()>(values[i].clone())
    })
    .unwrap();
    let known = inputs
        .iter()
        .filter(|i| matches!(i, Input::Known(_)))
        .count();
    let call = FitCall::new(profile, options, &resizer, &InMemory).with_stash(access(stash, now));
    let (mut out, digests) = block_on(call.run(inputs, &settled)).unwrap();
    host.keep(&keys, digests, values);
    for (i, value) in values.iter().enumerate() {
        if out.messages[i].is_null() && !out.changed[i] {
            out.messages[i] = value.clone();
        }
    }
    (out, known)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, failure_persistence: None, ..ProptestConfig::default() })]

    /// A fitting that remembers, interleaved with compactions that
    /// remember, gives what reading every message gives: the same
    /// messages, changes and report (image paths included), with limits
    /// that make it stash history images.
    #[test]
    fn remembered_fittings_give_what_reading_gives(
        format in format_strategy(),
        givens in prop::collection::vec(any::<bool>(), 4),
        start in prop::collection::vec(message_strategy(), 1..8),
        edits in prop::collection::vec(prop::collection::vec(edit_strategy(), 0..4), 1..4),
        url_images in any::<bool>(),
        max_images in 0..4usize,
    ) {
        let profile = model_profile("claude-sonnet-4-5").with_limits(RequestLimits {
            max_images: Some(max_images),
            max_image_bytes: None,
            max_request_bytes: None,
        });
        let (with, without) = (MemoryBackend::new(), MemoryBackend::new());
        let mut host = Host::default();
        let mut msgs = start;
        for (n, step) in std::iter::once(Vec::new()).chain(edits).enumerate() {
            let format_opt = givens[n].then_some(format);
            for e in &step {
                apply(&mut msgs, e);
            }
            let mut values = render(format, &msgs);
            if url_images {
                // Images by URL in some messages, which digests keep.
                for v in values.iter_mut().step_by(2) {
                    with_urls(v);
                }
            }
            let now = 1_000.0 + n as f64;
            for _ in 0..2 {
                let (remembered, _) = fitted(Some(&mut host), &with, &values, format_opt, &profile, now);
                let (read, _) = fitted(None, &without, &values, format_opt, &profile, now);
                prop_assert_eq!(&remembered.changed, &read.changed);
                prop_assert_eq!(serde_json::to_value(&remembered.report).unwrap(), serde_json::to_value(&read.report).unwrap());
                prop_assert_eq!(&remembered.messages, &read.messages);
            }
            remembering(&mut host, &with, &values, format_opt, CompactOptions::default(), now);
            forgetting(&without, &values, format_opt, CompactOptions::default(), now);
        }
    }
}

/// A fitting of a long chat sent again reads only its new messages, and
/// counts the known ones as reading them would.
#[test]
fn a_fitting_sent_again_reads_only_its_new_messages() {
    let stash = MemoryBackend::new();
    let mut host = Host::default();
    let mut chat: Vec<Value> = (0..30)
        .map(|i| serde_json::json!({"role": if i % 2 == 0 { "user" } else { "assistant" }, "content": format!("message {i} https://x.test/{i}")}))
        .collect();
    let profile = model_profile("gpt-4o");
    fitted(Some(&mut host), &stash, &chat, None, &profile, 1.0);
    fitted(Some(&mut host), &stash, &chat, None, &profile, 2.0);
    chat.push(serde_json::json!({"role": "user", "content": "and now?"}));
    let (again, known) = fitted(Some(&mut host), &stash, &chat, None, &profile, 3.0);
    assert_eq!(known, 30);
    let (read, _) = fitted(None, &stash, &chat, None, &profile, 3.0);
    assert_eq!(again.report, read.report);
    assert_eq!(again.report.bytes_before, again.report.bytes_after);
}
