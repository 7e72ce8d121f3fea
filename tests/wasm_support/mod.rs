//! Shared checks of the JavaScript surface, run by the Node suite and the
//! browser suite alike.
#![allow(dead_code)]

pub mod idb_events;
pub mod stash;

use ctxpack_extras::detect;
use ctxpack_extras::exports::parse_markdown_images;
use ctxpack_extras::multimodal;
use js_sys::{Array, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub const PNG: &[u8] = include_bytes!("../fixtures/chart.png");
pub const JPEG: &[u8] = include_bytes!("../fixtures/photo.jpg");
pub const GIF: &[u8] = include_bytes!("../fixtures/anim.gif");
pub const WEBP: &[u8] = include_bytes!("../fixtures/shot.webp");

pub fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

pub fn get_str(v: &JsValue, key: &str) -> String {
    get(v, key).as_string().unwrap_or_default()
}

pub fn obj(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &(*k).into(), v).unwrap();
    }
    o.into()
}

pub fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Asserts `err` is a real `Error` that is a `CtxpackError` with `code` and `path`.
pub fn assert_ctxpack_error(err: JsValue, code: &str, path: &str) {
    assert!(
        err.is_instance_of::<js_sys::Error>(),
        "thrown value is an Error"
    );
    assert_eq!(get_str(&err, "name"), "CtxpackError");
    assert_eq!(get_str(&err, "code"), code);
    assert_eq!(get_str(&err, "path"), path);
    assert!(
        get(&err, "stack")
            .as_string()
            .is_some_and(|s| !s.is_empty()),
        "has a stack"
    );
}

pub fn parses_markdown_with_utf16_offsets() {
    let text = "图😀 ![alt](a.png \"t\") `![x](y)`";
    let out: Array = parse_markdown_images(text.into()).unwrap().unchecked_into();
    assert_eq!(out.length(), 1);
    let img = out.get(0);
    assert_eq!(get_str(&img, "url"), "a.png");
    assert_eq!(get_str(&img, "title"), "t");
    let start = get(&img, "start").as_f64().unwrap() as u32;
    let end = get(&img, "end").as_f64().unwrap() as u32;
    let js_text = js_sys::JsString::from(text);
    assert_eq!(
        String::from(js_text.slice(start, end)),
        "![alt](a.png \"t\")"
    );
}

pub fn rejects_non_string_text() {
    let err = parse_markdown_images(JsValue::from(5)).unwrap_err();
    assert_ctxpack_error(err.into(), "INVALID_ARGUMENT", "text");
}

pub fn detect_format_reports_paths() {
    let msgs: JsValue = js_sys::JSON::parse(
        r#"[{"role":"user","content":"hi"},{"role":"user","content":[{"type":"image_url","image_url":{"url":7}}]}]"#,
    )
    .unwrap();
    let err = detect::detect_format(msgs, None).unwrap_err();
    assert_ctxpack_error(
        err.into(),
        "INVALID_MESSAGE",
        "messages[1].content[0].image_url.url",
    );
    let tuples = js_sys::JSON::parse(r#"[["human","hi"],["ai","yo"]]"#).unwrap();
    assert_eq!(detect::detect_format(tuples, None).unwrap(), "langchain");
    let err = detect::detect_format(JsValue::NULL, None).unwrap_err();
    assert_ctxpack_error(err.into(), "INVALID_ARGUMENT", "messages");
}

/// A resolver that serves the four fixtures by file name and `null` otherwise.
pub fn fixture_resolver() -> js_sys::Function {
    let f = Closure::<dyn Fn(String) -> JsValue>::new(|url: String| -> JsValue {
        let bytes: &[u8] = if url.ends_with("chart.png") {
            PNG
        } else if url.ends_with("photo.jpg") {
            JPEG
        } else if url.ends_with("anim.gif") {
            GIF
        } else if url.ends_with("shot.webp") {
            // Hand back a data URL string instead of bytes, with a wrong type.
            return JsValue::from_str(&format!("data:image/png;base64,{}", b64(WEBP)));
        } else {
            return js_sys::Promise::resolve(&JsValue::NULL).unchecked_into();
        };
        let value: JsValue = Uint8Array::from(bytes).into();
        js_sys::Promise::resolve(&value).unchecked_into()
    });
    f.into_js_value().unchecked_into()
}

pub async fn resolves_files_through_the_resolver() {
    let text = "看：![图表](file:///w/chart.png) ![p](vscode-resource:/w/photo.jpg)\n![g](anim.gif) ![w](shot.webp) ![gone](file:///w/none.png)";
    let opts = obj(&[
        ("resolve", fixture_resolver().into()),
        ("detail", "auto".into()),
    ]);
    let out = multimodal::to_multimodal(text.into(), Some(opts))
        .await
        .unwrap();
    let content: Array = get(&out, "content").unchecked_into();
    let kinds: Vec<String> = content.iter().map(|p| get_str(&p, "type")).collect();
    assert_eq!(
        kinds,
        [
            "text",
            "image_url",
            "text",
            "image_url",
            "text",
            "image_url",
            "text",
            "image_url",
            "text"
        ]
    );
    let url = |i: u32| get_str(&get(&content.get(i), "image_url"), "url");
    assert_eq!(url(1), format!("data:image/png;base64,{}", b64(PNG)));
    assert_eq!(url(3), format!("data:image/jpeg;base64,{}", b64(JPEG)));
    assert_eq!(url(5), format!("data:image/gif;base64,{}", b64(GIF)));
    assert_eq!(url(7), format!("data:image/webp;base64,{}", b64(WEBP)));
    assert_eq!(
        get_str(&get(&content.get(1), "image_url"), "detail"),
        "auto"
    );
    assert_eq!(get_str(&content.get(0), "text"), "看：[图表]");
    assert_eq!(
        get_str(&content.get(8), "text"),
        " ![gone](file:///w/none.png)"
    );
    let missing: Array = get(&out, "missing").unchecked_into();
    assert_eq!(missing.length(), 1);
    assert_eq!(get_str(&missing.get(0), "url"), "file:///w/none.png");
    let corrected: Array = get(&out, "corrected").unchecked_into();
    assert_eq!(corrected.length(), 1);
    assert_eq!(get_str(&corrected.get(0), "actual"), "image/webp");
}

pub async fn writes_anthropic_and_ai_sdk_parts() {
    let text = "![g](anim.gif)";
    // AI SDK 7's file part for the AI SDK (its image part is deprecated).
    for (format, kind) in [("anthropic", "image"), ("ai-sdk", "file")] {
        let opts = obj(&[
            ("resolve", fixture_resolver().into()),
            ("format", format.into()),
        ]);
        let out = multimodal::to_multimodal(text.into(), Some(opts))
            .await
            .unwrap();
        let content: Array = get(&out, "content").unchecked_into();
        assert_eq!(content.length(), 2, "{format}: [g] text then the image");
        let img = content.get(1);
        assert_eq!(get_str(&img, "type"), kind);
        let payload = if format == "anthropic" {
            let source = get(&img, "source");
            assert_eq!(get_str(&source, "media_type"), "image/gif");
            get_str(&source, "data")
        } else {
            assert_eq!(get_str(&img, "mediaType"), "image/gif");
            get_str(&img, "data")
        };
        assert_eq!(payload, b64(GIF));
    }
}

pub async fn bad_options_are_ctxpack_errors() {
    let err = multimodal::to_multimodal("x".into(), Some(obj(&[("format", "xml".into())])))
        .await
        .unwrap_err();
    assert_ctxpack_error(err.into(), "INVALID_OPTION", "options.format");
    let err = multimodal::to_multimodal("x".into(), Some(obj(&[("resolve", 3.into())])))
        .await
        .unwrap_err();
    assert_ctxpack_error(err.into(), "INVALID_OPTION", "options.resolve");
    let err = multimodal::to_multimodal("x".into(), Some(obj(&[("detail", "max".into())])))
        .await
        .unwrap_err();
    assert_ctxpack_error(err.into(), "INVALID_OPTION", "options.detail");
}

pub async fn resolver_that_throws_leaves_the_image_in_the_text() {
    let thrower = js_sys::Function::new_no_args("throw new Error('disk on fire')");
    let out = multimodal::to_multimodal(
        "a ![x](file:///x.png) b".into(),
        Some(obj(&[("resolve", thrower.into())])),
    )
    .await
    .unwrap();
    let content: Array = get(&out, "content").unchecked_into();
    assert_eq!(content.length(), 1);
    assert_eq!(get_str(&content.get(0), "text"), "a ![x](file:///x.png) b");
    let missing: Array = get(&out, "missing").unchecked_into();
    assert!(get_str(&missing.get(0), "reason").contains("disk on fire"));
}
