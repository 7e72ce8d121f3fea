//! What several exported functions read and answer alike: the messages
//! array (long payloads kept in JavaScript), the `{messages, report}` result,
//! and a provider with its request limits.

use crate::convert::external::Table;
use crate::convert::{array_arg, from_js_kept_loose, to_js, to_js_kept, Options};
use crate::CtxpackError;
use ctxpack_core::budget::{provider_limits, LimitOverrides, Provider, RequestLimits};
use ctxpack_core::history::Outcome;
use js_sys::{Array, Object, Reflect};
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// Reads the messages array, long payloads kept in JavaScript (`table`);
/// with `loose`, any other long string that begins as base64 too, as loose
/// text (for a compaction that sanitizes tool results).
pub fn read_messages(
    messages: &JsValue,
    table: &Table,
    loose: bool,
) -> Result<(Array, Vec<Value>), CtxpackError> {
    let array = array_arg(messages, "messages")?;
    let values = array
        .iter()
        .enumerate()
        .map(|(i, m)| from_js_kept_loose(&m, &format!("messages[{i}]"), table, loose))
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
    Ok(base.overridden(&limit_overrides(opts)?))
}

/// The `limits` object's numbers (none when it is absent).
fn limit_overrides(opts: &Options) -> Result<LimitOverrides, CtxpackError> {
    let Some(l) = opts.object("limits")? else {
        return Ok(LimitOverrides::default());
    };
    Ok(LimitOverrides {
        max_images: l.number("maxImages")?,
        max_image_bytes: l.number("maxImageBytes")?,
        max_request_bytes: l.number("maxRequestBytes")?,
    })
}

/// Reads `{provider, maxImages?, maxRequestBytes?, limits?}` into a provider
/// and its limits (the core applies the overrides).
pub fn provider_and_limits(opts: &Options) -> Result<(Provider, RequestLimits), CtxpackError> {
    let direct = LimitOverrides {
        max_images: opts.number("maxImages")?,
        max_image_bytes: None,
        max_request_bytes: opts.number("maxRequestBytes")?,
    };
    provider_limits(
        opts.string("provider")?.as_deref(),
        &direct,
        &limit_overrides(opts)?,
    )
    .map_err(|e| CtxpackError::invalid_option(opts.path_of("provider"), e.to_string()))
}
