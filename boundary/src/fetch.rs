//! Fetching image bytes with the global `fetch` (window, worker and Node 20
//! all have one) and calling the host's resolver.

use js_sys::{Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// What a fetch or a resolver gave back.
pub enum Fetched {
    /// Raw bytes, with the declared `Content-Type` if any.
    Bytes(Vec<u8>, Option<String>),
    /// A data URL string.
    DataUrl(String),
}

fn describe(e: &JsValue) -> String {
    crate::js_error::exception_message(e)
}

/// GETs `url` with the global `fetch`.
pub async fn fetch_bytes(url: &str) -> Result<Fetched, String> {
    let global = js_sys::global();
    let fetch = Reflect::get(&global, &"fetch".into())
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
        .ok_or_else(|| "no global fetch in this environment".to_owned())?;
    let promise = fetch
        .call1(&global, &JsValue::from_str(url))
        .map_err(|e| format!("fetch failed: {}", describe(&e)))?;
    let response: web_sys::Response = JsFuture::from(Promise::resolve(&promise))
        .await
        .map_err(|e| format!("fetch failed: {}", describe(&e)))?
        .unchecked_into();
    if !response.ok() {
        return Err(format!("HTTP {}", response.status()));
    }
    let content_type = response.headers().get("content-type").ok().flatten();
    let buffer = response
        .array_buffer()
        .map_err(|e| format!("reading the body failed: {}", describe(&e)))?;
    let buffer = JsFuture::from(buffer)
        .await
        .map_err(|e| format!("reading the body failed: {}", describe(&e)))?;
    Ok(Fetched::Bytes(
        Uint8Array::new(&buffer).to_vec(),
        content_type,
    ))
}

/// Calls `resolve(url)`; it returns (or resolves to) bytes, a data URL, or
/// `null` when it cannot find the image.
pub async fn call_resolver(resolve: &Function, url: &str) -> Result<Fetched, String> {
    let out = resolve
        .call1(&JsValue::UNDEFINED, &JsValue::from_str(url))
        .map_err(|e| format!("resolver threw: {}", describe(&e)))?;
    let out = JsFuture::from(Promise::resolve(&out))
        .await
        .map_err(|e| format!("resolver failed: {}", describe(&e)))?;
    if out.is_null() || out.is_undefined() {
        return Err("resolver returned null".into());
    }
    if let Some(s) = out.as_string() {
        return Ok(Fetched::DataUrl(s));
    }
    if out.is_instance_of::<Uint8Array>() || out.is_instance_of::<js_sys::ArrayBuffer>() {
        return Ok(Fetched::Bytes(Uint8Array::new(&out).to_vec(), None));
    }
    if ArrayBufferView::is(&out) {
        let view: Uint8Array = out.unchecked_into();
        let bytes = Uint8Array::new_with_byte_offset_and_length(
            &view.buffer(),
            view.byte_offset(),
            view.byte_length(),
        );
        return Ok(Fetched::Bytes(bytes.to_vec(), None));
    }
    Err("resolver must return a Uint8Array, an ArrayBuffer, a data URL string or null".into())
}

struct ArrayBufferView;

impl ArrayBufferView {
    fn is(v: &JsValue) -> bool {
        js_sys::ArrayBuffer::is_view(v)
    }
}
