//! `sanitizeToolResult` (its options converted, the core's flow called)
//! and the declaration of `routeArtifact` (which lives in the markdown
//! module).

use crate::api::call::{Call, CallStash};
use crate::convert::{from_js_kept_any_base64, js_type, to_js_kept};
use crate::promise::to_promise;
use crate::CtxpackError;
use ctxpack_core::calls::sanitize_tool_result as sanitize;
use ctxpack_core::calls::{
    sanitize_options, text_is_read_whole, SanitizeInput, Sanitized, ToolResult, TEXT_HEAD,
};
use js_sys::{JsString, Promise};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const BINARY_TS: &'static str = r#"
/** Options of {@link sanitizeToolResult}. */
export interface SanitizeOptions {
  /** Stash payloads (markers name them: `[Binary:history_<md5> image/png 512.0KB]`); without, they are dropped (`[BINARY_DATA_FILTERED: 512.0KB]`). */
  stash?: Stash;
  /** Strings longer than this are checked for base64; default 10240. */
  thresholdBytes?: number;
  /** Further field names to treat as binary, beside imageBase64, screenshotData, pdfImages, audioData, videoData. */
  fields?: string[];
}

/**
 * Replaces every binary payload in a tool result (nested anywhere; a JSON
 * string is read as JSON) with a short marker. The original is not mutated.
 */
export function sanitizeToolResult<T>(result: T, options?: SanitizeOptions): Promise<T>;

/** A file to route: exactly one of `bytes`, `base64` (or a data URL) and `text`. */
export interface Artifact {
  id: string;
  filename?: string;
  mimeType?: string;
  bytes?: Uint8Array | ArrayBuffer;
  base64?: string;
  text?: string;
}

/** What the model can read; a function is called, and a failing lookup means none. */
export type Capabilities = { vision?: boolean; file?: boolean; audio?: boolean; video?: boolean } | (() => { vision?: boolean; file?: boolean; audio?: boolean; video?: boolean });

/** Where an artifact went, and the part to send. */
export interface RouteResult {
  contentType: "text" | "image" | "audio" | "video" | "document" | "other";
  routing: "text" | "image" | "file";
  part: ContentPart;
  metadata: { id: string; filename: string; mimeType: string; size: number };
}

/** Routes an artifact by the model's capabilities; never throws for a failed capability lookup. */
export function routeArtifact(artifact: Artifact, capabilities: Capabilities, options?: { lang?: "en" | "zh"; format?: Format }): RouteResult;
"#;

/// `thresholdBytes` and `fields`, converted.
fn sanitize_input(opts: &crate::convert::Options) -> Result<SanitizeInput, CtxpackError> {
    let mut fields = Vec::new();
    if let Some(arr) = opts.array("fields")? {
        for (i, f) in arr.iter().enumerate() {
            fields.push(f.as_string().ok_or_else(|| {
                CtxpackError::invalid_option(
                    format!("{}[{i}]", opts.path_of("fields")),
                    format!("expected a string, got {}", js_type(&f)),
                )
            })?);
        }
    }
    Ok(SanitizeInput {
        threshold_bytes: opts.number("thresholdBytes")?,
        fields,
    })
}

/// See the TypeScript declaration.
#[wasm_bindgen(js_name = sanitizeToolResult, skip_typescript)]
pub fn sanitize_tool_result_js(result: JsValue, options: Option<JsValue>) -> Promise {
    to_promise(Box::pin(sanitize_tool_result(result, options)))
}

/// `sanitizeToolResult`, awaited from Rust.
pub async fn sanitize_tool_result(
    result: JsValue,
    options: Option<JsValue>,
) -> Result<JsValue, CtxpackError> {
    let call = Call::new(options.as_ref())?;
    let options = sanitize_options(sanitize_input(&call.opts)?);
    let stash = call.optional_stash()?;
    let table = &call.table;
    // A text the core reads whole is copied in; any other value, text that
    // cannot be JSON among them, is read as every value is: its long base64
    // strings stay in JavaScript.
    let whole_text = result
        .dyn_ref::<JsString>()
        .filter(|s| text_is_read_whole(&String::from(s.slice(0, TEXT_HEAD))));
    let given = match whole_text {
        Some(text) => ToolResult::Text(String::from(text)),
        None => ToolResult::Value(from_js_kept_any_base64(&result, "result", table)?),
    };
    let store = stash.as_deref().map(|s| CallStash::new(s, &call));
    let access = store.as_ref().map(CallStash::access);
    let sanitized = sanitize(access, given, &options, &call.payloads()).await;
    Ok(match sanitized {
        Sanitized::Unchanged => result,
        Sanitized::Text(text) => JsValue::from_str(&text),
        Sanitized::Value(value) => to_js_kept(&value, table),
    })
}
