//! A stash backend made of any JavaScript object with async
//! `get(key)`, `put(key, value)`, `delete(key)` and `keys()` — a
//! `StashAdapter`, such as the file-system stash for Node. Each record is two
//! keys: `<md5>` (the image) and `<md5>.meta` (its bookkeeping). A record
//! counts as written when both `put`s resolved.

use super::js_error::stash_error;
use super::record_js::{meta_from_js, meta_to_js, record_to_js, stored_from_js};
use crate::convert::external::Table;
use ctxpack_core::stash::{
    NewRecord, RecordMeta, StashBackend, StashError, StashErrorKind, StoredRecord,
};
use js_sys::{Array, Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

const META_SUFFIX: &str = ".meta";

/// A stash in a host-supplied adapter object.
pub struct AdapterBackend {
    adapter: JsValue,
    get: Function,
    put: Function,
    delete: Function,
    keys: Function,
}

impl AdapterBackend {
    /// Wraps `adapter`, or says which method it lacks.
    pub fn new(adapter: JsValue) -> Result<AdapterBackend, String> {
        let method = |name: &str| -> Result<Function, String> {
            Reflect::get(&adapter, &JsValue::from_str(name))
                .ok()
                .and_then(|f| f.dyn_into::<Function>().ok())
                .ok_or_else(|| format!("a StashAdapter needs an async `{name}` method"))
        };
        Ok(AdapterBackend {
            get: method("get")?,
            put: method("put")?,
            delete: method("delete")?,
            keys: method("keys")?,
            adapter,
        })
    }

    async fn call(
        &self,
        f: &Function,
        args: &[JsValue],
        kind: StashErrorKind,
        what: &str,
    ) -> Result<JsValue, StashError> {
        let out = match args {
            [] => f.call0(&self.adapter),
            [a] => f.call1(&self.adapter, a),
            [a, b, ..] => f.call2(&self.adapter, a, b),
        }
        .map_err(|e| stash_error(e, kind, what))?;
        JsFuture::from(Promise::resolve(&out))
            .await
            .map_err(|e| stash_error(e, kind, what))
    }

    /// Reads one record; with `table` its payload stays in JavaScript.
    pub async fn get_record_in(
        &self,
        id: &str,
        table: Option<&Table>,
    ) -> Result<Option<StoredRecord>, StashError> {
        let image = self
            .call(
                &self.get,
                &[JsValue::from_str(id)],
                StashErrorKind::ReadFailed,
                "reading an image",
            )
            .await?;
        if image.is_undefined() || image.is_null() {
            return Ok(None);
        }
        let meta_key = format!("{id}{META_SUFFIX}");
        let meta = self
            .call(
                &self.get,
                &[JsValue::from_str(&meta_key)],
                StashErrorKind::ReadFailed,
                "reading an image",
            )
            .await?;
        let expires_at = meta_from_js(&meta).map_or(0.0, |m| m.expires_at);
        Ok(stored_from_js(&image, expires_at, table))
    }

    /// Deletes every record.
    pub async fn clear(&self) -> Result<(), StashError> {
        let keys = self
            .call(&self.keys, &[], StashErrorKind::ReadFailed, "listing")
            .await?;
        let keys: Array = keys.dyn_into().unwrap_or_default();
        for k in keys.iter() {
            self.call(&self.delete, &[k], StashErrorKind::WriteFailed, "clearing")
                .await?;
        }
        Ok(())
    }
}

impl AdapterBackend {
    /// Every key the adapter holds.
    async fn keys(&self) -> Result<Vec<String>, StashError> {
        let keys = self
            .call(&self.keys, &[], StashErrorKind::ReadFailed, "listing")
            .await?;
        let keys: Array = keys.dyn_into().unwrap_or_default();
        Ok(keys.iter().filter_map(|k| k.as_string()).collect())
    }

    /// Writes records; payloads that are references of `table` are written
    /// as the JavaScript values they stand for.
    pub async fn put_records_in(
        &self,
        records: &[NewRecord<'_>],
        table: &Table,
    ) -> Vec<Result<(), StashError>> {
        let mut out = Vec::with_capacity(records.len());
        // Records the stash already holds are looked up among its keys.
        let held: Option<Result<Vec<String>, StashError>> = if records.iter().any(|r| r.stored) {
            Some(self.keys().await)
        } else {
            None
        };
        for r in records {
            if r.stored {
                out.push(match &held {
                    Some(Ok(keys)) if keys.contains(&r.id) => Ok(()),
                    Some(Err(e)) => Err(StashError::new(e.kind, e.message.clone())),
                    _ => Err(StashError::gone()),
                });
                continue;
            }
            let write = async {
                self.call(
                    &self.put,
                    &[JsValue::from_str(&r.id), record_to_js(r, table)],
                    StashErrorKind::WriteFailed,
                    "writing an image",
                )
                .await?;
                let meta_key = format!("{}{META_SUFFIX}", r.id);
                self.call(
                    &self.put,
                    &[JsValue::from_str(&meta_key), meta_to_js(&r.meta)],
                    StashErrorKind::WriteFailed,
                    "writing an image",
                )
                .await?;
                Ok(())
            };
            out.push(write.await);
        }
        out
    }
}

impl StashBackend for AdapterBackend {
    async fn put_records(&self, records: &[NewRecord<'_>]) -> Vec<Result<(), StashError>> {
        self.put_records_in(records, &Table::new()).await
    }

    async fn get_record(&self, id: &str) -> Result<Option<StoredRecord>, StashError> {
        self.get_record_in(id, None).await
    }

    async fn list_meta(&self) -> Result<Vec<RecordMeta>, StashError> {
        let keys = self
            .call(&self.keys, &[], StashErrorKind::ReadFailed, "listing")
            .await?;
        let keys: Array = keys.dyn_into().unwrap_or_default();
        let mut out = Vec::new();
        for k in keys.iter() {
            let Some(key) = k.as_string() else { continue };
            if !key.ends_with(META_SUFFIX) {
                continue;
            }
            let v = self
                .call(&self.get, &[k], StashErrorKind::ReadFailed, "listing")
                .await?;
            if let Some(m) = meta_from_js(&v) {
                out.push(m);
            }
        }
        Ok(out)
    }

    async fn put_meta(&self, metas: &[RecordMeta]) -> Result<(), StashError> {
        for m in metas {
            let key = format!("{}{META_SUFFIX}", m.id);
            self.call(
                &self.put,
                &[JsValue::from_str(&key), meta_to_js(m)],
                StashErrorKind::WriteFailed,
                "refreshing",
            )
            .await?;
        }
        Ok(())
    }

    async fn delete_records(&self, ids: &[String]) -> Result<(), StashError> {
        for id in ids {
            // Meta first: a record without meta reads as expired, never as live.
            let key = format!("{id}{META_SUFFIX}");
            self.call(
                &self.delete,
                &[JsValue::from_str(&key)],
                StashErrorKind::WriteFailed,
                "deleting",
            )
            .await?;
            self.call(
                &self.delete,
                &[JsValue::from_str(id)],
                StashErrorKind::WriteFailed,
                "deleting",
            )
            .await?;
        }
        Ok(())
    }
}
