//! ctxpack's markdown module: the CommonMark image parser (pulldown-cmark)
//! as a wasm module of its own. The main module leaves the parser out; the
//! package's JavaScript entry loads this one when markdown is first needed
//! (on first use in Node, alongside the main module in browsers) and hands
//! its parse function to the main module's exports.
#![deny(missing_docs)]

#[cfg(target_arch = "wasm32")]
pub mod exports;
