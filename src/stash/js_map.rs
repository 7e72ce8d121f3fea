//! The `'memory'` stash in JavaScript: a `Map` of record objects. Payloads
//! stay the JavaScript strings they came as — nothing is copied into wasm
//! memory to keep them.

use super::meta_js::meta_from_js;
use super::record_js::{meta_to_js, record_to_js, stored_from_js};
use crate::convert::external::Table;
use ctxpack_core::stash::{NewRecord, RecordMeta, StashBackend, StashError, StoredRecord};
use js_sys::Map;
use wasm_bindgen::prelude::*;

/// Records in a JavaScript `Map`: `<md5>` → image, `<md5>.meta` → bookkeeping.
#[derive(Default)]
pub struct MapBackend {
    map: Map,
}

impl MapBackend {
    /// An empty stash.
    pub fn new() -> Self {
        MapBackend { map: Map::new() }
    }

    /// Reads one record; with `table` its payload stays in JavaScript.
    pub fn get_record_in(&self, id: &str, table: Option<&Table>) -> Option<StoredRecord> {
        let image = self.map.get(&JsValue::from_str(id));
        if image.is_undefined() {
            return None;
        }
        let meta = self.map.get(&JsValue::from_str(&format!("{id}.meta")));
        stored_from_js(
            &image,
            meta_from_js(&meta).map_or(0.0, |m| m.expires_at),
            table,
        )
    }

    /// A stash over the records of `map`, which another module's stash
    /// keeps (see `Stash.__twin`).
    pub fn over(map: Map) -> Self {
        MapBackend { map }
    }

    /// The `Map` that holds the records.
    pub fn map(&self) -> &Map {
        &self.map
    }

    /// Deletes every record.
    pub fn clear(&self) {
        self.map.clear();
    }
}

impl MapBackend {
    /// Writes records; payloads that are references of `table` are written
    /// as the JavaScript values they stand for.
    pub async fn put_records_in(
        &self,
        records: &[NewRecord<'_>],
        table: &Table,
    ) -> Vec<Result<(), StashError>> {
        records
            .iter()
            .map(|r| {
                if r.stored {
                    return if self.map.has(&JsValue::from_str(&r.id)) {
                        Ok(())
                    } else {
                        Err(StashError::gone())
                    };
                }
                self.map
                    .set(&JsValue::from_str(&r.id), &record_to_js(r, table));
                self.map.set(
                    &JsValue::from_str(&format!("{}.meta", r.id)),
                    &meta_to_js(&r.meta),
                );
                Ok(())
            })
            .collect()
    }
}

impl StashBackend for MapBackend {
    async fn put_records(&self, records: &[NewRecord<'_>]) -> Vec<Result<(), StashError>> {
        self.put_records_in(records, &Table::new()).await
    }

    async fn get_record(&self, id: &str) -> Result<Option<StoredRecord>, StashError> {
        Ok(self.get_record_in(id, None))
    }

    async fn list_meta(&self) -> Result<Vec<RecordMeta>, StashError> {
        let mut out = Vec::new();
        self.map.for_each(&mut |value, key| {
            if key.as_string().is_some_and(|k| k.ends_with(".meta")) {
                if let Some(m) = meta_from_js(&value) {
                    out.push(m);
                }
            }
        });
        Ok(out)
    }

    async fn put_meta(&self, metas: &[RecordMeta]) -> Result<(), StashError> {
        for m in metas {
            if self.map.has(&JsValue::from_str(&m.id)) {
                self.map.set(
                    &JsValue::from_str(&format!("{}.meta", m.id)),
                    &meta_to_js(m),
                );
            }
        }
        Ok(())
    }

    async fn delete_records(&self, ids: &[String]) -> Result<(), StashError> {
        for id in ids {
            self.map.delete(&JsValue::from_str(&format!("{id}.meta")));
            self.map.delete(&JsValue::from_str(id));
        }
        Ok(())
    }
}
