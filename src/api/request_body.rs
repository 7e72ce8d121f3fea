//! `compactRequestBody`: a request body as UTF-8 bytes, copied into wasm
//! once (only the bytes after those it shares with the stash's body
//! before: see `convert::previous_body`), read where it lies (a message
//! received before that compaction cannot change is known by its text and
//! not read: see `convert::body_memo`), compacted, and answered as edits
//! of the text, so that only the changed messages' text comes out.

use crate::api::call::{Call, CallStash};
use crate::api::compact_settings::{offloaded, progress_of, uploader_of, CompactSettings};
use crate::convert::{body_memo, previous_body};
use crate::promise::eager_promise;
use crate::stash::stash_from_js;
use crate::CtxpackError;
use ctxpack_core::body::{body_edits, read_body_bytes, BodyEdit, PreviousBody, ReadInputs};
use ctxpack_core::history::{settle_inputs_after, CompactCall, CompactReport, KnownPrefix};
use ctxpack_core::messages::Format;
use ctxpack_core::stash::Failure;
use js_sys::{Array, Float64Array, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// `compactRequestBody` of `body`, the UTF-8 bytes of a request body (the
/// JavaScript side encodes a string): resolves to what [`answer`] makes,
/// the report as numbers (its format as an index into
/// [`format_names`]) and, when a message changed or the report has rare
/// parts, each edit's start and end in bytes and its text, for the
/// JavaScript side to splice into the body it holds, and those parts.
/// The counts follow the report's numbers: `known` counts the messages
/// planned with a digest, unread, `reused` those taken from the body
/// before, `readFrom` the byte the messages were looked for from (0: the
/// whole body), and `factsRead` the payloads whose facts (MD5 among them)
/// were read from the text. With `same` and `kept`, `body` is only what
/// follows the first `same` bytes of the stash's kept body `kept` (which
/// the JavaScript side compared through `__previousRequestBodies` in this
/// same turn of the event loop): it is taken now, before anything else
/// can run. The call runs at once as far as it goes without waiting (see
/// `promise::eager_promise`): a call whose stash answers from memory has
/// kept its body and settled its promise when it returns.
#[wasm_bindgen(js_name = __compactRequestBody, skip_typescript)]
pub fn compact_request_body_js(
    body: JsValue,
    options: JsValue,
    same: Option<f64>,
    kept: Option<u32>,
) -> Promise {
    let after = same.map(|same| (same as usize, kept));
    eager_promise(Box::pin(compact_request_body(body, options, after)))
}

/// The name of each format, in the order of `Format::ALL`: a report's
/// format crosses as its index in this list (see [`report_numbers`]).
#[wasm_bindgen(js_name = __formatNames, skip_typescript)]
pub fn format_names() -> Array {
    Format::ALL
        .iter()
        .map(|f| JsValue::from_str(f.name()))
        .collect()
}

/// A view of the bytes of each body `stash` keeps from its last
/// `compactRequestBody` calls, each followed by where its last message
/// begins, the newest first, in wasm memory (good until wasm memory next
/// grows: compare with them at once).
#[wasm_bindgen(js_name = __previousRequestBodies, skip_typescript)]
pub fn previous_request_bodies(stash: JsValue) -> JsValue {
    stash_from_js(&stash, "options.stash")
        .map_or_else(
            |_| js_sys::Array::new(),
            |stash| previous_body::views(&stash.memory),
        )
        .into()
}

/// `compactRequestBody`, awaited from Rust: see [`answer`] (`after`: how
/// many bytes `body` leaves out of the body kept, and which kept body, see
/// [`compact_request_body_js`]: taken out of the stash before the first
/// wait).
pub async fn compact_request_body(
    body: JsValue,
    options: JsValue,
    after: Option<(usize, Option<u32>)>,
) -> Result<JsValue, CtxpackError> {
    let call = Call::new(Some(&options))?;
    let after = after.map(|(same, kept)| (same, kept.and_then(|i| kept_body(&call, i))));
    let CompactSettings {
        format,
        options,
        stash,
        offload,
    } = CompactSettings::read(&call)?;
    let memory = call.table.memory();
    body_memo::begin_call(memory);
    let mut known = |raw: &str| body_memo::known(memory, raw);
    let Some(bytes) = body.dyn_ref::<Uint8Array>() else {
        return Err(CtxpackError::invalid_argument(
            "body",
            "must be a string or a Uint8Array",
        ));
    };
    let (mut body, reused, read_from, prefix) = match after {
        Some((same, Some(previous))) => {
            let read = previous.read_next(same, &bytes.to_vec(), format, &mut known)?;
            (read.body, read.reused, read.read_from, read.prefix)
        }
        Some((_, None)) => {
            return Err(CtxpackError::invalid_argument(
                "body",
                "follows a body the stash no longer keeps: give the whole body",
            ))
        }
        None => (
            read_body_bytes(bytes.to_vec(), format, &mut known)?,
            0,
            0,
            KnownPrefix::default(),
        ),
    };
    body.text.set_event_loop(&crate::event_loop::HOST_LOOP);
    body.text
        .set_picture_drawer(ctxpack_boundary::picture::placeholder_picture);
    let mut inputs = std::mem::take(&mut body.inputs);
    // The first messages, known as the body before's compaction measured
    // them, are taken as measured.
    let taken = prefix.usable(format, &options);
    let settled = settle_inputs_after(&mut inputs, taken, format, &options, &mut |i| {
        body.read_message(i)
    })?;
    // The body is kept for the next, with each message as this
    // compaction is handed it: the compaction takes the values of those
    // read out of `inputs`.
    let read = ReadInputs::after(&inputs, taken);
    let known = inputs.len() - read.len();
    let mut progress = progress_of(&call)?;
    let store = CallStash::new(&stash, &call);
    let uploader = uploader_of(offload.as_ref(), &call.table);
    let compaction =
        CompactCall::new(store.access(), options, &body.text).with_known_prefix(&prefix, taken);
    let (outcome, digests) = offloaded(compaction, offload.as_ref(), uploader.as_ref())
        .with_progress(&mut progress)
        .run_changes(&mut inputs, &settled)
        .await?;
    body_memo::keep(memory, &body, &digests);
    let edits = body_edits(&body, outcome.messages.iter().map(|(i, v)| (*i, v)));
    let facts_read = body.text.facts_read();
    let kept = PreviousBody::keep(body, format, inputs, read, &digests, prefix, settled.format);
    previous_body::keep(memory, kept);
    let answered = Answered {
        report: &outcome.report,
        known,
        reused,
        read_from,
        facts_read,
    };
    Ok(answer(&edits, &answered))
}

/// The kept body `i` of `call`'s stash, taken out.
fn kept_body(call: &Call, i: u32) -> Option<PreviousBody> {
    let stash = call.stash().ok()?;
    previous_body::take(&stash.memory, i as usize)
}

/// What a call answers beside the edits: the report and the counts
/// (see [`compact_request_body_js`]).
struct Answered<'r> {
    report: &'r CompactReport,
    known: usize,
    reused: usize,
    read_from: usize,
    facts_read: usize,
}

/// The parts of a report that are seldom there, as JSON text: its
/// failures and its notes.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Rare<'r> {
    failures: &'r [Failure],
    #[serde(skip_serializing_if = "Option::is_none")]
    limit_problem: Option<&'r str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offload_note: Option<&'r str>,
}

/// The report's fields as numbers, in the order `CompactReport` declares
/// them (its format as its index in [`format_names`], booleans as 1 or 0,
/// nullable indices as NaN for `null`), without its rare parts, then the
/// counts: the entry (`reportOf` in `js/entry/api/request-body.js`)
/// makes the report of them in the same order, which its tests hold to
/// the report `compactContext` answers as JSON.
fn report_numbers(a: &Answered<'_>) -> [f64; 27] {
    let r = a.report;
    let index = |i: Option<usize>| i.map_or(f64::NAN, |i| i as f64);
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    [
        index(Format::ALL.iter().position(|f| f.name() == r.format)),
        index(r.newest_user_index),
        index(r.first_changed_index),
        index(r.cache_breakpoint_index),
        r.stashed as f64,
        r.deduplicated as f64,
        r.written as f64,
        r.kept as f64,
        r.urls as f64,
        r.failed as f64,
        r.refreshed as f64,
        r.missing as f64,
        r.bytes_before as f64,
        r.bytes_after as f64,
        r.expired as f64,
        r.evicted as f64,
        flag(r.over_budget),
        r.binaries_stashed as f64,
        r.limit_stashed as f64,
        flag(r.fits),
        r.offloaded as f64,
        r.uploaded as f64,
        r.offloaded_bytes as f64,
        a.known as f64,
        a.reused as f64,
        a.read_from as f64,
        a.facts_read as f64,
    ]
}

/// The answer of a call: the report's numbers and the counts (a
/// `Float64Array`, see [`report_numbers`]) alone, when no message changed
/// and the report has no rare parts (one value made, no list); else
/// `[numbers, ranges, texts, rare]`, with each edit's start and end in
/// bytes (a `Float64Array`) and the text of each, and the report's
/// failures and notes as JSON text when it has any (`undefined` when
/// not). The entry reads either with `answerParts`.
fn answer(edits: &[BodyEdit], answered: &Answered<'_>) -> JsValue {
    let numbers = Float64Array::from(&report_numbers(answered)[..]);
    let r = answered.report;
    let rare = Rare {
        failures: &r.failures,
        limit_problem: r.limit_problem.as_deref(),
        offload_note: r.offload_note.as_deref(),
    };
    let seldom =
        !rare.failures.is_empty() || rare.limit_problem.is_some() || rare.offload_note.is_some();
    if edits.is_empty() && !seldom {
        return numbers.into();
    }
    let ranges: Vec<f64> = edits
        .iter()
        .flat_map(|e| [e.start as f64, e.end as f64])
        .collect();
    let texts: Array = edits.iter().map(|e| JsValue::from_str(&e.text)).collect();
    let rare = if seldom {
        serde_json::to_string(&rare).map_or(JsValue::UNDEFINED, |json| JsValue::from_str(&json))
    } else {
        JsValue::UNDEFINED
    };
    Array::of4(&numbers, &Float64Array::from(&ranges[..]), &texts, &rare).into()
}
