//! `modelProfile`: the image rules of a model, from the core's table.

use crate::convert::{string_arg, to_js};
use crate::CtxpackError;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const PROFILE_TS: &'static str = r#"
/** How a model counts an image's tokens. */
export type TokenRule =
  | { kind: "openai-tiles"; base: number; perTile: number }
  | { kind: "openai-patches"; multiplierMilli: number }
  | { kind: "anthropic-pixels"; longEdge: number }
  | { kind: "gemini-tiles" }
  | { kind: "gemini-media-resolution"; high: number; medium: number; low: number };

/** The image rules of one model. */
export interface ModelProfile {
  /** The table row that matched: a model id or a family prefix (or the provider, for its defaults). */
  matched: string;
  provider: "openai" | "anthropic" | "gemini" | "bedrock";
  tokens: TokenRule;
  /** The largest side, in pixels, it accepts. */
  maxLongEdge: number | null;
  /** With more than this many images in a request… */
  manyImages: number | null;
  /** …every side must be at most this many pixels. */
  manyImagesLongEdge: number | null;
  maxImages: number | null;
  maxImageBytes: number | null;
  /** What `maxImageBytes` is measured on: the base64 text or the decoded image. */
  imageBytesOn: "base64" | "decoded";
  maxRequestBytes: number | null;
  contextTokens: number | null;
  /** Where the figures come from, and when they were read. */
  source: string;
}

/**
 * The rules of `modelId`: its row of the table, else its family's
 * (`claude-…`, `gemini-3…`), else the defaults of the provider it names
 * (`anthropic/…`, `bedrock/…`, `google/…`), else OpenAI's.
 */
export function modelProfile(modelId: string): ModelProfile;
"#;

/// See the TypeScript declaration.
#[wasm_bindgen(js_name = modelProfile, skip_typescript)]
pub fn model_profile(model_id: JsValue) -> Result<JsValue, CtxpackError> {
    let id = string_arg(&model_id, "modelId")?;
    Ok(to_js(&ctxpack_core::budget::model_profile(&id)))
}
