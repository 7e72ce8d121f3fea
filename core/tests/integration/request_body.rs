//! A request body read as text compacts to what its parsed messages
//! compact to: the same report, the same stash records, and the body with
//! the edits spliced in holds the very messages the object form returns,
//! every other byte as sent.
#![cfg(not(target_arch = "wasm32"))]

use crate::common::calls::*;
use crate::common::fit_images::noise_png;
use crate::common::*;
use crate::known_messages::{apply, edit_strategy};
use crate::properties::{format_strategy, message_strategy, render};
use crate::request_body_bytes::{splice, BytesForm};
use ctxpack_core::body::{body_edits, read_body, BodyEdit, BodyError, BodyMemo};
use ctxpack_core::history::{
    settle_inputs, CompactCall, CompactOptions, CompactReport, Input, Outcome,
};
use ctxpack_core::media::find_external_ref;
use ctxpack_core::messages::Format;
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashBackend, StashConfig};
use ctxpack_core::CodedError;
use proptest::prelude::*;
use serde_json::{json, Value};

fn access(stash: &MemoryBackend, now: f64) -> StashAccess<'_, MemoryBackend> {
    static CONFIG: std::sync::OnceLock<StashConfig> = std::sync::OnceLock::new();
    StashAccess {
        backend: stash,
        config: CONFIG.get_or_init(StashConfig::default),
        now,
    }
}

/// The object form: the messages parsed, compacted in memory.
fn by_values(
    stash: &MemoryBackend,
    values: Vec<Value>,
    format: Option<Format>,
    options: CompactOptions,
) -> Outcome<CompactReport> {
    let call = CompactCall::new(
        access(stash, 1_000.0),
        options,
        &ctxpack_core::media::InMemory,
    );
    block_on(call.run_values(values, format)).unwrap()
}

/// The text form: the body read where it lies (the messages `memo` knows
/// by their text not read), compacted, its edits; also the values read,
/// and how many messages were known.
fn by_body(
    stash: &MemoryBackend,
    text: &str,
    format: Option<Format>,
    options: CompactOptions,
    memo: &mut BodyMemo,
) -> (Outcome<CompactReport>, Vec<BodyEdit>, Vec<Value>, usize) {
    memo.begin_call();
    let mut body = read_body(text.to_string(), format, &mut |raw| memo.known(raw)).unwrap();
    let mut inputs = std::mem::take(&mut body.inputs);
    let known = inputs
        .iter()
        .filter(|i| matches!(i, Input::Known(_)))
        .count();
    let settled =
        settle_inputs(&mut inputs, format, &options, &mut |i| body.read_message(i)).unwrap();
    let read = inputs
        .iter()
        .filter_map(|i| match i {
            Input::Read(v) | Input::Again(v) => Some(v.clone()),
            Input::Known(_) => None,
        })
        .collect();
    let call = CompactCall::new(access(stash, 1_000.0), options, &body.text);
    let (outcome, digests) = block_on(call.run(&mut inputs, &settled)).unwrap();
    for (i, digest) in digests.into_iter().enumerate() {
        if let Some(d) = digest {
            memo.keep(body.raw(i), d);
        }
    }
    let edits = body_edits(&body, outcome.changed_messages());
    (outcome, edits, read, known)
}

/// Every record of `a` is in `b` with the same payload and part, and no more.
fn same_records(a: &MemoryBackend, b: &MemoryBackend) {
    let ids = |s: &MemoryBackend| {
        let mut ids: Vec<String> = block_on(s.list_meta())
            .unwrap()
            .into_iter()
            .map(|m| m.id)
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(a), ids(b));
    for id in ids(a) {
        let (x, y) = (
            block_on(a.get_record(&id)).unwrap().unwrap(),
            block_on(b.get_record(&id)).unwrap().unwrap(),
        );
        assert_eq!(x.payload, y.payload, "{id}");
        assert_eq!(
            md5(&y.payload),
            id,
            "the record holds the payload, not a reference"
        );
        assert_eq!(x.part, y.part);
        assert_eq!(x.mime, y.mime);
    }
}

/// Where a format's requests keep their messages.
fn key_of(format: Format) -> &'static str {
    match format {
        Format::OpenAiResponses | Format::GeminiInteractions => "input",
        Format::Gemini => "contents",
        _ => "messages",
    }
}

/// The stashes of a comparison, the text form's memory, and the bytes
/// form (the same body given as bytes, read after the one before).
#[derive(Default)]
struct Both {
    objects: MemoryBackend,
    texts: MemoryBackend,
    memo: BodyMemo,
    bytes: BytesForm,
}

/// What a comparison found: the spliced body, how many references the
/// text form made, how many messages it knew, how many the bytes form took
/// from the body before, and the byte it looked for messages from.
struct Compared {
    spliced: String,
    refs: usize,
    known: usize,
    reused: usize,
    read_from: usize,
}

/// Compacts `body` (holding `values` under `key`) both ways and checks
/// they agree.
fn both_ways(
    both: &mut Both,
    text: &str,
    values: Vec<Value>,
    key: Option<&str>,
    format: Option<Format>,
    options: CompactOptions,
) -> Compared {
    let objects = by_values(&both.objects, values.clone(), format, options);
    let (texts, edits, read, known) = by_body(&both.texts, text, format, options, &mut both.memo);
    assert_eq!(texts.report, objects.report);
    assert_eq!(texts.changed, objects.changed);
    assert_eq!(edits.len(), objects.changed.iter().filter(|c| **c).count());
    same_records(&both.objects, &both.texts);
    let spliced = splice(text, &edits);
    let bytes = both.bytes.compact(text, format, options);
    assert_eq!(
        bytes.outcome.report, texts.report,
        "the bytes form reports the same"
    );
    assert_eq!(bytes.spliced, spliced, "the bytes form gives the same body");
    let changed: Vec<usize> = (objects.changed.iter().enumerate())
        .filter(|(_, c)| **c)
        .map(|(i, _)| i)
        .collect();
    let given: Vec<usize> = bytes.outcome.messages.iter().map(|(i, _)| *i).collect();
    assert_eq!(
        given, changed,
        "the bytes form gives the changed messages only"
    );
    same_records(&both.objects, &both.bytes.stash);
    let mut got: Value = serde_json::from_str(&spliced).unwrap();
    let mut sent: Value = serde_json::from_str(text).unwrap();
    let (got_msgs, sent_msgs) = match key {
        Some(k) => (got[k].take(), sent[k].take()),
        None => (got.take(), sent.take()),
    };
    assert_eq!(got, sent, "everything but the messages is as sent");
    let expected: Vec<Value> = objects
        .messages
        .iter()
        .zip(&values)
        .zip(&objects.changed)
        .map(|((out, original), changed)| {
            if *changed {
                out.clone()
            } else {
                original.clone()
            }
        })
        .collect();
    assert_eq!(got_msgs, Value::Array(expected));
    assert_eq!(sent_msgs, Value::Array(values));
    let refs = read.iter().map(count_refs).sum();
    Compared {
        spliced,
        refs,
        known,
        reused: bytes.reused,
        read_from: bytes.read_from,
    }
}

/// [`both_ways`] once, on fresh stashes and memory.
fn once(
    text: &str,
    values: Vec<Value>,
    key: Option<&str>,
    format: Option<Format>,
    options: CompactOptions,
) -> Compared {
    both_ways(&mut Both::default(), text, values, key, format, options)
}

fn count_refs(v: &Value) -> usize {
    match v {
        Value::String(s) => usize::from(find_external_ref(s).is_some()),
        Value::Array(items) => items.iter().map(count_refs).sum(),
        Value::Object(map) => map.values().map(count_refs).sum(),
        _ => 0,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_body_compacts_as_its_messages_do(
        format in format_strategy(),
        named in any::<bool>(),
        msgs in prop::collection::vec(message_strategy(), 1..8),
        keep in 0..3usize,
        sanitize in any::<bool>(),
        collapse in any::<bool>(),
        pretty in any::<bool>(),
        bare in any::<bool>(),
    ) {
        let options = CompactOptions { keep_recent_images: keep, sanitize_tool_results: sanitize, collapse_text: collapse, ..CompactOptions::default() };
        let values = render(format, &msgs);
        let (key, body) = if bare {
            (None, Value::Array(values.clone()))
        } else {
            let key = key_of(format);
            (Some(key), json!({"model": "m-ü", "stream": true, key: values.clone(), "tools": [{"name": "日本"}]}))
        };
        let text = if pretty { serde_json::to_string_pretty(&body) } else { serde_json::to_string(&body) }.unwrap();
        once(&text, values, key, named.then_some(format), options);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// A server's bodies, one a turn, the history edited between them: the
    /// messages remembered by their text give what reading them gives.
    #[test]
    fn remembered_texts_give_what_reading_gives(
        format in format_strategy(),
        givens in prop::collection::vec(any::<bool>(), 4),
        start in prop::collection::vec(message_strategy(), 1..8),
        edits in prop::collection::vec(prop::collection::vec(edit_strategy(), 0..4), 1..4),
        keep in 0..3usize,
        sanitize in any::<bool>(),
    ) {
        let options = CompactOptions { keep_recent_images: keep, sanitize_tool_results: sanitize, ..CompactOptions::default() };
        let mut both = Both::default();
        let mut msgs = start;
        let key = key_of(format);
        for (n, step) in std::iter::once(Vec::new()).chain(edits).enumerate() {
            for e in &step {
                apply(&mut msgs, e);
            }
            let values = render(format, &msgs);
            let text = serde_json::to_string(&json!({"model": "m", key: values.clone()})).unwrap();
            // Named or detected, body by body.
            both_ways(&mut both, &text, values, Some(key), givens[n].then_some(format), options);
        }
    }
}

/// A long chat's body sent again with two new messages: every message
/// sent before that compaction cannot change is known by its text.
#[test]
fn a_body_sent_again_reads_only_its_new_messages() {
    let mut both = Both::default();
    let id = md5(&b64(PNG));
    let mut chat: Vec<Value> = (0..40)
        .map(|i| {
            if i % 2 == 0 {
                json!({"role": "user", "content": [{"type": "text", "text": format!("q{i} [Picture:history_{id}]")}]})
            } else {
                json!({"role": "assistant", "content": format!("a{i}")})
            }
        })
        .collect();
    chat[2] = json!({"role": "user", "content": [{"type": "image_url", "image_url": {"url": data_url("image/png", PNG)}}]});
    let text = |chat: &[Value]| serde_json::to_string(&json!({"messages": chat})).unwrap();
    let first = both_ways(
        &mut both,
        &text(&chat),
        chat.clone(),
        Some("messages"),
        None,
        CompactOptions::default(),
    );
    assert_eq!(first.known, 0);
    assert_eq!(first.reused, 0);
    chat.push(json!({"role": "assistant", "content": "new"}));
    chat.push(json!({"role": "user", "content": "newer"}));
    let second = both_ways(
        &mut both,
        &text(&chat),
        chat.clone(),
        Some("messages"),
        None,
        CompactOptions::default(),
    );
    assert_eq!(second.known, 39, "all but the one with an inline image");
    assert_eq!(second.reused, 40, "as bytes, every message sent before");
    // Looked for from the end of the last message sent before on.
    let before = text(&chat[..40]);
    assert_eq!(
        second.read_from,
        before.len() - 2,
        "{}",
        &before[before.len() - 8..]
    );
    // The same chat pretty-printed is other text: read again, same result.
    let pretty = serde_json::to_string_pretty(&json!({"messages": chat})).unwrap();
    let third = both_ways(
        &mut both,
        &pretty,
        chat.clone(),
        Some("messages"),
        None,
        CompactOptions::default(),
    );
    assert_eq!(third.known, 0);
    assert_eq!(third.reused, 0);
    assert_eq!(third.read_from, 0, "read whole");
    // Another format named: known texts are read again in it.
    let fourth = both_ways(
        &mut both,
        &text(&chat),
        chat.clone(),
        Some("messages"),
        Some(Format::OpenAi),
        CompactOptions::default(),
    );
    assert_eq!(fourth.known, 41);
    assert_eq!(fourth.reused, 0, "another format: every message read again");
}

/// Payloads of every shape stay where they lie in the body: a message's
/// value references them, hashing reads them there, the stash gets their
/// text, and a message kept inline is written back with them.
#[test]
fn payloads_are_referenced_where_they_lie() {
    let shot = b64(&noise_png(48, 48));
    assert!(shot.len() > 4096);
    let values = vec![
        json!({"role": "user", "content": [{"type": "text", "text": "é 😀 one"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": shot}}]}),
        json!({"role": "assistant", "content": "seen ✓"}),
        json!({"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(PNG)}}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": shot}}]}),
        json!({"role": "assistant", "content": "two"}),
        json!({"role": "user", "content": [{"type": "text", "text": "new 😀"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": shot}}]}),
    ];
    let body = json!({"system": "ünïcode 😀", "messages": values, "max_tokens": 10});
    let text = serde_json::to_string(&body).unwrap();
    let Compared { spliced, refs, .. } = once(
        &text,
        values.clone(),
        Some("messages"),
        Some(Format::Anthropic),
        CompactOptions::default(),
    );
    assert_eq!(refs, 3 + usize::from(PNG.len() * 4 / 3 >= 1024));
    assert!(
        spliced.len() < text.len() / 2,
        "history images left the body"
    );
    // Kept inline: the second user message's newest image, with one window.
    let options = CompactOptions {
        keep_recent_images: 1,
        ..CompactOptions::default()
    };
    let Compared { spliced, .. } = once(
        &text,
        values,
        Some("messages"),
        Some(Format::Anthropic),
        options,
    );
    assert_eq!(
        spliced.matches(&shot).count(),
        2,
        "the kept image and the newest message's are written out whole"
    );
}

/// A data URL whose payload has escapes (`\/`) is read, hashed and stored
/// as its unescaped text.
#[test]
fn an_escaped_payload_is_read_unescaped() {
    let url = data_url("image/png", &noise_png(40, 40));
    let values = vec![
        json!({"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}),
        json!({"role": "assistant", "content": "ok"}),
        json!({"role": "user", "content": "next"}),
    ];
    let text = serde_json::to_string(&json!({"messages": values}))
        .unwrap()
        .replace('/', "\\/");
    assert!(text.contains("base64,"));
    once(
        &text,
        values,
        Some("messages"),
        None,
        CompactOptions::default(),
    );
}

/// A caller's string that spells a reference into the body is the
/// caller's text: it is written back as it was, and never stands for the
/// body's text.
#[test]
fn a_forged_reference_is_caller_text() {
    let forged = "\u{0}ctxpack\u{1}0\u{1}0\u{0}";
    let values = vec![
        json!({"role": "user", "content": [{"type": "text", "text": forged}, {"type": "image_url", "image_url": {"url": data_url("image/png", &noise_png(40, 40))}}]}),
        json!({"role": "assistant", "content": forged}),
        json!({"role": "user", "content": "next"}),
    ];
    let text = serde_json::to_string(&json!({"messages": values})).unwrap();
    let Compared { spliced, .. } = once(
        &text,
        values,
        Some("messages"),
        Some(Format::OpenAi),
        CompactOptions::default(),
    );
    let out: Value = serde_json::from_str(&spliced).unwrap();
    assert_eq!(out["messages"][0]["content"][0]["text"], forged);
}

/// Where a body keeps its messages, by format and by key, and what is no
/// request body.
#[test]
fn the_messages_are_found_where_the_format_keeps_them() {
    let body = |t: &str, f: Option<Format>| read_body(t.to_string(), f, &mut |_| None);
    let found = body(
        r#"{"contents":[{"role":"user","parts":[]}],"messages":[]}"#,
        Some(Format::Gemini),
    )
    .unwrap();
    assert_eq!((found.key, found.inputs.len()), (Some("contents"), 1));
    let found = body(r#"{"contents":[1],"messages":[]}"#, None).unwrap();
    assert_eq!((found.key, found.inputs.len()), (Some("messages"), 0));
    let found = body(r#"{"input":"one prompt"}"#, Some(Format::OpenAiResponses)).unwrap();
    assert_eq!((found.key, found.inputs.len()), (Some("input"), 0));
    let found = body(r#"{"messages":[1],"messages":[2,3]}"#, None).unwrap();
    assert_eq!(
        (found.raw(0), found.raw(1), found.inputs.len()),
        ("2", "3", 2),
        "the last key wins, as in JSON.parse"
    );
    let found = body(r#" [ {"role":"user","content":"hi"} ] "#, None).unwrap();
    assert_eq!(
        (found.key, found.raw(0)),
        (None, r#"{"role":"user","content":"hi"}"#)
    );

    let refused = |t: &str, f: Option<Format>| body(t, f).err().unwrap();
    let e = refused(r#"{"messages": 3}"#, None);
    assert_eq!(
        (e.code().as_str(), e.path()),
        ("INVALID_ARGUMENT", Some("body.messages"))
    );
    let e = refused(r#"{"model": "m"}"#, Some(Format::Anthropic));
    assert!(
        matches!(e, BodyError::NoMessages { ref path, .. } if path == "body"),
        "{e}"
    );
    let e = refused(r#"{"messages": [{"role": "user"}"#, None);
    assert!(
        matches!(e, BodyError::NotJson { ref path, .. } if path == "body"),
        "{e}"
    );
    let e = refused(r#"{"messages": []} trailing"#, None);
    assert!(matches!(e, BodyError::NotJson { .. }), "{e}");
    let e = refused("42", None);
    assert_eq!(e.path(), Some("body"));
}

#[test]
fn an_image_stashed_again_keeps_the_shape_of_its_placeholder_in_a_known_message() {
    let url = data_url("image/png", PNG);
    let image = |detail: Option<&str>| match detail {
        Some(d) => {
            json!({"role":"user","content":[{"type":"image_url","image_url":{"url":url,"detail":d}}]})
        }
        None => json!({"role":"user","content":[{"type":"image_url","image_url":{"url":url}}]}),
    };
    let says = |role: &str, text: &str| json!({"role": role, "content": text});
    let sent = vec![
        image(Some("high")),
        says("assistant", "one"),
        says("user", "next?"),
        says("assistant", "ok"),
        image(None),
        says("assistant", "two"),
        says("user", "compare them"),
    ];
    let mut form = BytesForm::default();
    // Each turn sends what the turn before gave back, and its new messages:
    // the first image is a placeholder from the first turn on, sent again
    // unchanged on the second (its digest made) and known by it on the
    // third, when the same image is stashed again from the fifth message.
    let mut history: Vec<Value> = Vec::new();
    for end in [3, 5, 7] {
        let mut messages = history.clone();
        messages.extend_from_slice(&sent[history.len()..end]);
        let text = json!({"model": "gpt-4o", "messages": messages}).to_string();
        let out = form.compact(&text, Some(Format::OpenAi), CompactOptions::default());
        let body: Value = serde_json::from_str(&out.spliced).unwrap();
        history = body["messages"].as_array().unwrap().clone();
    }
    // The third body took its first messages as the second's compaction
    // measured them, the first placeholder among them: its occurrence is
    // counted though the plan does not read that message.
    assert_eq!(form.taken, [0, 0, 4]);
    for i in [0, 4] {
        let text = history[i]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(text.starts_with("[Picture:history_"), "{i}: {text}");
    }
    // Each occurrence comes back in its own shape: the record kept the
    // known message's occurrence too.
    let access = StashAccess {
        backend: &form.stash,
        config: &StashConfig::default(),
        now: 1_001.0,
    };
    let payloads = ctxpack_core::media::InMemory;
    let back = block_on(expand_values(access, history, None, &payloads)).unwrap();
    assert_eq!(Value::Array(back.messages), Value::Array(sent));
}
