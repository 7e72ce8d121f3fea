//! Fitting end to end: read every image's header, plan (pure), resize
//! through the caller's [`Resizer`], stash the originals of changed images
//! and wait for the commit, replace only what committed, then stash the
//! oldest history images the plan names (through compaction).

use super::one_image::{fit_one, target_of, Change, Inline, Outcome};
use super::plan::{choose_stash, Account, Limits, Rest, StashChoice};
use super::report::{Action, Figures, FitReport, ImageFit, Scale};
use super::resizer::Resizer;
use super::target::Reason;
use crate::budget::{estimate, json_len_with, profile_image_tokens, BytesOn, ModelProfile};
use crate::event_loop::Slicer;
use crate::history::{compact_history, CompactOptions};
use crate::json_path::JsonPath;
use crate::media::payload::{payload_facts, stored_mime, PayloadFacts, Payloads};
use crate::media::{exif_orientation, image_dimensions, is_animated, Dimensions};
use crate::messages::image::ImageTemplate;
use crate::messages::walk::{for_each_image, rewrite_images};
use crate::messages::{decode_messages, detect_format, Format, ImagePart, MessageError, Part};
use crate::stash::{NewRecord, StashBackend, StashConfig};
use serde_json::Value;
use std::collections::BTreeSet;

/// The stash, its settings and the clock.
#[derive(Debug, Clone, Copy)]
pub struct StashAccess<'a, B> {
    /// Where originals go.
    pub backend: &'a B,
    /// TTL and budget.
    pub config: &'a StashConfig,
    /// Now, in ms since the epoch.
    pub now: f64,
}

/// Options of a fitting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FitOptions {
    /// Send the newest user turn's images as they are.
    pub keep_newest: bool,
    /// Tokens the request may hold (default: the model's context window).
    pub max_tokens: Option<u64>,
}

/// One image of the request.
struct Found {
    message: usize,
    ordinal: usize,
    path: String,
    low: bool,
    stashable: bool,
    protected: bool,
    inline: Option<Inline>,
}

fn figures(
    profile: &ModelProfile,
    dims: Dimensions,
    decoded: u64,
    text_len: u64,
    low: bool,
    mime: &str,
) -> Figures {
    Figures {
        width: dims.width,
        height: dims.height,
        bytes: decoded,
        base64_bytes: text_len,
        tokens: profile_image_tokens(profile, dims, low),
        mime: mime.to_owned(),
        quality: None,
        orientation: None,
    }
}

/// Every image of `messages`. With `hash` (a stash is given: the ids of
/// originals are their md5s) each payload is read whole, hashed and
/// checked; without, only its sizes and header are read, and a payload
/// that is not valid base64 fails in the resizer instead.
async fn find_images(
    messages: &[crate::messages::Message],
    options: FitOptions,
    payloads: &dyn Payloads,
    hash: bool,
    slicer: &Slicer<'_>,
) -> Vec<Found> {
    let cutoff = crate::history::compact::newest_user_index(messages).unwrap_or(0);
    let root = JsonPath::root("messages");
    let mut seen = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        for_each_image(m, &root.index(i), &mut |ordinal, path, img| {
            seen.push((i, ordinal, path.to_string(), img));
        });
    }
    // One image at a time, letting the host run between them.
    let mut found = Vec::with_capacity(seen.len());
    for (i, ordinal, path, img) in seen {
        let low = img
            .wire
            .get("image_url")
            .and_then(|u| u.get("detail"))
            .or_else(|| img.wire.get("detail"))
            .and_then(Value::as_str)
            == Some("low");
        let source = img.source();
        let inline_source = source.inline();
        let stashable = i < cutoff && inline_source.is_some() && img.shape.replaceable_by_text();
        let inline = inline_source.and_then(|(declared, payload)| {
            let facts = if hash {
                payload_facts(payloads, payload, 64 * 1024)
            } else {
                let head = payloads.head(payload, 64 * 1024);
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
        });
        found.push(Found {
            message: i,
            ordinal,
            path,
            low,
            stashable,
            protected: options.keep_newest && i >= cutoff,
            inline,
        });
        slicer.checkpoint().await;
    }
    found
}

/// Each image's tokens and bytes as it would be sent, with the changes made
/// so far (`changes`) or, before any, as predicted from its target size.
fn accounts(
    profile: &ModelProfile,
    found: &[Found],
    changes: Option<&[Option<Outcome>]>,
) -> Vec<Account> {
    found
        .iter()
        .enumerate()
        .map(|(k, f)| {
            let Some(img) = &f.inline else {
                let tokens = profile_image_tokens(
                    profile,
                    crate::budget::estimate::UNKNOWN_DIMENSIONS,
                    f.low,
                );
                return Account {
                    tokens,
                    tokens_many: tokens,
                    bytes: 0,
                    bytes_many: 0,
                    stashable: f.stashable,
                };
            };
            if let Some(Some(Outcome::Changed(c))) = changes.map(|c| &c[k]) {
                let tokens = profile_image_tokens(profile, c.dims, f.low);
                return Account {
                    tokens,
                    tokens_many: tokens,
                    bytes: c.text_len,
                    bytes_many: c.text_len,
                    stashable: f.stashable,
                };
            }
            let predict = |many: bool| -> (u64, u64) {
                let target = (!f.protected)
                    .then(|| target_of(profile, img, many, f.low))
                    .flatten();
                let size = target.as_ref().map_or(img.dims, |t| t.size);
                let ratio = (f64::from(size.width) * f64::from(size.height))
                    / (f64::from(img.dims.width) * f64::from(img.dims.height));
                let mut bytes = ((img.text_len as f64) * ratio.min(1.0)).ceil() as u64;
                if let Some(max) = target.and_then(|t| t.max_bytes) {
                    let max_text = match profile.image_bytes_on {
                        BytesOn::Base64 => max,
                        BytesOn::Decoded => max.div_ceil(3) * 4,
                    };
                    bytes = bytes.min(max_text);
                }
                (profile_image_tokens(profile, size, f.low), bytes)
            };
            let (tokens, bytes) = predict(false);
            let (tokens_many, bytes_many) = predict(true);
            Account {
                tokens,
                tokens_many,
                bytes,
                bytes_many,
                stashable: f.stashable,
            }
        })
        .collect()
}

/// Writes the originals of changed images; returns the md5s that committed.
async fn stash_originals<B: StashBackend>(
    stash: &StashAccess<'_, B>,
    found: &[Found],
    outcomes: &[Option<Outcome>],
    problems: &mut Vec<String>,
) -> BTreeSet<String> {
    let existing: BTreeSet<String> = match stash.backend.list_meta().await {
        Ok(metas) => metas
            .into_iter()
            .filter(|m| m.expires_at > stash.now)
            .map(|m| m.id)
            .collect(),
        Err(e) => {
            problems.push(format!("listing the stash failed: {e}"));
            return BTreeSet::new();
        }
    };
    // Each original once, by md5 (kept in md5 order), with the first image
    // of it and the templates of every part that shows it.
    let mut originals: Vec<(&str, &Inline, Vec<ImageTemplate>)> = Vec::new();
    for (f, o) in found.iter().zip(outcomes) {
        if let (Some(img), Some(Outcome::Changed(_))) = (&f.inline, o) {
            if existing.contains(&img.md5) {
                continue;
            }
            let at = match originals.binary_search_by(|o| o.0.cmp(img.md5.as_str())) {
                Ok(at) => at,
                Err(at) => {
                    originals.insert(at, (&img.md5, img, Vec::new()));
                    at
                }
            };
            if let Some(o) = originals.get_mut(at) {
                o.2.extend(img.template.clone());
            }
        }
    }
    let records: Vec<NewRecord<'_>> = originals
        .iter()
        .map(|(md5, img, templates)| {
            NewRecord::new(
                (*md5).to_owned(),
                img.mime.clone(),
                &img.payload,
                img.decoded,
                img.text_len,
                ImageTemplate::list_to_json_text(templates),
                stash.now,
                stash.config.ttl_ms,
            )
        })
        .collect();
    let results = if records.is_empty() {
        Vec::new()
    } else {
        stash.backend.put_records(&records).await
    };
    let mut committed = existing;
    for (i, r) in records.iter().enumerate() {
        match results.get(i) {
            Some(Ok(())) => {
                committed.insert(r.id.clone());
            }
            Some(Err(e)) => problems.push(format!("stashing the original of an image failed: {e}")),
            None => problems.push("the stash gave no answer for an original".into()),
        }
    }
    committed
}

/// Fits `values` to `profile`: see the module docs. Without `stash`, images
/// are still resized (the caller keeps the originals it passed in), but no
/// history image can be stashed.
#[allow(clippy::too_many_arguments)]
pub async fn fit_context<B: StashBackend, R: Resizer>(
    stash: Option<StashAccess<'_, B>>,
    resizer: &R,
    values: Vec<Value>,
    format: Option<Format>,
    profile: &ModelProfile,
    options: FitOptions,
    payloads: &dyn Payloads,
) -> Result<crate::history::Outcome<FitReport>, MessageError> {
    // Long work in short tasks: the host runs between images.
    let slicer = Slicer::of(payloads.event_loop());
    let sizes: Vec<u64> = values.iter().map(|v| json_len_with(v, payloads)).collect();
    let bytes_before: u64 = sizes.iter().sum();
    let format = format.unwrap_or_else(|| detect_format(&values));
    let (format, mut messages) =
        decode_messages(values, Some(format), &JsonPath::root("messages"))?;
    slicer.checkpoint().await;
    let before = estimate(&messages, profile, bytes_before, None, payloads);
    slicer.checkpoint().await;
    let found = find_images(&messages, options, payloads, stash.is_some(), &slicer).await;
    let max_tokens = options.max_tokens.or(profile.context_tokens);
    let limits = Limits {
        max_images: profile.max_images,
        max_tokens,
        max_request_bytes: profile.max_request_bytes,
        many_images: profile.many_images,
    };
    let inline_text: u64 = found
        .iter()
        .filter_map(|f| f.inline.as_ref())
        .map(|i| i.text_len)
        .sum();
    let rest = Rest {
        tokens: before.text_tokens,
        bytes: bytes_before.saturating_sub(inline_text),
    };
    let mut problems = Vec::new();
    let limit_choice = |choice: StashChoice, problems: &mut Vec<String>| -> StashChoice {
        if choice.stash > 0 && stash.is_none() {
            problems.push(format!(
                "{} history images must be stashed to fit, and no stash was given",
                choice.stash
            ));
            return StashChoice {
                stash: 0,
                reasons: Vec::new(),
                ..choice
            };
        }
        choice
    };
    let mut scratch = Vec::new();
    let planned = limit_choice(
        choose_stash(&accounts(profile, &found, None), rest, limits),
        &mut scratch,
    );
    let stash_order: Vec<usize> = (0..found.len()).filter(|k| found[*k].stashable).collect();
    // Each image's place among the stashable ones: the first `n` are stashed.
    let mut rank = vec![usize::MAX; found.len()];
    for (r, k) in stash_order.iter().enumerate() {
        rank[*k] = r;
    }
    let is_stashed = |k: usize, n: usize| rank[k] < n;

    // Resize what is sent, one image at a time.
    // The same image (same md5 and detail) is resized once.
    let mut outcomes: Vec<Option<Outcome>> = Vec::with_capacity(found.len());
    // (md5 or payload, low detail) → the first image resized, sorted by key.
    let mut done: Vec<((&str, bool), usize)> = Vec::new();
    for (k, f) in found.iter().enumerate() {
        let outcome = match &f.inline {
            Some(img) if !f.protected && !is_stashed(k, planned.stash) => {
                // Without a stash nothing was hashed: the same text is the same image.
                let key = if img.md5.is_empty() {
                    img.payload.as_str()
                } else {
                    img.md5.as_str()
                };
                match done.binary_search_by(|d| d.0.cmp(&(key, f.low))) {
                    Ok(at) => done
                        .get(at)
                        .and_then(|d| outcomes.get(d.1))
                        .cloned()
                        .flatten(),
                    Err(at) => {
                        done.insert(at, ((key, f.low), k));
                        slicer.checkpoint().await;
                        fit_one(resizer, profile, img, f.low, planned.many, payloads).await
                    }
                }
            }
            _ => None,
        };
        outcomes.push(outcome);
    }
    // With the real sizes, the request may need more stashed.
    let settled = choose_stash(&accounts(profile, &found, Some(&outcomes)), rest, limits);
    let choice = if settled.stash > planned.stash {
        limit_choice(settled, &mut problems)
    } else {
        problems.extend(scratch);
        planned
    };
    for (k, o) in outcomes.iter_mut().enumerate() {
        if is_stashed(k, choice.stash) {
            *o = None;
        }
    }

    let committed = match &stash {
        Some(s) => Some(stash_originals(s, &found, &outcomes, &mut problems).await),
        None => None,
    };
    // Replace what may be replaced: with a stash, only what committed.
    // The replacements, in message and image order (`found`'s order).
    let mut replaced: Vec<(usize, usize, &Change, &ImageTemplate)> = Vec::new();
    let mut images: Vec<ImageFit> = Vec::with_capacity(found.len());
    for (k, (f, o)) in found.iter().zip(&outcomes).enumerate() {
        let before_fig = f.inline.as_ref().map(|i| Figures {
            orientation: i.orientation.map(|o| o.value()).filter(|v| *v != 1),
            ..figures(profile, i.dims, i.decoded, i.text_len, f.low, &i.mime)
        });
        let mut fit = ImageFit {
            path: f.path.clone(),
            action: Action::Kept,
            reasons: Vec::new(),
            before: before_fig.clone(),
            after: before_fig,
            id: None,
            scale: None,
            first_frame_only: false,
            note: None,
        };
        if let Some(pos) = Some(rank[k]).filter(|p| *p < choice.stash) {
            fit.action = Action::Stashed;
            fit.reasons = vec![choice.reasons[pos]];
            fit.after = None;
            fit.id = f.inline.as_ref().map(|i| format!("history_{}", i.md5));
        }
        match (o, &f.inline) {
            (Some(Outcome::Changed(c)), Some(img)) => {
                let stored = committed.as_ref().is_none_or(|set| set.contains(&img.md5));
                match (&img.template, stored) {
                    (Some(t), true) => {
                        replaced.push((f.message, f.ordinal, c, t));
                        fit.action = if c.dims == img.dims {
                            Action::Reencoded
                        } else {
                            Action::Downscaled
                        };
                        fit.after = Some(Figures {
                            quality: c.quality,
                            ..figures(profile, c.dims, c.decoded, c.text_len, f.low, &c.mime)
                        });
                        fit.scale = Some(Scale::between(img.dims, c.dims));
                        fit.id = committed.as_ref().map(|_| format!("history_{}", img.md5));
                        fit.first_frame_only = c.first_frame_only;
                        fit.note.clone_from(&c.note);
                    }
                    _ => {
                        fit.action = Action::Failed;
                        fit.note = Some("its original could not be stashed; sent as it was".into());
                    }
                }
                fit.reasons = c.reasons.clone();
            }
            (Some(Outcome::Kept(reasons, note)), _) => {
                fit.reasons = reasons.clone();
                fit.note = Some(note.clone());
            }
            (Some(Outcome::Failed(reasons, note)), _) => {
                fit.action = Action::Failed;
                fit.reasons = reasons.clone();
                fit.note = Some(note.clone());
            }
            _ => {}
        }
        images.push(fit);
    }
    let mut changed = vec![false; messages.len()];
    for parts in replaced.chunk_by(|a, b| a.0 == b.0) {
        let Some(&(i, ..)) = parts.first() else {
            continue;
        };
        changed[i] = true;
        rewrite_images(&mut messages[i], &mut |ordinal, part| match (
            parts.iter().find(|r| r.1 == ordinal),
            part,
        ) {
            (Some((_, _, c, t)), Part::Image(img)) => Part::Image(ImagePart {
                wire: t.refill(&c.mime, &c.payload),
                shape: img.shape,
            }),
            (_, part) => part,
        });
    }
    drop(replaced);
    drop(outcomes);
    let mut values: Vec<Value> = messages.into_iter().map(|m| m.into_wire()).collect();

    // Stash the oldest history images the plan names, as compaction does.
    if let (Some(s), true) = (&stash, choice.stash > 0) {
        let options = CompactOptions {
            keep_recent_images: stash_order.len() - choice.stash,
            ..CompactOptions::default()
        };
        let out = compact_history(
            s.backend,
            s.config,
            s.now,
            values,
            Some(format),
            options,
            &mut |_, _, _| {},
            payloads,
        )
        .await?;
        for failure in &out.report.failures {
            if let Some(img) = images.iter_mut().find(|i| i.path == failure.path) {
                img.action = Action::Failed;
                img.id = None;
                img.after = img.before.clone();
                img.note = Some(format!("{}: {}", failure.code, failure.reason));
            } else if failure.path.is_empty() {
                problems.push(failure.reason.clone());
            }
        }
        for (c, o) in changed.iter_mut().zip(&out.changed) {
            *c |= *o;
        }
        values = out.messages;
    }

    let bytes_after: u64 = values.iter().map(|v| json_len_with(v, payloads)).sum();
    let (_, final_messages) =
        decode_messages(values.clone(), Some(format), &JsonPath::root("messages"))?;
    let after = estimate(&final_messages, profile, bytes_after, None, payloads);
    drop(final_messages);
    problems.extend(after.exceeded.iter().cloned());
    problems.extend(
        images
            .iter()
            .filter(|i| {
                i.action == Action::Failed && i.reasons.contains(&Reason::UnsupportedFormat)
            })
            .map(|i| {
                format!(
                    "{} is {}, which the model does not take, and could not be converted",
                    i.path,
                    i.before
                        .as_ref()
                        .map_or("an unreadable image", |b| b.mime.as_str())
                )
            }),
    );
    if let Some(m) = max_tokens.filter(|m| after.total_tokens > *m) {
        problems.push(format!(
            "the request is about {} tokens; the limit is {m}",
            after.total_tokens
        ));
    }
    problems.dedup();
    let report = FitReport {
        model: profile.matched,
        provider: profile.provider,
        format: format.name(),
        fits: problems.is_empty(),
        problems,
        images_before: before.image_count,
        images_after: after.image_count,
        tokens_before: before.total_tokens,
        tokens_after: after.total_tokens,
        bytes_before,
        bytes_after,
        changed: images
            .iter()
            .filter(|i| matches!(i.action, Action::Downscaled | Action::Reencoded))
            .count(),
        stashed: images
            .iter()
            .filter(|i| i.action == Action::Stashed)
            .count(),
        images,
    };
    Ok(crate::history::Outcome {
        messages: values,
        changed,
        report,
    })
}

/// Fits `values` to the limits that fix `refusal` (see
/// [`super::repair_profile`]); an error when the result is still over them.
#[allow(clippy::too_many_arguments)]
pub async fn repair_context<B: StashBackend, R: Resizer>(
    stash: Option<StashAccess<'_, B>>,
    resizer: &R,
    values: Vec<Value>,
    format: Option<Format>,
    refusal: &crate::budget::ProviderRefusal,
    profile: &ModelProfile,
    options: FitOptions,
    payloads: &dyn Payloads,
) -> Result<crate::history::Outcome<FitReport>, super::RepairError> {
    let bytes: u64 = values.iter().map(|v| json_len_with(v, payloads)).sum();
    let (_, messages) = decode_messages(values.clone(), format, &JsonPath::root("messages"))?;
    let current = estimate(&messages, profile, bytes, None, payloads);
    drop(messages);
    let repair = super::repair_profile(refusal, profile, &current, options.max_tokens);
    let options = FitOptions {
        max_tokens: repair.max_tokens,
        ..options
    };
    let out = fit_context(
        stash,
        resizer,
        values,
        format,
        &repair.profile,
        options,
        payloads,
    )
    .await?;
    if !out.report.fits {
        return Err(super::RepairError::CannotFit {
            kind: super::kind_name(refusal.kind),
            problems: out.report.problems,
        });
    }
    Ok(out)
}
