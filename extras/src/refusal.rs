//! `parseProviderError` and `parseContextLengthError`: a model API's refusal
//! read from its wording. They live in this module, not the main one,
//! because they are pure and synchronous and only some apps call them: the
//! main module stays within its size budget. `repairContext` (in the main
//! module) gets the refusal this module read: the package's entry reads it
//! here and passes it in.

use js_sys::{Reflect, JSON};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// `value` as JavaScript: serde's form, objects as plain objects.
fn to_js<T: Serialize>(value: &T) -> JsValue {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or(JsValue::NULL)
}

/// The texts an error value may carry its provider's message in: the value
/// itself when it is a string, else its `message`, `responseBody`, `body`
/// and `error` (objects as their JSON), as the SDKs throw them.
fn texts_of(value: &JsValue) -> String {
    if let Some(s) = value.as_string() {
        return s;
    }
    if !value.is_object() {
        return String::new();
    }
    let mut out = Vec::new();
    for key in ["message", "responseBody", "body", "error"] {
        let v = Reflect::get(value, &key.into()).unwrap_or(JsValue::UNDEFINED);
        if let Some(s) = v.as_string() {
            out.push(s);
        } else if v.is_object() {
            if let Some(s) = JSON::stringify(&v).ok().and_then(|s| s.as_string()) {
                out.push(s);
            }
        }
    }
    out.join("\n")
}

/// The refusal in `text_or_error` (the text, or an error object holding
/// it), or `null` when it is not about size or images. The package exports
/// this as `parseProviderError`.
#[wasm_bindgen(js_name = parseProviderError, skip_typescript)]
pub fn parse_provider_error(text_or_error: JsValue) -> JsValue {
    match ctxpack_core::budget::parse_provider_error(&texts_of(&text_or_error)) {
        Some(r) => to_js(&r),
        None => JsValue::NULL,
    }
}

/// The context-length error in `text`, or `null` when it is not one (or
/// `text` is not a string). The package exports this as
/// `parseContextLengthError`.
#[wasm_bindgen(js_name = parseContextLengthError, skip_typescript)]
pub fn parse_context_length_error(text: JsValue) -> JsValue {
    let Some(text) = text.as_string() else {
        return JsValue::NULL;
    };
    match ctxpack_core::budget::parse_context_length_error(&text) {
        Some(e) => to_js(&e),
        None => JsValue::NULL,
    }
}
