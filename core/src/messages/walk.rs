//! Walking the images and texts of messages in one fixed order (parts in
//! order, a tool result's nested parts in its place), with JSON paths, so a
//! plan made in one pass can be applied in another.

use crate::json_path::JsonPath;
use crate::messages::{Content, ImagePart, Message, Part};

/// Calls `f(ordinal, path, image)` for every image part of `message`, where
/// `ordinal` counts images within the message from 0.
pub fn for_each_image<'m>(
    message: &'m Message,
    base: &JsonPath,
    f: &mut dyn FnMut(usize, &JsonPath, &'m ImagePart),
) {
    let mut ordinal = 0;
    walk_content(
        &message.content,
        &|i| message.part_path(base, i),
        &mut ordinal,
        f,
    );
}

fn walk_content<'m>(
    content: &'m Content,
    path_of: &dyn Fn(usize) -> JsonPath,
    ordinal: &mut usize,
    f: &mut dyn FnMut(usize, &JsonPath, &'m ImagePart),
) {
    if let Content::Parts(parts) = content {
        for (i, part) in parts.iter().enumerate() {
            match part {
                Part::Image(img) => {
                    f(*ordinal, &path_of(i), img);
                    *ordinal += 1;
                }
                Part::ToolResult(t) => {
                    let nested = t.slot.path(&path_of(i));
                    walk_content(&t.content, &|j| nested.index(j), ordinal, f)
                }
                _ => {}
            }
        }
    }
}

/// Rewrites every image part of `message` through `f(ordinal, part)`, which
/// returns the part itself or its replacement. Same order as [`for_each_image`].
pub fn rewrite_images(message: &mut Message, f: &mut dyn FnMut(usize, Part) -> Part) {
    let mut ordinal = 0;
    rewrite_content(&mut message.content, &mut ordinal, f);
}

fn rewrite_content(
    content: &mut Content,
    ordinal: &mut usize,
    f: &mut dyn FnMut(usize, Part) -> Part,
) {
    if let Content::Parts(parts) = content {
        for slot in parts.iter_mut() {
            match slot {
                Part::Image(_) => {
                    let part = std::mem::replace(slot, Part::Other(serde_json::Value::Null));
                    *slot = f(*ordinal, part);
                    *ordinal += 1;
                }
                Part::ToolResult(t) => rewrite_content(&mut t.content, ordinal, f),
                _ => {}
            }
        }
    }
}

/// Calls `f(path, text)` for every text in `message`: a string content, and
/// every text part (nested tool results included).
pub fn for_each_text(message: &Message, base: &JsonPath, f: &mut dyn FnMut(&JsonPath, &str)) {
    match &message.content {
        Content::Text(s) => f(&message.content_path(base), s),
        Content::Parts(parts) => {
            for (i, part) in parts.iter().enumerate() {
                match part {
                    Part::Text(_) => {
                        if let Some(t) = part.as_text() {
                            f(&message.text_path(base, i), t);
                        }
                    }
                    Part::ToolResult(t) => {
                        walk_text(&t.content, &t.slot.path(&message.part_path(base, i)), f)
                    }
                    _ => {}
                }
            }
        }
        Content::Absent | Content::Null => {}
    }
}

fn walk_text(content: &Content, path: &JsonPath, f: &mut dyn FnMut(&JsonPath, &str)) {
    match content {
        Content::Text(s) => f(path, s),
        Content::Parts(parts) => {
            for (i, part) in parts.iter().enumerate() {
                match part {
                    Part::Text(_) => {
                        if let Some(t) = part.as_text() {
                            f(&path.index(i).key("text"), t);
                        }
                    }
                    Part::ToolResult(t) => walk_text(&t.content, &t.slot.path(&path.index(i)), f),
                    _ => {}
                }
            }
        }
        Content::Absent | Content::Null => {}
    }
}

/// A text or an image, as [`for_each_item`] meets them.
pub enum Item<'m> {
    /// A string content or a text part's text.
    Text(&'m str),
    /// An image part, by its ordinal among the message's images.
    Image(usize),
}

/// Calls `f` for every text and image of `message` in document order (the
/// order of [`for_each_text`] and [`for_each_image`] together), so what a
/// placeholder replaced and what was already a placeholder can be told
/// apart by position.
pub fn for_each_item<'m>(message: &'m Message, f: &mut dyn FnMut(Item<'m>)) {
    let mut ordinal = 0;
    walk_items(&message.content, &mut ordinal, f);
}

fn walk_items<'m>(content: &'m Content, ordinal: &mut usize, f: &mut dyn FnMut(Item<'m>)) {
    match content {
        Content::Text(s) => f(Item::Text(s)),
        Content::Parts(parts) => {
            for part in parts {
                match part {
                    Part::Text(_) => {
                        if let Some(t) = part.as_text() {
                            f(Item::Text(t));
                        }
                    }
                    Part::Image(_) => {
                        f(Item::Image(*ordinal));
                        *ordinal += 1;
                    }
                    Part::ToolResult(t) => walk_items(&t.content, ordinal, f),
                    Part::Other(_) => {}
                }
            }
        }
        Content::Absent | Content::Null => {}
    }
}
