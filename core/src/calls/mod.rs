//! The exported functions' calls as the boundary makes them: each call's
//! options, given as the caller wrote them (each value converted, nothing
//! decided), are read here once — checked, their defaults filled in — and a
//! call that is more than one job's function runs its flow here. The target
//! a call works to is read by [`crate::budget::resolve_target`].

mod answer;
mod compact;
mod estimate;
mod fit;
mod history_image;
mod multimodal;
mod sanitize;

pub use answer::answer_format;
pub use compact::{compact_options, offload_options, CompactInput, OffloadInput};
pub use estimate::EstimateCall;
pub use fit::{fit_setup, FitInput, FitSetup};
pub use history_image::history_image_dialect;
pub use multimodal::part_options;
pub use sanitize::{
    sanitize_options, sanitize_tool_result, text_is_read_whole, SanitizeInput, Sanitized,
    ToolResult, TEXT_HEAD,
};
