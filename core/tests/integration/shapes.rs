//! Every image part comes back in the shape it was stashed in: whatever the
//! compacted messages now look like, per occurrence of a repeated image,
//! with its cache breakpoint, and as the same kind of value (bytes stay
//! bytes; `URL` objects are never touched). Today's shapes (AI SDK 7 file
//! parts and tool outputs, LangChain JS standard blocks) are seen.

use crate::common;
use crate::common::calls::*;

use common::*;
use ctxpack_core::history::{CompactCall, CompactOptions, Outcome};
use ctxpack_core::media::{
    bytes_value, kept_kind, kept_ref, parse_bytes_literal, BytesKind, KeptKind, Payloads,
};
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashBackend, StashConfig};
use serde_json::{json, Value};

const T0: f64 = 1_700_000_000_000.0;

/// Payload access where kept references of table 1 stand for the base64
/// text of bytes (as the boundary reads a `Uint8Array`), anything else is
/// its own text.
struct KeptBytes(Vec<String>);

impl Payloads for KeptBytes {
    fn with_full(&self, s: &str, f: &mut dyn FnMut(&str)) {
        match ctxpack_core::media::find_external_ref(s) {
            Some((_, 1, i)) => f(self.0.get(i as usize).map_or("", String::as_str)),
            _ => f(s),
        }
    }
}

impl ctxpack_core::tool_results::SanitizeMemo for KeptBytes {}

fn compact_with<B: StashBackend>(
    b: &B,
    msgs: &Value,
    payloads: &dyn ctxpack_core::history::CompactPayloads,
    now: f64,
) -> Outcome<ctxpack_core::history::CompactReport> {
    block_on(
        CompactCall::new(
            StashAccess {
                backend: b,
                config: &StashConfig::default(),
                now,
            },
            CompactOptions::default(),
            payloads,
        )
        .run_values(msgs.as_array().unwrap().clone(), None),
    )
    .unwrap()
}

fn compact<B: StashBackend>(b: &B, msgs: &Value) -> Vec<Value> {
    compact_with(b, msgs, &ctxpack_core::media::InMemory, T0).messages
}

fn expand<B: StashBackend>(b: &B, msgs: &[Value]) -> Vec<Value> {
    expand_with(b, msgs, &ctxpack_core::media::InMemory)
}

fn expand_with<B: StashBackend>(
    b: &B,
    msgs: &[Value],
    payloads: &dyn ctxpack_core::history::CompactPayloads,
) -> Vec<Value> {
    block_on(expand_values(
        StashAccess {
            backend: b,
            config: &StashConfig::default(),
            now: T0 + 1.0,
        },
        msgs.to_vec(),
        None,
        payloads,
    ))
    .unwrap()
    .messages
}

fn anthropic_image(bytes: &[u8]) -> Value {
    json!({"type":"image","source":{"type":"base64","media_type":"image/png","data":b64(bytes)},"cache_control":{"type":"ephemeral"}})
}

#[test]
fn an_anthropic_conversation_that_looks_like_openai_after_compaction_expands_as_anthropic() {
    let input = json!([
        {"role":"user","content":[anthropic_image(PNG), {"type":"text","text":"what is this?"}]},
        {"role":"assistant","content":"a chart"},
        {"role":"user","content":"and the title?"}
    ]);
    let stash = MemoryBackend::new();
    let compacted = compact(&stash, &input);
    // Nothing Anthropic-specific is left to detect…
    assert_eq!(
        ctxpack_core::messages::detect_format(&compacted),
        ctxpack_core::messages::Format::OpenAi
    );
    // …yet the image comes back as the Anthropic block it was, breakpoint included.
    assert_eq!(Value::Array(expand(&stash, &compacted)), input);
}

#[test]
fn an_ai_sdk_conversation_expands_in_its_own_shapes_whatever_is_detected() {
    let input = json!([
        {"role":"user","content":[{"type":"image","image":b64(JPEG),"mediaType":"image/jpeg","providerOptions":{"anthropic":{"cacheControl":{"type":"ephemeral"}}}}]},
        {"role":"assistant","content":"a photo"},
        {"role":"user","content":"again?"}
    ]);
    let stash = MemoryBackend::new();
    let compacted = compact(&stash, &input);
    assert_eq!(
        compacted[0]["content"][0]["providerOptions"], input[0]["content"][0]["providerOptions"],
        "the placeholder keeps the breakpoint"
    );
    assert_eq!(Value::Array(expand(&stash, &compacted)), input);
}

#[test]
fn a_repeated_image_comes_back_in_each_occurrences_own_shape() {
    let url = data_url("image/png", PNG);
    let turn = |detail: Option<&str>| match detail {
        Some(d) => {
            json!({"role":"user","content":[{"type":"image_url","image_url":{"url":url,"detail":d}}]})
        }
        None => json!({"role":"user","content":[{"type":"image_url","image_url":{"url":url}}]}),
    };
    let full = json!([
        turn(Some("high")),
        {"role":"assistant","content":"one"},
        turn(None),
        {"role":"assistant","content":"two"},
        {"role":"user","content":"compare them"}
    ]);
    // All at once.
    let stash = MemoryBackend::new();
    let compacted = compact(&stash, &full);
    assert!(compacted[2]["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("[Picture:history_"));
    assert_eq!(Value::Array(expand(&stash, &compacted)), full);

    // Turn by turn, as a chat loop compacts: the first occurrence is a
    // placeholder already when the second is stashed.
    let stash = MemoryBackend::new();
    let first = json!([turn(Some("high")), {"role":"assistant","content":"one"}, turn(None)]);
    let mut history = compact(&stash, &first);
    history.push(json!({"role":"assistant","content":"two"}));
    history.push(json!({"role":"user","content":"compare them"}));
    let compacted = compact_with(
        &stash,
        &Value::Array(history),
        &ctxpack_core::media::InMemory,
        T0 + 5.0,
    )
    .messages;
    assert_eq!(Value::Array(expand(&stash, &compacted)), full);
}

#[test]
fn ai_sdk_7_file_parts_and_tool_outputs_are_compacted_and_restored() {
    let input = json!([
        {"role":"user","content":[
            {"type":"file","mediaType":"image","data":{"type":"data","data":b64(PNG)},"filename":"chart.png"},
            {"type":"file","mediaType":"image/*","data":b64(JPEG)},
            {"type":"file","mediaType":"image","data":{"type":"url","url":"https://example.com/a.png"}},
            {"type":"text","text":"look"}
        ]},
        {"role":"assistant","content":[{"type":"tool-call","toolCallId":"c1","toolName":"shot","input":{}}]},
        {"role":"tool","content":[{"type":"tool-result","toolCallId":"c1","toolName":"shot","output":{"type":"content","value":[
            {"type":"text","text":"here"},
            {"type":"file","mediaType":"image/gif","data":{"type":"data","data":b64(GIF)}},
            {"type":"image-data","data":b64(WEBP),"mediaType":"image/webp"},
            {"type":"file-data","data":b64(PNG),"mediaType":"image/png","filename":"again.png"},
            {"type":"file","mediaType":"image","data":{"type":"reference","reference":{"openai":"file-1"}}}
        ]}}]},
        {"role":"user","content":"thanks"}
    ]);
    let stash = MemoryBackend::new();
    let out = compact_with(&stash, &input, &ctxpack_core::media::InMemory, T0);
    assert_eq!(out.report.format, "ai-sdk");
    assert_eq!(out.report.stashed, 5, "{:?}", out.report);
    assert_eq!(out.report.deduplicated, 1, "the PNG is sent twice");
    let text = Value::Array(out.messages.clone()).to_string();
    for payload in [b64(PNG), b64(JPEG), b64(GIF), b64(WEBP)] {
        assert!(!text.contains(&payload[..64]));
    }
    assert!(text.contains("https://example.com/a.png"));
    assert!(text.contains("file-1"));
    assert_eq!(
        out.messages[0]["content"][0]["text"],
        format!("[Picture:history_{}]", md5(&b64(PNG)))
    );
    assert_eq!(Value::Array(expand(&stash, &out.messages)), input);
}

#[test]
fn langchain_js_standard_blocks_are_compacted_and_url_and_file_id_blocks_left() {
    let input = json!([
        {"role":"user","content":[
            {"type":"image","data":b64(PNG),"mimeType":"image/png"},
            {"type":"image","url":"https://example.com/a.png"},
            {"type":"image","fileId":"file-abc"},
            {"type":"text","text":"what are these?"}
        ]},
        {"role":"assistant","content":"three images"},
        {"role":"user","content":"the first one again?"}
    ]);
    let stash = MemoryBackend::new();
    let out = compact_with(&stash, &input, &ctxpack_core::media::InMemory, T0);
    assert_eq!(out.report.format, "langchain");
    assert_eq!(out.report.stashed, 1);
    assert_eq!(out.messages[0]["content"][1], input[0]["content"][1]);
    assert_eq!(out.messages[0]["content"][2], input[0]["content"][2]);
    assert_eq!(Value::Array(expand(&stash, &out.messages)), input);
}

#[test]
fn bytes_are_stashed_by_the_md5_of_their_base64_and_come_back_as_bytes() {
    let reference = kept_ref(1, 0, KeptKind::Bytes(BytesKind::Uint8Array));
    let payloads = KeptBytes(vec![b64(PNG)]);
    let input = json!([
        {"role":"user","content":[{"type":"file","data":reference,"mediaType":"image/png"}]},
        {"role":"assistant","content":"ok"},
        {"role":"user","content":"next"}
    ]);
    let stash = MemoryBackend::new();
    let out = compact_with(&stash, &input, &payloads, T0);
    assert_eq!(out.report.stashed, 1);
    let id = md5(&b64(PNG));
    assert_eq!(
        out.messages[0]["content"][0]["text"],
        format!("[Picture:history_{id}]")
    );
    // The record's payload stands for the base64 text of the bytes (the
    // boundary writes that text), not for zero bytes.
    let rec = block_on(stash.get_record(&id)).unwrap().unwrap();
    let mut stored = String::new();
    payloads.with_full(&rec.payload, &mut |t| stored = t.to_owned());
    assert_eq!(stored, b64(PNG));
    assert_eq!(rec.mime, "image/png");
    let back = expand_with(&stash, &out.messages, &payloads);
    let data = back[0]["content"][0]["data"].as_str().unwrap();
    // Restored as binary data of the same kind.
    assert_eq!(
        kept_kind(data),
        Some(KeptKind::Bytes(BytesKind::Uint8Array))
    );
    assert_eq!(back[0]["content"][0]["mediaType"], "image/png");
    // A payload held in memory becomes a marked literal the boundary turns into bytes.
    let literal = bytes_value(BytesKind::Buffer, &b64(PNG));
    assert_eq!(
        parse_bytes_literal(&literal),
        Some((BytesKind::Buffer, b64(PNG).as_str()))
    );
}

#[test]
fn opaque_values_such_as_url_objects_are_never_stashed() {
    let url_object = kept_ref(1, 0, KeptKind::Opaque);
    assert_eq!(kept_kind(&url_object), Some(KeptKind::Opaque));
    let input = json!([
        {"role":"user","content":[
            {"type":"image","image":url_object},
            {"type":"file","data":kept_ref(1, 1, KeptKind::Opaque),"mediaType":"image/png"}
        ]},
        {"role":"assistant","content":"ok"},
        {"role":"user","content":"next"}
    ]);
    let stash = MemoryBackend::new();
    let out = compact_with(&stash, &input, &KeptBytes(vec![]), T0);
    assert_eq!(out.report.stashed, 0);
    assert_eq!(out.report.urls, 2);
    assert_eq!(Value::Array(out.messages), input);
    assert!(block_on(stash.list_meta()).unwrap().is_empty());
}
