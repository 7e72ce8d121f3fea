//! The images of a message the model has answered within the message
//! itself: a UIMessage assistant message holds the tool outputs of every
//! step of a loop the browser ran, and those before its last step are
//! history.

use super::part::{Content, Part};
use super::Turn;

/// How many of `message`'s images, from its first (in the order
/// [`for_each_image`](super::walk::for_each_image) meets them), the model
/// has answered within the message itself: in a UIMessage assistant
/// message, those in the tool outputs of its earlier steps (see
/// `ui_message::answered_parts`); none in any other message.
pub fn answered_images(message: &super::Message) -> usize {
    match (message.format(), message.turn(), &message.content) {
        (super::Format::UiMessage, Turn::Model, Content::Parts(parts)) => {
            count_images(&parts[..super::ui_message::answered_parts(parts)])
        }
        _ => 0,
    }
}

/// The images of `parts`, tool results' nested parts included.
fn count_images(parts: &[Part]) -> usize {
    parts
        .iter()
        .map(|part| match part {
            Part::Image(_) => 1,
            Part::ToolResult(t) => match &t.content {
                Content::Parts(nested) => count_images(nested),
                _ => 0,
            },
            Part::Text(_) | Part::Other(_) => 0,
        })
        .sum()
}
