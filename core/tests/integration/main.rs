//! The core's integration tests, one binary: each module is one area, and
//! they share `common` (fixtures, stashes, codecs). One binary links the core
//! and its test dependencies once, and its tests run side by side.

mod cache_steps;
mod common;
mod compact_call;

mod fit;
mod fit_loops;
mod fit_phases;
mod fit_repeats;
mod fit_slices;
mod fit_sources;
mod forged_refs;
mod formats;
mod formats_text_only;
mod fuzz_regressions;
mod held_tool_texts;
mod history;
mod history_stash;
pub(crate) mod known_messages;
mod loop_fetch_back;
mod loop_properties;
pub(crate) mod loops;
mod markdown_properties;
mod markdown_spec;
mod media_fixtures;
mod memo_serves;
mod offload;
mod offload_formats;
mod offload_loops;
mod profiles;
pub(crate) mod properties;
mod refusals;
mod request_body;
mod request_body_bytes;
mod resent;
mod route_properties;
mod shapes;
mod tool_results;
mod ui_loops;
