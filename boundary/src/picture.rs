//! Who draws a placeholder's picture (where an API takes a picture and
//! nothing else). A module built with the core's `picture` feature (the
//! extras module) draws it itself. The main module leaves the PNG encoder
//! out: the package's entry hands it, once, a function drawing with the
//! extras module, which is loaded by the time a compaction runs.

use js_sys::Function;
use std::cell::RefCell;
use wasm_bindgen::JsValue;

thread_local! {
    /// The function the entry handed over: `(text) => base64 PNG`.
    static DRAWER: RefCell<Option<Function>> = const { RefCell::new(None) };
}

/// Draws placeholders' pictures with `draw` (`(text) => base64 PNG`) from
/// now on, where this module cannot draw them itself.
pub fn set_picture_drawer(draw: Function) {
    DRAWER.with(|d| *d.borrow_mut() = Some(draw));
}

/// The base64 PNG showing placeholder `text`: drawn by the core where it
/// can, else by the function handed over. `None` when neither draws it
/// (none was handed over, it threw or gave no string): the placeholder
/// then stays text.
pub fn placeholder_picture(text: &str) -> Option<String> {
    ctxpack_core::messages::picture_of(text).or_else(|| {
        DRAWER.with(|d| {
            d.borrow()
                .as_ref()?
                .call1(&JsValue::NULL, &JsValue::from_str(text))
                .ok()?
                .as_string()
        })
    })
}
