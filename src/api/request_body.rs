//! `compactRequestBody`: a request body as text, copied into wasm once,
//! read where it lies (a message received before that compaction cannot
//! change is known by its text and not read: see `convert::body_memo`),
//! compacted, and answered as edits of the text, so that only the changed
//! messages' text comes out.

use crate::api::call::{Call, CallStash};
use crate::api::compact_settings::{offloaded, progress_of, uploader_of, CompactSettings};
use crate::convert::{body_memo, to_js, whole_text};
use crate::promise::to_promise;
use crate::CtxpackError;
use ctxpack_core::body::{body_edits, read_body};
use ctxpack_core::history::{settle_inputs, CompactCall, Input};
use js_sys::{Array, Float64Array, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const REQUEST_BODY_TS: &'static str = r#"
/**
 * {@link compactContext} for a request body as a server receives it: the
 * JSON text of `{messages, …}` (`input` for `openai-responses` and
 * `gemini-interactions`, `contents` for `gemini`; without `format`, the
 * first of `messages`, `contents`, `input` the body has) or of a bare array
 * of messages. The text is copied into wasm once and parsed there; the
 * body comes back as text, every byte as sent but the messages compaction
 * changed, written as compact JSON (the same string when none changed).
 * Long image payloads are read where they lie in the text, never copied
 * beside it. Send the text upstream as it is.
 */
export function compactRequestBody(body: string, options: CompactOptions): Promise<{ body: string; report: CompactReport }>;
"#;

/// `compactRequestBody`: resolves to `{ranges, texts, report, known}`,
/// `ranges` a `Float64Array` of each edit's start and end in UTF-16 units
/// and `texts` what each range becomes, for the JavaScript side to splice
/// into the body it holds; `known` counts the messages planned with a
/// digest, unread.
#[wasm_bindgen(js_name = __compactRequestBody, skip_typescript)]
pub fn compact_request_body_js(body: JsValue, options: JsValue) -> Promise {
    to_promise(Box::pin(compact_request_body(body, options)))
}

/// `compactRequestBody`, awaited from Rust: `{ranges, texts, report, known}`.
pub async fn compact_request_body(
    body: JsValue,
    options: JsValue,
) -> Result<JsValue, CtxpackError> {
    let call = Call::new(Some(&options))?;
    let CompactSettings {
        format,
        options,
        stash,
        offload,
    } = CompactSettings::read(&call)?;
    let memory = call.table.memory();
    body_memo::begin_call(memory);
    let mut body = read_body(whole_text(&body, "body")?, format, &mut |raw| {
        body_memo::known(memory, raw)
    })?;
    body.text.set_event_loop(&crate::event_loop::HOST_LOOP);
    body.text
        .set_picture_drawer(ctxpack_boundary::picture::placeholder_picture);
    let mut inputs = std::mem::take(&mut body.inputs);
    let settled = settle_inputs(&mut inputs, format, &options, &mut |i| body.read_message(i))?;
    let known = inputs
        .iter()
        .filter(|i| matches!(i, Input::Known(_)))
        .count();
    let mut progress = progress_of(&call)?;
    let store = CallStash::new(&stash, &call);
    let uploader = uploader_of(offload.as_ref(), &call.table);
    let compaction = CompactCall::new(store.access(), options, &body.text);
    let (outcome, digests) = offloaded(compaction, offload.as_ref(), uploader.as_ref())
        .with_progress(&mut progress)
        .run(inputs, &settled)
        .await?;
    body_memo::keep(memory, &body, digests);
    let edits = body_edits(&body, &outcome.messages, &outcome.changed);
    let ranges: Vec<f64> = edits
        .iter()
        .flat_map(|e| [e.start as f64, e.end as f64])
        .collect();
    let texts: Array = edits.iter().map(|e| JsValue::from_str(&e.text)).collect();
    let answer = Object::new();
    let _ = Reflect::set(&answer, &"ranges".into(), &Float64Array::from(&ranges[..]));
    let _ = Reflect::set(&answer, &"texts".into(), &texts);
    let _ = Reflect::set(&answer, &"report".into(), &to_js(&outcome.report));
    let _ = Reflect::set(&answer, &"known".into(), &JsValue::from(known as f64));
    Ok(answer.into())
}
