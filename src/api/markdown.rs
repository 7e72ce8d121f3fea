//! `parseMarkdownImages`.

use crate::convert::{string_arg, to_js};
use crate::CtxpackError;
use wasm_bindgen::prelude::*;

/// Finds the images in markdown `text` (CommonMark: images in code are not
/// images; escapes, entities, titles, `<…>` destinations and reference-style
/// images work). Offsets are UTF-16 code units.
#[wasm_bindgen(js_name = parseMarkdownImages, unchecked_return_type = "MarkdownImage[]")]
pub fn parse_markdown_images(
    #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
) -> Result<JsValue, CtxpackError> {
    let text = string_arg(&text, "text")?;
    Ok(to_js(&ctxpack_core::markdown::parse_markdown_images(&text)))
}
