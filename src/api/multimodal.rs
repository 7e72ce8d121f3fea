//! The declaration of `toMultimodal`, which the extras module holds (see
//! its `multimodal`): a page's first compaction does not need it.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TO_MULTIMODAL_TS: &'static str = r#"
/**
 * Turns user text with markdown images into ordered content parts: the text
 * before the first image, the image, the text between, … Images that cannot
 * be resolved stay in the text as markdown and are listed in `missing`.
 */
export function toMultimodal(text: string, options?: ToMultimodalOptions): Promise<MultimodalContent>;
"#;
