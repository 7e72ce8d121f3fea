//! The compaction policy, pure: finds the inline images of history (see
//! `untouched.rs`), hashes them one at a time, and — once the caller has
//! committed them to the stash — replaces them with
//! `[Picture:history_<md5>]`. It decides; it does no I/O.

use super::plan_messages::PlanMessages;
use super::within_limits;
use crate::json_path::JsonPath;
use crate::media::payload::{payload_facts, Payloads};
use crate::messages::image::ImageTemplate;
use crate::messages::placeholder::{for_each_placeholder_id, split_placeholders, Segment};
use crate::messages::walk::{
    for_each_image, for_each_item, for_each_text_without_paths, has_image, Item,
};
use crate::messages::{answered_images, ImageSource, Message};
use crate::stash::Failure;
use std::collections::BTreeSet;

pub use super::compact_report::CompactReport;
pub use super::replace::apply_compaction;

/// Options of a compaction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CompactOptions {
    /// The target's request limits: further history images are stashed,
    /// oldest first, until the request fits.
    pub limits: Option<crate::budget::limits::RequestLimits>,
    /// Also keep this many of the newest history images inline.
    pub keep_recent_images: usize,
    /// Fold a message left with only text parts into one string.
    pub collapse_text: bool,
    /// Also stash binary payloads in tool results before the newest user message.
    pub sanitize_tool_results: bool,
    /// How the window and the limits move: in batches, with slack.
    pub slack: crate::budget::Slack,
    /// Put one prompt-cache breakpoint at the end of what the next request
    /// keeps as it is, where the format marks them (Anthropic's
    /// `cache_control`).
    pub cache_breakpoint: bool,
}

impl CompactOptions {
    /// `keepRecentImages` as a caller gives it (a JavaScript number): 0 when
    /// absent, a negative number as 0; `None` for a fraction, which is refused.
    pub fn keep_recent_images(n: Option<f64>) -> Option<usize> {
        let n = n.unwrap_or(0.0);
        (n.fract() == 0.0).then_some(n as usize)
    }
}

/// One inline history image to stash.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryImage<'m> {
    /// Index of its message among those planned with
    /// ([`PlanMessages::messages`]).
    pub message: usize,
    /// Its position among the images of that message.
    pub ordinal: usize,
    /// JSON path of the part.
    pub path: String,
    /// Lowercase hex MD5 of the payload text.
    pub md5: String,
    /// MIME type from the bytes, else as declared.
    pub mime: String,
    /// The base64 payload, borrowed from the message.
    pub payload: &'m str,
    /// Decoded size in bytes.
    pub size: u64,
    /// Length of the base64 text in bytes.
    pub text_len: u64,
    /// The part without its payload, for an exact restore.
    pub template: Option<ImageTemplate>,
    /// True when an earlier image in this plan has the same md5.
    pub duplicate: bool,
    /// A history image kept for the model, to send by file reference
    /// rather than replace with a placeholder (see `offload`).
    pub offload: bool,
}

/// What a compaction will do.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan<'m> {
    /// The person's newest message (the newest user message that is not
    /// only tool results); it passes untouched, and so does everything after
    /// the model's last output.
    pub newest_user: Option<usize>,
    /// History images to stash and replace, in order.
    pub images: Vec<HistoryImage<'m>>,
    /// Inline images left as they are: what passes untouched and `keep_recent_images`.
    pub kept: usize,
    /// Images given by URL, which stay as they are.
    pub urls: usize,
    /// History images that cannot be stashed (broken base64).
    pub invalid: Vec<Failure>,
    /// Ids of placeholders already in the conversation (to refresh).
    pub referenced: Vec<String>,
    /// History images stashed beyond `keep_recent_images` to meet the limits.
    pub limit_stashed: usize,
    /// Why the request cannot fit the limits even with every history image
    /// stashed; `None` when it fits (or there are no limits).
    pub limit_problem: Option<String>,
    /// The message of each history image left inline, oldest first (as
    /// [`HistoryImage::message`] numbers them).
    pub kept_history: Vec<usize>,
    /// The message of each inline image that passes untouched now and will
    /// be history in the next request (numbered so too) (in a loop, the person's newest
    /// message stays untouched in its next step).
    pub newest_inline: Vec<usize>,
}

/// A history image with an inline payload that compaction will hash.
pub struct Found<'m> {
    message: usize,
    ordinal: usize,
    path: String,
    img: &'m crate::messages::ImagePart,
    /// Kept for the model: to offload, not to stash.
    offload: bool,
}

/// Decoded leading bytes read from each history image (for its MIME type).
pub const HASH_HEAD_BYTES: usize = 64;

impl<'m> Found<'m> {
    /// The image's declared type and payload, when it is inline.
    pub fn inline_payload(&self) -> Option<(Option<&'m str>, &'m str)> {
        self.img.source().inline()
    }
}

/// Finds and hashes the history images of `messages` (a request of
/// `request_bytes`, for the limits). `progress(done, total, bytes)` is
/// called after each image is hashed.
pub fn plan_compaction<'m>(
    messages: &'m [Message],
    options: CompactOptions,
    request_bytes: u64,
    progress: &mut dyn FnMut(usize, usize, u64),
    payloads: &dyn Payloads,
) -> Plan<'m> {
    let (mut plan, found) = select_history_images(
        PlanMessages::whole(messages),
        options,
        request_bytes,
        payloads,
        false,
    );
    let total = found.len();
    let mut hashed = BTreeSet::new();
    let mut bytes = 0u64;
    for (done, f) in found.into_iter().enumerate() {
        bytes += hash_found(&mut plan, f, &mut hashed, payloads, &|_| false);
        progress(done + 1, total, bytes);
    }
    plan
}

/// The first pass of [`plan_compaction`]: the plan without its images, and
/// the history images to hash, in order ([`hash_found`] each).
/// `request_bytes` is the serialized size of the whole request, for the
/// limits. With `offload`, the history images kept for the model are among
/// them too, marked to offload.
pub fn select_history_images<'m>(
    messages: PlanMessages<'m>,
    options: CompactOptions,
    request_bytes: u64,
    payloads: &dyn Payloads,
    offload: bool,
) -> (Plan<'m>, Vec<Found<'m>>) {
    let mut plan = Plan {
        newest_user: messages.rule.person,
        ..Plan::default()
    };
    let mut found = find_history_images(messages, &mut plan);
    let wanted_keep = options
        .slack
        .window(found.len(), options.keep_recent_images);
    let keep = match options.limits {
        Some(limits) => {
            // Each stashed image saves its payload and costs a placeholder.
            let savings = found
                .iter()
                .map(|f| {
                    let payload = f
                        .inline_payload()
                        .map_or(0, |(_, p)| payloads.text_len(p) as u64);
                    payload.saturating_sub(60)
                })
                .collect();
            let request = within_limits::Request {
                savings,
                fixed_images: plan.kept + plan.urls,
                bytes: request_bytes,
            };
            let batch = options.slack.batch(limits.max_images);
            let (keep, problem) =
                within_limits::keep_within_limits(&request, wanted_keep, batch, limits);
            plan.limit_stashed = wanted_keep - keep;
            plan.limit_problem = problem;
            keep
        }
        None => wanted_keep,
    };
    plan.kept += keep;
    let kept_from = found.len() - keep;
    plan.kept_history = found[kept_from..].iter().map(|f| f.message).collect();
    if offload {
        for f in &mut found[kept_from..] {
            f.offload = true;
        }
    } else {
        found.truncate(kept_from);
    }
    (plan, found)
}

/// The image parts of `messages` that are history images with inline
/// payloads (history by the messages' rule, replaceable by a
/// placeholder), in order; the others are counted in `plan` as kept or as
/// URLs, and the placeholders the texts name are listed as referenced.
fn find_history_images<'m>(messages: PlanMessages<'m>, plan: &mut Plan<'m>) -> Vec<Found<'m>> {
    let root = JsonPath::root("messages");
    let rule = messages.rule;
    let mut found: Vec<Found<'m>> = Vec::new();
    let mut seen = BTreeSet::new();
    // The placeholders of known messages left out, before them all.
    for &n in messages.named_before {
        if seen.insert(n) {
            plan.referenced.push(crate::hash::md5_text(n));
        }
    }
    for (i, m) in messages.messages.iter().enumerate() {
        // Most messages hold no image: no path is made for them.
        if has_image(m) {
            let at = messages.request_index(i);
            let whole = rule.is_history(at, m);
            // A message's own earlier steps (a UIMessage loop) are history too.
            let answered = answered_images(m);
            // Next request's history, when it is no step of this loop.
            let next_history = !(rule.in_loop() && rule.person == Some(at));
            for_each_image(
                m,
                &root.index(at),
                &mut |ordinal, path, img| match img.source() {
                    ImageSource::Url(_) | ImageSource::Opaque => plan.urls += 1,
                    source => {
                        let history = whole || ordinal < answered;
                        let replaceable =
                            source.inline().is_some() && img.shape.replaceable_by_text();
                        if !history || !replaceable {
                            plan.kept += 1;
                            if !history && replaceable && next_history {
                                plan.newest_inline.push(i);
                            }
                        } else {
                            found.push(Found {
                                message: i,
                                ordinal,
                                path: path.to_string(),
                                img,
                                offload: false,
                            });
                        }
                    }
                },
            );
        }
        if let Some(ids) = messages.known_ids(i) {
            for &n in ids {
                if seen.insert(n) {
                    plan.referenced.push(crate::hash::md5_text(n));
                }
            }
            continue;
        }
        for_each_text_without_paths(m, &mut |text| {
            for_each_placeholder_id(text, &mut |id| {
                // An id is 32 hex digits: compared as the number it is.
                let new = match crate::hash::md5_number(id) {
                    Some(n) => seen.insert(n),
                    None => !plan.referenced.iter().any(|r| r == id),
                };
                if new {
                    plan.referenced.push(id.to_owned());
                }
            });
        });
    }
    found
}

/// Hashes one image [`select_history_images`] found into `plan` (`hashed`:
/// the digests seen so far, to mark duplicates); an image to offload only
/// when `offloads` takes it (else it stays inline as kept). Returns the
/// length of its payload text (0 when it is not valid base64 and stays
/// inline).
pub fn hash_found<'m>(
    plan: &mut Plan<'m>,
    found: Found<'m>,
    hashed: &mut BTreeSet<String>,
    payloads: &dyn Payloads,
    offloads: &dyn Fn(&HistoryImage<'m>) -> bool,
) -> u64 {
    let Found {
        message,
        ordinal,
        path,
        img,
        offload,
    } = found;
    let Some((declared, payload)) = img.source().inline() else {
        return 0;
    };
    let facts = payload_facts(payloads, payload, HASH_HEAD_BYTES);
    if let Err(problem) = facts.valid {
        if offload {
            // Kept for the model as it is: not a failure.
            return 0;
        }
        plan.invalid.push(Failure {
            path,
            md5: None,
            code: crate::ErrorCode::InvalidDataUrl,
            reason: format!("payload is not valid base64 ({problem})"),
        });
        return 0;
    }
    let mime = crate::media::payload::stored_mime(&facts, declared);
    let mut image = HistoryImage {
        message,
        ordinal,
        path,
        md5: facts.md5,
        mime,
        payload,
        size: facts.decoded_len as u64,
        text_len: facts.len as u64,
        template: img.template(),
        duplicate: false,
        offload,
    };
    if offload && !offloads(&image) {
        return facts.len as u64;
    }
    image.duplicate = !hashed.insert(image.md5.clone());
    plan.images.push(image);
    facts.len as u64
}

/// Per image id (of [`occurrence_templates`]): the templates met so far,
/// and how many earlier placeholders were passed.
type Occurrences<'t> = Vec<(&'t str, Vec<Option<&'t ImageTemplate>>, usize)>;

/// A placeholder of `id` met in document order: it takes the next of the
/// templates its record held before (`earlier`).
fn placeholder_met<'t>(
    lists: &mut Occurrences<'t>,
    earlier: &'t [(String, Vec<ImageTemplate>)],
    id: &str,
) {
    let Some(l) = lists.iter_mut().find(|l| l.0 == id) else {
        return;
    };
    let old = earlier
        .iter()
        .find(|e| e.0 == id)
        .and_then(|e| e.1.get(l.2).or(e.1.last()));
    l.2 += 1;
    l.1.push(old);
}

/// The template of every occurrence of each image the plan stashes, in
/// document order, as the text its record keeps (one entry per image of the
/// plan, on the first image of each md5; `None` elsewhere and where no
/// template was kept): an image stashed now brings its
/// own template; a placeholder already in the conversation takes the next of
/// the templates its record held before (`earlier`), or, when those are
/// unknown, the first template stashed now.
pub fn occurrence_templates(
    messages: PlanMessages<'_>,
    plan: &Plan<'_>,
    earlier: &[(String, Vec<ImageTemplate>)],
) -> Vec<Option<String>> {
    if plan.images.is_empty() {
        return Vec::new();
    }
    // Few ids, so a list is enough.
    let mut lists: Occurrences<'_> = Vec::new();
    for img in &plan.images {
        if !lists.iter().any(|l| l.0 == img.md5) {
            lists.push((&img.md5, Vec::new(), 0));
        }
    }
    let mut next_image = 0;
    // The placeholders of known messages left out, before them all.
    for &n in messages.named_before {
        placeholder_met(&mut lists, earlier, &crate::hash::md5_text(n));
    }
    for (i, m) in messages.messages.iter().enumerate() {
        if let Some(ids) = messages.known_ids(i) {
            for &n in ids {
                placeholder_met(&mut lists, earlier, &crate::hash::md5_text(n));
            }
            continue;
        }
        for_each_item(m, &mut |item| match item {
            Item::Image(ordinal) => {
                // The plan's images are in document order too.
                let Some(img) = plan.images.get(next_image) else {
                    return;
                };
                if (img.message, img.ordinal) != (i, ordinal) {
                    return;
                }
                next_image += 1;
                if let Some(l) = lists.iter_mut().find(|l| l.0 == img.md5) {
                    l.1.push(img.template.as_ref());
                }
            }
            Item::Text(text) => {
                for seg in split_placeholders(text) {
                    if let Segment::Placeholder(id) = seg {
                        placeholder_met(&mut lists, earlier, &id);
                    }
                }
            }
        });
    }
    let mut texts: Vec<(&str, Option<String>)> = lists
        .into_iter()
        .map(|(md5, list, _)| {
            let first = list.iter().flatten().next().copied();
            let mut full: Vec<ImageTemplate> = list
                .into_iter()
                .filter_map(|t| t.or(first).cloned())
                .collect();
            // Occurrences past the list take its last template: a run of
            // equal templates at the end is kept once.
            while full.len() > 1 && full[full.len() - 1] == full[full.len() - 2] {
                full.pop();
            }
            (md5, ImageTemplate::list_to_json_text(&full))
        })
        .collect();
    // Each image's text goes to its first occurrence in the plan (the one
    // written); a repeated image is not written again and gets none.
    plan.images
        .iter()
        .map(|img| {
            texts
                .iter_mut()
                .find(|t| t.0 == img.md5)
                .and_then(|t| t.1.take())
        })
        .collect()
}

#[cfg(test)]
mod tests {

    use super::CompactOptions;

    #[test]
    fn keep_recent_images_is_a_whole_number() {
        assert_eq!(CompactOptions::keep_recent_images(None), Some(0));
        assert_eq!(CompactOptions::keep_recent_images(Some(3.0)), Some(3));
        assert_eq!(CompactOptions::keep_recent_images(Some(-1.0)), Some(0));
        assert_eq!(CompactOptions::keep_recent_images(Some(1.5)), None);
    }
}
