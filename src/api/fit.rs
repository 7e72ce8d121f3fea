//! `fitContext`, and the fitting `repairContext` runs (see `repair`):
//! convert, call the core's fitting over the stash and a resize function,
//! map errors. The package's entry passes the default resize function (a
//! canvas in browsers, the codec module in Node); a caller's `resize`
//! option replaces it.

use crate::api::call::{Answer, Call, CallStash};
use crate::api::compact_settings::{offload_of, uploader_of, OffloadSettings};
use crate::api::slack::slack_option;
use crate::api::target::target_options;
use crate::convert::array_arg;
use crate::convert::bytes::{from_base64, to_base64};
use crate::convert::external::Table;
use crate::convert::message_memo::{self, keys_of, Seen};
use crate::convert::payload_memo;
use crate::promise::to_promise;
use crate::CtxpackError;
use ctxpack_core::budget::ProviderRefusal;
use ctxpack_core::calls::{fit_setup, FitInput, FitSetup};
use ctxpack_core::fit::{
    Attempt, FitCall, RepairCall, RepairError, Repaired, ResizeFailure, Resizer,
};
use ctxpack_core::history::{
    settle_inputs, settle_inputs_for_expansion, CompactOptions, Input, Settled,
};
use ctxpack_core::media::{BytesKind, Dimensions};
use ctxpack_core::ErrorCode;
use js_sys::{Function, JsString, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// A resize function given by JavaScript.
struct JsResizer<'t> {
    f: Function,
    table: &'t Table,
    /// The library's own resizer, whose results are remembered: the same
    /// payload asked for the same form is not resized again.
    remember: bool,
}

fn failure(e: JsValue) -> ResizeFailure {
    let text = |key: &str| {
        Reflect::get(&e, &key.into())
            .ok()
            .and_then(|v| v.as_string())
    };
    ResizeFailure::reported(
        text("code").as_deref(),
        text("message")
            .or_else(|| e.as_string())
            .unwrap_or_else(|| "the resize function failed".into()),
    )
}

impl Resizer for JsResizer<'_> {
    async fn resize(
        &self,
        payload: &str,
        mime: &str,
        source: Dimensions,
        attempt: &Attempt,
    ) -> Result<String, ResizeFailure> {
        let remembered = self
            .remember
            .then(|| self.table.source(payload))
            .flatten()
            .map(|text| {
                let asked = format!(
                    "{mime} {}x{} to {} {}x{} q{}",
                    source.width,
                    source.height,
                    attempt.mime,
                    attempt.width,
                    attempt.height,
                    attempt.quality
                );
                (text, asked)
            });
        let call = self.table.memo_call();
        if let Some((text, asked)) = &remembered {
            if let Some(out) = payload_memo::resized(self.table.memory(), text, call, asked) {
                return Ok(self.table.keep(out.into()));
            }
        }
        let out = self.call_resize(payload, mime, source, attempt).await?;
        if let (Some((text, asked)), Some(made)) = (remembered, out.dyn_ref::<JsString>()) {
            payload_memo::remember_resized(self.table.memory(), text, call, asked, made.clone());
        }
        Ok(self.table.keep(out))
    }
}

impl JsResizer<'_> {
    /// Calls the resize function; the new payload as base64 text.
    async fn call_resize(
        &self,
        payload: &str,
        mime: &str,
        source: Dimensions,
        attempt: &Attempt,
    ) -> Result<JsValue, ResizeFailure> {
        let text = self
            .table
            .payload(payload)
            .unwrap_or_else(|| JsValue::from_str(payload));
        let image = Object::new();
        let set = |o: &Object, k: &str, v: JsValue| {
            let _ = Reflect::set(o, &k.into(), &v);
        };
        set(&image, "data", from_base64(&text, BytesKind::Uint8Array));
        set(&image, "mime", mime.into());
        set(&image, "width", source.width.into());
        set(&image, "height", source.height.into());
        let target = Object::new();
        set(&target, "width", attempt.width.into());
        set(&target, "height", attempt.height.into());
        set(&target, "mime", attempt.mime.into());
        set(&target, "quality", attempt.quality.into());
        let returned = self
            .f
            .call2(&JsValue::UNDEFINED, &image, &target)
            .map_err(failure)?;
        let value = JsFuture::from(Promise::resolve(&returned))
            .await
            .map_err(failure)?;
        let data = Reflect::get(&value, &"data".into()).unwrap_or(JsValue::UNDEFINED);
        let text: JsValue = if data.is_string() {
            data
        } else if crate::convert::bytes::bytes_kind(&data).is_some() {
            to_base64(&data).into()
        } else {
            return Err(ResizeFailure {
                code: ErrorCode::ImageResizeFailed,
                message: "the resize function must resolve to {data: Uint8Array | ArrayBuffer | base64 string}".into(),
            });
        };
        Ok(text)
    }
}

/// The options both functions share.
struct Prepared {
    setup: FitSetup,
    resize: Function,
    /// The library's own resizer (not the caller's `resize`): its results
    /// are remembered.
    own_resize: bool,
    format: Option<ctxpack_core::messages::Format>,
    stash: Option<std::rc::Rc<crate::stash::StashInner>>,
    offload: Option<OffloadSettings>,
}

fn prepare(call: &Call, default_resize: &JsValue) -> Result<Prepared, CtxpackError> {
    let opts = &call.opts;
    let input = FitInput {
        target: target_options(opts)?,
        keep_newest: opts.bool("keepNewest")?,
        max_tokens: opts.number("maxTokens")?,
        slack: slack_option(opts)?,
    };
    let setup = fit_setup(&input, &call.options_path())?;
    let caller_resize = opts.function("resize")?;
    let own_resize = caller_resize.is_none();
    let resize = match caller_resize {
        Some(f) => f,
        None => default_resize.clone().dyn_into().map_err(|_| {
            CtxpackError::invalid_option(
                opts.path_of("resize"),
                "no resize function: pass options.resize",
            )
        })?,
    };
    let offload = OffloadSettings::read(opts)?;
    // An offload needs a stash, where the files are remembered.
    let stash = match offload {
        Some(_) => Some(call.stash()?),
        None => call.optional_stash()?,
    };
    Ok(Prepared {
        setup,
        resize,
        own_resize,
        format: opts.format()?,
        stash,
        offload,
    })
}

/// A fitting (or a repair) whose options are read, and each message not
/// known by its key (see `convert::message_memo`).
pub(crate) struct Fitting {
    call: Call,
    prepared: Prepared,
    inputs: Vec<Input>,
    keys: Vec<Seen>,
    settled: Settled,
}

/// A refusal to repair: as read, the error it was read from, and its
/// JavaScript form for the result.
pub(crate) type Refusal = (ProviderRefusal, JsValue, JsValue);

impl Fitting {
    /// Reads the options and the messages now, before the promise is made,
    /// so what the JavaScript side compared is what is fitted.
    /// A repair (`repairing`) settles its messages as an expansion does
    /// (see `RepairCall::run`).
    pub(crate) fn read(
        messages: &JsValue,
        options: &JsValue,
        default_resize: &JsValue,
        keys: &JsValue,
        repairing: bool,
    ) -> Result<Fitting, CtxpackError> {
        let call = Call::new(Some(options))?;
        let prepared = prepare(&call, default_resize)?;
        let array = array_arg(messages, "messages")?;
        let keys = keys_of(keys, array.length());
        let mut read = |i: usize| call.message(&array, i, false);
        let mut inputs = message_memo::inputs(call.table.memory(), &keys, &mut read)?;
        let format = prepared.format;
        let settled = match repairing {
            true => settle_inputs_for_expansion(&mut inputs, format, &mut read)?,
            false => settle_inputs(&mut inputs, format, &CompactOptions::default(), &mut read)?,
        };
        Ok(Fitting {
            call,
            prepared,
            inputs,
            keys,
            settled,
        })
    }

    /// Fits to the model's limits or, given a `refusal`, to the limits it
    /// names; keeps the digests the core made, and answers `{changed,
    /// values, report, keys}` (with `refusal` for a repair).
    pub(crate) async fn run(self, refusal: Option<Refusal>) -> Result<JsValue, CtxpackError> {
        let Fitting {
            call,
            prepared: p,
            inputs,
            keys,
            settled,
        } = self;
        let resizer = JsResizer {
            f: p.resize,
            table: &call.table,
            remember: p.own_resize,
        };
        let store = p.stash.as_deref().map(|s| CallStash::new(s, &call));
        let payloads = call.payloads();
        let uploader = uploader_of(p.offload.as_ref(), &call.table);
        let (profile, options) = (&p.setup.profile, p.setup.options);
        let mut fit = FitCall::new(profile, options, &resizer, &payloads);
        if let Some(store) = &store {
            fit = fit.with_stash(store.access());
        }
        if let Some(offload) = offload_of(p.offload.as_ref(), uploader.as_ref()) {
            fit = fit.with_offload(offload);
        }
        let Repaired {
            mut outcome,
            digests,
            reupload,
        } = match &refusal {
            None => {
                let (outcome, digests) = fit.run(inputs, &settled).await?;
                Repaired {
                    outcome,
                    digests,
                    reupload: None,
                }
            }
            Some((r, error, _)) => {
                let repaired = RepairCall::new(r, fit).run(inputs, &settled).await;
                repaired.map_err(|e| repair_error(e, error))?
            }
        };
        let offload = outcome.report.offload.take();
        let out = Answer::Changes.give(
            &call,
            outcome,
            message_memo::keep(call.table.memory(), &keys, digests),
        )?;
        if let Some(report) = offload {
            let fitted = Reflect::get(&out, &"report".into()).unwrap_or(JsValue::UNDEFINED);
            let _ = Reflect::set(&fitted, &"offload".into(), &crate::convert::to_js(&report));
        }
        if let Some((_, _, written)) = &refusal {
            let _ = Reflect::set(&out, &"refusal".into(), written);
        }
        if let Some(report) = reupload {
            let _ = Reflect::set(&out, &"reupload".into(), &crate::convert::to_js(&report));
        }
        Ok(out)
    }
}

/// What a repair's failure throws: a refusal it does not fix, or one it
/// cannot fit, caused by the caller's `error`.
pub(crate) fn repair_error(e: RepairError, error: &JsValue) -> CtxpackError {
    match e {
        RepairError::Message(m) => CtxpackError::from(m),
        RepairError::NotARefusal => CtxpackError::new(
            ErrorCode::NotARefusal,
            "error: not a refusal about context length, images or request size",
        )
        .at("error")
        .caused_by(error.clone()),
        e @ RepairError::CannotFit { .. } => {
            CtxpackError::new(ErrorCode::CannotFit, e.to_string()).caused_by(error.clone())
        }
    }
}

/// See the TypeScript declaration (the entry passes `default_resize`),
/// with what the JavaScript side says of each message (`keys`, as
/// `__compactContext` takes them). The promise resolves to `{changed,
/// values, report, keys}`.
#[wasm_bindgen(js_name = __fitContext, skip_typescript)]
pub fn fit_context_js(
    messages: JsValue,
    options: JsValue,
    default_resize: JsValue,
    keys: JsValue,
) -> Promise {
    match Fitting::read(&messages, &options, &default_resize, &keys, false) {
        Ok(fitting) => to_promise(Box::pin(fitting.run(None))),
        Err(e) => to_promise(Box::pin(async move { Err(e) })),
    }
}
