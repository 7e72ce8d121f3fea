//! Job 2: history images become `[Picture:history_<md5>]` placeholders while
//! their originals wait in the stash; expansion and the `get_history_image`
//! tool give them back.
//!
//! The steps are pure and separately tested: [`compact`] plans and applies a
//! compaction, [`expand`] restores placeholders (whose text
//! [`crate::messages`] writes and finds), [`tool`] describes the tool. [`CompactCall`] runs a
//! compaction end to end over any [`StashBackend`](crate::stash::StashBackend):
//! write, wait for the commit, replace only what committed.

pub(crate) mod answer;
mod answer_texts;
mod breakpoint;
pub(crate) mod call;
mod commit;
pub(crate) mod compact;
mod compact_call;
mod compact_report;
pub(crate) mod digest;
pub(crate) mod expand;
mod flow;
pub(crate) mod known;
mod known_message;
mod known_prefix;
mod listing;
mod lookup;
mod loose;
mod measure;
mod offload;
mod payloads;
mod plan_messages;
mod replace;
mod restore;
pub(crate) mod tool;
mod tool_results;
pub(crate) mod untouched;
mod upkeep;
mod within_limits;

pub use crate::messages::{parse_image_id, placeholder};
pub use crate::stash::Failure;
pub use answer::{ai_sdk_tool_result_takes_images, answer_messages};
pub use answer_texts::{answer_texts, AnswerTexts};
pub use call::{read_call, HistoryImageCall};
pub use compact::{CompactOptions, CompactReport};
pub use compact_call::CompactCall;
pub use digest::Digest;
pub use expand::{ExpandReport, MissingPlaceholder, Restored};
pub use flow::{Changes, Outcome};
pub use known::{
    settle_inputs, settle_inputs_after, settle_inputs_for_expansion, Input, MessageMemo, Settled,
};
pub use known_message::KnownMessage;
pub use known_prefix::KnownPrefix;
pub use lookup::{answer_history_image_call, history_image, tool_image_part, Lang, PartDialect};
pub use offload::{
    forget_file, remember_file, usable_file, Offload, Upload, UploadImage, Uploaded, Uploader,
    DEFAULT_MIN_BYTES, RENEW_BEFORE_MS,
};
pub use payloads::CompactPayloads;
pub use restore::{ExpandCall, LostFile};
pub use tool::{history_image_tool, Dialect, TOOL_DESCRIPTION, TOOL_NAME};
pub use untouched::Untouched;
