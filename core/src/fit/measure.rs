//! Phase 1, measure: every image of the request, with what its header
//! tells (size as shown, format, orientation, animation) and, with a stash,
//! its md5.

use super::call::FitCall;
use super::inputs::FitMessages;
use super::one_image::Inline;
use crate::event_loop::Slicer;
use crate::json_path::JsonPath;
use crate::media::payload::{payload_facts, stored_mime, PayloadFacts, Payloads};
use crate::media::{exif_orientation, image_dimensions, is_animated};
use crate::messages::walk::for_each_image;
use crate::messages::{ImagePart, Message};
use serde_json::Value;

/// How much of a payload's decoded start is read for its header.
const HEAD_BYTES: usize = 64 * 1024;

/// One image of the request.
pub(super) struct Found {
    /// Index of its message.
    pub message: usize,
    /// Its place among the images of its message.
    pub ordinal: usize,
    /// JSON path of the image part.
    pub path: String,
    /// Sent at low detail.
    pub low: bool,
    /// A history image (before the newest user turn) that a placeholder
    /// may replace.
    pub stashable: bool,
    /// In the newest turn, which the options keep as it is.
    pub protected: bool,
    /// Its payload and header, when inline and readable.
    pub inline: Option<Inline>,
}

/// True when the part asks for low detail.
fn is_low(img: &ImagePart) -> bool {
    img.wire
        .get("image_url")
        .and_then(|u| u.get("detail"))
        .or_else(|| img.wire.get("detail"))
        .and_then(Value::as_str)
        == Some("low")
}

/// Reads one inline payload. With `hash` the payload is read whole, hashed
/// and checked; without, only its sizes and header are read.
fn read_inline(
    payloads: &dyn Payloads,
    img: &ImagePart,
    declared: Option<&str>,
    payload: &str,
    hash: bool,
) -> Option<Inline> {
    let facts = if hash {
        payload_facts(payloads, payload, HEAD_BYTES)
    } else {
        let head = payloads.head(payload, HEAD_BYTES);
        PayloadFacts {
            md5: String::new(),
            len: head.len,
            decoded_len: head.decoded_len,
            head: head.head,
            valid: Ok(()),
        }
    };
    facts.valid.as_ref().ok()?;
    let dims = image_dimensions(&facts.head)?;
    Some(Inline {
        payload: payload.to_owned(),
        mime: stored_mime(&facts, declared),
        animated: is_animated(&facts.head),
        orientation: exif_orientation(&facts.head),
        md5: facts.md5,
        dims,
        text_len: facts.len as u64,
        decoded: facts.decoded_len as u64,
        template: img.template(),
    })
}

/// Every image of the messages `read`. With a stash (the ids of originals are their
/// md5s) each payload is read whole, hashed and checked; without, only its
/// sizes and header are read, and a payload that is not valid base64 fails
/// in the resizer instead.
pub(super) async fn measure<B, R>(call: &FitCall<'_, B, R>, read: &FitMessages) -> Vec<Found> {
    let hash = call.stash.is_some();
    let rule = crate::history::Untouched::of(&read.messages);
    let history: Vec<bool> = (read.messages.iter().enumerate())
        .map(|(i, m)| rule.is_history(i, m))
        .collect();
    // A message's own earlier steps (a UIMessage loop) are history too.
    let answered: Vec<usize> = read
        .messages
        .iter()
        .map(crate::messages::answered_images)
        .collect();
    let mut seen = Vec::new();
    read.for_each_image(&mut |i, ordinal, path, img| {
        seen.push((i, ordinal, path.to_string(), img));
    });
    // One image at a time, letting the host run between them.
    let mut found = Vec::with_capacity(seen.len());
    for (i, ordinal, path, img) in seen {
        let source = img.source();
        let inline_source = source.inline();
        let is_history = history[i] || ordinal < answered[i];
        let stashable = is_history && inline_source.is_some() && img.shape.replaceable_by_text();
        if let (true, Some((_, payload))) = (hash, inline_source) {
            call.payloads
                .prepare_facts(payload, HEAD_BYTES, &call.slicer)
                .await;
        }
        let inline = inline_source.and_then(|(declared, payload)| {
            read_inline(call.payloads, img, declared, payload, hash)
        });
        found.push(Found {
            message: i,
            ordinal,
            path,
            low: is_low(img),
            stashable,
            protected: call.options.keep_newest && !is_history,
            inline,
        });
        call.slicer.checkpoint().await;
    }
    found
}

/// Reads the header of every inline image of `messages` (as [`measure`]
/// and the estimate read it), letting the host run between images, so that
/// an estimate made next finds every header remembered: a first sight of a
/// large payload costs the host a pass over its text.
pub(super) async fn read_heads(slicer: &Slicer<'_>, payloads: &dyn Payloads, messages: &[Message]) {
    let root = JsonPath::root("messages");
    let mut inline = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        for_each_image(m, &root.index(i), &mut |_, _, img| {
            if let Some((_, payload)) = img.source().inline() {
                inline.push(payload);
            }
        });
    }
    for payload in inline {
        payloads.head(payload, HEAD_BYTES);
        slicer.checkpoint().await;
    }
}
