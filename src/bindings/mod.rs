//! The `#[wasm_bindgen]` surface: converts JavaScript values, calls the core,
//! and maps errors to `CtxpackError`. No policy lives here.

pub mod binary;
pub mod convert;
pub mod error;
pub mod external;
pub mod fetch;
pub mod history;
pub mod markdown;
pub mod md5;
pub mod messages;
pub mod multimodal;
pub mod promise;
pub mod stash;
pub mod text_only;
pub mod types;

pub use error::CtxpackError;

/// The wasm build's allocator: Talc, which is smaller (about 7 KB less
/// module) and faster than the standard library's default dlmalloc.
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
