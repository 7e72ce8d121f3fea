//! Markdown spans from the separate markdown module. The CommonMark parser
//! lives in its own wasm module, loaded when first needed; the package's
//! JavaScript entry passes its parse function to the exports here, which
//! validate their input, call it, and read its answer.

use crate::convert::string_arg;
use crate::CtxpackError;
use ctxpack_core::markdown::{with_byte_offsets, MarkdownImage};
use ctxpack_core::ErrorCode;
use js_sys::{Array, Function, Reflect};
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
    let images = read_images(&found).ok_or_else(|| {
        CtxpackError::new(
            ErrorCode::Internal,
            "the markdown module gave an unreadable answer",
        )
    })?;
    Ok(with_byte_offsets(text, images))
}

/// The markdown module's answer: an array of `{alt, url, title?, start,
/// end}`, as it writes them.
fn read_images(found: &JsValue) -> Option<Vec<MarkdownImage>> {
    let get = |v: &JsValue, k: &str| Reflect::get(v, &JsValue::from_str(k)).ok();
    let offset = |v: &JsValue, k: &str| {
        get(v, k)?
            .as_f64()
            .filter(|n| n.fract() == 0.0 && *n >= 0.0 && *n <= f64::from(u32::MAX))
            .map(|n| n as usize)
    };
    let found = found.dyn_ref::<Array>()?;
    let mut images = Vec::with_capacity(found.length() as usize);
    for v in found.iter() {
        let title = get(&v, "title")?;
        images.push(MarkdownImage {
            alt: get(&v, "alt")?.as_string()?,
            url: get(&v, "url")?.as_string()?,
            title: if title.is_undefined() {
                None
            } else {
                Some(title.as_string()?)
            },
            start: offset(&v, "start")?,
            end: offset(&v, "end")?,
            byte_start: 0,
            byte_end: 0,
        });
    }
    Some(images)
}
