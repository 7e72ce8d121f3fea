//! Job 3: binary out of text. Tool results never carry raw base64 into text
//! the model reads ([`sanitize`], stashed through `binary_stash`), artifacts
//! are routed by the model's capabilities (`route`), and text-only models get
//! markdown references instead of image parts (`text_only`). `slots` knows
//! where each wire format keeps its tool results.

pub(crate) mod binary_stash;
mod binary_text;
mod held_payload;
pub(crate) mod route;
pub(crate) mod sanitize;
mod sanitized_text;
pub(crate) mod slots;
pub(crate) mod text_only;

pub use binary_stash::{
    sanitize_targets, target_text, text_may_be_json, text_target, BinaryReport, OnWriteFailure,
    Target,
};
pub use route::{
    decide, route_artifact, Artifact, ArtifactBody, Capabilities, RouteMetadata, RouteResult,
    Routing,
};
pub use sanitize::{SanitizeOptions, DEFAULT_THRESHOLD_BYTES, KNOWN_BINARY_FIELDS};
pub use sanitized_text::{escaped_len, HeldJson, SanitizeMemo, SanitizedText};
pub use text_only::{has_multimedia, message_to_text_only, stash_inline_images, to_text_only};
