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

/// Whether `message` holds any image part (nested tool results included):
/// a walk that makes no paths.
pub fn has_image(message: &Message) -> bool {
    let mut any = false;
    for_each_item(message, &mut |item| any |= matches!(item, Item::Image(_)));
    any
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
    texts(message, Some(base), &mut |path, text| {
        if let Some(path) = path {
            f(path, text);
        }
    });
}

/// Calls `f(text)` for every text [`for_each_text`] meets, in the same
/// order, without making their paths (most callers only read the text, and
/// a path is made for every text of every message).
pub fn for_each_text_without_paths(message: &Message, f: &mut dyn FnMut(&str)) {
    texts(message, None, &mut |_, text| f(text));
}

/// The walk of [`for_each_text`]: paths made only when there is a `base`.
fn texts(message: &Message, base: Option<&JsonPath>, f: &mut dyn FnMut(Option<&JsonPath>, &str)) {
    match &message.content {
        Content::Text(s) => f(base.map(|b| message.content_path(b)).as_ref(), s),
        Content::Parts(parts) => {
            for (i, part) in parts.iter().enumerate() {
                match part {
                    Part::Text(_) => {
                        if let Some(t) = part.as_text() {
                            f(base.map(|b| message.text_path(b, i)).as_ref(), t);
                        }
                    }
                    Part::ToolResult(t) => {
                        let path = base.map(|b| t.slot.path(&message.part_path(b, i)));
                        walk_text(&t.content, path.as_ref(), f)
                    }
                    _ => {}
                }
            }
        }
        Content::Absent | Content::Null => {}
    }
}

fn walk_text(
    content: &Content,
    path: Option<&JsonPath>,
    f: &mut dyn FnMut(Option<&JsonPath>, &str),
) {
    match content {
        Content::Text(s) => f(path, s),
        Content::Parts(parts) => {
            for (i, part) in parts.iter().enumerate() {
                match part {
                    Part::Text(_) => {
                        if let Some(t) = part.as_text() {
                            f(path.map(|p| p.index(i).key("text")).as_ref(), t);
                        }
                    }
                    Part::ToolResult(t) => {
                        let nested = path.map(|p| t.slot.path(&p.index(i)));
                        walk_text(&t.content, nested.as_ref(), f)
                    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::{decode_messages, Format};
    use serde_json::json;

    #[test]
    fn texts_without_paths_are_the_texts_with_paths_in_order() {
        let values = [
            json!({"role": "user", "content": "plain"}),
            json!({"role": "user", "content": [
                {"type": "text", "text": "first"},
                {"type": "image_url", "image_url": {"url": "https://example.invalid/a.png"}},
                {"type": "text", "text": "second"}
            ]}),
            json!({"role": "user", "content": [
                {"type": "tool-result", "toolCallId": "c", "toolName": "t", "output": {"type": "content", "value": [
                    {"type": "text", "text": "nested"}
                ]}}
            ]}),
        ];
        for (format, values, expected) in [
            (
                Format::OpenAi,
                values[..2].to_vec(),
                vec!["plain", "first", "second"],
            ),
            (Format::AiSdk, values[2..].to_vec(), vec!["nested"]),
        ] {
            let (_, messages) =
                decode_messages(values, Some(format), &JsonPath::root("messages")).unwrap();
            let mut with = Vec::new();
            let mut without = Vec::new();
            for (i, m) in messages.iter().enumerate() {
                for_each_text(m, &JsonPath::root("messages").index(i), &mut |p, t| {
                    with.push((p.to_string(), t.to_owned()))
                });
                for_each_text_without_paths(m, &mut |t| without.push(t.to_owned()));
            }
            assert_eq!(without, expected);
            assert_eq!(
                with.iter().map(|w| w.1.clone()).collect::<Vec<_>>(),
                without
            );
        }
    }
}
