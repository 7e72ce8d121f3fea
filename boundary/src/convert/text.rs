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

/// The string argument at `path` copied into wasm memory once, as UTF-8
/// (see [`utf8_text`]). A value that is no string, or a string holding a
/// lone surrogate (which has no UTF-8 form), is refused.
pub fn whole_text(value: &JsValue, path: &str) -> Result<String, crate::CtxpackError> {
    let Some(js) = value.dyn_ref::<JsString>() else {
        return Err(crate::CtxpackError::invalid_argument(
            path,
            "must be a string",
        ));
    };
    if !well_formed(js) {
        return Err(crate::CtxpackError::invalid_argument(
            path,
            "holds a lone surrogate, which has no UTF-8 form",
        ));
    }
    // Where the host has no `encodeInto`, the generic copy.
    Ok(utf8_text(js).unwrap_or_else(|| String::from(js)))
}

/// A copy of a well-formed JavaScript string in wasm memory as UTF-8,
/// written by the engine's native `TextEncoder.encodeInto`: one byte per
/// character while the text is ASCII, and, from the first character that
/// is not, room for three bytes per UTF-16 unit left. `None` where the host
/// has no `encodeInto`.
pub fn utf8_text(text: &JsString) -> Option<String> {
    let (encoder, encode_into) = ENCODE_INTO.with(Clone::clone)?;
    let len = text.length() as usize;
    let mut bytes = vec![0u8; len];
    let (read, written) = encode_at(&encoder, &encode_into, text, &mut bytes, 0)?;
    let written = if read == len {
        written
    } else {
        let rest = text.slice(read as u32, len as u32);
        bytes.resize(written + (len - read) * 3, 0);
        let (_, more) = encode_at(&encoder, &encode_into, &rest, &mut bytes, written)?;
        written + more
    };
    bytes.truncate(written);
    String::from_utf8(bytes).ok()
}

/// `encodeInto` of `text` into `bytes[at..]`: the UTF-16 units read and
/// the bytes written.
fn encode_at(
    encoder: &JsValue,
    encode_into: &Function,
    text: &JsString,
    bytes: &mut [u8],
    at: usize,
) -> Option<(usize, usize)> {
    let memory = wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .ok()?;
    let room = bytes.len().checked_sub(at)?;
    // Nothing allocates in wasm between taking the view and filling it, so
    // the view's buffer cannot be detached by memory growth in between.
    let view = js_sys::Uint8Array::new_with_byte_offset_and_length(
        &memory.buffer(),
        bytes.as_mut_ptr() as u32 + at as u32,
        room as u32,
    );
    let done = encode_into.call2(encoder, text, &view).ok()?;
    let count = |key: &str| Reflect::get(&done, &key.into()).ok()?.as_f64();
    Some((count("read")? as usize, count("written")? as usize))
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
