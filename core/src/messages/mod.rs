//! The neutral message model and one module per wire format.
//!
//! A [`Message`] keeps the caller's wire value and lifts out only what
//! ctxpack works on — the role, the content and, inside it, text, image and
//! tool-result parts — so every field ctxpack does not know survives, in its
//! original order. Images stay where they are in the wire value; an
//! [`ImagePart`] reads them in place, so a payload is never copied.

mod decode;
mod detect;
mod error;
mod evidence;
mod file_ref;
mod format;
mod host_drawing;
pub(crate) mod image;
mod image_template;
mod list;

/// Declares each format's module, named by its line in the list.
macro_rules! format_modules {
    ($($(#[doc = $doc:literal])* $variant:ident => $module:ident, $name:literal, [$($alias:literal),*];)*) => {
        $(mod $module;)*
    };
}
list::format_list!(format_modules);
mod answered;
mod model;
mod part;
pub(crate) mod picture;
pub(crate) mod placeholder;
mod registry;
pub(crate) mod restorable;
mod shape;
#[cfg(test)]
mod test_support;
mod tool_call;
mod tool_slots;
mod turn;
pub(crate) mod walk;

pub use answered::answered_images;
pub use detect::{Detection, Verdict};
pub use error::MessageError;
pub use file_ref::{names_file, FileProvider, FileRef};
pub use format::{Format, FORMAT_UNION_TS};
pub use image::{ImagePart, ImageShape, ImageSource};
pub use model::{Message, Role};
pub use part::{Content, Part, ToolResultPart};
pub use picture::picture_of;
pub use placeholder::{parse_image_id, placeholder};
pub use registry::{
    answer_tool_call, call_shape, decode_messages, detect_format, is_payload_key, native_shapes,
    new_file_part, new_image_part, new_image_shape, raw_role, raw_turn, tool_result_slots,
    verdict_after, verdict_of, TOOL_DIALECT_UNION_TS,
};
pub use tool_call::{CallShape, ToolAnswer, ToolDialect};
pub use tool_slots::{Seg, SlotKind, ToolSlot};
pub use turn::Turn;
