//! The names options are read by, made JavaScript strings once. A name is
//! a literal, the same `&'static str` on every call: its string is kept
//! by the literal's address (as `serde-wasm-bindgen` keeps the field names
//! it writes), so reading an option no longer decodes its name out of wasm
//! memory on every call, and the engine looks it up as the same string.

use std::cell::RefCell;
use wasm_bindgen::JsValue;

thread_local! {
    /// Each name made so far: its address and length, and its string.
    static NAMES: RefCell<Vec<(usize, usize, JsValue)>> = const { RefCell::new(Vec::new()) };
}

/// The JavaScript string of the literal `name`, made the first time.
pub fn static_key(name: &'static str) -> JsValue {
    let at = (name.as_ptr() as usize, name.len());
    NAMES.with(|names| {
        if let Some((_, _, key)) = names.borrow().iter().find(|(a, n, _)| (*a, *n) == at) {
            return key.clone();
        }
        let key = JsValue::from_str(name);
        names.borrow_mut().push((at.0, at.1, key.clone()));
        key
    })
}
