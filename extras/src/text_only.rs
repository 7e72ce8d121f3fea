//! `toTextOnly` and `hasMultimedia`: for text-only models, and whether a
//! conversation needs them. They live in this module, beside the parser
//! `hasMultimedia` asks about markdown images, not in the main one: a page's
//! first compaction needs neither. With a stash, `toTextOnly` has the main
//! module write the inline images first (`__stashInlineImages`) and is
//! handed the ids that committed.

use ctxpack_boundary::convert::external::Table;
use ctxpack_boundary::convert::js_payloads::JsPayloads;
use ctxpack_boundary::convert::{array_arg, from_js_kept, options_arg, to_js_kept};
use ctxpack_boundary::CtxpackError;
use ctxpack_core::markdown::parse_markdown_images;
use ctxpack_core::messages::decode_messages;
use ctxpack_core::tool_results::{has_multimedia, to_text_only};
use ctxpack_core::JsonPath;
use js_sys::Array;
use serde_json::Value;
use std::collections::BTreeSet;
use wasm_bindgen::prelude::*;

/// The `messages` argument read, long payloads kept in `table`.
pub(crate) fn read_messages(
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

/// `messages` for a text-only model: the changed ones converted, the rest
/// the caller's own. `stored` lists the inline images the stash holds
/// (`undefined` without a stash), which are referenced by placeholder.
#[wasm_bindgen(js_name = __toTextOnly, skip_typescript)]
pub fn to_text_only_js(
    messages: JsValue,
    options: Option<JsValue>,
    stored: Option<Vec<String>>,
) -> Result<JsValue, CtxpackError> {
    let format = options_arg(options.as_ref(), "options")?.format()?;
    let table = Table::new();
    let (array, values) = read_messages(&messages, &table)?;
    let stored: BTreeSet<String> = stored.unwrap_or_default().into_iter().collect();
    let out = to_text_only(
        values,
        format,
        &|id| stored.contains(id),
        &JsPayloads(&table),
    )?;
    let result = Array::new_with_length(array.length());
    for (i, changed) in out.into_iter().enumerate() {
        let v = match changed {
            Some(value) => to_js_kept(&value, &table),
            None => array.get(i as u32),
        };
        result.set(i as u32, v);
    }
    Ok(result.into())
}

/// True when any message holds an image or file part, a placeholder, or a
/// markdown image (`hasMultimedia` in the package; the main module declares
/// it).
#[wasm_bindgen(js_name = __hasMultimedia, skip_typescript)]
pub fn has_multimedia_js(
    messages: JsValue,
    options: Option<JsValue>,
) -> Result<bool, CtxpackError> {
    let format = options_arg(options.as_ref(), "options")?.format()?;
    let table = Table::new();
    let (_, values) = read_messages(&messages, &table)?;
    let (_, decoded) = decode_messages(values, format, &JsonPath::root("messages"))?;
    Ok(has_multimedia(&decoded, &|text| {
        !parse_markdown_images(text).is_empty()
    }))
}
