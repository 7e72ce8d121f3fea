//! `parseProviderError`: a model API's refusal about size or images, read.
//! Its declaration is here with the main module's others; the function
//! lives in the extras module (`markdown/src/refusal.rs`): pure,
//! synchronous and called by only some apps, it is kept out of the main
//! module's size budget. `repairContext` gets the refusal it read from the
//! package's entry.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const REFUSAL_TS: &'static str = r#"
/** What a refusal is about: size or images, or a file the request references that the provider no longer has. */
export type RefusalKind = "context-length" | "image-too-large" | "image-dimensions" | "too-many-images" | "request-too-large" | "file-missing";

/** A model API's refusal about size or images, or of a missing file, read. */
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
  /** A missing file: its id as the refusal names it (`file-abc123`, `file_011C…`, a Gemini file's name without `files/`). */
  fileId?: string;
}

/**
 * Reads a refusal — the error text, or an error object whose `message`,
 * `responseBody`, `body` or `error` holds it (as the SDKs throw them) — from
 * the exact wording OpenAI, Azure OpenAI, Anthropic, Bedrock, Gemini, DeepSeek,
 * vLLM and the gateways (OpenRouter, LiteLLM) use; and a file reference the
 * provider lost (OpenAI's `No such File object`, Anthropic's 404
 * `not_found_error` about a file, Gemini's 403 on a File) as `file-missing`.
 * `null` when it is none of these.
 */
export function parseProviderError(textOrError: unknown): ProviderRefusal | null;
"#;
