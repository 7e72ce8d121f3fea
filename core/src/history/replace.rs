//! Compaction's last step, pure: each image the plan replaces becomes its
//! placeholder (a text part keeping the image part's cache breakpoint and
//! provider options) or its file reference part, in one pass over each
//! message changed.

use crate::messages::placeholder::placeholder;
use crate::messages::walk::rewrite_images;
use crate::messages::{Content, Format, ImagePart, Message, Part};

/// The text part a placeholder takes an image part's place with. It keeps
/// the image part's cache breakpoint (`cache_control`) and provider options
/// (`providerOptions`), so prompt caching sees the same breakpoints.
fn placeholder_part(format: Format, image: &Part, id: &str) -> Part {
    let mut part = Part::text_in(format, placeholder(id));
    if let (Part::Image(ImagePart { wire, .. }), Part::Text(fields)) = (image, &mut part) {
        for key in CARRIED_KEYS {
            if let Some(v) = wire.get(*key) {
                fields.insert((*key).to_owned(), v.clone());
            }
        }
    }
    part
}

/// Fields of an image part its placeholder keeps.
const CARRIED_KEYS: &[&str] = &[
    "cache_control",
    "providerOptions",
    // UIMessage: what becomes `providerOptions` in model messages.
    "providerMetadata",
    // OpenAI Responses.
    "prompt_cache_breakpoint",
];

/// Replaces each image named in `replacements` ((message, image ordinal),
/// md5) with its placeholder, and each named in `references` with that
/// file reference part. Returns, per message, whether it changed. With
/// `collapse_text`, a changed message left with only plain text parts
/// becomes one string, the texts joined by a space.
pub fn apply_compaction(
    messages: &mut [Message],
    replacements: &[((usize, usize), String)],
    references: &[((usize, usize), serde_json::Value)],
    collapse_text: bool,
) -> Vec<bool> {
    let mut changed = vec![false; messages.len()];
    // Each message once, its images looked up among the replacements (a
    // few dozen: a scan, and no sort compiled for it); in one pass, so each
    // image keeps its ordinal.
    let touched = replacements
        .iter()
        .map(|r| r.0)
        .chain(references.iter().map(|r| r.0));
    for (m, _) in touched {
        if changed.get(m) != Some(&false) {
            continue;
        }
        let Some(message) = messages.get_mut(m) else {
            continue;
        };
        let format = message.format();
        rewrite_images(message, &mut |ordinal, part| {
            if let Some(r) = references.iter().find(|r| r.0 == (m, ordinal)) {
                return Part::Other(r.1.clone());
            }
            match replacements.iter().find(|r| r.0 == (m, ordinal)) {
                Some(r) => placeholder_part(format, &part, &r.1),
                None => part,
            }
        });
        if collapse_text {
            collapse(&mut message.content);
        }
        changed[m] = true;
    }
    changed
}

/// Folds all-plain-text parts into one string.
fn collapse(content: &mut Content) {
    if let Content::Parts(parts) = content {
        if !parts.is_empty() && parts.iter().all(Part::is_plain_text) {
            let text = parts
                .iter()
                .filter_map(Part::as_text)
                .collect::<Vec<_>>()
                .join(" ");
            *content = Content::Text(text);
        }
    }
}
