//! The one bridge from the crate's futures to JavaScript promises. Every
//! async export hands its future here type-erased, so the promise plumbing
//! (executor, task, drop glue) exists once instead of once per export.

use crate::CtxpackError;
use js_sys::Promise;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
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

/// A promise of `future`'s outcome, the future run at once as far as it
/// goes without waiting: one that never waits (a request body compacted
/// against a stash that answers from memory) has done its work when this
/// returns, and its promise is settled already, with no task made and no
/// microtask before the work. One that waits goes on as [`to_promise`]'s
/// does, from where it stopped: every future it waits on takes the waker
/// of each poll (`JsFuture` does), so the first poll's, which wakes
/// nothing, is never the one kept.
pub fn eager_promise(mut future: ExportFuture) -> Promise {
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(Ok(value)) => Promise::resolve(&value),
        Poll::Ready(Err(e)) => Promise::reject(&JsValue::from(e)),
        Poll::Pending => to_promise(future),
    }
}

/// A promise that settles with `future`'s outcome, value or rejection as is.
/// (The crate's only instance of `future_to_promise`.)
pub fn spawn_promise(future: JsFutureBox) -> Promise {
    wasm_bindgen_futures::future_to_promise(future)
}
