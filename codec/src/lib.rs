//! ctxpack's image codec: decodes PNG, JPEG, GIF, WebP, BMP and TIFF,
//! turns the image upright (EXIF orientation) and into sRGB (ICC profile),
//! resizes with `fast_image_resize`, encodes JPEG and PNG. Built as a wasm
//! module of its own, which the package's JavaScript entry loads the first
//! time an image must change and no browser canvas is there to do it (Node,
//! the VSCode desktop host). The main module never contains it.
//!
//! The codec decides nothing: the core's fitting planner chooses the size,
//! format and quality; this crate carries them out.
#![deny(missing_docs)]

mod color;
mod decode;
mod decoded;
mod encode;
mod error;
mod jpeg;
pub mod limits;
mod resize;
mod sniff;
mod transcode;

pub use error::CodecError;
pub use limits::MAX_SIDE;
pub use transcode::{transcode, Encoded, OutputFormat, Request};

#[cfg(target_arch = "wasm32")]
pub mod exports;
