//! `drawPicture`: a placeholder drawn as the PNG that stands for it where
//! an API takes a picture and nothing else. The main module, which leaves
//! the PNG encoder out, has its pictures drawn here.

use wasm_bindgen::prelude::*;

/// The base64 PNG showing `text` (see `ctxpack_core::messages::picture_of`),
/// or `undefined` if the encoder refused it.
#[wasm_bindgen(js_name = drawPicture, skip_typescript)]
pub fn draw_picture(text: &str) -> Option<String> {
    ctxpack_core::messages::picture_of(text)
}
