//! Conversations for text-only models: every image part becomes a markdown
//! reference `![图片N](url)` appended to its message's text (N counts within
//! the message), so the model can hand URLs to OCR or vision tools. An inline
//! image never becomes text: it is referenced by its placeholder
//! `[Picture:history_<md5>]` (stash it first). And `has_multimedia`: whether
//! a conversation holds anything a text-only model would need tools for.

use crate::json_path::JsonPath;
use crate::media::payload::Payloads;
use crate::messages::placeholder::{has_placeholder, placeholder};
use crate::messages::{decode_messages, Content, Format, ImageSource, Message, MessageError, Part};
use crate::stash::WrittenAt;
use crate::stash::{NewRecord, StashAccess, StashBackend};
use serde_json::Value;
use std::collections::BTreeSet;

/// The reference line for one image. `stored(md5)` says whether an inline
/// image's original is in the stash; one that is not is described, never
/// inlined.
fn reference(
    n: usize,
    source: ImageSource<'_>,
    stored: &dyn Fn(&str) -> bool,
    payloads: &dyn Payloads,
) -> String {
    match source {
        ImageSource::Url(url) => format!("![图片{n}]({url})"),
        src => match src.inline() {
            Some((mime, payload)) => {
                let facts = crate::media::payload::payload_facts(payloads, payload, 0);
                if stored(&facts.md5) {
                    placeholder(&facts.md5)
                } else {
                    let size = crate::media::type_names::human_size(facts.decoded_len as u64);
                    format!("[图片{n}: {} {size}, not stored]", mime.unwrap_or("image"))
                }
            }
            None => format!("[图片{n}]"),
        },
    }
}

/// Rewrites `message` for a text-only model. Returns whether it changed.
pub fn message_to_text_only(
    message: &mut Message,
    format: Format,
    stored: &dyn Fn(&str) -> bool,
    payloads: &dyn Payloads,
) -> bool {
    let Content::Parts(parts) = &mut message.content else {
        return false;
    };
    if !parts.iter().any(|p| matches!(p, Part::Image(_))) {
        return false;
    }
    let mut n = 0;
    let mut refs = Vec::new();
    let all_text_or_image = parts
        .iter()
        .all(|p| p.is_plain_text() || matches!(p, Part::Image(_)));
    let old = std::mem::take(parts);
    for part in old {
        match part {
            Part::Image(img) => {
                n += 1;
                refs.push(reference(n, img.source(), stored, payloads));
            }
            other => parts.push(other),
        }
    }
    if all_text_or_image {
        // The dootask/eino shape: one string, texts then the references.
        let mut text = parts
            .iter()
            .filter_map(Part::as_text)
            .collect::<Vec<_>>()
            .join("\n");
        for r in &refs {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(r);
        }
        message.content = Content::Text(text);
    } else {
        parts.push(Part::Text(match format.text_part(refs.join("\n")) {
            Value::Object(m) => m,
            _ => serde_json::Map::new(),
        }));
    }
    true
}

/// Rewrites every message for a text-only model (`stored(md5)`: is that
/// inline image in the stash). Per message: its new wire value, or `None`
/// when it did not change (the caller keeps its own).
fn rewrite_all(
    messages: Vec<Message>,
    format: Format,
    stored: &dyn Fn(&str) -> bool,
    payloads: &dyn Payloads,
) -> Vec<Option<Value>> {
    messages
        .into_iter()
        .map(|mut m| message_to_text_only(&mut m, format, stored, payloads).then(|| m.into_wire()))
        .collect()
}

/// `values` for a text-only model: `stored(md5)` says whether that inline
/// image's original is in the stash (see [`stash_inline_images`]); one that
/// is not is described, never named by a placeholder the tool could not
/// answer. Per message: its new wire value, or `None` when it did not change.
pub fn to_text_only(
    values: Vec<Value>,
    format: Option<Format>,
    stored: &dyn Fn(&str) -> bool,
    payloads: &dyn Payloads,
) -> Result<Vec<Option<Value>>, MessageError> {
    let (format, messages) = decode_messages(values, format, &JsonPath::root("messages"))?;
    Ok(rewrite_all(messages, format, stored, payloads))
}

/// Writes every inline image of `values` to the stash (each distinct one
/// once), before [`to_text_only`] references them by placeholder, and
/// returns the ids that committed.
pub async fn stash_inline_images<B: StashBackend>(
    access: StashAccess<'_, B>,
    values: Vec<Value>,
    format: Option<Format>,
    payloads: &dyn Payloads,
) -> Result<BTreeSet<String>, MessageError> {
    let StashAccess {
        backend,
        config,
        now,
    } = access;
    let root = JsonPath::root("messages");
    let (_, messages) = decode_messages(values, format, &root)?;
    let mut records = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, m) in messages.iter().enumerate() {
        crate::messages::walk::for_each_image(m, &root.index(i), &mut |_, _, img| {
            let Some((declared, payload)) = img.source().inline() else {
                return;
            };
            let facts = crate::media::payload::payload_facts(payloads, payload, 64);
            if facts.valid.is_err() {
                return;
            }
            let id = facts.md5.clone();
            if !seen.insert(id.clone()) {
                return;
            }
            let mime = crate::media::payload::stored_mime(&facts, declared);
            let part = img.template().map(|t| t.to_json_text());
            records.push(NewRecord::new(
                id,
                mime,
                payload,
                facts.decoded_len as u64,
                facts.len as u64,
                part,
                WrittenAt {
                    now,
                    ttl_ms: config.ttl_ms,
                },
            ));
        });
    }
    if records.is_empty() {
        return Ok(BTreeSet::new());
    }
    let results = backend.put_records(&records).await;
    // Inserted one by one: collecting into the set would sort with code of
    // its own.
    let mut committed = BTreeSet::new();
    for (rec, result) in records.iter().zip(results) {
        if result.is_ok() {
            committed.insert(rec.id.clone());
        }
    }
    Ok(committed)
}

/// True when any message holds an image or file part, a placeholder, or a
/// markdown image: `markdown_has_images(text)` says whether a text holding
/// `![` has one (the CommonMark parser decides, not a substring test).
pub fn has_multimedia(messages: &[Message], markdown_has_images: &dyn Fn(&str) -> bool) -> bool {
    messages
        .iter()
        .any(|m| content_has_multimedia(&m.content, markdown_has_images))
}

fn content_has_multimedia(content: &Content, markdown_has_images: &dyn Fn(&str) -> bool) -> bool {
    let text_has = |t: &str| has_placeholder(t) || (t.contains("![") && markdown_has_images(t));
    match content {
        Content::Text(t) => text_has(t),
        Content::Parts(parts) => parts.iter().any(|p| match p {
            Part::Image(_) => true,
            Part::ToolResult(t) => content_has_multimedia(&t.content, markdown_has_images),
            Part::Text(_) => p.as_text().is_some_and(text_has),
            Part::Other(v) => matches!(
                v.get("type").and_then(Value::as_str),
                Some(
                    "file"
                        | "document"
                        | "input_audio"
                        | "audio"
                        | "video"
                        | "media"
                        | "input_file"
                )
            ),
        }),
        Content::Absent | Content::Null => false,
    }
}

#[cfg(test)]
mod tests {
    fn has_multimedia_parsed(messages: &[Message]) -> bool {
        has_multimedia(messages, &|t| {
            !crate::markdown::parse_markdown_images(t).is_empty()
        })
    }

    use super::*;
    use serde_json::json;

    fn msgs(v: Value) -> Vec<Message> {
        decode_messages(v.as_array().unwrap().clone(), None, &JsonPath::root("m"))
            .unwrap()
            .1
    }

    #[test]
    fn images_become_numbered_references() {
        let mut m = msgs(json!([{"role":"user","content":[
            {"type":"text","text":"这张图片是什么?"},
            {"type":"image_url","image_url":{"url":"https://x.test/a.png"}},
            {"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}
        ]}]));
        assert!(message_to_text_only(
            &mut m[0],
            Format::OpenAi,
            &|_| true,
            &crate::media::payload::InMemory
        ));
        let id = crate::hash::md5_hex(b"AAAA");
        assert_eq!(
            m[0].content,
            Content::Text(format!(
                "这张图片是什么?\n\n![图片1](https://x.test/a.png)\n\n[Picture:history_{id}]"
            ))
        );
        let mut m2 = msgs(
            json!([{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]),
        );
        message_to_text_only(
            &mut m2[0],
            Format::OpenAi,
            &|_| false,
            &crate::media::payload::InMemory,
        );
        assert_eq!(
            m2[0].content,
            Content::Text("[图片1: image/png 3 B, not stored]".into())
        );
    }

    #[test]
    fn multimedia_is_found_by_the_parser() {
        assert!(!has_multimedia_parsed(&msgs(
            json!([{"role":"user","content":"`![x](y.png)` and the ![ and ]( tokens"}])
        )));
        assert!(has_multimedia_parsed(&msgs(
            json!([{"role":"user","content":"see ![x](y.png)"}])
        )));
        assert!(has_multimedia_parsed(&msgs(
            json!([{"role":"user","content":[{"type":"file","file":{"file_id":"f"}}]}])
        )));
        assert!(has_multimedia_parsed(&msgs(json!([[
            "human",
            "[Picture:history_0123456789abcdef0123456789abcdef] 这是什么？"
        ]]))));
        assert!(!has_multimedia_parsed(&msgs(
            json!([{"role":"user","content":"plain"}])
        )));
    }
}
