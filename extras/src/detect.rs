//! `detectFormat` and `formats`: which format a conversation is in, and
//! the names of all. They live in this module, not the main one, because
//! they are pure and synchronous and only some apps call them: the main
//! module stays within its size budget. The main module declares them.

use crate::text_only::read_messages;
use ctxpack_boundary::convert::external::Table;
use ctxpack_boundary::convert::options_arg;
use ctxpack_boundary::CtxpackError;
use ctxpack_core::messages::{decode_messages, Format};
use ctxpack_core::JsonPath;
use wasm_bindgen::prelude::*;

/// The name of every format, in the order of the core's format list.
#[wasm_bindgen(js_name = formats, skip_typescript)]
pub fn formats() -> Vec<JsValue> {
    Format::ALL
        .into_iter()
        .map(|f| JsValue::from_str(f.name()))
        .collect()
}

/// Reads every message (throwing `INVALID_MESSAGE` with the JSON path of the
/// first one in no known shape) and returns the detected or given format.
#[wasm_bindgen(js_name = detectFormat, skip_typescript)]
pub fn detect_format(messages: JsValue, options: Option<JsValue>) -> Result<JsValue, CtxpackError> {
    let given = options_arg(options.as_ref(), "options")?.format()?;
    let table = Table::new();
    let (_, values) = read_messages(&messages, &table)?;
    let (format, _) = decode_messages(values, given, &JsonPath::root("messages"))?;
    Ok(JsValue::from_str(format.name()))
}
