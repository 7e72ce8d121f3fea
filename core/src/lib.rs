//! # ctxpack-core
//!
//! The sans-IO core of ctxpack: parsing, hashing, policy and wire formats.
//! It knows nothing of JavaScript or WebAssembly (no wasm-bindgen, js-sys or
//! web-sys in its dependency tree) and is tested with plain `cargo test`; the
//! `ctxpack` crate is the thin `wasm-bindgen` boundary over it.
//!
//! One folder per job:
//! - [`messages`]: the message model and one module per wire format;
//! - [`media`]: data URLs, MIME sniffing, dimensions, payload text;
//! - [`markdown`]: markdown images (CommonMark) and multimodal parts;
//! - [`history`]: placeholders, compaction, expansion, the history tool;
//! - [`stash`]: the stash contract, its policy and an in-memory backend;
//! - [`tool_results`]: binary out of text, artifact routing, text-only models;
//! - [`budget`]: estimates, provider limits, context-length errors.
//! - [`fit`]: fitting a request to its model: downscaling, re-encoding, stashing.
//! - [`event_loop`]: long work in short tasks, so a page never freezes.
//! - [`calls`]: each exported function's options, read once (checked,
//!   defaulted), and the flow of a call that is more than one job's.
#![deny(missing_docs)]

pub mod body;
pub mod budget;
pub mod calls;
mod error;
pub mod event_loop;
pub mod fit;
#[doc(hidden)]
pub mod fuzzing;
mod hash;
pub mod history;
mod json_path;
pub mod markdown;
pub mod media;
pub mod messages;
mod number;
mod option_error;
pub mod stash;
pub mod tool_results;

pub use error::{quoted, CodedError, ErrorCode, ERROR_CODE_TYPESCRIPT};
pub use hash::{md5_hex, Md5Hex};
pub use json_path::JsonPath;
pub use option_error::OptionError;
