//! The declaration of `parseMarkdownImages`, which the extras module holds
//! beside the CommonMark parser (see its `exports`).

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const MARKDOWN_TS: &'static str = r#"
/**
 * Finds the images in markdown `text` (CommonMark: images in code are not
 * images; escapes, entities, titles, `<…>` destinations and reference-style
 * images work). Offsets are UTF-16 code units.
 */
export function parseMarkdownImages(text: string): MarkdownImage[];
"#;
