//! The memo of sanitized tool texts: what sanitizing a tool result's JSON
//! text made of it, found by the caller's string itself (see
//! `string_memo`). Whether a remembered outcome is used is the core's
//! decision (see `Payloads::held_json`).

use super::memory::Memory;
use ctxpack_core::tool_results::SanitizedText;
use js_sys::JsString;

/// Starts a call that uses the memo; returns its number.
pub fn begin_call(memory: &Memory) -> u32 {
    memory.texts.borrow_mut().begin_call()
}

/// What sanitizing `source` made of it, when remembered.
pub fn get(memory: &Memory, source: &JsString, call: u32) -> Option<SanitizedText> {
    let mut m = memory.texts.borrow_mut();
    let slot = m.slot(source)?;
    m.memo.get_mut(slot, call).cloned()
}

/// Remembers `outcome`, what sanitizing `source` made of it, in place of
/// what was remembered before. The entry keeps the caller's string alive
/// and holds the outcome's text.
pub fn remember(memory: &Memory, source: JsString, call: u32, outcome: SanitizedText) {
    let mut m = memory.texts.borrow_mut();
    if let Some(slot) = m.slot(&source) {
        m.memo.remove(slot);
    }
    let bytes = u64::from(source.length()) + outcome.text.len() as u64;
    let answer = m.memo.insert(source.clone(), outcome, bytes, call);
    m.settle(&source, answer);
}
