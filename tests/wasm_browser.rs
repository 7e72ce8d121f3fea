//! The JavaScript surface in headless Chromium (`wasm-pack test --headless --chrome`).
#![cfg(target_arch = "wasm32")]

mod wasm_support;

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn parses_markdown_with_utf16_offsets() {
    wasm_support::parses_markdown_with_utf16_offsets();
}

#[wasm_bindgen_test]
fn rejects_non_string_text() {
    wasm_support::rejects_non_string_text();
}

#[wasm_bindgen_test]
fn detect_format_reports_paths() {
    wasm_support::detect_format_reports_paths();
}

#[wasm_bindgen_test]
async fn resolves_files_through_the_resolver() {
    wasm_support::resolves_files_through_the_resolver().await;
}

#[wasm_bindgen_test]
async fn writes_anthropic_and_ai_sdk_parts() {
    wasm_support::writes_anthropic_and_ai_sdk_parts().await;
}

#[wasm_bindgen_test]
async fn bad_options_are_ctxpack_errors() {
    wasm_support::bad_options_are_ctxpack_errors().await;
}

#[wasm_bindgen_test]
async fn resolver_that_throws_leaves_the_image_in_the_text() {
    wasm_support::resolver_that_throws_leaves_the_image_in_the_text().await;
}

/// `blob:` URLs go through the page's real `fetch`.
#[wasm_bindgen_test]
async fn fetches_blob_urls() {
    use js_sys::{Array, Uint8Array};
    use wasm_bindgen::JsCast;
    let parts = Array::of1(&Uint8Array::from(wasm_support::JPEG));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).unwrap();
    let url = web_sys::Url::create_object_url_with_blob(&blob).unwrap();
    let text = format!("![photo]({url}) ![gone](https://127.0.0.1:9/none.png)");
    let out = ctxpack_extras::multimodal::to_multimodal(text.into(), None)
        .await
        .unwrap();
    let content: Array = wasm_support::get(&out, "content").unchecked_into();
    let img = wasm_support::get(&content.get(1), "image_url");
    assert_eq!(
        wasm_support::get_str(&img, "url"),
        format!(
            "data:image/jpeg;base64,{}",
            wasm_support::b64(wasm_support::JPEG)
        )
    );
    let missing: Array = wasm_support::get(&out, "missing").unchecked_into();
    assert_eq!(missing.length(), 1);
    assert_eq!(wasm_support::get_str(&missing.get(0), "code"), "UNRESOLVED");
}

#[wasm_bindgen_test]
async fn idb_dootask_round_trip() {
    let name = wasm_support::stash::random_name("dootask");
    let stash = wasm_support::stash::open_idb(&name, &[]).await;
    wasm_support::stash::dootask_round_trip(&stash).await;
    wasm_support::stash::delete_db(&stash, &name).await;
}

#[wasm_bindgen_test]
async fn idb_persists_across_reopen() {
    wasm_support::stash::persists_across_reopen().await;
}

#[wasm_bindgen_test]
async fn idb_ttl_expiry_and_refresh() {
    wasm_support::stash::ttl_expiry_and_refresh().await;
}

#[wasm_bindgen_test]
async fn idb_lru_eviction() {
    wasm_support::stash::lru_eviction().await;
}

#[wasm_bindgen_test]
async fn idb_corrupted_record_counts_as_missing() {
    wasm_support::idb_events::corrupted_record_counts_as_missing().await;
}

#[wasm_bindgen_test]
async fn idb_yields_to_a_higher_version() {
    wasm_support::idb_events::yields_to_a_higher_version().await;
}

#[wasm_bindgen_test]
async fn idb_two_compactions_at_once() {
    wasm_support::stash::two_compactions_at_once().await;
}

#[wasm_bindgen_test]
async fn quota_exceeded_keeps_the_image_inline() {
    wasm_support::stash::quota_exceeded_keeps_the_image_inline().await;
}

#[wasm_bindgen_test]
async fn memory_stash_and_tool_definitions() {
    wasm_support::stash::memory_stash_and_tool_definitions().await;
}

#[wasm_bindgen_test]
async fn bad_stash_options_are_ctxpack_errors() {
    wasm_support::stash::bad_stash_options_are_ctxpack_errors().await;
}

#[wasm_bindgen_test]
async fn idb_blocked_open_gives_up_then_recovers() {
    wasm_support::idb_events::blocked_open_gives_up_then_recovers().await;
}
