//! A tool result's JSON text the host holds and remembers (an app sending
//! its history again with the same tool message): the outcome of the last
//! sanitizing is used without reading the text only while the stash
//! confirms every record it names, and everything then reads exactly as a
//! first compaction of the same messages held in memory gives.

use crate::common;
use crate::common::calls::*;

use common::history::T0;
use common::*;
use ctxpack_core::history::{CompactCall, CompactOptions, CompactReport, Outcome};
use ctxpack_core::media::{external_ref, find_external_ref, Payloads};
use ctxpack_core::stash::{
    CachedBackend, MemoryBackend, MetaCache, StashAccess, StashBackend, StashConfig,
};
use ctxpack_core::tool_results::{HeldJson, SanitizeMemo, SanitizedText};
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

/// Texts held by reference (`external_ref(7, i)`), their outcomes
/// remembered by text as a host's `Map` keyed by the string remembers them.
#[derive(Default)]
struct HeldTexts {
    texts: Vec<String>,
    memo: RefCell<BTreeMap<String, SanitizedText>>,
    /// How many times a held text was read.
    reads: Cell<usize>,
}

impl HeldTexts {
    /// The history holding these texts by reference.
    fn history(&self) -> Vec<Value> {
        history(&self.texts, true)
    }

    /// `texts` held, nothing remembered yet.
    fn of(texts: Vec<String>) -> Self {
        HeldTexts {
            texts,
            ..HeldTexts::default()
        }
    }

    fn text(&self, s: &str) -> Option<&String> {
        match find_external_ref(s)? {
            ("", 7, i) => self.texts.get(i as usize),
            _ => None,
        }
    }
}

impl Payloads for HeldTexts {
    fn with_full(&self, s: &str, f: &mut dyn FnMut(&str)) {
        f(self.text(s).map_or(s, String::as_str))
    }
    fn loose_text(&self, s: &str) -> Option<String> {
        let text = self.text(s)?;
        self.reads.set(self.reads.get() + 1);
        Some(text.clone())
    }
    fn text_len(&self, s: &str) -> usize {
        self.text(s).map_or(s.len(), String::len)
    }
}

impl SanitizeMemo for HeldTexts {
    fn held_json(&self, s: &str) -> Option<HeldJson> {
        let text = self.text(s)?;
        if let Some(outcome) = self.memo.borrow().get(text) {
            return Some(HeldJson::Remembered(outcome.clone()));
        }
        self.reads.set(self.reads.get() + 1);
        Some(HeldJson::Text(text.clone()))
    }
    fn remember_sanitized(&self, s: &str, outcome: SanitizedText) {
        if let Some(text) = self.text(s) {
            self.memo.borrow_mut().insert(text.clone(), outcome);
        }
    }
}

fn screenshot(seed: u8) -> String {
    let mut bytes = PNG.to_vec();
    while bytes.len() < 40_000 {
        bytes.extend_from_slice(PNG);
    }
    bytes.push(seed);
    b64(&bytes)
}

/// Two tool results holding screenshots, the first with text JSON escapes
/// and a letter of more than one byte; the texts themselves by reference.
fn history(texts: &[String], held: bool) -> Vec<Value> {
    let text = |i: usize| {
        if held {
            Value::String(external_ref(7, i as u32))
        } else {
            Value::String(texts[i].clone())
        }
    };
    vec![
        json!({"role":"user","content":"take screenshots"}),
        json!({"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"shot","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"shot","arguments":"{}"}}]}),
        json!({"role":"tool","tool_call_id":"c1","content": text(0)}),
        json!({"role":"tool","tool_call_id":"c2","content": text(1)}),
        json!({"role":"assistant","content":"done"}),
        json!({"role":"user","content":"and now?"}),
    ]
}

fn texts(seed: u8) -> Vec<String> {
    let (a, b) = (screenshot(seed), screenshot(seed.wrapping_add(1)));
    vec![
        json!({"caption": "caf\u{e9} \"quoted\"\n\t\u{1}", "imageBase64": a, "also": format!("data:image/png;base64,{a}")}).to_string(),
        json!({"ok": true, "shot": b}).to_string(),
    ]
}

fn compact<B: StashBackend>(
    backend: &B,
    messages: Vec<Value>,
    now: f64,
    payloads: &dyn ctxpack_core::history::CompactPayloads,
) -> Outcome<CompactReport> {
    block_on(
        CompactCall::new(
            StashAccess {
                backend,
                config: &StashConfig::default(),
                now,
            },
            CompactOptions {
                sanitize_tool_results: true,
                ..CompactOptions::default()
            },
            payloads,
        )
        .run_values(messages, None),
    )
    .unwrap()
}

/// What a first compaction of the same texts held in memory gives.
fn in_memory(texts: &[String], now: f64) -> Outcome<CompactReport> {
    compact(
        &MemoryBackend::new(),
        history(texts, false),
        now,
        &ctxpack_core::media::InMemory,
    )
}

#[test]
fn a_text_sent_again_is_not_read_and_reads_exactly_as_a_first_compaction() {
    let held = HeldTexts::of(texts(1));
    let stash = MemoryBackend::new();
    let expected = in_memory(&held.texts, T0);
    assert_eq!(expected.report.binaries_stashed, 3);
    let first = compact(&stash, held.history(), T0, &held);
    assert_eq!(held.reads.get(), 2);
    assert_eq!(first.messages, expected.messages);
    assert_eq!(first.report, expected.report);
    let again = compact(&stash, held.history(), T0 + 1_000.0, &held);
    assert_eq!(held.reads.get(), 2, "read again");
    assert_eq!(again.messages, expected.messages);
    assert_eq!(again.changed, expected.changed);
    assert_eq!(again.report, expected.report);
    for id in [md5(&screenshot(1)), md5(&screenshot(2))] {
        let record = block_on(stash.get_record(&id)).unwrap().expect("kept");
        assert_eq!(record.payload.len(), screenshot(1).len());
    }
}

#[test]
fn a_changed_text_a_second_stash_and_a_record_gone_are_read_again() {
    let held = HeldTexts::of(texts(3));
    let stash = MemoryBackend::new();
    compact(&stash, held.history(), T0, &held);
    // Another stash holds none of the records: both texts are read and
    // their binaries written there.
    let other = MemoryBackend::new();
    let there = compact(&other, held.history(), T0, &held);
    assert_eq!(held.reads.get(), 4);
    assert_eq!(there.messages, in_memory(&held.texts, T0).messages);
    assert!(block_on(other.get_record(&md5(&screenshot(4))))
        .unwrap()
        .is_some());
    // A record deleted: the text naming it is read and the record written again.
    let gone = md5(&screenshot(4));
    block_on(stash.delete_records(std::slice::from_ref(&gone))).unwrap();
    let again = compact(&stash, held.history(), T0, &held);
    assert_eq!(held.reads.get(), 5);
    assert_eq!(again.messages, in_memory(&held.texts, T0).messages);
    assert!(block_on(stash.get_record(&gone)).unwrap().is_some());
    // One letter changed: a text of its own.
    let mut changed = held.texts.clone();
    changed[1] = changed[1].replacen("true", "fals", 1);
    let held = HeldTexts {
        texts: changed,
        memo: held.memo,
        reads: Cell::new(0),
    };
    let out = compact(&stash, held.history(), T0, &held);
    assert_eq!(held.reads.get(), 1);
    assert_eq!(out.messages, in_memory(&held.texts, T0).messages);
}

#[test]
fn a_record_deleted_behind_a_stale_listing_is_confirmed_missing_and_written_again() {
    let held = HeldTexts::of(texts(5));
    let storage = MemoryBackend::new();
    let cache = MetaCache::new();
    let cached = CachedBackend::new(&storage, &cache, T0);
    compact(&cached, held.history(), T0, &held);
    let gone = md5(&screenshot(6));
    block_on(storage.delete_records(std::slice::from_ref(&gone))).unwrap();
    let again = compact(&cached, held.history(), T0 + 1_000.0, &held);
    assert_eq!(held.reads.get(), 3);
    assert!(again.report.failures.is_empty());
    assert_eq!(again.messages, in_memory(&held.texts, T0).messages);
    assert!(block_on(storage.get_record(&gone)).unwrap().is_some());
}

#[test]
fn a_remembered_record_is_renewed_as_a_referenced_one_and_an_expired_one_written_again() {
    let held = HeldTexts::of(texts(7));
    let stash = MemoryBackend::new();
    compact(&stash, held.history(), T0, &held);
    let ttl = StashConfig::default().ttl_ms;
    let later = T0 + ttl / 2.0;
    let renewed = compact(&stash, held.history(), later, &held);
    assert_eq!(held.reads.get(), 2);
    assert_eq!(renewed.report.refreshed, 2);
    assert_eq!(renewed.report.missing, 0);
    let listed = block_on(stash.list_meta()).unwrap();
    assert!(
        listed.iter().all(|m| m.expires_at == later + ttl),
        "{listed:?}"
    );
    let late = compact(&stash, held.history(), later + ttl + 1.0, &held);
    assert_eq!(held.reads.get(), 4);
    assert_eq!(late.messages, in_memory(&held.texts, T0).messages);
}

#[test]
fn an_outcome_with_a_failed_write_is_not_remembered() {
    let held = HeldTexts::of(texts(9));
    let stash = FlakyBackend::default();
    stash.fail_ids.borrow_mut().push(md5(&screenshot(10)));
    let out = compact(&stash, held.history(), T0, &held);
    assert_eq!(out.report.failures.len(), 1);
    assert!(held.memo.borrow().is_empty());
    // The text that kept its payload comes back as it was.
    assert_eq!(out.messages[3]["content"], json!(held.texts[1]));
}

#[test]
fn a_held_text_with_no_binary_or_that_is_no_json_reads_as_in_memory() {
    let texts = vec![
        json!({"caption": "no \"binary\" here\n", "n": [1, 2.5]}).to_string(),
        format!("{{\"imageBase64\":\"{}\"", screenshot(11)),
    ];
    let held = HeldTexts::of(texts);
    let stash = MemoryBackend::new();
    for _ in 0..2 {
        let out = compact(&stash, held.history(), T0, &held);
        let expected = in_memory(&held.texts, T0);
        assert_eq!(out.messages, expected.messages);
        assert_eq!(out.changed, expected.changed);
        assert_eq!(out.report, expected.report);
        assert!(held.memo.borrow().is_empty());
    }
}
