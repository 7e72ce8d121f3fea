//! What several exported functions read and answer alike: the messages
//! array (long payloads kept in JavaScript), the `{messages, report}` result,
//! and a provider with its request limits.

use crate::convert::external::Table;
use crate::convert::{array_arg, from_js_kept, to_js, to_js_kept, Options};
use crate::CtxpackError;
use ctxpack_core::budget::{limits_of, Provider, RequestLimits};
use ctxpack_core::history::Outcome;
use js_sys::{Array, Object, Reflect};
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// Reads the messages array, long payloads kept in JavaScript (`table`).
pub fn read_messages(
    messages: &JsValue,
    table: &Table,
) -> Result<(Array, Vec<Value>), CtxpackError> {
    let array = array_arg(messages, "messages")?;
    let values = array
        .iter()
        .enumerate()
        .map(|(i, m)| from_js_kept(&m, &format!("messages[{i}]"), table))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((array, values))
}

/// `{messages, report}`: changed messages converted, the rest the caller's own.
pub(crate) fn result<R: Serialize>(
    original: &Array,
    outcome: Outcome<R>,
    table: &Table,
) -> Result<JsValue, CtxpackError> {
    let out = Array::new_with_length(original.length());
    for (i, (value, changed)) in outcome.messages.iter().zip(&outcome.changed).enumerate() {
        let v = if *changed {
            to_js_kept(value, table)
        } else {
            original.get(i as u32)
        };
        out.set(i as u32, v);
    }
    let obj = Object::new();
    let _ = Reflect::set(&obj, &"messages".into(), &out);
    let _ = Reflect::set(&obj, &"report".into(), &to_js(&outcome.report));
    Ok(obj.into())
}

/// Reads `limits` (`{maxImages, maxImageBytes, maxRequestBytes}`) over `base`.
pub(crate) fn limits_option(
    opts: &Options,
    base: RequestLimits,
) -> Result<RequestLimits, CtxpackError> {
    let Some(l) = opts.object("limits")? else {
        return Ok(base);
    };
    Ok(RequestLimits {
        max_images: l
            .number("maxImages")?
            .map(|n| n as usize)
            .or(base.max_images),
        max_image_bytes: l
            .number("maxImageBytes")?
            .map(|n| n as u64)
            .or(base.max_image_bytes),
        max_request_bytes: l
            .number("maxRequestBytes")?
            .map(|n| n as u64)
            .or(base.max_request_bytes),
    })
}

/// Reads `{provider, …}` into a provider and its limits (overrides applied).
pub fn provider_and_limits(opts: &Options) -> Result<(Provider, RequestLimits), CtxpackError> {
    let name = opts.string("provider")?.ok_or_else(|| {
        CtxpackError::invalid_option(
            opts.path_of("provider"),
            "expected 'openai', 'anthropic', 'gemini', 'bedrock' or 'vertex'",
        )
    })?;
    let provider = Provider::from_name(&name).ok_or_else(|| {
        CtxpackError::invalid_option(
            opts.path_of("provider"),
            format!("unknown provider {}", ctxpack_core::quoted(&name)),
        )
    })?;
    let mut limits = limits_of(provider);
    // `maxImages` / `maxRequestBytes` directly on the object, as compactContext's `model` has them.
    if let Some(n) = opts.number("maxImages")? {
        limits.max_images = Some(n as usize);
    }
    if let Some(n) = opts.number("maxRequestBytes")? {
        limits.max_request_bytes = Some(n as u64);
    }
    Ok((provider, limits_option(opts, limits)?))
}
