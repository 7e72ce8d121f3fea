//! ctxpack's markdown module: the CommonMark image parser (pulldown-cmark)
//! as a wasm module of its own, with `toMultimodal` (markdown images to
//! content parts), `routeArtifact`, `historyImageTool`, `historyImageTexts` and
//! the refusal readers `parseProviderError` and `parseContextLengthError`
//! (used by only some apps, and not by a page's first compaction, so kept
//! out of the main module's size budget).
//! The main module leaves them out; the package's JavaScript entry loads
//! this one when first needed (on first use in Node, alongside the main
//! module in browsers), hands its parse function to the main module's
//! exports and throws its argument errors as the main module's
//! `CtxpackError`.
#![deny(missing_docs)]

#[cfg(target_arch = "wasm32")]
pub mod exports;
#[cfg(target_arch = "wasm32")]
pub mod multimodal;
#[cfg(target_arch = "wasm32")]
pub mod refusal;
#[cfg(target_arch = "wasm32")]
pub mod route;
#[cfg(target_arch = "wasm32")]
pub mod tool;
