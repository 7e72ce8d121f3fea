//! The JavaScript `Stash`: opens a backend (IndexedDB, memory, or a
//! `StashAdapter`), holds the TTL and byte budget, and lets the history
//! functions find it from an options object.

pub mod idb_future;
pub mod idb_write;
pub mod indexeddb;
pub mod js_adapter;
pub use ctxpack_boundary::js_error;
pub mod js_map;
pub mod meta_js;
pub mod record_js;
mod table_backend;
mod types;

pub use table_backend::{call_backend, CallBackend, TableBackend};

use crate::convert::memory::Memory;
use crate::convert::{js_type, options_arg, static_key, to_js};
use crate::promise::to_promise;
use crate::CtxpackError;
use ctxpack_core::stash::{
    list_by_recency, MetaCache, NewRecord, RecordMeta, StashBackend, StashConfig, StashError,
    StoredRecord, DEFAULT_STASH_NAME,
};
use indexeddb::IdbBackend;
use js_adapter::AdapterBackend;
use js_map::MapBackend;
use js_sys::{Function, Map, Object, Promise, Reflect};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Where a stash keeps its records.
pub enum Backend {
    /// In a JavaScript `Map`.
    Memory(MapBackend),
    /// In the page's or worker's IndexedDB, kept across reloads.
    IndexedDb(IdbBackend),
    /// In a host-supplied adapter.
    Adapter(AdapterBackend),
}

impl Backend {
    fn kind(&self) -> &'static str {
        match self {
            Backend::Memory(_) => "memory",
            Backend::IndexedDb(_) => "indexeddb",
            Backend::Adapter(_) => "adapter",
        }
    }
}

impl StashBackend for Backend {
    async fn put_records(&self, records: &[NewRecord<'_>]) -> Vec<Result<(), StashError>> {
        match self {
            Backend::Memory(b) => b.put_records(records).await,
            Backend::IndexedDb(b) => b.put_records(records).await,
            Backend::Adapter(b) => b.put_records(records).await,
        }
    }
    async fn get_record(&self, id: &str) -> Result<Option<StoredRecord>, StashError> {
        match self {
            Backend::Memory(b) => b.get_record(id).await,
            Backend::IndexedDb(b) => b.get_record(id).await,
            Backend::Adapter(b) => b.get_record(id).await,
        }
    }
    async fn list_meta(&self) -> Result<Vec<RecordMeta>, StashError> {
        match self {
            Backend::Memory(b) => b.list_meta().await,
            Backend::IndexedDb(b) => b.list_meta().await,
            Backend::Adapter(b) => b.list_meta().await,
        }
    }
    async fn metas_of(&self, ids: &[String]) -> Result<Vec<RecordMeta>, StashError> {
        match self {
            Backend::Adapter(b) => b.metas_of(ids).await,
            _ => {
                let mut metas = self.list_meta().await?;
                metas.retain(|m| ids.contains(&m.id));
                Ok(metas)
            }
        }
    }
    fn expires_by_itself(&self) -> bool {
        matches!(self, Backend::Adapter(b) if b.expires_by_itself())
    }
    async fn put_meta(&self, metas: &[RecordMeta]) -> Result<(), StashError> {
        match self {
            Backend::Memory(b) => b.put_meta(metas).await,
            Backend::IndexedDb(b) => b.put_meta(metas).await,
            Backend::Adapter(b) => b.put_meta(metas).await,
        }
    }
    async fn delete_records(&self, ids: &[String]) -> Result<(), StashError> {
        match self {
            Backend::Memory(b) => b.delete_records(ids).await,
            Backend::IndexedDb(b) => b.delete_records(ids).await,
            Backend::Adapter(b) => b.delete_records(ids).await,
        }
    }
}

/// What `backend` may be, for messages.
const BACKENDS: &str = "'indexeddb', 'memory' or a StashAdapter";

/// What a `Stash` holds.
pub struct StashInner {
    /// Where its records are kept.
    pub backend: Backend,
    /// TTL and byte budget.
    pub config: StashConfig,
    /// The injected clock, if any (ms since the epoch).
    clock: Option<Function>,
    /// The stash's name (the IndexedDB database name).
    name: String,
    closed: Cell<bool>,
    /// The metadata as last listed (see `CachedBackend`).
    meta_cache: MetaCache,
    /// What the calls made with this stash remember between calls
    /// (message digests, payload facts, sanitized texts): this stash's
    /// alone, let go of when it is closed or freed.
    pub memory: Rc<Memory>,
}

impl StashInner {
    /// The current time in ms: the injected clock, else `Date.now()`.
    pub fn now(&self) -> f64 {
        self.clock
            .as_ref()
            .and_then(|f| f.call0(&JsValue::UNDEFINED).ok())
            .and_then(|v| v.as_f64())
            .filter(|t| t.is_finite())
            .unwrap_or_else(js_sys::Date::now)
    }

    /// `STASH_UNAVAILABLE` once the stash was closed.
    pub fn ensure_open(&self) -> Result<(), CtxpackError> {
        if self.closed.get() {
            Err(CtxpackError::new(
                ctxpack_core::ErrorCode::StashUnavailable,
                "this stash was closed",
            ))
        } else {
            Ok(())
        }
    }
}

thread_local! {
    /// The stashes this instance of the module made, by handle, until their
    /// `Stash` object is freed: a few at most, so a list (a map of its own
    /// would be another instance of the map's code in the module).
    static REGISTRY: RefCell<Vec<(JsValue, Rc<StashInner>)>> = const { RefCell::new(Vec::new()) };
}

/// A stash, as JavaScript holds it.
#[wasm_bindgen(skip_typescript)]
pub struct Stash {
    /// A JavaScript object of its own, which finds it in `REGISTRY`. Another
    /// copy of ctxpack loaded into the same process (a second installed copy
    /// of the package, a bundled one) runs an instance of the module of its
    /// own: no handle of its stashes is one of this instance's.
    handle: JsValue,
    inner: Rc<StashInner>,
}

impl Drop for Stash {
    fn drop(&mut self) {
        REGISTRY.with(|r| r.borrow_mut().retain(|(h, _)| *h != self.handle));
    }
}

impl Stash {
    /// Opens a stash (see `StashOptions`); `Stash.open` from Rust.
    pub async fn open(options: Option<JsValue>) -> Result<Stash, CtxpackError> {
        Stash::open_over(options, None).await
    }

    /// Opens a stash (see `StashOptions`), its records in `map` when one
    /// is given (`backend` is then not read).
    async fn open_over(options: Option<JsValue>, map: Option<Map>) -> Result<Stash, CtxpackError> {
        let opts = options_arg(options.as_ref(), "options")?;
        let name = opts
            .string("name")?
            .unwrap_or_else(|| DEFAULT_STASH_NAME.to_owned());
        let config =
            StashConfig::from_options(opts.number("ttlSeconds")?, opts.number("maxBytes")?);
        let clock = opts.function("now")?;
        let backend_opt = opts.get("backend");
        let backend =
            if let Some(map) = map {
                Backend::Memory(MapBackend::over(map))
            } else if backend_opt.is_null_or_undefined() {
                match indexeddb::factory() {
                    Ok(_) => Backend::IndexedDb(IdbBackend::open(&name).await?),
                    Err(_) => return Err(CtxpackError::new(
                        ctxpack_core::ErrorCode::StashUnavailable,
                        "IndexedDB is not available here; pass backend: 'memory' or a StashAdapter",
                    )
                    .at(opts.path_of("backend"))),
                }
            } else if let Some(kind) = backend_opt.as_string() {
                match kind.as_str() {
                    "indexeddb" => Backend::IndexedDb(
                        IdbBackend::open(&name)
                            .await
                            .map_err(|e| CtxpackError::from(e).at(opts.path_of("backend")))?,
                    ),
                    "memory" => Backend::Memory(MapBackend::new()),
                    other => {
                        let quoted = ctxpack_core::quoted(other);
                        return Err(CtxpackError::invalid_option(
                            opts.path_of("backend"),
                            format!("unknown backend {quoted}; expected {BACKENDS}"),
                        ));
                    }
                }
            } else if backend_opt.is_object() {
                Backend::Adapter(
                    AdapterBackend::new(backend_opt)
                        .map_err(|m| CtxpackError::invalid_option(opts.path_of("backend"), m))?,
                )
            } else {
                return Err(CtxpackError::invalid_option(
                    opts.path_of("backend"),
                    format!("expected {BACKENDS}, got {}", js_type(&backend_opt)),
                ));
            };
        let inner = Rc::new(StashInner {
            backend,
            config,
            clock,
            name,
            closed: Cell::new(false),
            meta_cache: MetaCache::new(),
            memory: Rc::new(Memory::new()),
        });
        let handle = JsValue::from(Object::new());
        REGISTRY.with(|r| r.borrow_mut().push((handle.clone(), inner.clone())));
        Ok(Stash { handle, inner })
    }
}

#[wasm_bindgen]
impl Stash {
    /// Opens a stash (see `StashOptions`).
    #[wasm_bindgen(js_name = open)]
    pub fn open_js(options: Option<JsValue>) -> Promise {
        to_promise(Box::pin(async move {
            Stash::open(options).await.map(JsValue::from)
        }))
    }

    /// A stash of this module over the storage of another module's stash
    /// (`storage`: what `__stashStorage` answers of it): the full module's
    /// own stash for one of the main module's. Records either writes are
    /// the other's to read; each keeps its own memory and metadata cache,
    /// as two tabs over one IndexedDB database do.
    #[wasm_bindgen(js_name = __twin)]
    pub fn twin(storage: JsValue) -> Promise {
        to_promise(Box::pin(async move {
            let map = Reflect::get(&storage, &"map".into())
                .ok()
                .and_then(|m| m.dyn_into::<Map>().ok());
            Stash::open_over(Some(storage), map)
                .await
                .map(JsValue::from)
        }))
    }

    /// The id other functions use to find this stash.
    #[wasm_bindgen(getter, js_name = "__ctxpackHandle")]
    pub fn handle(&self) -> JsValue {
        self.handle.clone()
    }

    /// `"indexeddb"`, `"memory"` or `"adapter"`.
    #[wasm_bindgen(getter)]
    pub fn backend(&self) -> String {
        self.inner.backend.kind().to_owned()
    }

    /// The stash's name.
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.inner.name.clone()
    }

    /// Time to live in seconds.
    #[wasm_bindgen(getter, js_name = ttlSeconds)]
    pub fn ttl_seconds(&self) -> f64 {
        self.inner.config.ttl_seconds()
    }

    /// The byte budget, if any.
    #[wasm_bindgen(getter, js_name = maxBytes)]
    pub fn max_bytes(&self) -> Option<f64> {
        self.inner.config.max_bytes.map(|b| b as f64)
    }

    /// Every record's bookkeeping, most recently used first.
    pub fn list(&self) -> Promise {
        to_promise(Box::pin(list(self.inner.clone())))
    }

    /// Removes expired records, then the least recently used above `maxBytes`.
    pub fn sweep(&self) -> Promise {
        to_promise(Box::pin(sweep(self.inner.clone())))
    }

    /// Removes every record.
    pub fn clear(&self) -> Promise {
        to_promise(Box::pin(clear(self.inner.clone())))
    }

    /// Forgets the metadata as last listed: the next call lists it again.
    /// The package's entry calls it after the other module wrote to the
    /// same storage (see `Stash.__twin`).
    #[wasm_bindgen(js_name = __forgetListing)]
    pub fn forget_listing(&self) {
        self.inner.meta_cache.clear();
    }

    /// Closes the stash. It stays known by its handle, so that using it
    /// says it was closed.
    pub fn close(&self) {
        self.inner.closed.set(true);
        self.inner.memory.clear();
        if let Backend::IndexedDb(b) = &self.inner.backend {
            b.close();
        }
    }
}

/// Finds the stash behind a JavaScript `Stash` object (`path` names where it
/// was passed). A handle this instance did not make is one of another copy of
/// ctxpack's stashes (or a made-up one).
pub fn stash_from_js(value: &JsValue, path: &str) -> Result<Rc<StashInner>, CtxpackError> {
    let handle = if value.is_object() {
        Reflect::get(value, &static_key("__ctxpackHandle")).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    };
    if handle.is_undefined() {
        return Err(CtxpackError::invalid_option(
            path,
            format!("expected a Stash from Stash.open(), got {}", js_type(value)),
        ));
    }
    let inner = REGISTRY.with(|r| {
        let r = r.borrow();
        r.iter().find(|(h, _)| *h == handle).map(|(_, i)| i.clone())
    });
    match inner {
        Some(i) if !i.closed.get() => Ok(i),
        found => Err(CtxpackError::new(
            ctxpack_core::ErrorCode::StashUnavailable,
            if found.is_some() {
                "this stash was closed"
            } else {
                "this stash belongs to another copy of ctxpack (another instance of its wasm module); pass it to that copy's functions"
            },
        )
        .at(path)),
    }
}

/// What opens a stash over the same storage as `stash` (a `Stash` passed at
/// `options.stash`) in another module (`Stash.__twin`): its options, with
/// the `Map` of a memory stash as `map`. Throws as any call with that
/// stash does when it was closed or is not this module's.
#[wasm_bindgen(js_name = __stashStorage, skip_typescript)]
pub fn stash_storage(stash: JsValue) -> Result<JsValue, CtxpackError> {
    let inner = stash_from_js(&stash, "options.stash")?;
    let storage = Object::new();
    let set = |key: &str, value: &JsValue| {
        let _ = Reflect::set(&storage, &key.into(), value);
    };
    match &inner.backend {
        Backend::Memory(b) => set("map", b.map()),
        Backend::IndexedDb(_) => set("backend", &"indexeddb".into()),
        Backend::Adapter(b) => set("backend", b.adapter()),
    }
    set("name", &inner.name.as_str().into());
    set("ttlSeconds", &inner.config.ttl_seconds().into());
    if let Some(max) = inner.config.max_bytes {
        set("maxBytes", &(max as f64).into());
    }
    if let Some(clock) = &inner.clock {
        set("now", clock);
    }
    Ok(storage.into())
}

/// `Stash.list`: every record's bookkeeping, most recently used first.
async fn list(inner: Rc<StashInner>) -> Result<JsValue, CtxpackError> {
    inner.ensure_open()?;
    let metas = list_by_recency(&inner.backend).await?;
    // The part template is bookkeeping for compaction, not for listings.
    Ok(metas
        .into_iter()
        .map(|m| record_js::meta_to_js(&RecordMeta { part: None, ..m }))
        .collect::<js_sys::Array>()
        .into())
}

/// `Stash.sweep`: removes expired records, then the least recently used above `maxBytes`.
async fn sweep(inner: Rc<StashInner>) -> Result<JsValue, CtxpackError> {
    inner.ensure_open()?;
    inner.meta_cache.clear();
    let report = ctxpack_core::stash::sweep(&inner.backend, &inner.config, inner.now()).await?;
    Ok(to_js(&report))
}

/// `Stash.clear`: removes every record.
async fn clear(inner: Rc<StashInner>) -> Result<JsValue, CtxpackError> {
    inner.ensure_open()?;
    inner.meta_cache.clear();
    match &inner.backend {
        Backend::Memory(b) => b.clear(),
        Backend::IndexedDb(b) => b.clear().await?,
        Backend::Adapter(b) => b.clear().await?,
    }
    Ok(JsValue::UNDEFINED)
}
