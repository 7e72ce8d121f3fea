//! The one bridge from the crate's futures to JavaScript promises. Every
//! async export hands its future here type-erased, so the promise plumbing
//! (executor, task, drop glue) exists once instead of once per export.

use crate::CtxpackError;
use js_sys::Promise;
use std::future::Future;
use std::pin::Pin;
use wasm_bindgen::JsValue;

/// The future of an async export, type-erased.
pub type ExportFuture = Pin<Box<dyn Future<Output = Result<JsValue, CtxpackError>>>>;

/// A future that settles a promise with a JavaScript value, type-erased.
pub type JsFutureBox = Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>>;

/// A promise that settles with `future`'s outcome: resolved with the value,
/// or rejected with the `CtxpackError`. The future first runs in a microtask,
/// as an `async fn` export's does.
pub fn to_promise(future: ExportFuture) -> Promise {
    spawn_promise(Box::pin(async move { future.await.map_err(JsValue::from) }))
}

/// A promise that settles with `future`'s outcome, value or rejection as is.
/// (The crate's only instance of `future_to_promise`.)
pub fn spawn_promise(future: JsFutureBox) -> Promise {
    wasm_bindgen_futures::future_to_promise(future)
}
