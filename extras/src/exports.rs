//! `parseMarkdownImages`, over the CommonMark parser.

use ctxpack_boundary::convert::string_arg;
use ctxpack_boundary::CtxpackError;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// The same allocator as the main module's: Talc, smaller than dlmalloc.
#[cfg(feature = "allocator")]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// The images in markdown `text`: `{alt, url, title?, start, end}` with
/// UTF-16 offsets (the main module declares it).
#[wasm_bindgen(js_name = parseMarkdownImages, skip_typescript)]
pub fn parse_markdown_images(text: JsValue) -> Result<JsValue, CtxpackError> {
    let text = string_arg(&text, "text")?;
    Ok(ctxpack_core::markdown::parse_markdown_images(&text)
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or(JsValue::NULL))
}
