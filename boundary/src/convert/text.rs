//! A caller's string read as text: whether it has a UTF-8 form, and a copy
//! of an ASCII one made by the engine.

use js_sys::{Function, JsString, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

thread_local! {
    static ENCODE_INTO: Option<(JsValue, Function)> = find_encode_into();
}

/// `String.prototype.isWellFormed` where the engine has it (Chrome 111,
/// Node 20); elsewhere the check runs in Rust.
pub(super) fn well_formed(js: &JsString) -> bool {
    thread_local! {
        // Looked up on `String.prototype`: `Reflect.get` throws on a
        // primitive string, which would make every check run in Rust, one
        // `charCodeAt` call per code unit.
        static NATIVE: bool = Reflect::get(&js_sys::global(), &"String".into())
            .and_then(|string| Reflect::get(&string, &"prototype".into()))
            .and_then(|prototype| Reflect::get(&prototype, &"isWellFormed".into()))
            .is_ok_and(|f| f.is_function());
    }
    if NATIVE.with(|n| *n) {
        js.is_well_formed()
    } else {
        js.is_valid_utf16()
    }
}

/// A copy of an ASCII-only JavaScript string in wasm memory, written by the
/// engine's native `TextEncoder.encodeInto` straight into the buffer (the
/// generic string crossing copies character by character in JavaScript).
/// `None` when the string holds any non-ASCII character: the caller then
/// takes the generic path, which handles every string.
pub(super) fn ascii_text(text: &JsString) -> Option<String> {
    let (encoder, encode_into) = ENCODE_INTO.with(Clone::clone)?;
    let len = text.length();
    let mut bytes = vec![0u8; len as usize];
    let memory = wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .ok()?;
    // Nothing allocates in wasm between taking the view and filling it, so
    // the view's buffer cannot be detached by memory growth in between.
    let view = js_sys::Uint8Array::new_with_byte_offset_and_length(
        &memory.buffer(),
        bytes.as_mut_ptr() as u32,
        len,
    );
    let done = encode_into.call2(&encoder, text, &view).ok()?;
    let count = |key: &str| Reflect::get(&done, &key.into()).ok()?.as_f64();
    // Every character read and exactly one byte written for each: ASCII.
    if count("read")? != f64::from(len) || count("written")? != f64::from(len) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// A `TextEncoder` and its `encodeInto`, where the host has them.
fn find_encode_into() -> Option<(JsValue, Function)> {
    let class: Function = Reflect::get(&js_sys::global(), &"TextEncoder".into())
        .ok()?
        .dyn_into()
        .ok()?;
    let encoder = Reflect::construct(&class, &js_sys::Array::new()).ok()?;
    let encode_into = Reflect::get(&encoder, &"encodeInto".into())
        .ok()?
        .dyn_into()
        .ok()?;
    Some((encoder, encode_into))
}
