//! TypeScript declarations of the values that cross the boundary. They sit
//! next to the Rust that builds those values; the `.d.ts` is generated from
//! them and type-checked by a TypeScript consumer in the tests.

use wasm_bindgen::prelude::*;

/// The `Format` union, made from the core's format list.
#[wasm_bindgen(typescript_custom_section)]
const FORMAT_TS: &'static str = ctxpack_core::messages::FORMAT_UNION_TS;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** One image found in markdown text; offsets are UTF-16 code units, so `text.slice(start, end)` is the image's markdown. */
export interface MarkdownImage {
  alt: string;
  url: string;
  title?: string;
  start: number;
  end: number;
}

/** What a resolver returns for a source ctxpack cannot fetch itself. */
export type ResolvedSource = Uint8Array | ArrayBuffer | string | null | undefined;

/** Options of {@link toMultimodal}. */
export interface ToMultimodalOptions {
  /** Resolves `file:`, `vscode-resource:`, relative paths and other non-fetchable URLs. */
  resolve?: (url: string) => ResolvedSource | Promise<ResolvedSource>;
  /** OpenAI `detail` written on image parts. */
  detail?: "auto" | "low" | "high";
  /** Output format; default `"openai"`. */
  format?: Format;
  /** Keep each image's alt text in the text as `[alt]`; default `true`. */
  keepAlt?: boolean;
}

/** A content part in one of the supported formats. */
export type ContentPart = { type: string; [key: string]: unknown };

/** An image of the text that stayed as markdown, and why. */
export interface MissingImage {
  url: string;
  code: "INVALID_DATA_URL" | "NOT_AN_IMAGE" | "UNRESOLVED";
  reason: string;
  start: number;
  end: number;
}

/** A declared MIME type that the image's bytes contradicted. */
export interface MimeCorrection {
  url: string;
  declared: string;
  actual: string;
}

/** What one resolved image turned out to be. */
export interface ImageInfo {
  url: string;
  mime: string;
  width?: number;
  height?: number;
  bytes: number;
}

/** The result of {@link toMultimodal}. */
export interface MultimodalContent {
  content: ContentPart[];
  images: ImageInfo[];
  missing: MissingImage[];
  corrected: MimeCorrection[];
}
"#;
