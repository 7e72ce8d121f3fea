//! Tests of `sanitizeToolResult`'s options and flow: text given back as
//! text, values as values, nothing changed as the caller's own, and
//! payloads stashed or filtered.

use super::*;
use crate::media::payload::InMemory;
use crate::stash::MemoryBackend;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::json;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// Runs a future whose I/O completes at once (the memory backend).
fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// A PNG-headed payload of about `n` bytes, as base64.
fn png_b64(n: usize) -> String {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    let mut s: u32 = 7;
    while bytes.len() < n {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        bytes.push((s >> 24) as u8);
    }
    STANDARD.encode(&bytes)
}

fn unstashed(result: ToolResult) -> Sanitized {
    block_on(sanitize_tool_result::<MemoryBackend>(
        None,
        result,
        &SanitizeOptions::default(),
        &InMemory,
    ))
}

#[test]
fn options_default_to_ten_kib_and_no_further_fields() {
    assert_eq!(
        sanitize_options(SanitizeInput::default()),
        SanitizeOptions {
            threshold_bytes: 10 * 1024,
            extra_fields: Vec::new(),
        }
    );
    let given = sanitize_options(SanitizeInput {
        threshold_bytes: Some(2048.9),
        fields: vec!["blob".into()],
    });
    assert_eq!(
        (given.threshold_bytes, given.extra_fields),
        (2048, vec!["blob".to_owned()])
    );
}

#[test]
fn a_text_is_read_whole_when_it_may_be_json() {
    assert!(text_is_read_whole("  {\"a\""));
    assert!(text_is_read_whole("[1, 2"));
    assert!(text_is_read_whole("   "), "the rest may open one");
    assert!(!text_is_read_whole("iVBORw0KGgo"));
    assert!(!text_is_read_whole("done"));
}

#[test]
fn a_json_text_comes_back_as_json_text_with_its_payload_filtered() {
    let text = json!({"ok": true, "imageBase64": png_b64(20_000)}).to_string();
    let Sanitized::Text(out) = unstashed(ToolResult::Text(text)) else {
        panic!("expected text");
    };
    let read: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(read["ok"], true);
    assert!(read["imageBase64"]
        .as_str()
        .unwrap()
        .starts_with("[BINARY_DATA_FILTERED: "));
}

#[test]
fn a_value_comes_back_as_a_value_and_nothing_found_leaves_the_caller_s() {
    let value = json!({"files": [{"data": png_b64(20_000)}], "n": 1});
    let Sanitized::Value(out) = unstashed(ToolResult::Value(value)) else {
        panic!("expected a value");
    };
    assert!(out["files"][0]["data"]
        .as_str()
        .unwrap()
        .starts_with("[BINARY_DATA_FILTERED: "));
    assert_eq!(out["n"], 1);
    assert_eq!(
        unstashed(ToolResult::Value(json!({"n": 1}))),
        Sanitized::Unchanged
    );
    assert_eq!(
        unstashed(ToolResult::Text("{\"n\": 1}".into())),
        Sanitized::Unchanged
    );
    // A text that only opens like JSON is sanitized as the string it is.
    let broken = format!("[{}", png_b64(20_000));
    assert_eq!(unstashed(ToolResult::Text(broken)), Sanitized::Unchanged);
}

#[test]
fn with_a_stash_the_payload_is_written_and_its_marker_names_it() {
    let backend = MemoryBackend::new();
    let config = StashConfig::default();
    let access = StashAccess {
        backend: &backend,
        config: &config,
        now: 1000.0,
    };
    let payload = png_b64(20_000);
    let out = block_on(sanitize_tool_result(
        Some(access),
        ToolResult::Value(json!({"imageBase64": payload})),
        &SanitizeOptions::default(),
        &InMemory,
    ));
    let Sanitized::Value(out) = out else {
        panic!("expected a value");
    };
    let marker = out["imageBase64"].as_str().unwrap();
    let md5 = crate::md5_hex(payload.as_bytes());
    assert!(
        marker.starts_with(&format!("[Binary:history_{md5} image/png ")),
        "{marker}"
    );
    let listed = block_on(backend.list_meta()).unwrap();
    assert_eq!(listed.len(), 1);
}
