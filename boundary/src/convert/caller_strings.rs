//! Which caller strings stay in JavaScript when a message is read: `data:`
//! URLs and long strings under a payload key always; for a value searched
//! for binary, any long string that begins as base64; for messages whose
//! tool results are sanitized, other long strings that begin as base64 or
//! may be JSON text, as loose text. Every other string is copied in.

use super::external::{Loose, Table};
use super::EXTERNAL_MIN;
use ctxpack_core::tool_results::text_may_be_json;
use js_sys::JsString;
use serde_json::Value;

/// Which long strings that begin as base64 stay in JavaScript (`data:` URLs
/// always do).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Holding {
    /// Those under a format's payload key.
    PayloadKeys,
    /// All of them.
    AnyBase64,
    /// All of them, and those that may be JSON text; those under no
    /// payload key as loose text (see [`from_js_kept_loose`]).
    Loose,
}

/// Whether `head`, a string's first characters, are all of the base64
/// alphabet.
fn is_base64_head(head: &str) -> bool {
    head.bytes()
        .all(|c| c.is_ascii_alphanumeric() || c == b'+' || c == b'/' || c == b'=')
}

pub(super) fn read_string(
    js: &JsString,
    key: Option<&str>,
    holding: Holding,
    table: &Table,
) -> Value {
    let len = js.length();
    if len >= EXTERNAL_MIN {
        let head: String = js.slice(0, 5).into();
        if head.eq_ignore_ascii_case("data:") {
            let prefix: String = js.slice(0, 256.min(len)).into();
            if let Some(comma) = prefix.find(',') {
                let header = &prefix[..comma + 1];
                if header.to_ascii_lowercase().ends_with(";base64,") {
                    let payload = js.slice(comma as u32 + 1, len);
                    let kept = table.keep_payload(payload, js.clone());
                    return Value::String(format!("{header}{kept}"));
                }
            }
        } else {
            let payload_key = key.is_some_and(ctxpack_core::messages::is_payload_key);
            if payload_key || holding != Holding::PayloadKeys {
                // The first 128 characters, read in one copy.
                let head = String::from(js.slice(0, len.min(128)));
                if is_base64_head(&head) {
                    return Value::String(if payload_key || holding == Holding::AnyBase64 {
                        table.keep_payload(js.clone(), js.clone())
                    } else {
                        table.keep_loose(js.clone(), Loose::Base64)
                    });
                }
                if holding == Holding::Loose && text_may_be_json(&head) {
                    return Value::String(table.keep_loose(js.clone(), Loose::Json));
                }
            }
        }
    }
    Value::String(table.caller_text(js))
}
