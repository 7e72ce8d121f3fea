//! # ctxpack-boundary
//!
//! What ctxpack's wasm modules share at their boundary with JavaScript:
//! moving values across it (messages read into JSON with long payloads left
//! in JavaScript, results written back with the very same strings), the
//! `CtxpackError` every call throws, promises of Rust futures, the host's
//! event loop, fetching, and reading what JavaScript threw. The main module
//! (crate `ctxpack`) and the extras module (`ctxpack-extras`) each link
//! what they use of it. It builds for `wasm32` only; elsewhere it is empty.
#![deny(missing_docs)]
#![cfg(target_arch = "wasm32")]

pub mod convert;
pub mod error;
pub mod event_loop;
pub mod fetch;
pub mod js_error;
pub mod picture;
pub mod promise;

pub use error::CtxpackError;
