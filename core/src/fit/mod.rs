//! Job 5: make a request fit its model. Every image larger than the model
//! reads is brought down to the size it reads at (same tokens, fewer
//! bytes); one over a hard limit — pixels, the many-image rule, bytes — is
//! shrunk and re-encoded until it fits; when there are too many images,
//! tokens or bytes, the oldest history images are stashed as compaction
//! does. The originals of changed images stay in the stash.
//!
//! The planning is pure and works from image headers alone ([`target`],
//! [`attempt`], [`plan`]); pixels are changed by a [`Resizer`] the caller
//! supplies (a browser canvas, the codec module, the app's own function).
//! [`repair`] turns a provider's refusal into the tighter limits a retry
//! must meet; [`RepairCall`] fits to them, or puts back a lost file.

mod attempt;
mod call;
mod commit;
mod flow;
mod inputs;
mod lost_file;
mod measure;
mod offload_after;
mod one_image;
mod plan;
mod planning;
mod repair;
mod repair_call;
mod replace;
mod report;
mod resize;
mod resizer;
mod source;
mod stash_oldest;
mod summary;
mod target;

pub use crate::stash::StashAccess;
pub use attempt::{
    first_attempt, next_attempt, within_bytes, Attempt, MAX_ATTEMPTS, PHOTO_QUALITIES,
    TEXT_QUALITIES,
};
pub use call::{FitCall, FitOptions};
pub use flow::Fitted;
pub use plan::{choose_stash, Account, Limits, Rest, StashChoice, PLACEHOLDER_TOKENS};
pub use repair::{kind_name, repair_profile, Repair, RepairError};
pub use repair_call::{RepairCall, Repaired};
pub use report::{Action, Figures, FitReport, ImageFit, Scale};
pub use resizer::{ResizeFailure, Resizer};
pub use source::{source_target, SourceFacts};
pub use target::{fit_long_edge, image_target, measured_bytes, ImageTarget, Reason};
