//! The one export: `parseMarkdownImages`.

use serde::Serialize;
use wasm_bindgen::prelude::*;

/// The same allocator as the main module's: Talc, smaller than dlmalloc.
#[cfg(feature = "allocator")]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// The images in markdown `text`: `{alt, url, title?, start, end}` with
/// UTF-16 offsets. The main module validates the argument before calling.
#[wasm_bindgen(js_name = parseMarkdownImages)]
pub fn parse_markdown_images(text: &str) -> JsValue {
    ctxpack_core::markdown::parse_markdown_images(text)
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or(JsValue::NULL)
}
