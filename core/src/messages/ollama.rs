//! Ollama chat messages: `{role, content: string, images?: [base64 | bytes],
//! thinking?, tool_calls?, tool_name?}`. Images live outside `content`, so a
//! message is read as parts: the content text, the placeholder lines at its
//! end, then one image part `{image, index}` per entry of `images` (`index`
//! is where it sits in `images`, counting the images already stashed before
//! it).
//!
//! Compaction takes a history image out of `images` and appends its
//! placeholder to `content` on a line of its own, `\n[Picture:history_<md5>]`;
//! `images` stays, even empty. Expansion reads those trailing lines back as
//! placeholders, removes each one whose image the stash holds, and puts the
//! image back in `images` at the index its stashed part recorded, the images
//! still in `images` filling the other places in order: the same `content`
//! string and the same `images` order as before. A placeholder typed inside
//! the text (not on a trailing line) also brings its image back into
//! `images`, and leaves the text around it.

use super::decode::{message_object, required_role};
use super::evidence::Evidence;
use super::model::{NewParts, PartKind, Slot, SplitLayout, WireFormat};
use super::part::Content;
use super::placeholder::{placeholder, split_placeholders, Segment};
use super::shape::ShapeSpec;
use super::tool_call::{obj, CallShape, ToolAnswer};
use super::tool_slots::tool_message_slots;
use super::{Format, ImagePart, ImageShape, Message, MessageError, Part};
use crate::json_path::JsonPath;
use serde_json::{Map, Value};

/// One entry of a message's `images`, as the part `{image, index}` (`index`: its place in `images`).
pub(super) const IMAGE: ImageShape = ImageShape::new(&ShapeSpec {
    own_format_only: true,
    ..ShapeSpec::base64("OllamaImage", None, "image", None)
});

/// Evidence of it: an `images` array or a `tool_name` on a role-and-content
/// message.
const EVIDENCE: Evidence = Evidence {
    shape: Some(|m| {
        m.plain_object()
            && !m.is_item()
            && !m.content.is_some_and(Value::is_object)
            && (m.images.is_some_and(Value::is_array) || m.tool_name)
    }),
    ..Evidence::NONE
};

/// The key of a request body holding the messages (`/api/chat`).
pub(super) const MESSAGES_KEY: &str = "messages";

/// Ollama chat messages.
pub(super) static WIRE: WireFormat = WireFormat {
    format: Format::Ollama,
    payload_keys: &["images"],
    decode: Some(decode),
    classify,
    read_tool_result: None,
    encode_split: Some(encode),
    call: Ok(CallShape {
        wrapper: None,
        id: &["id"],
        name: &["function", "name"],
        arguments: &["function", "arguments"],
    }),
    answer,
    evidence: EVIDENCE,
    tool_slots: tool_message_slots,
    role_of: super::tool_slots::role_field,
    // Whose turn a message is: by its role.
    turn: super::turn::by_role,
    tuples: false,
};

/// How it writes new parts, and the image shapes it holds.
pub(super) static NEW_PARTS: NewParts = NewParts {
    new_part: image_part,
    new_shape: IMAGE,
    shapes: &[IMAGE],
    text_type: Some("text"),
    string_content: true,
    file_parts: false,
    tool_dialect: None,
    foreign_parts: false,
    cache_breakpoint: None,
};

/// Its API takes no image by file reference (see `file_ref`).
pub(super) const FILE_REFS: Option<super::file_ref::FileRefs> = None;

/// No file parts (see `Format::has_file_parts`): a line naming the file.
pub(super) fn file_part(filename: &str, mime: &str, _payload: &str) -> Value {
    Format::Ollama.text_part(format!("[{filename} ({mime})]"))
}

/// Its answer to a tool call: a `tool` message with the text and the image
/// in its `images`.
fn answer(a: &ToolAnswer<'_>) -> Vec<Value> {
    let mut fields = vec![
        ("role", "tool".into()),
        ("tool_name", a.name.into()),
        ("content", a.text.into()),
    ];
    if let Some((_, data)) = a.image {
        fields.push(("images", Value::Array(vec![data.into()])));
    }
    vec![obj(fields)]
}

/// A new image, `{image}`: an entry of the message's `images`, not a part.
fn image_part(_mime: &str, payload: &str, _detail: Option<&str>) -> Value {
    let mut m = Map::new();
    m.insert("image".into(), payload.into());
    Value::Object(m)
}

/// Ollama has no content parts: its images are read by `decode`.
fn classify(_part: &Map<String, Value>, _path: &JsonPath) -> Result<PartKind, MessageError> {
    Ok(PartKind::Other)
}

/// Reads one Ollama message.
fn decode(value: Value, path: &JsonPath) -> Result<Message, MessageError> {
    let mut map = message_object(value, path)?;
    let role = required_role(&map, path)?;
    let had_content = map.contains_key("content");
    let text = match map.get_mut("content").map(std::mem::take) {
        None => String::new(),
        Some(Value::String(s)) => s,
        Some(other) => {
            return Err(MessageError::invalid(
                &path.key("content"),
                format!(
                    "an Ollama message's content is a string, not {}",
                    super::decode::kind_of(&other)
                ),
            ))
        }
    };
    let had_images = map.contains_key("images");
    let images = match map.get_mut("images").map(std::mem::take) {
        None => Vec::new(),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(MessageError::invalid(
                &path.key("images"),
                format!(
                    "`images` is an array of base64 images, not {}",
                    super::decode::kind_of(&other)
                ),
            ))
        }
    };
    let (body, lines) = split_appended(&text);
    let mut parts = vec![Part::text_in(Format::Ollama, body.to_owned())];
    parts.extend(
        lines
            .iter()
            .map(|id| Part::text_in(Format::Ollama, placeholder(id))),
    );
    for (j, image) in images.into_iter().enumerate() {
        if !image.is_string() {
            return Err(MessageError::invalid(
                &path.key("images").index(j),
                "an image is base64 text or bytes",
            ));
        }
        let mut wire = Map::new();
        wire.insert("image".into(), image);
        wire.insert("index".into(), (lines.len() + j).into());
        parts.push(Part::Image(ImagePart { wire, shape: IMAGE }));
    }
    let layout = SplitLayout {
        text_key: "content",
        items_key: "images",
        appended: lines.len(),
        items: parts.len() - 1 - lines.len(),
        had_text: had_content,
        had_items: had_images,
    };
    Ok(Message::lifted(
        &WIRE,
        role,
        Content::Parts(parts),
        Value::Object(map),
        Slot::Split(layout),
    ))
}

/// Splits the placeholder lines off the end of `text`: the text before
/// them, and their ids in order.
fn split_appended(text: &str) -> (&str, Vec<String>) {
    let mut end = text.len();
    let mut ids = Vec::new();
    while let Some(line_start) = text[..end].rfind("\n[Picture:history_") {
        let line = &text[line_start + 1..end];
        match split_placeholders(line).as_slice() {
            // Exactly as compaction writes it (lowercase), so it is written back the same.
            [Segment::Placeholder(id)] if placeholder(id) == line => {
                ids.push(id.clone());
                end = line_start;
            }
            _ => break,
        }
    }
    ids.reverse();
    (&text[..end], ids)
}

/// True for a text that is exactly one placeholder, as compaction writes it.
fn is_placeholder_line(text: &str) -> bool {
    matches!(split_placeholders(text).as_slice(), [Segment::Placeholder(id)] if placeholder(id) == text)
}

/// The part `{image, index?}` an image part is in Ollama's messages; a part
/// of another shape gives its inline payload (nothing for a URL).
fn as_ollama_image(img: ImagePart) -> Map<String, Value> {
    if img.shape == IMAGE {
        return img.wire;
    }
    let mut wire = Map::new();
    if let Some((_, payload)) = img.source().inline() {
        wire.insert("image".into(), payload.into());
    }
    wire
}

/// Writes `content` back into `map` as the `content` string and the
/// `images` array.
fn encode(layout: SplitLayout, map: &mut Map<String, Value>, content: Content) {
    let (text, images) = match content {
        Content::Parts(parts) => flatten(layout, parts),
        Content::Text(text) => (text, Vec::new()),
        Content::Absent | Content::Null => (String::new(), Vec::new()),
    };
    if layout.had_text || !text.is_empty() {
        map.insert("content".into(), text.into());
    }
    if layout.had_items || !images.is_empty() {
        map.insert("images".into(), Value::Array(images));
    }
}

/// The text of `parts` (placeholders after the first part on lines of
/// their own) and their images, in the order of `images`.
fn flatten(layout: SplitLayout, parts: Vec<Part>) -> (String, Vec<Value>) {
    let mut text = String::new();
    let mut found: Vec<Map<String, Value>> = Vec::new();
    for (i, part) in parts.into_iter().enumerate() {
        match part {
            Part::Text(_) => {
                let t = part.as_text().unwrap_or_default();
                if i > 0 && is_placeholder_line(t) {
                    text.push('\n');
                }
                text.push_str(t);
            }
            Part::Image(img) => found.push(as_ollama_image(img)),
            Part::ToolResult(_) | Part::Other(_) => {}
        }
    }
    // The images read with the message are the last ones; the others were
    // restored and go back to the index they recorded.
    let restored = found.len().saturating_sub(layout.items);
    let mut slots: Vec<Option<Value>> = vec![None; found.len()];
    let mut rest = Vec::new();
    for (k, mut wire) in found.into_iter().enumerate() {
        let Some(image) = wire.remove("image") else {
            continue;
        };
        let index = wire.get("index").and_then(Value::as_u64);
        match index.and_then(|i| usize::try_from(i).ok()) {
            Some(i) if k < restored && slots.get(i).is_some_and(Option::is_none) => {
                if let Some(slot) = slots.get_mut(i) {
                    *slot = Some(image);
                }
            }
            _ => rest.push(image),
        }
    }
    let mut rest = rest.into_iter();
    let images = slots
        .into_iter()
        .filter_map(|slot| slot.or_else(|| rest.next()))
        .collect();
    (text, images)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::decode_messages;
    use crate::messages::walk::for_each_image;
    use serde_json::json;

    const A: &str = "0123456789abcdef0123456789abcdef";
    const B: &str = "fedcba9876543210fedcba9876543210";

    fn read(values: Vec<Value>) -> Result<Vec<Message>, MessageError> {
        decode_messages(values, Some(Format::Ollama), &JsonPath::root("messages")).map(|(_, m)| m)
    }

    fn round_trip(v: Value) -> Message {
        let msgs = read(vec![v.clone()]).unwrap();
        let back = msgs[0].clone().into_wire();
        assert_eq!(back, v);
        assert_eq!(back.to_string(), v.to_string());
        msgs.into_iter().next().unwrap()
    }

    #[test]
    fn reads_images_as_parts_with_their_paths_and_round_trips() {
        let m = round_trip(
            json!({"role":"user","content":"what is this?","images":["AAAA","R0lG"],"x":1}),
        );
        let mut seen = Vec::new();
        for_each_image(
            &m,
            &JsonPath::root("messages").index(0),
            &mut |_, p, img| {
                seen.push((
                    p.to_string(),
                    img.source().inline().map(|(_, d)| d.to_owned()),
                ));
            },
        );
        assert_eq!(
            seen,
            vec![
                ("messages[0].images[0]".into(), Some("AAAA".into())),
                ("messages[0].images[1]".into(), Some("R0lG".into())),
            ]
        );
        round_trip(
            json!({"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{}}}]}),
        );
        round_trip(json!({"role":"tool","tool_name":"f","content":"{}"}));
        round_trip(json!({"role":"user","images":["AAAA"]}));
        round_trip(
            json!({"role":"user","content":format!("a\n{}\n{}", placeholder(A), placeholder(B)),"images":[]}),
        );
        round_trip(
            json!({"role":"user","content":format!("\n{}", placeholder(A)),"images":["AAAA"]}),
        );
        round_trip(json!({"role":"user","content":format!("{} typed", placeholder(A))}));
    }

    #[test]
    fn trailing_placeholder_lines_are_parts_of_their_own() {
        let text = format!(
            "look\n{}\nnot one [Picture:history_x]\n{}\n{}",
            placeholder(A),
            placeholder(B),
            placeholder(A)
        );
        let (body, ids) = split_appended(&text);
        assert_eq!(
            body,
            format!("look\n{}\nnot one [Picture:history_x]", placeholder(A))
        );
        assert_eq!(ids, vec![B.to_owned(), A.to_owned()]);
        assert_eq!(split_appended("plain"), ("plain", vec![]));
        let upper = format!("x\n{}", placeholder(&A.to_uppercase()));
        assert_eq!(split_appended(&upper), (upper.as_str(), vec![]));
    }

    #[test]
    fn restored_images_go_back_to_their_recorded_index() {
        let layout = SplitLayout {
            text_key: "content",
            items_key: "images",
            appended: 2,
            items: 1,
            had_text: true,
            had_items: true,
        };
        let image = |v: &str, index: Option<u64>| {
            let mut wire = Map::new();
            wire.insert("image".into(), v.into());
            if let Some(i) = index {
                wire.insert("index".into(), i.into());
            }
            Part::Image(ImagePart { wire, shape: IMAGE })
        };
        let parts = vec![
            Part::text_in(Format::Ollama, "hi".into()),
            image("A", Some(0)),
            image("C", Some(2)),
            image("B", Some(2)),
        ];
        let (text, images) = flatten(layout, parts);
        assert_eq!(text, "hi");
        assert_eq!(images, vec![json!("A"), json!("B"), json!("C")]);
        // Out of range or taken: the first free place.
        let parts = vec![
            Part::text_in(Format::Ollama, "hi".into()),
            image("X", Some(9)),
            image("Y", None),
            image("B", Some(0)),
        ];
        let (_, images) = flatten(layout, parts);
        assert_eq!(images, vec![json!("X"), json!("Y"), json!("B")]);
    }

    #[test]
    fn refuses_wrong_shapes_with_their_paths() {
        let err = |v| match read(vec![v]) {
            Err(MessageError::InvalidMessage { path, .. }) => path,
            other => format!("{other:?}"),
        };
        assert_eq!(err(json!({"content":"x"})), "messages[0]");
        assert_eq!(
            err(json!({"role":"user","content":["x"]})),
            "messages[0].content"
        );
        assert_eq!(
            err(json!({"role":"user","content":"x","images":"AAAA"})),
            "messages[0].images"
        );
        assert_eq!(
            err(json!({"role":"user","content":"x","images":["AAAA",1]})),
            "messages[0].images[1]"
        );
    }
}
