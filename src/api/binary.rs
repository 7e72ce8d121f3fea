//! `sanitizeToolResult` and `routeArtifact`: binary out of text.

use crate::api::call::Call;
use crate::convert::{from_js_kept_any_base64, js_type, to_js_kept};
use crate::promise::to_promise;
use crate::stash::call_backend;
use crate::CtxpackError;
use ctxpack_core::stash::StashConfig;
use ctxpack_core::tool_results::{
    sanitize_targets, target_text, text_may_be_json, text_target, OnWriteFailure, Target,
};
use ctxpack_core::tool_results::{SanitizeOptions, DEFAULT_THRESHOLD_BYTES};
use ctxpack_core::JsonPath;
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

/// How much of a text result is read to tell whether it may be JSON.
const JSON_HEAD: u32 = 64;

fn sanitize_options(opts: &crate::convert::Options) -> Result<SanitizeOptions, CtxpackError> {
    let threshold = opts
        .number("thresholdBytes")?
        .map_or(DEFAULT_THRESHOLD_BYTES, |n| n as usize);
    let mut extra_fields = Vec::new();
    if let Some(arr) = opts.array("fields")? {
        for (i, f) in arr.iter().enumerate() {
            extra_fields.push(f.as_string().ok_or_else(|| {
                CtxpackError::invalid_option(
                    format!("{}[{i}]", opts.path_of("fields")),
                    format!("expected a string, got {}", js_type(&f)),
                )
            })?);
        }
    }
    Ok(SanitizeOptions {
        threshold_bytes: threshold,
        extra_fields,
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
    let sanitize = sanitize_options(&call.opts)?;
    let stash = call.optional_stash()?;
    let table = &call.table;
    // A text that may be JSON is copied in, parsed and written back as
    // text; any other value, text that cannot be JSON among them, is read
    // and written back as every value is: its long base64 strings stay in
    // JavaScript.
    let json_text = result
        .dyn_ref::<JsString>()
        .filter(|s| text_may_be_json(&String::from(s.slice(0, JSON_HEAD))));
    let (target, was_json, is_text) = match json_text {
        Some(text) => {
            let (t, json) = text_target(&String::from(text), JsonPath::root("result"));
            (t, json, true)
        }
        None => (
            Target {
                value: from_js_kept_any_base64(&result, "result", table)?,
                path: JsonPath::root("result"),
                changed: false,
                holds_references: true,
            },
            true,
            false,
        ),
    };
    let mut targets = [target];
    // One instance of the sanitizer for both cases: without a stash there is
    // no backend, the default config and no clock.
    let backend = stash.as_ref().map(|s| call_backend(s, table));
    let (config, now) = match &stash {
        Some(s) => (s.config, s.now()),
        None => (StashConfig::default(), 0.0),
    };
    sanitize_targets(
        backend.as_ref(),
        &config,
        now,
        &mut targets,
        &sanitize,
        OnWriteFailure::Filter,
        &call.payloads(),
    )
    .await;
    let [target] = targets;
    if !target.changed {
        return Ok(result);
    }
    if is_text {
        Ok(JsValue::from_str(&target_text(target, was_json)))
    } else {
        Ok(to_js_kept(&target.value, table))
    }
}
