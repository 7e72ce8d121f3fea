//! IndexedDB requests and transactions as futures: a request resolves on
//! `success` and rejects with the original `DOMException` on `error`; a
//! transaction resolves on `complete` and rejects on `error` or `abort`.

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Event, IdbRequest, IdbTransaction};

/// Handlers that stay alive until the awaited event fires, then are dropped.
struct Handlers(Vec<Closure<dyn FnMut(Event)>>);

fn handler(f: impl FnMut(Event) + 'static) -> Closure<dyn FnMut(Event)> {
    Closure::<dyn FnMut(Event)>::new(f)
}

/// Waits for `request` to succeed; its `result` on success, its `error` (a
/// `DOMException`) on failure.
pub async fn request(request: &IdbRequest) -> Result<JsValue, JsValue> {
    let mut handlers = Handlers(Vec::new());
    let promise = Promise::new(&mut |resolve: Function, reject: Function| {
        let req = request.clone();
        let ok = handler(move |_| {
            let _ = resolve.call1(
                &JsValue::UNDEFINED,
                &req.result().unwrap_or(JsValue::UNDEFINED),
            );
        });
        let req = request.clone();
        let err = handler(move |_| {
            let e = req
                .error()
                .ok()
                .flatten()
                .map(JsValue::from)
                .unwrap_or(JsValue::NULL);
            let _ = reject.call1(&JsValue::UNDEFINED, &e);
        });
        request.set_onsuccess(Some(ok.as_ref().unchecked_ref()));
        request.set_onerror(Some(err.as_ref().unchecked_ref()));
        handlers.0.push(ok);
        handlers.0.push(err);
    });
    let out = JsFuture::from(promise).await;
    request.set_onsuccess(None);
    request.set_onerror(None);
    drop(handlers);
    out
}

/// Waits for `tx` to commit. Rejects with the transaction's `error` (e.g. a
/// `QuotaExceededError`), or an `AbortError` `DOMException` when it was
/// aborted without one.
pub async fn transaction(tx: &IdbTransaction) -> Result<(), JsValue> {
    let mut handlers = Handlers(Vec::new());
    let promise = Promise::new(&mut |resolve: Function, reject: Function| {
        let ok = handler(move |_| {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        });
        let t = tx.clone();
        let reject2 = reject.clone();
        let failed = handler(move |_| {
            let e = t.error().map(JsValue::from).unwrap_or_else(abort_error);
            let _ = reject2.call1(&JsValue::UNDEFINED, &e);
        });
        let t = tx.clone();
        let aborted = handler(move |_| {
            let e = t.error().map(JsValue::from).unwrap_or_else(abort_error);
            let _ = reject.call1(&JsValue::UNDEFINED, &e);
        });
        tx.set_oncomplete(Some(ok.as_ref().unchecked_ref()));
        tx.set_onerror(Some(failed.as_ref().unchecked_ref()));
        tx.set_onabort(Some(aborted.as_ref().unchecked_ref()));
        handlers.0.extend([ok, failed, aborted]);
    });
    let out = JsFuture::from(promise).await.map(|_| ());
    tx.set_oncomplete(None);
    tx.set_onerror(None);
    tx.set_onabort(None);
    drop(handlers);
    out
}

/// A `DOMException` named `AbortError`.
fn abort_error() -> JsValue {
    web_sys::DomException::new_with_message_and_name("The transaction was aborted", "AbortError")
        .map(JsValue::from)
        .unwrap_or_else(|_| JsValue::from_str("AbortError"))
}

/// Resolves after `ms` milliseconds (global `setTimeout`).
pub async fn sleep(ms: i32) {
    let promise = Promise::new(&mut |resolve: Function, _| {
        let global = js_sys::global();
        if let Ok(set_timeout) = js_sys::Reflect::get(&global, &"setTimeout".into()) {
            if let Some(f) = set_timeout.dyn_ref::<Function>() {
                let _ = f.call2(&global, &resolve, &JsValue::from(ms));
                return;
            }
        }
        let _ = resolve.call0(&JsValue::UNDEFINED);
    });
    let _ = JsFuture::from(promise).await;
}
