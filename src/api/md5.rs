//! `md5Hex`: the stash key of a payload, for apps that want to compute ids
//! themselves (and for the benchmark).

use crate::convert::string_arg;
use crate::CtxpackError;
use wasm_bindgen::prelude::*;

/// Lowercase hex MD5 of the UTF-8 bytes of `text` — for a base64 payload,
/// the id in `[Picture:history_<md5>]`.
#[wasm_bindgen(js_name = md5Hex, unchecked_return_type = "string")]
pub fn md5_hex(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
) -> Result<JsValue, CtxpackError> {
    let text = string_arg(&text, "text")?;
    Ok(JsValue::from_str(&ctxpack_core::md5_hex(text.as_bytes())))
}
