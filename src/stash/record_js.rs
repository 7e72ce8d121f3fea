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
