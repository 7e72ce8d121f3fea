//! What several exported functions read and answer alike: the messages
//! array (long payloads kept in JavaScript) and the `{messages, report}`
//! result.

use crate::convert::external::Table;
use crate::convert::{array_arg, from_js_kept_loose, to_js, to_js_kept};
use crate::CtxpackError;
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

/// `{changed, values, report}`: the index of each changed message
/// (`Uint32Array`) and its value converted, for the JavaScript side to put
/// in a copy of the caller's array (no crossing for the messages left as
/// they were).
pub(crate) fn changes<R: Serialize>(outcome: Outcome<R>, table: &Table) -> JsValue {
    let mut changed: Vec<u32> = Vec::new();
    let values = Array::new();
    for (i, (value, c)) in outcome.messages.iter().zip(&outcome.changed).enumerate() {
        if *c {
            changed.push(i as u32);
            values.push(&to_js_kept(value, table));
        }
    }
    let obj = Object::new();
    let _ = Reflect::set(
        &obj,
        &"changed".into(),
        &js_sys::Uint32Array::from(&changed[..]),
    );
    let _ = Reflect::set(&obj, &"values".into(), &values);
    let _ = Reflect::set(&obj, &"report".into(), &to_js(&outcome.report));
    obj.into()
}
