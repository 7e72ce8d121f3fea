//! Markdown spans from the separate markdown module. The CommonMark parser
//! lives in its own wasm module, loaded when first needed; the package's
//! JavaScript entry passes its parse function to the exports here, which
//! validate their input, call it, and read its answer.

use crate::convert::string_arg;
use crate::CtxpackError;
use ctxpack_core::markdown::{with_byte_offsets, MarkdownImage};
use ctxpack_core::ErrorCode;
use js_sys::Function;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const MARKDOWN_TS: &'static str = r#"
/**
 * Finds the images in markdown `text` (CommonMark: images in code are not
 * images; escapes, entities, titles, `<…>` destinations and reference-style
 * images work). Offsets are UTF-16 code units.
 */
export function parseMarkdownImages(text: string): MarkdownImage[];
"#;

/// The images `parse` (the markdown module's parser) finds in `text`, as it
/// gives them: what `parseMarkdownImages` returns.
#[wasm_bindgen(js_name = __parseMarkdownImages, skip_typescript)]
pub fn parse_markdown_images(text: JsValue, parse: &Function) -> Result<JsValue, CtxpackError> {
    let text = string_arg(&text, "text")?;
    parse
        .call1(&JsValue::NULL, &JsValue::from_str(&text))
        .map_err(|e| {
            CtxpackError::new(ErrorCode::Internal, "the markdown module failed").caused_by(e)
        })
}

/// The images `parse` finds in `text`, with byte offsets for slicing it.
pub fn markdown_images(text: &str, parse: &Function) -> Result<Vec<MarkdownImage>, CtxpackError> {
    let found = parse
        .call1(&JsValue::NULL, &JsValue::from_str(text))
        .map_err(|e| {
            CtxpackError::new(ErrorCode::Internal, "the markdown module failed").caused_by(e)
        })?;
    let images: Vec<MarkdownImage> = serde_wasm_bindgen::from_value(found).map_err(|e| {
        CtxpackError::new(
            ErrorCode::Internal,
            format!("the markdown module gave an unreadable answer: {e}"),
        )
    })?;
    Ok(with_byte_offsets(text, images))
}
