//! Reading a stored meta object (`{id, size, storedBytes, mime, createdAt,
//! expiresAt, lastUsedAt, part?, files?}`) back as a [`RecordMeta`], field
//! by field: every backend hands back the object it was given (or its
//! structured clone), so the fields are read where they are, without a
//! generic deserializer for one struct.

use ctxpack_core::stash::{RecordMeta, StashedFile};
use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

/// The largest whole number a JavaScript number holds exactly (2^53 − 1).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A field that holds a value of another type than the one asked for: the
/// object is no meta.
struct WrongType;

/// The fields of one object, each read as the type it should hold. A field
/// that is missing, or `undefined`, reads as `None`.
struct Fields<'a>(&'a JsValue);

impl Fields<'_> {
    fn get(&self, k: &str) -> Option<JsValue> {
        let v = Reflect::get(self.0, &JsValue::from_str(k)).ok()?;
        (!v.is_undefined()).then_some(v)
    }

    fn string(&self, k: &str) -> Result<Option<String>, WrongType> {
        self.get(k)
            .map(|v| v.as_string().ok_or(WrongType))
            .transpose()
    }

    /// A string that may also be `null` (an `Option` field).
    fn string_or_null(&self, k: &str) -> Result<Option<String>, WrongType> {
        match self.get(k) {
            Some(v) if v.is_null() => Ok(None),
            Some(v) => v.as_string().map(Some).ok_or(WrongType),
            None => Ok(None),
        }
    }

    fn number(&self, k: &str) -> Result<Option<f64>, WrongType> {
        self.get(k).map(|v| v.as_f64().ok_or(WrongType)).transpose()
    }

    /// A number that may also be `null` (an `Option` field).
    fn number_or_null(&self, k: &str) -> Result<Option<f64>, WrongType> {
        match self.get(k) {
            Some(v) if v.is_null() => Ok(None),
            Some(v) => v.as_f64().map(Some).ok_or(WrongType),
            None => Ok(None),
        }
    }

    /// A whole number from 0 that JavaScript holds exactly.
    fn count(&self, k: &str) -> Result<u64, WrongType> {
        match self.number(k)? {
            None => Ok(0),
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= MAX_SAFE_INTEGER => Ok(n as u64),
            Some(_) => Err(WrongType),
        }
    }
}

/// Reads a meta object; `None` when it is not one. A field that is missing
/// or `undefined` reads as zero or empty; one of another type (or a size
/// that is no safe whole number from 0) makes the object no meta.
pub fn meta_from_js(v: &JsValue) -> Option<RecordMeta> {
    if !v.is_object() {
        return None;
    }
    read_meta(&Fields(v)).ok()
}

fn read_meta(f: &Fields<'_>) -> Result<RecordMeta, WrongType> {
    Ok(RecordMeta {
        id: f.string("id")?.ok_or(WrongType)?,
        size: f.count("size")?,
        stored_bytes: f.count("storedBytes")?,
        mime: f.string("mime")?.unwrap_or_default(),
        created_at: f.number("createdAt")?.unwrap_or(0.0),
        expires_at: f.number("expiresAt")?.unwrap_or(0.0),
        last_used_at: f.number("lastUsedAt")?.unwrap_or(0.0),
        part: f.string_or_null("part")?,
        files: match f.get("files") {
            None => Vec::new(),
            Some(list) => read_files(&list)?,
        },
    })
}

/// The `files` array: each entry `{provider, account?, id?, uri?, expiresAt?}`.
fn read_files(list: &JsValue) -> Result<Vec<StashedFile>, WrongType> {
    let list = list.dyn_ref::<Array>().ok_or(WrongType)?;
    list.iter()
        .map(|entry| {
            if !entry.is_object() {
                return Err(WrongType);
            }
            let f = Fields(&entry);
            Ok(StashedFile {
                provider: f.string("provider")?.ok_or(WrongType)?,
                account: f.string("account")?.unwrap_or_default(),
                id: f.string_or_null("id")?,
                uri: f.string_or_null("uri")?,
                expires_at: f.number_or_null("expiresAt")?,
            })
        })
        .collect()
}
