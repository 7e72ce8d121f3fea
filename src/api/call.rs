//! One call of an exported function: its options, the JavaScript values it
//! keeps for as long as it runs (long payloads, bytes: see
//! `convert::external`), and the stash it works through. Every exported
//! function over messages or a stash sets itself up with these, instead of
//! each repeating the reading of options, stash, messages and clock.

use crate::api::args::{read_messages, result};
use crate::convert::external::Table;
use crate::convert::js_payloads::JsPayloads;
use crate::convert::{from_js_kept_loose, options_arg, Options};
use crate::stash::{call_backend, stash_from_js, CallBackend, StashInner};
use crate::CtxpackError;
use ctxpack_core::history::Outcome;
use ctxpack_core::stash::StashAccess;
use ctxpack_core::JsonPath;
use js_sys::{Array, Reflect};
use serde::Serialize;
use serde_json::Value;
use std::rc::Rc;
use wasm_bindgen::JsValue;

/// What the options argument is called in paths.
const OPTIONS: &str = "options";

/// One call: its options (read at `options`) and the values it keeps.
pub(crate) struct Call {
    /// The options object.
    pub opts: Options,
    /// The JavaScript values this call keeps, dropped when it ends.
    pub table: Table,
    /// The `stash` option's stash, found once (none when it is absent or
    /// is no usable stash: [`Call::stash`] says why).
    found: Option<Rc<StashInner>>,
}

impl Call {
    /// A call with the options object `options` (absent reads as empty),
    /// starting now: its flows' slices count from here.
    pub fn new(options: Option<&JsValue>) -> Result<Call, CtxpackError> {
        crate::event_loop::HOST_LOOP.mark_began();
        let opts = options_arg(options, OPTIONS)?;
        // What the call remembers is its stash's (a `stash` option that is
        // none is refused where the call reads it), else its own.
        let stash = opts.get("stash");
        let found = if stash.is_null_or_undefined() {
            None
        } else {
            stash_from_js(&stash, &opts.path_of("stash")).ok()
        };
        let table = match &found {
            Some(stash) => Table::remembering(Rc::clone(&stash.memory)),
            None => Table::new(),
        };
        Ok(Call { opts, table, found })
    }

    /// The JSON path of the options object, under which the core names the
    /// options it refuses.
    pub fn options_path(&self) -> JsonPath {
        JsonPath::root(OPTIONS)
    }

    /// The `stash` option, which must be a `Stash` (open, this module's).
    pub fn stash(&self) -> Result<Rc<StashInner>, CtxpackError> {
        match &self.found {
            Some(stash) if stash.ensure_open().is_ok() => Ok(Rc::clone(stash)),
            // Read again for the error, at its path.
            _ => stash_from_js(&self.opts.get("stash"), &self.opts.path_of("stash")),
        }
    }

    /// The `stash` option when given (`undefined` and `null` are none).
    pub fn optional_stash(&self) -> Result<Option<Rc<StashInner>>, CtxpackError> {
        if self.found.is_some() {
            return self.stash().map(Some);
        }
        let value = self.opts.get("stash");
        if value.is_null_or_undefined() {
            Ok(None)
        } else {
            stash_from_js(&value, &self.opts.path_of("stash")).map(Some)
        }
    }

    /// The `messages` argument, read (long payloads kept in this call).
    pub fn messages(&self, messages: &JsValue) -> Result<(Array, Vec<Value>), CtxpackError> {
        read_messages(messages, &self.table, false)
    }

    /// Message `i` of `array`, read (long payloads kept in this call); with
    /// `loose`, for a compaction that sanitizes tool results: any long
    /// string that begins as base64 stays in JavaScript, so the search
    /// reads it in pieces and remembers it.
    pub fn message(&self, array: &Array, i: usize, loose: bool) -> Result<Value, CtxpackError> {
        let path = format!("messages[{i}]");
        from_js_kept_loose(&array.get(i as u32), &path, &self.table, loose)
    }

    /// Payload text for the core, read through this call's kept values.
    pub fn payloads(&self) -> JsPayloads<'_> {
        JsPayloads(&self.table)
    }

    /// `{changed, values, report}`: the changed messages' indices and
    /// values, converted (see `args::changes`).
    pub fn changes<R: Serialize>(&self, outcome: Outcome<R>) -> JsValue {
        crate::api::args::changes(outcome, &self.table)
    }

    /// `{messages, report}`: the changed messages converted, the rest the
    /// caller's own (`original`).
    pub fn result<R: Serialize>(
        &self,
        original: &Array,
        outcome: Outcome<R>,
    ) -> Result<JsValue, CtxpackError> {
        result(original, outcome, &self.table)
    }
}

/// A stash as one call works through it: its backend seen through the
/// call's kept values and the stash's metadata cache, its settings, its
/// clock read once.
pub(crate) struct CallStash<'a> {
    backend: CallBackend<'a>,
    stash: &'a StashInner,
    now: f64,
}

impl<'a> CallStash<'a> {
    /// `stash` for `call`.
    pub fn new(stash: &'a StashInner, call: &'a Call) -> CallStash<'a> {
        CallStash {
            backend: call_backend(stash, &call.table),
            stash,
            now: stash.now(),
        }
    }

    /// What the core's flows take: backend, settings and the time.
    pub fn access(&self) -> StashAccess<'_, CallBackend<'a>> {
        StashAccess {
            backend: &self.backend,
            config: &self.stash.config,
            now: self.now,
        }
    }
}

/// How a call over messages that remembers them (compaction, expansion,
/// fitting) answers.
pub(crate) enum Answer {
    /// `{changed, values, report, keys}`, for the JavaScript side's memory.
    Changes,
    /// `{messages, report}` over the caller's array.
    Whole(Array),
}

impl Answer {
    /// `outcome` of `call` as asked, `kept` the key of each message's
    /// digest (see `message_memo::keep`).
    pub(crate) fn give<R: serde::Serialize>(
        self,
        call: &Call,
        outcome: Outcome<R>,
        kept: js_sys::Float64Array,
    ) -> Result<JsValue, CtxpackError> {
        match self {
            Answer::Whole(array) => call.result(&array, outcome),
            Answer::Changes => {
                let result = call.changes(outcome);
                let _ = Reflect::set(&result, &"keys".into(), &kept);
                Ok(result)
            }
        }
    }
}
