//! Reading a stored meta object (`{id, size, storedBytes, mime, createdAt,
//! expiresAt, lastUsedAt, part?, files?}`) back as a [`RecordMeta`], through
//! its serde derive: every backend hands back the object it was given (or
//! its structured clone).

use ctxpack_core::stash::RecordMeta;
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

/// Reads a meta object; `None` when it is not one. A field that is missing
/// or `undefined` reads as zero or empty; one of another type (or a size
/// that is no safe whole number from 0) makes the object no meta.
pub fn meta_from_js(v: &JsValue) -> Option<RecordMeta> {
    if !v.is_object() {
        return None;
    }
    serde_wasm_bindgen::from_value(without_undefined(v, true)).ok()
}

/// `v` without its own properties that are `undefined`, so that they read
/// as missing ones (serde-wasm-bindgen takes a property that is present as
/// a value, even `undefined`, which is no number or string); with `files`,
/// the entries of its `files` array too. `v` itself when it has none; a
/// copy keeps `v`'s prototype.
fn without_undefined(v: &JsValue, files: bool) -> JsValue {
    let Some(o) = v.dyn_ref::<Object>() else {
        return v.clone();
    };
    let read = |k: &JsValue| Reflect::get(v, k).unwrap_or(JsValue::UNDEFINED);
    let keys = Object::keys(o);
    let list = files
        .then(|| read(&JsValue::from_str("files")).dyn_into::<Array>().ok())
        .flatten();
    if list.is_none() && !keys.iter().any(|k| read(&k).is_undefined()) {
        return v.clone();
    }
    let copy = Object::create(&Object::get_prototype_of(v));
    for k in keys.iter() {
        let x = read(&k);
        if !x.is_undefined() {
            let _ = Reflect::set(&copy, &k, &x);
        }
    }
    if let Some(list) = list {
        let entries: Array = list.iter().map(|e| without_undefined(&e, false)).collect();
        let _ = Reflect::set(&copy, &JsValue::from_str("files"), &entries);
    }
    copy.into()
}
