//! `detectFormat`: reads a whole conversation and names its format.

use crate::convert::{array_arg, from_js_kept, options_arg};
use crate::CtxpackError;
use ctxpack_core::messages::{decode_messages, Format};
use ctxpack_core::JsonPath;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const DETECT_FORMAT_TS: &'static str = r#"
/**
 * Reads every message (throwing `INVALID_MESSAGE` with the JSON path of the
 * first one in no known shape) and returns the detected or given format.
 */
export function detectFormat(messages: readonly unknown[], options?: { format?: Format }): Format;

/** The name of every format ctxpack reads and writes, in the order of its format list. */
export function formats(): Format[];
"#;

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
    let array = array_arg(&messages, "messages")?;
    let opts = options_arg(options.as_ref(), "options")?;
    let given = opts.format()?;
    let table = crate::convert::external::Table::new();
    let values = array
        .iter()
        .enumerate()
        .map(|(i, m)| from_js_kept(&m, &format!("messages[{i}]"), &table))
        .collect::<Result<Vec<_>, _>>()?;
    let (format, _) = decode_messages(values, given, &JsonPath::root("messages"))?;
    Ok(JsValue::from_str(format.name()))
}
