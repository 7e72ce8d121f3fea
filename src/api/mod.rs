//! The exported functions, one module per job: each converts its
//! arguments, calls the core and maps errors to `CtxpackError`.

pub mod answer;
mod args;
pub mod binary;
mod call;
mod compact_settings;
#[cfg(feature = "full")]
pub mod fit;
mod full_types;
pub mod history;
pub mod markdown;
pub mod md5;
pub mod messages;
pub mod multimodal;
pub mod picture;
pub mod profile;
pub mod refusal;
#[cfg(feature = "full")]
pub mod repair;
#[cfg(feature = "full")]
pub mod request_body;
mod slack;
mod target;
pub mod text_only;
mod types;
mod upload;
