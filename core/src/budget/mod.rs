//! Job 4: account for it. Image and text token estimates per provider
//! formula (`estimate`), per-provider request limits (`limits`), the target
//! a call works to as its options name it (`target`), the context-length
//! refusals providers send (`context_error`) and every size and image
//! refusal (`provider_error`).

pub(crate) mod context_error;
pub(crate) mod estimate;
mod file_missing;
mod json_size;
pub(crate) mod limits;
mod profiles;
mod provider_error;
mod refusal;
mod request;
mod slack;
mod target;

pub use context_error::{parse_context_length_error, ContextLengthError};
pub use estimate::{
    estimate, image_tokens, message_text_tokens, text_tokens, EstimateReport, ImageEstimate, Tally,
};
pub use json_size::{json_len, json_len_with};
pub use limits::{limits_of, Provider, RequestLimits};
pub use profiles::{
    image_tokens_at, model_ids, model_profile, profile_image_tokens, provider_profile,
    register_model_profile, resolve_profile, seen_size, seen_size_at, BytesOn, Detail, MimeSet,
    ModelProfile, ProfileError, ProfileOverrides, TokenRule, ROWS,
};
pub use provider_error::parse_provider_error;
pub use refusal::{ProviderRefusal, RefusalKind};
pub use request::request_bytes;
pub use slack::{resolve_slack, Slack, SlackOption};
pub use target::{
    required_target, resolve_target, LimitOverrides, ModelOption, ProviderOption, TargetOptions,
};
