//! Reversing compaction: placeholders whose originals the stash still holds
//! become image parts again — each occurrence the exact part it replaced
//! when its template was kept (whatever format the messages now look like),
//! otherwise the canonical part of the format. The n-th placeholder of an
//! image, in document order, takes the n-th template the record holds. A
//! file reference an offloaded image was sent as counts as one of its
//! occurrences, and becomes the image again too.

use crate::json_path::JsonPath;
use crate::messages::image::ImageTemplate;
use crate::messages::new_image_part;
use crate::messages::placeholder::{placeholder, placeholder_ids, split_placeholders, Segment};
use crate::messages::walk::{for_each_text, for_each_text_without_paths};
use crate::messages::{Content, Format, Message, Part};
use serde_json::Map;
use serde_json::Value;
use std::collections::BTreeSet;

/// An original read back from the stash.
#[derive(Debug, Clone, PartialEq)]
pub struct Restored {
    /// MIME type.
    pub mime: String,
    /// Base64 payload.
    pub payload: String,
    /// The original parts without their payload, one per occurrence in
    /// document order (empty when none was kept).
    pub templates: Vec<ImageTemplate>,
}

/// The originals found for a conversation's placeholders, by image id in
/// ascending order: a lookup is a binary search. (A sorted list, not a map:
/// the module carries one B-tree instantiation fewer.)
#[derive(Debug, Default)]
pub struct RestoredImages(Vec<(String, Restored)>);

impl RestoredImages {
    /// Adds the original of image `id`. Ids come in ascending order, as a
    /// `BTreeSet` yields them; one out of order is not found.
    pub fn push(&mut self, id: String, image: Restored) {
        debug_assert!(self.0.last().is_none_or(|last| last.0 < id));
        self.0.push((id, image));
    }

    /// The original of image `id`.
    pub fn get(&self, id: &str) -> Option<&Restored> {
        self.0
            .binary_search_by(|entry| entry.0.as_str().cmp(id))
            .ok()
            .and_then(|i| self.0.get(i))
            .map(|entry| &entry.1)
    }

    /// True when the original of image `id` was found.
    pub fn contains(&self, id: &str) -> bool {
        self.get(id).is_some()
    }

    /// How many originals were found.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The ids found, ascending.
    pub fn ids(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|entry| &entry.0)
    }
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

/// The distinct placeholder ids in `messages`, ascending.
pub fn collect_placeholders(messages: &[Message]) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for m in messages {
        for_each_text_without_paths(m, &mut |text| ids.extend(placeholder_ids(text)));
    }
    ids
}

/// The file a part of `format` references (its id or URI), when it is a
/// file reference (an offloaded image).
fn referenced(format: Format, part: &Part) -> Option<&str> {
    let wire = match part {
        Part::Other(Value::Object(wire)) | Part::Image(crate::messages::ImagePart { wire, .. }) => {
            wire
        }
        _ => return None,
    };
    format.referenced_file_in(wire)
}

/// Calls `f` with each part of `content`, tool results' parts included.
fn for_each_part<'c>(content: &'c Content, f: &mut dyn FnMut(&'c Part)) {
    if let Content::Parts(parts) = content {
        for part in parts {
            f(part);
            if let Part::ToolResult(t) = part {
                for_each_part(&t.content, f);
            }
        }
    }
}

/// The distinct files the parts of `messages` reference (ids or URIs).
pub fn collect_file_references(messages: &[Message]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for m in messages {
        let format = m.format();
        for_each_part(&m.content, &mut |part| {
            if let Some(name) = referenced(format, part) {
                if !names.iter().any(|n| n == name) {
                    names.push(name.to_owned());
                }
            }
        });
    }
    names
}

/// Whether `message` holds a part referencing a file (an offloaded image,
/// which expansion may put back).
pub fn has_file_reference(message: &Message) -> bool {
    let format = message.format();
    let mut found = false;
    for_each_part(&message.content, &mut |part| {
        found |= referenced(format, part).is_some();
    });
    found
}

/// Where each placeholder whose id is not in `restored` appears.
pub fn missing_placeholders(
    messages: &[Message],
    restored: &RestoredImages,
) -> Vec<MissingPlaceholder> {
    let mut out = Vec::new();
    let root = JsonPath::root("messages");
    for (i, m) in messages.iter().enumerate() {
        for_each_text(m, &root.index(i), &mut |path, text| {
            for seg in split_placeholders(text) {
                if let Segment::Placeholder(id) = seg {
                    if !restored.contains(&id) {
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

/// Puts originals back in place of their placeholders, and of the file
/// references `files` names ((file id or URI, image id)). Returns, per
/// message, whether it changed.
pub fn apply_expansion(
    messages: &mut [Message],
    format: Format,
    restored: &RestoredImages,
    files: &[(String, String)],
) -> Vec<bool> {
    let mut seen = Vec::new();
    let mut expansion = Expansion {
        format,
        restored,
        seen: &mut seen,
        files,
    };
    messages
        .iter_mut()
        .map(|m| expand_content(&mut m.content, &mut expansion))
        .collect()
}

/// What an expansion needs while it walks: the format, the originals, and
/// how many placeholders of each image it has passed.
struct Expansion<'a> {
    format: Format,
    restored: &'a RestoredImages,
    seen: &'a mut Vec<(String, usize)>,
    /// Each file an offloaded image was sent as, with the image's id.
    files: &'a [(String, String)],
}

impl Expansion<'_> {
    /// The id of the image whose file `part` references, when the stash
    /// holds its original.
    fn offloaded(&self, part: &Part) -> Option<String> {
        if self.files.is_empty() {
            return None;
        }
        let name = referenced(self.format, part)?;
        let (_, id) = self.files.iter().find(|(file, _)| file == name)?;
        self.restored.contains(id).then(|| id.clone())
    }

    /// The occurrence (0, 1, …) of image `id` met now, in document order.
    fn occurrence(&mut self, id: &str) -> usize {
        match self.seen.iter_mut().find(|s| s.0 == id) {
            Some(s) => {
                s.1 += 1;
                s.1 - 1
            }
            None => {
                self.seen.push((id.to_owned(), 1));
                0
            }
        }
    }
}

fn expand_content(content: &mut Content, x: &mut Expansion<'_>) -> bool {
    let restored = x.restored;
    match content {
        Content::Text(text) => {
            if !mentions_restorable(text, restored) {
                return false;
            }
            let parts = split_text(text, x, true, Map::new());
            *content = Content::Parts(parts);
            true
        }
        Content::Parts(parts) => {
            let mut changed = false;
            let old = std::mem::take(parts);
            for part in old {
                match part {
                    Part::Text(mut fields)
                        if fields
                            .get("text")
                            .and_then(Value::as_str)
                            .is_some_and(|t| mentions_restorable(t, restored)) =>
                    {
                        let text = match fields.remove("text") {
                            Some(Value::String(t)) => t,
                            _ => String::new(),
                        };
                        fields.remove("type");
                        parts.extend(split_text(&text, x, false, fields));
                        changed = true;
                    }
                    Part::ToolResult(mut t) => {
                        changed |= expand_content(&mut t.content, x);
                        parts.push(Part::ToolResult(t));
                    }
                    other => match x.offloaded(&other) {
                        Some(id) => {
                            let occurrence = x.occurrence(&id);
                            let restored = x.restored.get(&id);
                            parts.extend(restored.map(|r| image_part(x.format, r, occurrence)));
                            changed = true;
                        }
                        None => parts.push(other),
                    },
                }
            }
            changed
        }
        Content::Absent | Content::Null => false,
    }
}

fn mentions_restorable(text: &str, restored: &RestoredImages) -> bool {
    split_placeholders(text)
        .iter()
        .any(|s| matches!(s, Segment::Placeholder(id) if restored.contains(id)))
}

enum Piece {
    Text(String),
    Image(String),
}

/// Splits a text into text and image parts. `collapsed` strings lose the one
/// space that folding put between a placeholder and its neighbours. `extra`
/// holds the text part's other fields (a cache breakpoint, provider
/// options): a part that was one placeholder gives them up, since the
/// image's own part carries its own; otherwise the last text keeps them.
fn split_text(
    text: &str,
    x: &mut Expansion<'_>,
    collapsed: bool,
    extra: Map<String, Value>,
) -> Vec<Part> {
    let restored = x.restored;
    let mut pieces: Vec<Piece> = Vec::new();
    for seg in split_placeholders(text) {
        let piece = match seg {
            Segment::Placeholder(id) if restored.contains(&id) => Piece::Image(id),
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
    let mut parts: Vec<Part> = pieces
        .into_iter()
        .filter_map(|p| match p {
            Piece::Text(t) if t.is_empty() => None,
            Piece::Text(t) => Some(Part::text_in(x.format, t)),
            Piece::Image(id) => {
                let occurrence = x.occurrence(&id);
                restored
                    .get(&id)
                    .map(|r| image_part(x.format, r, occurrence))
            }
        })
        .collect();
    if !extra.is_empty() {
        if let Some(Part::Text(fields)) =
            parts.iter_mut().rev().find(|p| matches!(p, Part::Text(_)))
        {
            fields.extend(extra);
        }
    }
    parts
}

/// The image part for the `occurrence`-th placeholder of `r`'s image: its own
/// template (the last one when the record holds fewer), else the canonical
/// part of `format`.
fn image_part(format: Format, r: &Restored, occurrence: usize) -> Part {
    let template = r
        .templates
        .get(occurrence)
        .or(r.templates.last())
        .filter(|t| crate::messages::restorable::restores_as_stashed(t.shape, format));
    let (value, shape) = match template {
        Some(t) => (Value::Object(t.fill(&r.mime, &r.payload)), t.shape),
        None => (
            new_image_part(format, &r.mime, &r.payload, None),
            crate::messages::new_image_shape(format),
        ),
    };
    match value {
        Value::Object(wire) => Part::Image(crate::messages::ImagePart { wire, shape }),
        other => Part::Other(other),
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

#[cfg(test)]
mod tests {
    use super::{Restored, RestoredImages};

    fn image(mime: &str) -> Restored {
        Restored {
            mime: mime.to_owned(),
            payload: String::new(),
            templates: Vec::new(),
        }
    }

    #[test]
    fn restored_images_are_found_by_id() {
        let mut found = RestoredImages::default();
        for (id, mime) in [
            ("0a", "image/png"),
            ("5f", "image/gif"),
            ("c3", "image/jpeg"),
        ] {
            found.push(id.to_owned(), image(mime));
        }
        assert_eq!(found.get("5f").map(|r| r.mime.as_str()), Some("image/gif"));
        assert_eq!(found.get("c3").map(|r| r.mime.as_str()), Some("image/jpeg"));
        assert!(found.contains("0a"));
        assert!(!found.contains("ff") && !found.contains(""));
        assert_eq!(found.len(), 3);
        assert_eq!(found.ids().collect::<Vec<_>>(), ["0a", "5f", "c3"]);
    }
}
