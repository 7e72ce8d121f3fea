//! `parseProviderError`: a model API's refusal about size or images, read.

use crate::convert::to_js;
use crate::CtxpackError;
use js_sys::{Reflect, JSON};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const REFUSAL_TS: &'static str = r#"
/** What a refusal is about. */
export type RefusalKind = "context-length" | "image-too-large" | "image-dimensions" | "too-many-images" | "request-too-large";

/** A model API's refusal about size or images, read. */
export interface ProviderRefusal {
  kind: RefusalKind;
  /** Whose wording it was. */
  provider: "openai" | "anthropic" | "bedrock" | "gemini" | "deepseek" | "vllm" | "gateway";
  /** Context length: the output tokens the request asked for (`max_tokens`), counted in `actual`; the input must come down to `limit` less these. */
  outputTokens?: number;
  /** Too many images: the documents (or document pages) counted with the images in `actual`. */
  documents?: number;
  /** The limit the refusal names: tokens, bytes, pixels or images. */
  limit?: number;
  /** What the request had, when the refusal says. */
  actual?: number;
  /** The message the refused image is in, when the refusal names it. */
  messageIndex?: number;
  /** The provider's path of the refused value (`messages.3.content.0.image.source.base64`). */
  path?: string;
}

/**
 * Reads a refusal — the error text, or an error object whose `message`,
 * `responseBody`, `body` or `error` holds it (as the SDKs throw them) — from
 * the exact wording OpenAI, Azure OpenAI, Anthropic, Bedrock, Gemini, DeepSeek,
 * vLLM and the gateways (OpenRouter, LiteLLM) use.
 * `null` when it is not about size or images.
 */
export function parseProviderError(textOrError: unknown): ProviderRefusal | null;
"#;

/// The texts an error value may carry its provider's message in.
pub(crate) fn texts_of(value: &JsValue) -> String {
    if let Some(s) = value.as_string() {
        return s;
    }
    if !value.is_object() {
        return String::new();
    }
    let mut out = Vec::new();
    for key in ["message", "responseBody", "body", "error"] {
        let v = Reflect::get(value, &key.into()).unwrap_or(JsValue::UNDEFINED);
        if let Some(s) = v.as_string() {
            out.push(s);
        } else if v.is_object() {
            if let Some(s) = JSON::stringify(&v).ok().and_then(|s| s.as_string()) {
                out.push(s);
            }
        }
    }
    out.join("\n")
}

/// See the TypeScript declaration.
#[wasm_bindgen(js_name = parseProviderError, skip_typescript)]
pub fn parse_provider_error(text_or_error: JsValue) -> Result<JsValue, CtxpackError> {
    let text = texts_of(&text_or_error);
    Ok(match ctxpack_core::budget::parse_provider_error(&text) {
        Some(r) => to_js(&r),
        None => JsValue::NULL,
    })
}
