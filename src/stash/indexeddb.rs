//! The IndexedDB backend: one database per stash name with two object
//! stores — `images` (payloads) and `meta` (size, times) — so listing,
//! refreshing and evicting never load an image. Versioned schema in
//! `upgradeneeded`; the connection closes on `versionchange` so another tab can
//! upgrade, and reopens on next use; every write waits for `complete`.
//! Records are written by [`super::idb_write`].

use super::idb_future::{request, sleep, transaction};
use super::js_error::{exception_name, stash_error};
use super::meta_js::meta_from_js;
use super::record_js::{meta_to_js, stored_from_js};
use crate::convert::external::Table;
use crate::promise::spawn_promise;
use ctxpack_core::stash::{
    NewRecord, RecordMeta, StashBackend, StashError, StashErrorKind, StoredRecord,
};
use js_sys::{Array, Promise, Reflect};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Event, IdbDatabase, IdbFactory, IdbObjectStoreParameters, IdbOpenDbRequest, IdbTransaction,
    IdbTransactionMode,
};

/// The schema version this build creates.
pub const SCHEMA_VERSION: u32 = 1;
/// The object store of the payloads.
pub(super) const IMAGES: &str = "images";
/// The object store of the metas (size, times).
pub(super) const META: &str = "meta";
/// How long an open may stay blocked by another connection before giving up.
const BLOCKED_TIMEOUT_MS: i32 = 5000;

/// A JavaScript event handler owned by Rust.
type EventHandler = Closure<dyn FnMut(Event)>;

/// A stash in IndexedDB.
pub struct IdbBackend {
    name: String,
    factory: IdbFactory,
    db: Rc<RefCell<Option<IdbDatabase>>>,
    on_version_change: RefCell<Option<EventHandler>>,
    /// Bumped whenever another connection made ours close: what was known
    /// about the database before may no longer hold.
    generation: Rc<std::cell::Cell<u64>>,
}

/// The global `indexedDB`, or `STASH_UNAVAILABLE`.
pub fn factory() -> Result<IdbFactory, StashError> {
    let global = js_sys::global();
    let idb = Reflect::get(&global, &"indexedDB".into()).unwrap_or(JsValue::UNDEFINED);
    if idb.is_null_or_undefined() {
        return Err(StashError::new(
            StashErrorKind::Unavailable,
            "IndexedDB is not available in this environment",
        ));
    }
    Ok(idb.unchecked_into())
}

impl IdbBackend {
    /// Opens (creating or upgrading) the database `name`.
    pub async fn open(name: &str) -> Result<IdbBackend, StashError> {
        let backend = IdbBackend {
            name: name.to_owned(),
            factory: factory()?,
            db: Rc::new(RefCell::new(None)),
            on_version_change: RefCell::new(None),
            generation: Rc::new(std::cell::Cell::new(0)),
        };
        backend.connect().await?;
        Ok(backend)
    }

    /// The open connection, reopening it if another tab's upgrade closed it.
    async fn connection(&self) -> Result<IdbDatabase, StashError> {
        if let Some(db) = self.db.borrow().as_ref() {
            return Ok(db.clone());
        }
        self.connect().await
    }

    async fn connect(&self) -> Result<IdbDatabase, StashError> {
        let db = match open_db(&self.factory, &self.name, Some(SCHEMA_VERSION)).await {
            Err(e) if e.kind == StashErrorKind::VersionChange => {
                // Another tab runs a newer schema: use the database as it is.
                open_db(&self.factory, &self.name, None).await?
            }
            other => other?,
        };
        let names = db.object_store_names();
        let db = if !names.contains(IMAGES) || !names.contains(META) {
            // The database exists without our stores (another schema, or a
            // newer version opened by another tab): upgrade it to add them.
            // Other connections must close for that; if one does not, the open
            // is blocked and gives up after BLOCKED_TIMEOUT_MS.
            let next = db.version() as u32 + 1;
            db.close();
            let db = open_db(&self.factory, &self.name, Some(next)).await?;
            let names = db.object_store_names();
            if !names.contains(IMAGES) || !names.contains(META) {
                db.close();
                return Err(StashError::new(
                    StashErrorKind::Unavailable,
                    format!(
                        "database {} lacks the ctxpack object stores",
                        ctxpack_core::quoted(&self.name)
                    ),
                ));
            }
            db
        } else {
            db
        };
        let slot = self.db.clone();
        let handle = db.clone();
        let generation = self.generation.clone();
        let on_change = Closure::<dyn FnMut(Event)>::new(move |_| {
            handle.close();
            slot.borrow_mut().take();
            generation.set(generation.get() + 1);
        });
        db.set_onversionchange(Some(on_change.as_ref().unchecked_ref()));
        *self.on_version_change.borrow_mut() = Some(on_change);
        *self.db.borrow_mut() = Some(db.clone());
        Ok(db)
    }

    /// Starts a transaction, reconnecting once if the connection was closed
    /// under us (another tab's upgrade).
    pub(super) async fn tx(
        &self,
        stores: &[&str],
        mode: IdbTransactionMode,
    ) -> Result<IdbTransaction, StashError> {
        let names: Array = stores.iter().map(|s| JsValue::from_str(s)).collect();
        let db = self.connection().await?;
        match db.transaction_with_str_sequence_and_mode(&names, mode) {
            Ok(tx) => Ok(tx),
            Err(e) if exception_name(&e) == "InvalidStateError" => {
                self.db.borrow_mut().take();
                let db = self.connect().await?;
                db.transaction_with_str_sequence_and_mode(&names, mode)
                    .map_err(|e| {
                        stash_error(e, StashErrorKind::Unavailable, "starting a transaction")
                    })
            }
            Err(e) => Err(stash_error(
                e,
                StashErrorKind::Unavailable,
                "starting a transaction",
            )),
        }
    }

    /// How many times another connection made ours close.
    pub fn generation(&self) -> u64 {
        self.generation.get()
    }

    /// Closes the connection.
    pub fn close(&self) {
        if let Some(db) = self.db.borrow_mut().take() {
            db.close();
        }
    }

    /// Deletes every record.
    pub async fn clear(&self) -> Result<(), StashError> {
        let tx = self
            .tx(&[IMAGES, META], IdbTransactionMode::Readwrite)
            .await?;
        for store in [IMAGES, META] {
            let s = tx
                .object_store(store)
                .map_err(|e| stash_error(e, StashErrorKind::WriteFailed, "clearing"))?;
            s.clear()
                .map_err(|e| stash_error(e, StashErrorKind::WriteFailed, "clearing"))?;
        }
        transaction(&tx)
            .await
            .map_err(|e| stash_error(e, StashErrorKind::WriteFailed, "clearing"))
    }
}

impl Drop for IdbBackend {
    fn drop(&mut self) {
        self.close();
    }
}

async fn open_db(
    factory: &IdbFactory,
    name: &str,
    version: Option<u32>,
) -> Result<IdbDatabase, StashError> {
    let req: IdbOpenDbRequest = match version {
        Some(v) => factory.open_with_u32(name, v),
        None => factory.open(name),
    }
    .map_err(|e| stash_error(e, StashErrorKind::Unavailable, "opening IndexedDB"))?;
    let upgrade_req = req.clone();
    let on_upgrade = Closure::<dyn FnMut(Event)>::new(move |_| {
        let Ok(db) = upgrade_req.result() else { return };
        let db: IdbDatabase = db.unchecked_into();
        let names = db.object_store_names();
        for store in [IMAGES, META] {
            if !names.contains(store) {
                let params = IdbObjectStoreParameters::new();
                params.set_key_path(&JsValue::from_str("id"));
                let _ = db.create_object_store_with_optional_parameters(store, &params);
            }
        }
    });
    req.set_onupgradeneeded(Some(on_upgrade.as_ref().unchecked_ref()));
    let blocked = Rc::new(RefCell::new(false));
    let flag = blocked.clone();
    let on_blocked = Closure::<dyn FnMut(Event)>::new(move |_| {
        *flag.borrow_mut() = true;
    });
    req.set_onblocked(Some(on_blocked.as_ref().unchecked_ref()));

    // Race the open against a timer: a connection that never closes must not hang us.
    let owned: web_sys::IdbRequest = req.clone().unchecked_into();
    let open = async move { request(&owned).await };
    let outcome = race_with_timeout(open, BLOCKED_TIMEOUT_MS).await;
    req.set_onblocked(None);
    drop(on_blocked);
    match outcome {
        Some(result) => {
            req.set_onupgradeneeded(None);
            drop(on_upgrade);
            result
                .map(|db| db.unchecked_into())
                .map_err(|e| stash_error(e, StashErrorKind::Unavailable, "opening IndexedDB"))
        }
        None => {
            // Given up on, the request is still queued: let it finish its
            // upgrade when the other connection closes, then close at once so
            // it blocks no one.
            let pending = req.clone();
            let close = Closure::once_into_js(move |_: Event| {
                if let Ok(db) = pending.result() {
                    db.unchecked_into::<IdbDatabase>().close();
                }
            });
            req.set_onsuccess(Some(close.unchecked_ref()));
            let _ = on_upgrade.into_js_value();
            Err(StashError::new(
                StashErrorKind::Unavailable,
                if *blocked.borrow() {
                    "opening IndexedDB is blocked by another connection that does not close"
                } else {
                    "opening IndexedDB timed out"
                },
            ))
        }
    }
}

/// Runs `fut` against a timer; `None` when the timer wins.
async fn race_with_timeout<F>(fut: F, ms: i32) -> Option<Result<JsValue, JsValue>>
where
    F: std::future::Future<Output = Result<JsValue, JsValue>> + 'static,
{
    let done = Rc::new(RefCell::new(None));
    let slot = done.clone();
    let work = spawn_promise(Box::pin(async move {
        let r = fut.await;
        *slot.borrow_mut() = Some(r);
        Ok(JsValue::TRUE)
    }));
    let timer = spawn_promise(Box::pin(async move {
        sleep(ms).await;
        Ok(JsValue::FALSE)
    }));
    let race = Promise::race(&Array::of2(&work, &timer));
    let _ = JsFuture::from(race).await;
    let result = done.borrow_mut().take();
    result
}

/// The object store `name` of `tx`; `what` says what it was wanted for.
pub(super) fn store_of(
    tx: &IdbTransaction,
    name: &str,
    what: &str,
) -> Result<web_sys::IdbObjectStore, StashError> {
    tx.object_store(name)
        .map_err(|e| stash_error(e, StashErrorKind::Unavailable, what))
}

impl IdbBackend {
    /// Reads one record; with `table` its payload stays in JavaScript.
    pub async fn get_record_in(
        &self,
        id: &str,
        table: Option<&Table>,
    ) -> Result<Option<StoredRecord>, StashError> {
        let tx = self
            .tx(&[IMAGES, META], IdbTransactionMode::Readonly)
            .await?;
        let key = JsValue::from_str(id);
        let read = |store: &str| -> Result<web_sys::IdbRequest, StashError> {
            store_of(&tx, store, "reading an image")?
                .get(&key)
                .map_err(|e| stash_error(e, StashErrorKind::ReadFailed, "reading an image"))
        };
        let (image_req, meta_req) = (read(IMAGES)?, read(META)?);
        let image = request(&image_req)
            .await
            .map_err(|e| stash_error(e, StashErrorKind::ReadFailed, "reading an image"))?;
        let meta = request(&meta_req)
            .await
            .map_err(|e| stash_error(e, StashErrorKind::ReadFailed, "reading an image"))?;
        if image.is_null_or_undefined() {
            return Ok(None);
        }
        let expires_at = meta_from_js(&meta).map_or(0.0, |m| m.expires_at);
        Ok(stored_from_js(&image, expires_at, table))
    }
}

impl StashBackend for IdbBackend {
    async fn put_records(&self, records: &[NewRecord<'_>]) -> Vec<Result<(), StashError>> {
        self.put_records_in(records, &Table::new()).await
    }

    async fn get_record(&self, id: &str) -> Result<Option<StoredRecord>, StashError> {
        self.get_record_in(id, None).await
    }

    async fn list_meta(&self) -> Result<Vec<RecordMeta>, StashError> {
        let tx = self.tx(&[META], IdbTransactionMode::Readonly).await?;
        let req = store_of(&tx, META, "listing")?
            .get_all()
            .map_err(|e| stash_error(e, StashErrorKind::ReadFailed, "listing"))?;
        let all = request(&req)
            .await
            .map_err(|e| stash_error(e, StashErrorKind::ReadFailed, "listing"))?;
        let all: Array = all.dyn_into().unwrap_or_default();
        Ok(all.iter().filter_map(|v| meta_from_js(&v)).collect())
    }

    async fn put_meta(&self, metas: &[RecordMeta]) -> Result<(), StashError> {
        let tx = self.tx(&[META], IdbTransactionMode::Readwrite).await?;
        let store = store_of(&tx, META, "refreshing")?;
        for m in metas {
            if let Err(e) = store.put(&meta_to_js(m)) {
                let _ = tx.abort();
                return Err(stash_error(e, StashErrorKind::WriteFailed, "refreshing"));
            }
        }
        transaction(&tx)
            .await
            .map_err(|e| stash_error(e, StashErrorKind::WriteFailed, "refreshing"))
    }

    async fn delete_records(&self, ids: &[String]) -> Result<(), StashError> {
        let tx = self
            .tx(&[IMAGES, META], IdbTransactionMode::Readwrite)
            .await?;
        let images = store_of(&tx, IMAGES, "deleting")?;
        let meta = store_of(&tx, META, "deleting")?;
        for id in ids {
            let key = JsValue::from_str(id);
            if let Err(e) = images.delete(&key).and_then(|_| meta.delete(&key)) {
                let _ = tx.abort();
                return Err(stash_error(e, StashErrorKind::WriteFailed, "deleting"));
            }
        }
        transaction(&tx)
            .await
            .map_err(|e| stash_error(e, StashErrorKind::WriteFailed, "deleting"))
    }
}

/// Deletes the database `name` (for tests and `Stash.destroy`).
pub async fn delete_database(name: &str) -> Result<(), StashError> {
    let req = factory()?
        .delete_database(name)
        .map_err(|e| stash_error(e, StashErrorKind::Unavailable, "deleting the database"))?;
    request(req.unchecked_ref())
        .await
        .map(|_| ())
        .map_err(|e| stash_error(e, StashErrorKind::Unavailable, "deleting the database"))
}
