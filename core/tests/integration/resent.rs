//! A history sent again, as apps that keep their original messages send it:
//! records the stash already holds are confirmed, not written again, and a
//! record deleted behind a stale listing is written again before its image
//! is replaced.

use crate::common;
use crate::common::calls::*;

use common::*;
use ctxpack_core::history::{CompactCall, CompactOptions, CompactReport, Outcome};
use ctxpack_core::stash::{
    CachedBackend, MemoryBackend, MetaCache, StashAccess, StashBackend, StashConfig,
};
use serde_json::{json, Value};

const T0: f64 = 1_700_000_000_000.0;

fn compact<B: StashBackend>(b: &B, msgs: &[Value], now: f64) -> Outcome<CompactReport> {
    block_on(
        CompactCall::new(
            StashAccess {
                backend: b,
                config: &StashConfig::default(),
                now,
            },
            CompactOptions::default(),
            &ctxpack_core::media::InMemory,
        )
        .run_values(msgs.to_vec(), None),
    )
    .unwrap()
}

/// Three history images and a newest question.
fn history(images: &[&[u8]]) -> Vec<Value> {
    let mut out: Vec<Value> = images
        .iter()
        .map(|b| json!({"role":"user","content":[{"type":"image_url","image_url":{"url": data_url("image/png", b)}}]}))
        .collect();
    out.push(json!({"role":"user","content":"what changed?"}));
    out
}

#[test]
fn a_history_sent_again_writes_only_what_is_new() {
    let stash = MemoryBackend::new();
    let first = compact(&stash, &history(&[PNG, JPEG]), T0);
    assert_eq!((first.report.stashed, first.report.written), (2, 2));
    let again = compact(&stash, &history(&[PNG, JPEG, GIF]), T0 + 1_000.0);
    assert_eq!((again.report.stashed, again.report.written), (3, 1));
    // The same messages as a first send into an empty stash gives.
    let fresh = compact(&MemoryBackend::new(), &history(&[PNG, JPEG, GIF]), T0);
    assert_eq!(again.messages, fresh.messages);
    assert_eq!(again.changed, fresh.changed);
}

#[test]
fn an_image_in_another_shape_is_written_again_with_its_shape() {
    let stash = MemoryBackend::new();
    compact(&stash, &history(&[PNG]), T0);
    let mut other = history(&[PNG]);
    other[0]["content"][0]["image_url"]["detail"] = json!("low");
    let again = compact(&stash, &other, T0 + 1_000.0);
    // The record's part template changed: it is written, not confirmed.
    assert_eq!((again.report.stashed, again.report.written), (1, 1));
}

#[test]
fn a_record_deleted_behind_a_stale_listing_is_written_again_before_it_is_replaced() {
    let storage = MemoryBackend::new();
    let cache = MetaCache::new();
    let cached = CachedBackend::new(&storage, &cache, T0);
    let msgs = history(&[PNG, JPEG]);
    let first = compact(&cached, &msgs, T0);
    assert_eq!(first.report.written, 2);
    // Another connection deletes one record; the cached listing still names it.
    let png_id = md5(&b64(PNG));
    block_on(storage.delete_records(std::slice::from_ref(&png_id))).unwrap();
    let again = compact(&cached, &msgs, T0 + 1_000.0);
    assert_eq!((again.report.stashed, again.report.written), (2, 1));
    assert!(again.report.failures.is_empty());
    let rec = block_on(storage.get_record(&png_id))
        .unwrap()
        .expect("written again");
    assert_eq!(rec.payload, b64(PNG));
}

#[test]
fn an_expired_record_is_written_again() {
    let stash = MemoryBackend::new();
    compact(&stash, &history(&[PNG]), T0);
    let ttl = StashConfig::default().ttl_ms;
    let late = compact(&stash, &history(&[PNG]), T0 + ttl + 1.0);
    assert_eq!((late.report.stashed, late.report.written), (1, 1));
}
