//! # ctxpack
//!
//! Shrinks a chat conversation to what the model needs before each request:
//! markdown images become multimodal parts, images in older messages become
//! `[Picture:history_<md5>]` placeholders while their originals wait in a
//! client-side stash, and raw base64 never rides along in text.
//!
//! This crate is the `wasm-bindgen` boundary only: it converts JavaScript
//! values, calls [`ctxpack_core`] (parsing, hashing, policy and wire formats,
//! tested with plain `cargo test`) and maps errors to the JavaScript
//! `CtxpackError`. It builds for `wasm32` only; on other targets it is empty.
#![deny(missing_docs)]
#![cfg(target_arch = "wasm32")]

mod allocator;
pub mod api;
pub mod stash;

pub use ctxpack_boundary::CtxpackError;
use ctxpack_boundary::{convert, event_loop, promise};
