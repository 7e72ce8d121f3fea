//! Records as JavaScript objects, the shape every backend stores:
//! image `{id, mime, data, size, createdAt, part?}` and meta
//! `{id, size, storedBytes, mime, createdAt, expiresAt, lastUsedAt}`.

use crate::convert::external::Table;
use ctxpack_core::stash::{NewRecord, RecordMeta, StoredRecord};
use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

fn set(o: &Object, k: &str, v: &JsValue) {
    let _ = Reflect::set(o, &JsValue::from_str(k), v);
}

/// Property `k` of `o`; `undefined` when reading it throws.
fn get(o: &JsValue, k: &str) -> JsValue {
    get_key(o, &JsValue::from_str(k))
}

/// Property `k` (a key as JavaScript gives it) of `o`; `undefined` when
/// reading it throws.
fn get_key(o: &JsValue, k: &JsValue) -> JsValue {
    Reflect::get(o, k).unwrap_or(JsValue::UNDEFINED)
}

/// The image object of a new record. A payload kept in JavaScript (a
/// reference of `table`) is used as it is; an in-memory one crosses to
/// JavaScript here, once.
pub fn record_to_js(r: &NewRecord<'_>, table: &Table) -> JsValue {
    let o = Object::new();
    set(&o, "id", &JsValue::from_str(&r.id));
    set(&o, "mime", &JsValue::from_str(&r.mime));
    let data = table
        .payload(r.payload)
        .unwrap_or_else(|| JsValue::from_str(r.payload));
    set(&o, "data", &data);
    set(&o, "size", &JsValue::from_f64(r.meta.size as f64));
    set(&o, "createdAt", &JsValue::from_f64(r.meta.created_at));
    if let Some(p) = &r.part {
        set(&o, "part", &JsValue::from_str(p));
    }
    o.into()
}

/// The meta object of a record (serde's form of [`RecordMeta`]).
pub fn meta_to_js(m: &RecordMeta) -> JsValue {
    crate::convert::to_js(m)
}

/// Reads a meta object; `None` when it is not one. A field that is missing
/// or `undefined` reads as zero or empty; one of another type (or a size
/// that is no safe whole number from 0) makes the object no meta.
pub fn meta_from_js(v: &JsValue) -> Option<RecordMeta> {
    serde_wasm_bindgen::from_value(without_undefined(v)).ok()
}

/// `v` without its own properties that are `undefined`, so that they read
/// as missing ones (serde-wasm-bindgen takes a property that is present as
/// a value, even `undefined`, which is no number or string); `v` itself
/// when it has none. The copy keeps `v`'s prototype.
fn without_undefined(v: &JsValue) -> JsValue {
    let Some(o) = v.dyn_ref::<Object>() else {
        return v.clone();
    };
    let keys = Object::keys(o);
    if !keys.iter().any(|k| get_key(v, &k).is_undefined()) {
        return v.clone();
    }
    let copy = Object::create(&Object::get_prototype_of(v));
    for k in keys.iter() {
        let x = get_key(v, &k);
        if !x.is_undefined() {
            let _ = Reflect::set(&copy, &k, &x);
        }
    }
    copy.into()
}

/// Reads an image object; `None` when it is not one (which reads as missing).
/// With `table`, the payload stays in JavaScript and the record carries a
/// reference to it.
pub fn stored_from_js(v: &JsValue, expires_at: f64, table: Option<&Table>) -> Option<StoredRecord> {
    if !v.is_object() {
        return None;
    }
    let data = get(v, "data");
    if !data.is_string() {
        return None;
    }
    let payload = match table {
        Some(t) => t.keep(data),
        None => data.as_string()?,
    };
    Some(StoredRecord {
        id: get(v, "id").as_string()?,
        mime: get(v, "mime").as_string().unwrap_or_default(),
        payload,
        part: get(v, "part").as_string(),
        expires_at,
    })
}
