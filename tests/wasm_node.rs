//! The JavaScript surface under Node (`wasm-pack test --node`).
#![cfg(target_arch = "wasm32")]

mod wasm_support;

use wasm_bindgen_test::*;

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
