//! `modelProfile` and `registerModelProfile`: the image rules of a model,
//! from the core's table and registry; and the `profile` option, converted.

use crate::convert::{js_type, string_arg, to_js, Options};
use crate::CtxpackError;
use ctxpack_core::budget::{ProfileError, ProfileOverrides};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const PROFILE_TS: &'static str = r#"
/** How a model counts an image's tokens: every figure of the formula, named. */
export type TokenRule =
  | { kind: "openai-tiles"; base: number; perTile: number; tile: number; fitBox: number; shortestSide: number; lowBox: number }
  | { kind: "openai-patches"; multiplierMilli: number; patch: number; maxPatches: number }
  | { kind: "anthropic-pixels"; longEdge: number; maxTokens: number; pixelsPerToken: number }
  | { kind: "anthropic-patches"; patch: number; longEdge: number; maxTokens: number }
  | { kind: "gemini-tiles"; perTile: number; tile: number; smallSide: number }
  | { kind: "gemini-media-resolution"; high: number; medium: number; low: number };

/**
 * A token rule as given in a profile: the figures marked optional take the
 * documented ones (512-px tiles in a 2048² box with a 768-px shortest side
 * and a 512² low-detail box; 32-px patches, at most 1536; 750 pixels per
 * token; 28-px Claude patches; 258 tokens per 768-px Gemini tile, 384 px
 * for one tile).
 */
export type TokenRuleInput =
  | { kind: "openai-tiles"; base: number; perTile: number; tile?: number; fitBox?: number; shortestSide?: number; lowBox?: number }
  | { kind: "openai-patches"; multiplierMilli: number; patch?: number; maxPatches?: number }
  | { kind: "anthropic-pixels"; longEdge: number; maxTokens: number; pixelsPerToken?: number }
  | { kind: "anthropic-patches"; patch?: number; longEdge: number; maxTokens: number }
  | { kind: "gemini-tiles"; perTile?: number; tile?: number; smallSide?: number }
  | { kind: "gemini-media-resolution"; high: number; medium: number; low: number };

/** OpenAI's `detail` and Gemini 3's `media_resolution` levels. */
export type ImageDetail = "low" | "medium" | "high" | "auto" | "original";

/** The image types a profile can name. */
export type ImageMime = "image/png" | "image/jpeg" | "image/gif" | "image/webp" | "image/heic" | "image/heif" | "image/avif" | "image/bmp" | "image/tiff";

/** Whose API a profile is for: `vertex` is Claude on Google Vertex AI. */
export type ProfileProvider = "openai" | "anthropic" | "gemini" | "bedrock" | "vertex";

/** The image rules of one model. */
export interface ModelProfile {
  /** The table row that matched: a model id, a registered id (or the provider, for its defaults). */
  matched: string;
  /** True when the id is not in the table and `matched` is its family's newest row (`claude-sonnet-6` → the newest Sonnet). */
  inferred: boolean;
  /** The date (YYYY-MM-DD) the model was retired, or is to be, on its provider's API; null while none is announced. */
  retired: string | null;
  /** Whether the model reads images at all; one that does not takes none (`maxImages` 0, `accepts` empty). */
  readsImages: boolean;
  provider: ProfileProvider;
  tokens: TokenRule;
  /** The detail (OpenAI) or media resolution (Gemini 3) a part without its own is read at; null where the model has none. */
  defaultDetail: ImageDetail | null;
  /** The image types the model takes. */
  accepts: ImageMime[];
  /** Whether it takes animated images (OpenAI: non-animated GIF only). */
  acceptsAnimated: boolean;
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
  /** Bytes per request body, as sent (images as base64 text). */
  maxRequestBytes: number | null;
  contextTokens: number | null;
  /** Where the figures come from, and when they were read. */
  source: string;
}

/**
 * A profile as data: fields of a {@link ModelProfile} to replace (`null`
 * removes a limit), or, with `provider`, a whole profile starting from that
 * provider's defaults. A misspelt field is refused.
 */
export interface ProfileOverrides {
  provider?: ProfileProvider;
  source?: string;
  tokens?: TokenRuleInput;
  defaultDetail?: ImageDetail | null;
  accepts?: ImageMime[];
  acceptsAnimated?: boolean;
  maxLongEdge?: number | null;
  manyImages?: number | null;
  manyImagesLongEdge?: number | null;
  maxImages?: number | null;
  maxImageBytes?: number | null;
  imageBytesOn?: "base64" | "decoded";
  maxRequestBytes?: number | null;
  contextTokens?: number | null;
}

/**
 * The rules of `modelId`: a registered profile, else its row of the table
 * (a dated or aliased id, `-20260415`, `-latest`, `@…`, `anthropic/claude-sonnet-5.5`,
 * read as its base id), else its family's newest row (`inferred`), else the defaults of the
 * provider it names (`anthropic/…`, `bedrock/…`, `vertex_ai/…`,
 * `google/…`), else OpenAI's.
 */
export function modelProfile(modelId: string): ModelProfile;

/**
 * The model ids of the built-in table, newest first within each provider:
 * what `modelProfile` knows by name (`ctxpack models` lists their profiles).
 */
export function modelIds(): string[];

/**
 * Registers `profile` for `modelId` and every id that starts with it
 * (case-insensitive), matched before the built-in table; registering an id
 * again replaces it. With `provider`, the profile starts from that
 * provider's defaults, else from what `modelId` matches now. Returns the
 * profile as registered; a bad field throws `INVALID_ARGUMENT` at its path.
 */
export function registerModelProfile(modelId: string, profile: ProfileOverrides): ModelProfile;
"#;

/// See the TypeScript declaration.
#[wasm_bindgen(js_name = modelProfile, skip_typescript)]
pub fn model_profile(model_id: JsValue) -> Result<JsValue, CtxpackError> {
    let id = string_arg(&model_id, "modelId")?;
    Ok(to_js(&ctxpack_core::budget::model_profile(&id)))
}

/// See the TypeScript declaration.
#[wasm_bindgen(js_name = modelIds, skip_typescript)]
pub fn model_ids() -> Vec<JsValue> {
    ctxpack_core::budget::model_ids()
        .map(JsValue::from_str)
        .collect()
}

/// See the TypeScript declaration.
#[wasm_bindgen(js_name = registerModelProfile, skip_typescript)]
pub fn register_model_profile(
    model_id: JsValue,
    profile: JsValue,
) -> Result<JsValue, CtxpackError> {
    let id = string_arg(&model_id, "modelId")?;
    let spec = read_profile(&profile, "profile", CtxpackError::invalid_argument)?;
    ctxpack_core::budget::register_model_profile(&id, &spec)
        .map(|p| to_js(&p))
        .map_err(|e| at(e, "profile", CtxpackError::invalid_argument))
}

/// The error `e` of a profile at `base`, made by `make` (a code and a path).
fn at(e: ProfileError, base: &str, make: fn(String, String) -> CtxpackError) -> CtxpackError {
    let path = match e.path.as_str() {
        "" => base.to_owned(),
        "modelId" => "modelId".to_owned(),
        rel => format!("{base}.{rel}"),
    };
    make(path, e.message)
}

/// A profile given as data, read through its JSON text so that a misspelt
/// field is refused, not ignored.
fn read_profile(
    value: &JsValue,
    path: &str,
    make: fn(String, String) -> CtxpackError,
) -> Result<ProfileOverrides, CtxpackError> {
    if !value.is_object() || js_sys::Array::is_array(value) {
        return Err(make(
            path.to_owned(),
            format!("expected a profile object, got {}", js_type(value)),
        ));
    }
    let text = js_sys::JSON::stringify(value)
        .ok()
        .and_then(|t| t.as_string())
        .unwrap_or_default();
    ProfileOverrides::from_json(&text).map_err(|e| at(e, path, make))
}

/// The `profile` option of `opts`, converted (`None` when absent); a value
/// that is no profile is `INVALID_OPTION` at its path.
pub(crate) fn profile_value(opts: &Options) -> Result<Option<ProfileOverrides>, CtxpackError> {
    let given = opts.get("profile");
    if given.is_null_or_undefined() {
        return Ok(None);
    }
    read_profile(
        &given,
        &opts.path_of("profile"),
        CtxpackError::invalid_option,
    )
    .map(Some)
}
