//! Turning what storage threw into a [`StashError`] that keeps the original.

use ctxpack_core::stash::{StashError, StashErrorKind};
use js_sys::Reflect;
use wasm_bindgen::prelude::*;

/// The `name` of an exception (`QuotaExceededError`, `AbortError`, …).
pub fn exception_name(e: &JsValue) -> String {
    Reflect::get(e, &"name".into())
        .ok()
        .and_then(|n| n.as_string())
        .unwrap_or_default()
}

/// The `message` of an exception, or its text.
pub fn exception_message(e: &JsValue) -> String {
    if let Some(s) = e.as_string() {
        return s;
    }
    Reflect::get(e, &"message".into())
        .ok()
        .and_then(|n| n.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

/// A stash error for exception `e`, named after it; `otherwise` is the kind
/// for names that say nothing more specific. `what` says what was being done.
pub fn stash_error(e: JsValue, otherwise: StashErrorKind, what: &str) -> StashError {
    let name = exception_name(&e);
    let kind = StashErrorKind::from_exception_name(&name, otherwise);
    let message = if name.is_empty() {
        format!("{what}: {}", exception_message(&e))
    } else {
        format!("{what}: {name}: {}", exception_message(&e))
    };
    StashError {
        kind,
        message,
        cause: Some(Box::new(e)),
    }
}
