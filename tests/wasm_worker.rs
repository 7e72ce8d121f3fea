//! The IndexedDB stash inside a dedicated worker, as a chat app that compacts
//! off the main thread runs it.
#![cfg(target_arch = "wasm32")]

mod wasm_support;

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_dedicated_worker);

#[wasm_bindgen_test]
async fn idb_dootask_round_trip_in_a_worker() {
    let name = wasm_support::stash::random_name("worker");
    let stash = wasm_support::stash::open_idb(&name, &[]).await;
    wasm_support::stash::dootask_round_trip(&stash).await;
    wasm_support::stash::delete_db(&stash, &name).await;
}

#[wasm_bindgen_test]
async fn idb_persists_across_reopen_in_a_worker() {
    wasm_support::stash::persists_across_reopen().await;
}

#[wasm_bindgen_test]
async fn idb_ttl_expiry_and_refresh_in_a_worker() {
    wasm_support::stash::ttl_expiry_and_refresh().await;
}

#[wasm_bindgen_test]
async fn quota_exceeded_in_a_worker() {
    wasm_support::stash::quota_exceeded_keeps_the_image_inline().await;
}

/// These tests really run in a worker: no `document`, and `importScripts` exists.
#[wasm_bindgen_test]
fn runs_in_a_dedicated_worker() {
    let global = js_sys::global();
    assert!(!js_sys::Reflect::has(&global, &"document".into()).unwrap());
    assert!(js_sys::Reflect::has(&global, &"importScripts".into()).unwrap());
}
