//! The request bodies a stash's last `compactRequestBody` calls read (see
//! `ctxpack_core::body::PreviousBody`): the last [`KEPT`], one for each
//! conversation a server is answering at once (an agent's main loop and
//! the short requests it makes beside it, its sub-agents), let go with the
//! stash. The package's entry compares the next body with each through a
//! view and hands over only the bytes after those it shares with the one
//! it shares most with; the call takes that body in the same turn of the
//! event loop, so no other call can take it in between.

use super::memory::Memory;
use ctxpack_core::body::PreviousBody;
use js_sys::{Array, Uint8Array, WebAssembly};
use wasm_bindgen::{JsCast, JsValue};

/// Bodies kept at most; past this, the one used longest ago goes.
pub const KEPT: usize = 4;

/// Kept body `i` (as [`views`] numbers them), taken out for a call to read
/// the next one with.
pub fn take(memory: &Memory, i: usize) -> Option<PreviousBody> {
    let mut kept = memory.previous_bodies.borrow_mut();
    let at = kept.len().checked_sub(i + 1)?;
    Some(kept.remove(at))
}

/// Keeps `body` as the newest, letting go of the oldest past [`KEPT`].
pub fn keep(memory: &Memory, body: PreviousBody) {
    let mut kept = memory.previous_bodies.borrow_mut();
    kept.push(body);
    if kept.len() > KEPT {
        kept.remove(0);
    }
}

/// A view of each kept body's text in wasm memory, each followed by where
/// its last message begins (the bytes before it are those the
/// conversation's next body shares: see `PreviousBody::last_message_start`),
/// the newest first, for the host to compare the next body with at once: a
/// view is good until wasm memory next grows, after which it is empty (a
/// detached buffer), so a comparison with it finds nothing in common.
pub fn views(memory: &Memory) -> Array {
    let views = Array::new();
    // The module's own memory: a `WebAssembly.Memory`, never asked.
    let buffer = wasm_bindgen::memory()
        .unchecked_into::<WebAssembly::Memory>()
        .buffer();
    for body in memory.previous_bodies.borrow().iter().rev() {
        let text = body.text();
        views.push(&Uint8Array::new_with_byte_offset_and_length(
            &buffer,
            text.as_ptr() as u32,
            text.len() as u32,
        ));
        views.push(&JsValue::from(body.last_message_start() as f64));
    }
    views
}
