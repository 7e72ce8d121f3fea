//! `parseProviderError`: a model API's refusal about size or images, read.
//! Its declaration is here with the main module's others; the function
//! lives in the markdown module (`markdown/src/refusal.rs`): pure,
//! synchronous and called by only some apps, it is kept out of the main
//! module's size budget. `repairContext` gets the refusal it read from the
//! package's entry.

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
