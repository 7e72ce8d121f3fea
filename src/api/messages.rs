//! The declarations of `detectFormat` and `formats`, which the extras
//! module answers.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const DETECT_FORMAT_TS: &'static str = r#"
/**
 * Reads every message (throwing `INVALID_MESSAGE` with the JSON path of the
 * first one in no known shape) and returns the detected or given format.
 */
export function detectFormat(messages: readonly unknown[], options?: { format?: Format }): Format;

/** The name of every format ctxpack reads and writes, in the order of its format list. */
export function formats(): Format[];
"#;
