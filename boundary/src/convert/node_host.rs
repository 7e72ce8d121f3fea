//! Node's native pieces for payloads: `crypto.hash` for MD5 and `Buffer` for
//! checking base64 and decoding its head without copying the text into
//! wasm, reached through `process.getBuiltinModule`. Absent in browsers and
//! workers.

use ctxpack_core::media::{check_base64, decoded_len_of};
use js_sys::{Function, JsString, Reflect, Uint8Array};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Scratch buffers up to this size are kept for the next payload.
const SCRATCH_KEEP: u32 = 8 << 20;

/// Node's native pieces, reached through `process.getBuiltinModule`:
/// `crypto.hash` for MD5 and `Buffer` for checking base64 without a copy
/// into wasm. `None` in browsers and workers.
pub(super) struct NodeHost {
    crypto: JsValue,
    hash: Function,
    buffer: JsValue,
    alloc: Function,
    write: Function,
    scratch: RefCell<Option<(JsValue, u32)>>,
}

impl NodeHost {
    pub(super) fn find() -> Option<NodeHost> {
        let process = Reflect::get(&js_sys::global(), &"process".into()).ok()?;
        let get: Function = Reflect::get(&process, &"getBuiltinModule".into())
            .ok()?
            .dyn_into()
            .ok()?;
        let crypto = get.call1(&process, &"crypto".into()).ok()?;
        let hash = Reflect::get(&crypto, &"hash".into())
            .ok()?
            .dyn_into()
            .ok()?;
        let module = get.call1(&process, &"buffer".into()).ok()?;
        let buffer = Reflect::get(&module, &"Buffer".into()).ok()?;
        let alloc = Reflect::get(&buffer, &"allocUnsafeSlow".into())
            .ok()?
            .dyn_into()
            .ok()?;
        let prototype = Reflect::get(&buffer, &"prototype".into()).ok()?;
        let write = Reflect::get(&prototype, &"write".into())
            .ok()?
            .dyn_into()
            .ok()?;
        Some(NodeHost {
            crypto,
            hash,
            buffer,
            alloc,
            write,
            scratch: RefCell::new(None),
        })
    }

    /// Hex MD5 of `text` (`crypto.hash('md5', text)`).
    pub(super) fn md5(&self, text: &JsString) -> Option<String> {
        self.hash
            .call2(&self.crypto, &"md5".into(), text)
            .ok()?
            .as_string()
    }

    /// Standard padded base64: length a multiple of 4, only the alphabet,
    /// `=` only as the last one or two characters. Node's decoder skips what
    /// is not base64 (and stops at `=`), so decoding into a scratch buffer
    /// writes exactly the expected number of bytes only when every character
    /// counts; it also takes the URL-safe `-` and `_`, looked for apart, and
    /// ignores bits set after the last byte (`QR==` reads as `QQ==`), so the
    /// last group also goes through the core's check, which refuses them.
    /// `padding` is the number of `=` that end `text`.
    pub(super) fn is_base64(&self, text: &JsString, padding: usize) -> bool {
        let len = text.length();
        if len % 4 != 0 {
            return false;
        }
        let expected = decoded_len_of(len as usize, padding) as u32;
        let eq = text.index_of("=", 0);
        self.decode_counted(text, expected).is_some()
            && (eq < 0 || eq as u32 >= len.saturating_sub(2))
            && check_base64(&String::from(text.slice(len.saturating_sub(4), len))).is_ok()
    }

    /// The bytes the first `head_chars` characters of base64 `text` decode
    /// to, decoded by Node's `Buffer` (only the bytes cross into wasm, not
    /// the text): when `text` is longer than that (no padding can be among
    /// them) and they are all of the standard alphabet, which makes them
    /// exactly what the core's strict decoder gives (`decode_prefix`).
    /// `None` otherwise, for the caller to decode them itself: Node's
    /// decoder skips what is not base64, stops at `=` and takes the
    /// URL-safe `-` and `_`, all of which the core refuses.
    pub(super) fn decode_head(&self, text: &JsString, head_chars: u32) -> Option<Vec<u8>> {
        if head_chars == 0 || head_chars % 4 != 0 || text.length() <= head_chars {
            return None;
        }
        let head = text.slice(0, head_chars);
        let expected = head_chars / 4 * 3;
        let scratch = self.decode_counted(&head, expected)?;
        Some(
            scratch
                .unchecked_into::<Uint8Array>()
                .subarray(0, expected)
                .to_vec(),
        )
    }

    /// Decodes base64 `text` with Node's decoder into a scratch buffer, which
    /// it returns when that wrote exactly `expected` bytes and `text` holds
    /// no URL-safe `-` or `_`. The decoder skips what is not base64 and stops
    /// at `=`, so exactly `expected` bytes means every character counted,
    /// up to any `=` that ends a text of that decoded length.
    fn decode_counted(&self, text: &JsString, expected: u32) -> Option<JsValue> {
        let scratch = self.scratch(expected)?;
        let written = self
            .write
            .call3(&scratch, text, &JsValue::from(0), &"base64".into())
            .ok()?
            .as_f64()?;
        (written == f64::from(expected) && text.index_of("-", 0) < 0 && text.index_of("_", 0) < 0)
            .then_some(scratch)
    }

    /// A `Buffer` of at least `size` bytes: the kept one when big enough.
    fn scratch(&self, size: u32) -> Option<JsValue> {
        let mut kept = self.scratch.borrow_mut();
        if let Some((buffer, capacity)) = kept.as_ref() {
            if *capacity >= size {
                return Some(buffer.clone());
            }
        }
        // Room to the next power of two: images of about the same size (a
        // chat's screenshots) reuse one buffer instead of each a little
        // larger one allocating its own.
        let capacity = size.max(1).checked_next_power_of_two().unwrap_or(size);
        let fresh = self
            .alloc
            .call1(&self.buffer, &JsValue::from(capacity))
            .ok()?;
        if capacity <= SCRATCH_KEEP {
            *kept = Some((fresh.clone(), capacity));
        }
        Some(fresh)
    }
}
