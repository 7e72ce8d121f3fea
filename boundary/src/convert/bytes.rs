//! Binary values (`Uint8Array`, Node's `Buffer`, `ArrayBuffer`) as the base64
//! text ctxpack hashes and stashes, and back. Each direction uses the host's
//! native codec where there is one (`Buffer` in Node, `Uint8Array.fromBase64`
//! and `toBase64` in current browsers) and the core's base64 codec elsewhere.

use ctxpack_core::media::{decode_base64, encode_base64, BytesKind};
use js_sys::{ArrayBuffer, Function, JsString, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

thread_local! {
    static BUFFER: Option<Function> = Reflect::get(&js_sys::global(), &"Buffer".into())
        .ok()
        .and_then(|b| b.dyn_into().ok());
}

fn node_buffer() -> Option<Function> {
    BUFFER.with(Clone::clone)
}

fn method(target: &JsValue, name: &str) -> Option<Function> {
    Reflect::get(target, &name.into()).ok()?.dyn_into().ok()
}

/// The kind of binary value `value` is, or `None` when it is not one.
pub fn bytes_kind(value: &JsValue) -> Option<BytesKind> {
    if value.is_instance_of::<ArrayBuffer>() {
        return Some(BytesKind::ArrayBuffer);
    }
    if !value.is_instance_of::<Uint8Array>() {
        return None;
    }
    let is_buffer = node_buffer()
        .and_then(|b| {
            let is = method(&b, "isBuffer")?;
            is.call1(&b, value).ok()?.as_bool()
        })
        .unwrap_or(false);
    Some(if is_buffer {
        BytesKind::Buffer
    } else {
        BytesKind::Uint8Array
    })
}

/// The bytes of a binary value as a `Uint8Array` view (no copy).
fn view(value: &JsValue) -> Uint8Array {
    match value.dyn_ref::<ArrayBuffer>() {
        Some(buffer) => Uint8Array::new(buffer),
        None => value.clone().unchecked_into(),
    }
}

/// The standard padded base64 text of a binary value's bytes.
pub fn to_base64(value: &JsValue) -> JsString {
    let bytes = view(value);
    if let Some(buffer) = node_buffer() {
        let from = method(&buffer, "from");
        let text = from
            .and_then(|from| {
                let args = js_sys::Array::of3(
                    &bytes.buffer(),
                    &JsValue::from(bytes.byte_offset()),
                    &JsValue::from(bytes.byte_length()),
                );
                from.apply(&buffer, &args).ok()
            })
            .and_then(|b| {
                let to_string = method(&b, "toString")?;
                to_string.call1(&b, &"base64".into()).ok()
            })
            .and_then(|s| s.dyn_into::<JsString>().ok());
        if let Some(text) = text {
            return text;
        }
    }
    if let Some(native) = method(&bytes, "toBase64") {
        if let Some(text) = native
            .call0(&bytes)
            .ok()
            .and_then(|s| s.dyn_into::<JsString>().ok())
        {
            return text;
        }
    }
    JsString::from(encode_base64(&bytes.to_vec()))
}

/// A new binary value of `kind` holding the bytes of base64 `text`.
pub fn from_base64(text: &JsValue, kind: BytesKind) -> JsValue {
    let fresh = decode(text);
    match kind {
        BytesKind::ArrayBuffer => fresh.buffer().into(),
        BytesKind::Uint8Array => fresh.into(),
        BytesKind::Buffer => node_buffer()
            .and_then(|buffer| {
                let from = method(&buffer, "from")?;
                let args = js_sys::Array::of3(
                    &fresh.buffer(),
                    &JsValue::from(0),
                    &JsValue::from(fresh.length()),
                );
                from.apply(&buffer, &args).ok()
            })
            .unwrap_or_else(|| fresh.into()),
    }
}

/// The bytes of base64 `text` in a `Uint8Array` of its own (never a view
/// of a shared pool, so its `buffer` is exactly these bytes).
fn decode(text: &JsValue) -> Uint8Array {
    let global = js_sys::global();
    let class = Reflect::get(&global, &"Uint8Array".into()).unwrap_or(JsValue::UNDEFINED);
    if let Some(native) = method(&class, "fromBase64") {
        if let Some(bytes) = native
            .call1(&class, text)
            .ok()
            .and_then(|b| b.dyn_into::<Uint8Array>().ok())
        {
            return bytes;
        }
    }
    if let Some(buffer) = node_buffer() {
        let decoded = method(&buffer, "from").and_then(|from| {
            from.call2(&buffer, text, &"base64".into())
                .ok()?
                .dyn_into::<Uint8Array>()
                .ok()
        });
        if let Some(pooled) = decoded {
            // Copy out of Node's shared pool.
            return Uint8Array::new(&pooled);
        }
    }
    let text = text.as_string().unwrap_or_default();
    let bytes = decode_base64(&text).unwrap_or_default();
    Uint8Array::from(bytes.as_slice())
}
