//! `estimate`, the stash step of `toTextOnly`, and the declarations of
//! `toTextOnly`, `hasMultimedia` and `parseContextLengthError`, which live
//! in the extras module (a page's first compaction needs none of them).

use crate::api::call::{Call, CallStash};
use crate::api::target::target_options;
use crate::convert::message_memo::{self, keys_of};
use crate::convert::{array_arg, to_js};
use crate::promise::to_promise;
use crate::CtxpackError;
use ctxpack_core::budget::required_target;
use ctxpack_core::calls::EstimateCall;
use ctxpack_core::history::{settle_inputs, CompactOptions};
use ctxpack_core::tool_results::stash_inline_images;
use js_sys::{Array, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TEXT_ONLY_TS: &'static str = r#"
/**
 * For a text-only model: image parts become `![图片N](url)` references
 * appended to the message text. With `stash`, an inline image is written to
 * the stash first and referenced by its placeholder `[Picture:history_<md5>]`
 * (and a Promise is returned); without, it is described (type and size), so
 * no placeholder ever names an image the stash does not hold.
 */
export function toTextOnly<M>(messages: readonly M[], options?: { format?: Format }): M[];
export function toTextOnly<M>(messages: readonly M[], options: { stash: Stash; format?: Format }): Promise<M[]>;

/** True when any message holds an image or file part, a placeholder, or a markdown image. */
export function hasMultimedia(messages: readonly unknown[], options?: { format?: Format }): boolean;

/** A provider ctxpack knows the limits and image-token rules of. */
export type Provider = "openai" | "anthropic" | "gemini" | "bedrock" | "vertex";

/** What one request may carry. */
export interface RequestLimits {
  maxImages?: number;
  maxImageBytes?: number;
  maxRequestBytes?: number;
}

/** The token and size account of a request. */
export interface EstimateReport {
  provider: Provider;
  imageCount: number;
  imageTokens: number;
  textTokens: number;
  totalTokens: number;
  requestBytes: number;
  images: { path: string; width: number; height: number; measured: boolean; bytes: number; tokens: number }[];
  limits: RequestLimits;
  /** Limits this request exceeds, as sentences; empty when it fits. */
  exceeded: string[];
  /** The date (YYYY-MM-DD) the model was retired, or is to be, if announced (`modelProfile(model).retired`). */
  modelRetired: string | null;
  /** True when `modelRetired` is today or earlier: the provider refuses requests to the model. */
  pastRetirement: boolean;
}

/**
 * Accounts for a request before it is sent: image tokens per the formula of
 * the model (`model`, a model id as every call takes it, see
 * `modelProfile`; `profile` replaces figures of it, or with `provider` is a
 * whole profile; `limits` replaces its limits), text tokens, and the limits
 * it breaks — images, bytes per image and per request, the largest side and
 * the many-image rule. Older, still accepted: `provider` instead of
 * `model`, the provider's rules in general. With `stash` (the one the
 * conversation is compacted with), message objects sent again unchanged are
 * remembered as {@link compactContext} remembers them, in that stash's
 * memory: a long chat's estimate costs what is new. Without one, nothing is
 * remembered between calls.
 */
export function estimate(messages: readonly unknown[], options: ({ model: string; provider?: undefined; profile?: ProfileOverrides } | { provider: Provider; model?: undefined }) & { format?: Format; limits?: RequestLimits; stash?: Stash }): EstimateReport;

/** Reads a model API's context-length error; `null` when the text is not one. */
export function parseContextLengthError(text: string): { requested: number; max: number; provider: "openai" | "anthropic" | "gemini" } | null;
"#;

/// The inline images of `messages` written to the `stash` option's stash:
/// resolves to the ids that committed, which the package's `toTextOnly`
/// hands to the extras module to reference by placeholder.
#[wasm_bindgen(js_name = __stashInlineImages, skip_typescript)]
pub fn stash_inline_images_js(
    messages: JsValue,
    options: Option<JsValue>,
) -> Result<Promise, CtxpackError> {
    let call = Call::new(options.as_ref())?;
    let format = call.opts.format()?;
    let (_, values) = call.messages(&messages)?;
    let stash = call.stash()?;
    Ok(to_promise(Box::pin(async move {
        let store = CallStash::new(&stash, &call);
        let stored = stash_inline_images(store.access(), values, format, &call.payloads()).await?;
        Ok(stored
            .iter()
            .map(|id| JsValue::from_str(id))
            .collect::<Array>()
            .into())
    })))
}

/// `estimate` with what the JavaScript side says of each message (`keys`,
/// as `__compactContext` takes them; see `convert::message_memo`): a
/// message known by its digest is counted from it, unread. Answers
/// `{report, keys}`, `keys` giving each message read the key of the digest
/// made of it (0: none).
#[wasm_bindgen(js_name = __estimate, skip_typescript)]
pub fn estimate_js(
    messages: JsValue,
    options: JsValue,
    keys: JsValue,
) -> Result<JsValue, CtxpackError> {
    let call = Call::new(Some(&options))?;
    let opts = &call.opts;
    let target = required_target(&target_options(opts)?, &call.options_path())?;
    let format = opts.format()?;
    let array = array_arg(&messages, "messages")?;
    let keys = keys_of(&keys, array.length());
    let mut read = |i: usize| call.message(&array, i, false);
    let mut inputs = message_memo::inputs(call.table.memory(), &keys, &mut read)?;
    // No compaction option: a digest of the format serves.
    let settled = settle_inputs(&mut inputs, format, &CompactOptions::default(), &mut read)?;
    let payloads = call.payloads();
    let (report, digests) = EstimateCall::new(&target, &payloads).run(inputs, &settled)?;
    let answer = Object::new();
    let _ = Reflect::set(&answer, &"report".into(), &to_js(&report));
    let _ = Reflect::set(
        &answer,
        &"keys".into(),
        &message_memo::keep(call.table.memory(), &keys, digests),
    );
    Ok(answer.into())
}
