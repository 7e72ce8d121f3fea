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

#[wasm_bindgen_test]
async fn memory_stash_and_tool_definitions() {
    wasm_support::stash::memory_stash_and_tool_definitions().await;
}

#[wasm_bindgen_test]
async fn quota_exceeded_keeps_the_image_inline() {
    wasm_support::stash::quota_exceeded_keeps_the_image_inline().await;
}

#[wasm_bindgen_test]
async fn bad_stash_options_are_ctxpack_errors() {
    wasm_support::stash::bad_stash_options_are_ctxpack_errors().await;
}

#[wasm_bindgen_test]
async fn stray_bits_keep_the_image_inline() {
    wasm_support::stash::stray_bits_keep_the_image_inline().await;
}

/// Node has no IndexedDB: asking for it is an error, never a silent fallback.
#[wasm_bindgen_test]
async fn indexeddb_absent_is_stash_unavailable() {
    use ctxpack::stash::Stash;
    for opts in [
        None,
        Some(wasm_support::obj(&[("backend", "indexeddb".into())])),
    ] {
        let err = Stash::open(opts).await.err().expect("no IndexedDB in Node");
        let err: wasm_bindgen::JsValue = err.into();
        assert_eq!(wasm_support::get_str(&err, "code"), "STASH_UNAVAILABLE");
        assert_eq!(wasm_support::get_str(&err, "path"), "options.backend");
    }
}

#[wasm_bindgen_test]
async fn memory_belongs_to_the_stash() {
    wasm_support::stash::memory_belongs_to_the_stash().await;
}

/// An option's name is made a JavaScript string once and kept by its
/// literal: a literal that begins another (the linker may lay them at one
/// address) is its own name, not the longer one's.
#[wasm_bindgen_test]
fn an_option_name_is_its_own_literal() {
    use ctxpack_boundary::convert::static_key;
    const LONG: &str = "maxImages";
    let short: &'static str = &LONG[..3];
    for _ in 0..2 {
        assert_eq!(static_key(LONG).as_string().as_deref(), Some("maxImages"));
        assert_eq!(static_key(short).as_string().as_deref(), Some("max"));
    }
}

/// A result crosses as its JSON, parsed: a key named `__proto__` stays an
/// own key (setting it on an object field by field would change the
/// object's prototype), `None` is `null`, and a large count is a number.
#[wasm_bindgen_test]
fn a_result_crosses_as_its_json() {
    use ctxpack_boundary::convert::to_js;
    use wasm_bindgen::JsCast;
    let value = serde_json::json!({"__proto__": {"polluted": true}, "none": null, "bytes": 9_007_199_254_740_993_u64});
    let js = to_js(&value);
    let object: &js_sys::Object = js.unchecked_ref();
    let keys: Vec<String> = js_sys::Object::keys(object)
        .iter()
        .filter_map(|k| k.as_string())
        .collect();
    assert_eq!(keys, ["__proto__", "none", "bytes"]);
    assert!(wasm_support::get(&js, "polluted").is_undefined());
    assert!(wasm_support::get(&js, "none").is_null());
    assert_eq!(
        wasm_support::get(&js, "bytes").as_f64(),
        Some(9_007_199_254_740_992.0)
    );
}
