//! The `#[wasm_bindgen]` surface: converts JavaScript values, calls the core,
//! and maps errors to `CtxpackError`. No policy lives here.

mod convert;
mod error;
mod fetch;
mod markdown;
mod messages;
mod multimodal;
mod types;

pub use error::CtxpackError;
