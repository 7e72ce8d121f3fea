//! `repairContext`: the refusal the extras module read, read back, and
//! the fitting (see `fit`) run as the core's repair of it.

use crate::api::fit::{repair_error, Fitting};
use crate::convert::options_arg;
use crate::promise::to_promise;
use ctxpack_core::budget::ProviderRefusal;
use ctxpack_core::fit::RepairError;
use js_sys::Promise;
use wasm_bindgen::prelude::*;

/// See the TypeScript declaration of `repairContext`, which is this with
/// `refusal` read from `error` by the extras module's `parseProviderError`
/// and the default resize function (the package's entry passes both), and
/// `keys` as `__fitContext` takes them. The promise resolves to `{changed,
/// values, report, keys, refusal}`.
#[wasm_bindgen(js_name = __repairContext, skip_typescript)]
pub fn repair_context_js(
    messages: JsValue,
    error: JsValue,
    refusal: JsValue,
    options: JsValue,
    default_resize: JsValue,
    keys: JsValue,
) -> Promise {
    let Some(read) = read_refusal(&refusal) else {
        let e = repair_error(RepairError::NotARefusal, &error);
        return to_promise(Box::pin(async move { Err(e) }));
    };
    match Fitting::read(&messages, &options, &default_resize, &keys, true) {
        Ok(fitting) => to_promise(Box::pin(fitting.run(Some((read, error, refusal))))),
        Err(e) => to_promise(Box::pin(async move { Err(e) })),
    }
}

/// A refusal as `parseProviderError` writes it, read back; `None` for
/// `null` or anything it never writes.
fn read_refusal(value: &JsValue) -> Option<ProviderRefusal> {
    let r = options_arg(Some(value), "refusal").ok()?;
    let text = |key: &'static str| r.string(key).ok().flatten();
    let count = |key: &'static str| r.number(key).ok().flatten();
    let mut refusal = ProviderRefusal::named(&text("kind")?, &text("provider")?)?;
    refusal.limit = count("limit").map(|n| n as u64);
    refusal.actual = count("actual").map(|n| n as u64);
    refusal.output_tokens = count("outputTokens").map(|n| n as u64);
    refusal.documents = count("documents").map(|n| n as u64);
    refusal.message_index = count("messageIndex").map(|n| n as usize);
    refusal.path = text("path");
    refusal.file_id = text("fileId");
    Some(refusal)
}
