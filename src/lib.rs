//! # ctxpack
//!
//! Shrinks a chat conversation to what the model needs before each request:
//! markdown images become multimodal parts, images in older messages become
//! `[Picture:history_<md5>]` placeholders while their originals wait in a
//! client-side stash, and raw base64 never rides along in text.
//!
//! The crate is a sans-IO core — parsing, hashing, policy and wire formats,
//! tested with plain `cargo test` — and a thin `wasm-bindgen` layer
//! (`bindings`, on `wasm32` only) that converts values, calls the core and
//! maps errors to the JavaScript `CtxpackError`.
#![deny(missing_docs)]

pub mod binary_stash;
pub mod compact;
pub mod context_error;
pub mod error;
pub mod estimate;
pub mod expand;
#[doc(hidden)]
pub mod fuzzing;
pub mod hash;
pub mod heap_sort;
pub mod history;
pub mod history_tool;
pub mod json;
pub mod json_path;
pub mod key_map;
pub mod limits;
pub mod markdown;
pub mod media;
pub mod message;
pub mod multimodal;
pub mod payload;
pub mod placeholder;
pub mod route;
pub mod sanitize;
pub mod stash;
pub mod substring;
pub mod text_only;
pub mod tool_results;
pub mod walk;

#[cfg(target_arch = "wasm32")]
pub mod bindings;

pub use error::ErrorCode;
pub use json_path::JsonPath;
pub use markdown::{parse_markdown_images, MarkdownImage};
pub use media::{DataUrl, DataUrlError};
pub use message::{Content, Format, Message, MessageError, Part, Role};
pub use placeholder::placeholder;
pub use stash::{MemoryBackend, StashBackend, StashConfig};
