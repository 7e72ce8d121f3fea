//! Reversing compaction: placeholders whose originals the stash still holds
//! become image parts again — the exact original part when its template was
//! kept, otherwise the canonical part of the format.

use crate::json_path::JsonPath;
use crate::messages::image::{new_image_part, ImageTemplate};
use crate::messages::placeholder::{placeholder, split_placeholders, Segment};
use crate::messages::walk::for_each_text;
use crate::messages::{Content, Format, ImageShape, Message, Part};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// An original read back from the stash.
#[derive(Debug, Clone, PartialEq)]
pub struct Restored {
    /// MIME type.
    pub mime: String,
    /// Base64 payload.
    pub payload: String,
    /// The original part without its payload, when it was kept.
    pub template: Option<ImageTemplate>,
}

/// A placeholder that stays, because its image is gone.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingPlaceholder {
    /// The md5 id.
    pub id: String,
    /// JSON path of the text holding it.
    pub path: String,
}

/// The distinct placeholder ids in `messages`, in order of appearance.
pub fn collect_placeholders(messages: &[Message]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let root = JsonPath::root("messages");
    for (i, m) in messages.iter().enumerate() {
        for_each_text(m, &root.index(i), &mut |_, text| {
            for seg in split_placeholders(text) {
                if let Segment::Placeholder(id) = seg {
                    if seen.insert(id.clone()) {
                        out.push(id);
                    }
                }
            }
        });
    }
    out
}

/// Where each placeholder whose id is not in `restored` appears.
pub fn missing_placeholders(
    messages: &[Message],
    restored: &BTreeMap<String, Restored>,
) -> Vec<MissingPlaceholder> {
    let mut out = Vec::new();
    let root = JsonPath::root("messages");
    for (i, m) in messages.iter().enumerate() {
        for_each_text(m, &root.index(i), &mut |path, text| {
            for seg in split_placeholders(text) {
                if let Segment::Placeholder(id) = seg {
                    if !restored.contains_key(&id) {
                        out.push(MissingPlaceholder {
                            id,
                            path: path.to_string(),
                        });
                    }
                }
            }
        });
    }
    out
}

/// Puts originals back in place of their placeholders. Returns, per message,
/// whether it changed.
pub fn apply_expansion(
    messages: &mut [Message],
    format: Format,
    restored: &BTreeMap<String, Restored>,
) -> Vec<bool> {
    messages
        .iter_mut()
        .map(|m| expand_content(&mut m.content, format, restored))
        .collect()
}

fn expand_content(
    content: &mut Content,
    format: Format,
    restored: &BTreeMap<String, Restored>,
) -> bool {
    match content {
        Content::Text(text) => {
            if !mentions_restorable(text, restored) {
                return false;
            }
            let parts = split_text(text, format, restored, true);
            *content = Content::Parts(parts);
            true
        }
        Content::Parts(parts) => {
            let mut changed = false;
            let old = std::mem::take(parts);
            for part in old {
                match part {
                    Part::Text(_)
                        if part
                            .as_text()
                            .is_some_and(|t| mentions_restorable(t, restored)) =>
                    {
                        let text = part.as_text().unwrap_or_default().to_owned();
                        parts.extend(split_text(&text, format, restored, false));
                        changed = true;
                    }
                    Part::ToolResult(mut t) => {
                        changed |= expand_content(&mut t.content, format, restored);
                        parts.push(Part::ToolResult(t));
                    }
                    other => parts.push(other),
                }
            }
            changed
        }
        Content::Absent | Content::Null => false,
    }
}

fn mentions_restorable(text: &str, restored: &BTreeMap<String, Restored>) -> bool {
    split_placeholders(text)
        .iter()
        .any(|s| matches!(s, Segment::Placeholder(id) if restored.contains_key(id)))
}

enum Piece {
    Text(String),
    Image(String),
}

/// Splits a text into text and image parts. `collapsed` strings lose the one
/// space that folding put between a placeholder and its neighbours.
fn split_text(
    text: &str,
    format: Format,
    restored: &BTreeMap<String, Restored>,
    collapsed: bool,
) -> Vec<Part> {
    let mut pieces: Vec<Piece> = Vec::new();
    for seg in split_placeholders(text) {
        let piece = match seg {
            Segment::Placeholder(id) if restored.contains_key(&id) => Piece::Image(id),
            Segment::Placeholder(id) => Piece::Text(placeholder(&id)),
            Segment::Text(t) => Piece::Text(t.to_owned()),
        };
        match (pieces.last_mut(), piece) {
            (Some(Piece::Text(prev)), Piece::Text(t)) => prev.push_str(&t),
            (_, p) => pieces.push(p),
        }
    }
    if collapsed {
        let n = pieces.len();
        for i in 0..n {
            let after_image = i > 0 && matches!(pieces[i - 1], Piece::Image(_));
            let before_image = i + 1 < n && matches!(pieces[i + 1], Piece::Image(_));
            if let Piece::Text(t) = &mut pieces[i] {
                if after_image && t.starts_with(' ') {
                    t.remove(0);
                }
                if before_image && t.ends_with(' ') {
                    t.pop();
                }
            }
        }
    }
    pieces
        .into_iter()
        .filter_map(|p| match p {
            Piece::Text(t) if t.is_empty() => None,
            Piece::Text(t) => Some(Part::text(t)),
            Piece::Image(id) => restored.get(&id).map(|r| image_part(format, r)),
        })
        .collect()
}

fn image_part(format: Format, r: &Restored) -> Part {
    let value = match &r.template {
        Some(t) if shape_fits(format, t.shape) => Value::Object(t.fill(&r.mime, &r.payload)),
        _ => new_image_part(format, &r.mime, &r.payload, None),
    };
    let shape = match &r.template {
        Some(t) if shape_fits(format, t.shape) => t.shape,
        _ => canonical_shape(format),
    };
    match value {
        Value::Object(wire) => Part::Image(crate::messages::ImagePart { wire, shape }),
        other => Part::Other(other),
    }
}

/// True when a part of `shape` belongs in messages of `format`.
pub fn shape_fits(format: Format, shape: ImageShape) -> bool {
    use ImageShape::*;
    match format {
        Format::OpenAi => matches!(shape, ImageUrlObject),
        Format::Anthropic => matches!(shape, AnthropicBase64),
        Format::AiSdk => matches!(shape, AiSdkImage | AiSdkData),
        Format::LangChain => matches!(
            shape,
            ImageUrlObject | ImageUrlString | LangChainData | LangChainBase64
        ),
    }
}

fn canonical_shape(format: Format) -> ImageShape {
    match format {
        Format::OpenAi | Format::LangChain => ImageShape::ImageUrlObject,
        Format::Anthropic => ImageShape::AnthropicBase64,
        Format::AiSdk => ImageShape::AiSdkImage,
    }
}

/// Counts an expansion reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExpandReport {
    /// The wire format.
    pub format: &'static str,
    /// Distinct images put back.
    pub restored: usize,
    /// Placeholders left because their image is gone (expired, evicted, corrupted, never stashed).
    pub missing: Vec<MissingPlaceholder>,
    /// Of the missing, records found corrupted (their md5 no longer matches).
    pub corrupted: usize,
    /// Serialized JSON size before, in bytes.
    pub bytes_before: u64,
    /// Serialized JSON size after, in bytes.
    pub bytes_after: u64,
}
