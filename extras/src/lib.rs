//! ctxpack's extras module: what a page's first compaction does not need,
//! as a wasm module of its own, kept out of the main module's size budget:
//! the CommonMark image parser (pulldown-cmark) with `parseMarkdownImages`,
//! `toMultimodal` (markdown images to content parts) and `hasMultimedia`;
//! `toTextOnly`; `detectFormat` and `formats`; `routeArtifact`;
//! `historyImageTool` and `historyImageTexts`; and the refusal readers
//! `parseProviderError` and `parseContextLengthError`. And the PNG encoder: `drawPicture` draws the
//! picture that stands for a placeholder where an API takes a picture and
//! nothing else, which a compaction of such a place asks for. The main
//! module declares them; the package's JavaScript entry loads this one (on
//! first use in Node, alongside the main module in browsers) and throws its
//! errors as the main module's `CtxpackError`.
#![deny(missing_docs)]

#[cfg(target_arch = "wasm32")]
pub mod detect;
#[cfg(target_arch = "wasm32")]
pub mod exports;
#[cfg(target_arch = "wasm32")]
pub mod multimodal;
#[cfg(target_arch = "wasm32")]
pub mod picture;
#[cfg(target_arch = "wasm32")]
pub mod refusal;
#[cfg(target_arch = "wasm32")]
pub mod route;
#[cfg(target_arch = "wasm32")]
pub mod text_only;
#[cfg(target_arch = "wasm32")]
pub mod tool;
