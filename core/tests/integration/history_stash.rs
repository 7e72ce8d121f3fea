//! History compaction over a stash that expires, evicts, fails or holds
//! corrupted records: nothing is lost, and the report says why.

use crate::common;
use crate::common::calls::*;

use common::history::*;
use common::*;
use ctxpack_core::history::{history_image, CompactOptions, Lang};
use ctxpack_core::messages::Format;
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashBackend, StashConfig};
use serde_json::json;
use serde_json::Value;

#[test]
fn a_failed_write_leaves_the_image_inline_and_says_why() {
    let input = in_format(Format::OpenAi, JPEG, PNG);
    let stash = FlakyBackend::default();
    stash.fail_ids.borrow_mut().push("*".into());
    let out = compact(&stash, &input, CompactOptions::default());
    assert_eq!(Value::Array(out.messages), input);
    assert_eq!((out.report.stashed, out.report.failed), (0, 1));
    let f = &out.report.failures[0];
    assert_eq!(f.code.as_str(), "QUOTA_EXCEEDED");
    assert_eq!(f.path, "messages[1].content[0]");
    assert_eq!(f.md5.as_deref(), Some(md5(&b64(JPEG)).as_str()));
    // The next call works.
    stash.fail_ids.borrow_mut().clear();
    let out = compact(&stash, &input, CompactOptions::default());
    assert_eq!(out.report.stashed, 1);
}

#[test]
fn only_committed_images_are_replaced() {
    let msgs = json!([
        {"role":"user","content":[{"type":"image_url","image_url":{"url": data_url("image/png", PNG)}},{"type":"image_url","image_url":{"url": data_url("image/jpeg", JPEG)}}]},
        {"role":"user","content":"?"}
    ]);
    let stash = FlakyBackend::default();
    stash.fail_ids.borrow_mut().push(md5(&b64(JPEG)));
    let out = compact(&stash, &msgs, CompactOptions::default());
    assert_eq!(out.messages[0]["content"][0]["type"], "text");
    assert_eq!(out.messages[0]["content"][1], msgs[0]["content"][1]);
    assert_eq!((out.report.stashed, out.report.failed), (1, 1));
}

#[test]
fn ttl_expires_unreferenced_records_and_references_refresh_them() {
    let cfg = StashConfig {
        ttl_ms: 1000.0,
        max_bytes: None,
    };
    let stash = MemoryBackend::new();
    let a = json!([{"role":"user","content":[{"type":"image_url","image_url":{"url": data_url("image/png", PNG)}}]},{"role":"user","content":"?"}]);
    let b = json!([{"role":"user","content":[{"type":"image_url","image_url":{"url": data_url("image/gif", GIF)}}]},{"role":"user","content":"?"}]);
    let a1 = compact_at(&stash, &a, CompactOptions::default(), T0, &cfg);
    let _b1 = compact_at(&stash, &b, CompactOptions::default(), T0, &cfg);
    // Conversation A is sent again at T0+800: its record is refreshed to T0+1800.
    let again = compact_at(
        &stash,
        &Value::Array(a1.messages.clone()),
        CompactOptions::default(),
        T0 + 800.0,
        &cfg,
    );
    assert_eq!(again.report.refreshed, 1);
    // At T0+1500, B's record (expired at T0+1000) is swept, A's lives.
    let sweep = compact_at(
        &stash,
        &Value::Array(a1.messages.clone()),
        CompactOptions::default(),
        T0 + 1500.0,
        &cfg,
    );
    assert_eq!(sweep.report.expired, 1);
    let ids: Vec<String> = block_on(stash.list_meta())
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(ids, vec![md5(&b64(PNG))]);
    // After its TTL passes unreferenced, A's image is gone too: expansion reports it missing.
    let late = block_on(expand_values(
        StashAccess {
            backend: &stash,
            config: &cfg,
            now: T0 + 5000.0,
        },
        a1.messages.clone(),
        None,
        &ctxpack_core::media::InMemory,
    ))
    .unwrap();
    assert_eq!(late.report.missing.len(), 1);
    assert_eq!(late.messages, a1.messages);
}

#[test]
fn lru_eviction_keeps_the_stash_under_max_bytes_but_never_what_is_referenced() {
    let budget = (b64(JPEG).len() + b64(GIF).len() + 16) as u64;
    assert!(b64(PNG).len() as u64 > 16);
    let cfg = StashConfig {
        ttl_ms: 1e9,
        max_bytes: Some(budget),
    };
    let stash = MemoryBackend::new();
    for (i, bytes) in [PNG, JPEG, GIF].iter().enumerate() {
        let m = json!([{"role":"user","content":[{"type":"image_url","image_url":{"url": data_url("image/png", bytes)}}]},{"role":"user","content":"?"}]);
        compact_at(&stash, &m, CompactOptions::default(), T0 + i as f64, &cfg);
    }
    let ids: Vec<String> = block_on(stash.list_meta())
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect();
    assert!(
        !ids.contains(&md5(&b64(PNG))),
        "the least recently used went first"
    );
    assert!(ids.contains(&md5(&b64(GIF))));
    // A conversation that needs more than max_bytes keeps everything it references.
    let big = StashConfig {
        ttl_ms: 1e9,
        max_bytes: Some(1),
    };
    let m = json!([{"role":"user","content":[{"type":"image_url","image_url":{"url": data_url("image/png", WEBP)}}]},{"role":"user","content":"?"}]);
    let out = compact_at(&stash, &m, CompactOptions::default(), T0 + 10.0, &big);
    assert!(out.report.over_budget);
    assert_eq!(expand(&stash, &out.messages).report.restored, 1);
}

#[test]
fn corrupted_records_count_as_missing() {
    let stash = MemoryBackend::new();
    let input = in_format(Format::OpenAi, JPEG, PNG);
    let out = compact(&stash, &input, CompactOptions::default());
    assert!(stash.corrupt(&md5(&b64(JPEG)), &b64(GIF)));
    let back = expand(&stash, &out.messages);
    assert_eq!(back.report.corrupted, 1);
    assert_eq!(back.report.missing.len(), 1);
    assert_eq!(
        back.messages, out.messages,
        "the placeholder stays; no wrong image"
    );
    let parts = block_on(history_image(
        StashAccess {
            backend: &stash,
            config: &StashConfig::default(),
            now: T0,
        },
        &md5(&b64(JPEG)),
        Format::OpenAi.into(),
        Lang::En,
        &ctxpack_core::media::InMemory,
    ));
    assert_eq!(
        parts,
        vec![json!({"type":"text","text":"Image not found or expired"})]
    );
}
