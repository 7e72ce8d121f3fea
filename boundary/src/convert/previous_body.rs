//! The request body a stash's last `compactRequestBody` read (see
//! `ctxpack_core::body::PreviousBody`): one body, the last, as large as
//! that body, let go with the stash. The package's entry compares the next
//! body with it through a view and hands over only the bytes after those
//! the two share; the call takes it in the same turn of the event loop,
//! so no other call can take it in between.

use super::memory::Memory;
use ctxpack_core::body::PreviousBody;
use js_sys::{Uint8Array, WebAssembly};
use wasm_bindgen::JsCast;

/// The body kept, taken out for a call to read the next one with.
pub fn take(memory: &Memory) -> Option<PreviousBody> {
    memory.previous_body.borrow_mut().take()
}

/// Keeps `body` as the last one.
pub fn keep(memory: &Memory, body: PreviousBody) {
    *memory.previous_body.borrow_mut() = Some(body);
}

/// A view of the kept body's text in wasm memory, for the host to compare
/// the next body with at once: the view is good until wasm memory next
/// grows, after which it is empty (a detached buffer), so a comparison
/// with it finds nothing in common.
pub fn view(memory: &Memory) -> Option<Uint8Array> {
    let kept = memory.previous_body.borrow();
    let text = kept.as_ref()?.text();
    let buffer = wasm_bindgen::memory()
        .dyn_into::<WebAssembly::Memory>()
        .ok()?
        .buffer();
    Some(Uint8Array::new_with_byte_offset_and_length(
        &buffer,
        text.as_ptr() as u32,
        text.len() as u32,
    ))
}
