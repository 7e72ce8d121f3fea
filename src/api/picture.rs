//! `__setPictureDrawer`: the package's entry hands the main module, once,
//! the extras module's drawing of a placeholder's picture (the main module
//! leaves the PNG encoder out; see `ctxpack_boundary::picture`).

use js_sys::Function;
use wasm_bindgen::prelude::*;

/// Draws placeholders' pictures with `draw` (`(text) => base64 PNG`), where
/// an API takes a picture and nothing else.
#[wasm_bindgen(js_name = __setPictureDrawer, skip_typescript)]
pub fn set_picture_drawer(draw: Function) {
    ctxpack_boundary::picture::set_picture_drawer(draw);
}
