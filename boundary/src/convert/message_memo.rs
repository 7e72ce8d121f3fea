//! The message memo: the digests of messages a
//! compaction cannot change (see `ctxpack_core::history::MessageMemo`), by
//! the key the JavaScript side keeps beside each message it compared leaf
//! by leaf with what was read. A call takes the digests it uses and gives
//! them back when it ends, so a concurrent call reads those messages.

use super::memory::Memory;
use crate::CtxpackError;
use ctxpack_core::history::{Digest, Input};
use js_sys::Float64Array;
use serde_json::Value;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;

/// What the caller said of a message.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// Not sent before (or changed since): `0`.
    New,
    /// Sent before unchanged, not remembered yet: `-1`.
    Again,
    /// Sent before unchanged, remembered under this key (a whole number
    /// from 1).
    Known(u64),
}

/// What the caller said of each of `len` messages (`keys`, a
/// `Float64Array`; any other number, or no array, is [`Seen::New`]).
pub fn keys_of(keys: &JsValue, len: u32) -> Vec<Seen> {
    let given = keys
        .dyn_ref::<Float64Array>()
        .map(Float64Array::to_vec)
        .unwrap_or_default();
    (0..len as usize)
        .map(|i| match given.get(i).copied() {
            Some(-1.0) => Seen::Again,
            Some(k) if k >= 1.0 && k.fract() == 0.0 && k < 9_007_199_254_740_992.0 => {
                Seen::Known(k as u64)
            }
            _ => Seen::New,
        })
        .collect()
}

/// The inputs of one compaction: each message known by the digest under
/// its key, when the memo holds one, else read with `read(i)` (as sent
/// again when the caller saw it before unchanged).
pub fn inputs(
    memory: &Memory,
    keys: &[Seen],
    read: &mut dyn FnMut(usize) -> Result<Value, CtxpackError>,
) -> Result<Vec<Input>, CtxpackError> {
    let digests: Vec<Option<Rc<Digest>>> = {
        let mut m = memory.messages.borrow_mut();
        m.begin_call();
        keys.iter()
            .map(|k| match k {
                Seen::Known(k) => m.get(*k),
                _ => None,
            })
            .collect()
    };
    digests
        .into_iter()
        .zip(keys)
        .enumerate()
        .map(|(i, (d, seen))| match (d, seen) {
            (Some(d), _) => Ok(Input::known(d)),
            (None, Seen::New) => read(i).map(Input::Read),
            (None, _) => read(i).map(Input::Again),
        })
        .collect()
}

/// Keeps the digests a compaction made (each under the key its message
/// came with, or a new one); returns the key of each message remembered
/// now, 0 for the others.
pub fn keep<D: Into<Rc<Digest>>>(
    memory: &Memory,
    keys: &[Seen],
    digests: Vec<Option<D>>,
) -> Float64Array {
    let learned: Vec<f64> = {
        let mut m = memory.messages.borrow_mut();
        digests
            .into_iter()
            .zip(keys)
            .map(|(d, seen)| {
                let key = match seen {
                    Seen::Known(k) => Some(*k),
                    _ => None,
                };
                d.map_or(0, |d| m.keep(key, d)) as f64
            })
            .collect()
    };
    Float64Array::from(&learned[..])
}
