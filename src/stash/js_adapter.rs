//! A stash backend made of any JavaScript object with async
//! `get(key)`, `put(key, value)`, `delete(key)` and `keys()` — a
//! `StashAdapter`, such as the file-system stash for Node. Each record is two
//! keys: `<md5>` (the image) and `<md5>.meta` (its bookkeeping). A record
//! counts as written when both `put`s resolved. An adapter may also have
//! `getMany(keys)` (many values in one round trip), `putMany(entries)` (many
//! keys written atomically: a record's image and meta together) and
//! `expires: true` (its store expires records by itself: a call then looks
//! up only the metas it names and never lists the keys).

use super::js_error::stash_error;
use super::meta_js::meta_from_js;
use super::record_js::{meta_to_js, record_to_js, stored_from_js};
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
    /// `getMany(keys)`, when the adapter has it.
    get_many: Option<Function>,
    /// `putMany(entries)`, when the adapter has it.
    put_many: Option<Function>,
    /// `expires: true`: the store expires records by itself.
    expires: bool,
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
        let optional = |name: &str| method(name).ok();
        Ok(AdapterBackend {
            get: method("get")?,
            put: method("put")?,
            delete: method("delete")?,
            keys: method("keys")?,
            get_many: optional("getMany"),
            put_many: optional("putMany"),
            expires: Reflect::get(&adapter, &JsValue::from_str("expires"))
                .ok()
                .and_then(|v| v.as_bool())
                == Some(true),
            adapter,
        })
    }

    /// The adapter object.
    pub fn adapter(&self) -> &JsValue {
        &self.adapter
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
        if image.is_null_or_undefined() {
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
        // Records the stash already holds are looked up among its keys (in
        // a store that expires them by itself, by their metas).
        let held: Option<Result<Vec<String>, StashError>> = if records.iter().any(|r| r.stored) {
            Some(self.held(records).await)
        } else {
            None
        };
        let written = match &self.put_many {
            Some(put_many) => Some(self.put_many_records(put_many, records, table).await),
            None => None,
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
            if let Some(written) = &written {
                out.push(
                    written
                        .as_ref()
                        .map(|_| ())
                        .map_err(|e| StashError::new(e.kind, e.message.clone())),
                );
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

impl AdapterBackend {
    /// The ids of the `stored` records among `records` that the stash
    /// still holds.
    async fn held(&self, records: &[NewRecord<'_>]) -> Result<Vec<String>, StashError> {
        if !self.expires {
            return self.keys().await;
        }
        let ids: Vec<String> = records
            .iter()
            .filter(|r| r.stored)
            .map(|r| r.id.clone())
            .collect();
        Ok(self
            .metas_of(&ids)
            .await?
            .into_iter()
            .map(|m| m.id)
            .collect())
    }

    /// Writes every record of `records` not `stored`, image and meta, in
    /// one `putMany` call.
    async fn put_many_records(
        &self,
        put_many: &Function,
        records: &[NewRecord<'_>],
        table: &Table,
    ) -> Result<(), StashError> {
        let entries = Array::new();
        for r in records.iter().filter(|r| !r.stored) {
            entries.push(&entry(&r.id, &record_to_js(r, table)));
            entries.push(&entry(
                &format!("{}{META_SUFFIX}", r.id),
                &meta_to_js(&r.meta),
            ));
        }
        if entries.length() == 0 {
            return Ok(());
        }
        self.call(
            put_many,
            &[entries.into()],
            StashErrorKind::WriteFailed,
            "writing images",
        )
        .await
        .map(|_| ())
    }
}

/// A `[key, value]` entry for `putMany`.
fn entry(key: &str, value: &JsValue) -> JsValue {
    Array::of2(&JsValue::from_str(key), value).into()
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

    async fn metas_of(&self, ids: &[String]) -> Result<Vec<RecordMeta>, StashError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let keys = Array::new();
        for id in ids {
            keys.push(&JsValue::from_str(&format!("{id}{META_SUFFIX}")));
        }
        let values: Vec<JsValue> = match &self.get_many {
            Some(get_many) => {
                let got = self
                    .call(
                        get_many,
                        &[keys.into()],
                        StashErrorKind::ReadFailed,
                        "looking up",
                    )
                    .await?;
                got.dyn_into::<Array>().unwrap_or_default().iter().collect()
            }
            None => {
                let mut values = Vec::new();
                for k in keys.iter() {
                    values.push(
                        self.call(&self.get, &[k], StashErrorKind::ReadFailed, "looking up")
                            .await?,
                    );
                }
                values
            }
        };
        Ok(values
            .iter()
            .filter_map(meta_from_js)
            .filter(|m| ids.contains(&m.id))
            .collect())
    }

    fn expires_by_itself(&self) -> bool {
        self.expires
    }

    async fn put_meta(&self, metas: &[RecordMeta]) -> Result<(), StashError> {
        if let Some(put_many) = &self.put_many {
            let entries = Array::new();
            for m in metas {
                entries.push(&entry(&format!("{}{META_SUFFIX}", m.id), &meta_to_js(m)));
            }
            return self
                .call(
                    put_many,
                    &[entries.into()],
                    StashErrorKind::WriteFailed,
                    "refreshing",
                )
                .await
                .map(|_| ());
        }
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
