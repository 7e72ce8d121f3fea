//! Phase 5, replace: each image's account, and the new encodings written
//! into the messages — with a stash, only those whose original committed.

use super::call::FitCall;
use super::measure::Found;
use super::one_image::{Change, Inline, Outcome};
use super::planning::Plan;
use super::report::{Action, Figures, ImageFit, Scale};
use crate::budget::{profile_image_tokens, ModelProfile};
use crate::media::Dimensions;
use crate::messages::image::ImageTemplate;
use crate::messages::walk::rewrite_images;
use crate::messages::{ImagePart, Message, Part};
use std::collections::BTreeSet;

/// A new encoding to write: message index, image ordinal in it, the
/// encoding and the template of the part it fills.
type Replacement<'a> = (usize, usize, &'a Change, &'a ImageTemplate);

/// Writes the changes of `outcomes` into `messages` where they may go
/// (`committed`: the md5s the stash holds, `None` without a stash); returns
/// every image's account, in `found`'s order, and per message whether it
/// changed.
pub(super) fn replace<B, R>(
    call: &FitCall<'_, B, R>,
    messages: &mut [Message],
    found: &[Found],
    outcomes: &[Option<Outcome>],
    plan: &Plan,
    committed: Option<&BTreeSet<String>>,
) -> (Vec<ImageFit>, Vec<bool>) {
    // The replacements, in message and image order (`found`'s order).
    let mut replaced: Vec<Replacement<'_>> = Vec::new();
    let mut images: Vec<ImageFit> = Vec::with_capacity(found.len());
    for (k, (f, o)) in found.iter().zip(outcomes).enumerate() {
        let mut fit = kept(call.profile, f);
        if let Some(pos) = plan.stashed_at(k) {
            fit.action = Action::Stashed;
            fit.reasons = vec![plan.choice.reasons[pos]];
            fit.after = None;
            fit.id = f.inline.as_ref().map(|i| format!("history_{}", i.md5));
        }
        match (o, &f.inline) {
            (Some(Outcome::Changed(c)), Some(img)) => {
                let stored = committed.is_none_or(|set| set.contains(&img.md5));
                match (&img.template, stored) {
                    (Some(t), true) => {
                        replaced.push((f.message, f.ordinal, c, t));
                        changed(&mut fit, call.profile, f, img, c, committed.is_some());
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
    let changed = rewrite(messages, &replaced);
    (images, changed)
}

/// An image's figures as the model counts them.
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

/// The account of `f` sent as it was.
fn kept(profile: &ModelProfile, f: &Found) -> ImageFit {
    let before = f.inline.as_ref().map(|i| Figures {
        orientation: i.orientation.map(|o| o.value()).filter(|v| *v != 1),
        ..figures(profile, i.dims, i.decoded, i.text_len, f.low, &i.mime)
    });
    ImageFit {
        path: f.path.clone(),
        action: Action::Kept,
        reasons: Vec::new(),
        before: before.clone(),
        after: before,
        id: None,
        scale: None,
        first_frame_only: false,
        note: None,
    }
}

/// Makes `fit` the account of `img` sent as `c` (`stashed`: its original is
/// in the stash).
fn changed(
    fit: &mut ImageFit,
    profile: &ModelProfile,
    f: &Found,
    img: &Inline,
    c: &Change,
    stashed: bool,
) {
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
    fit.id = stashed.then(|| format!("history_{}", img.md5));
    fit.first_frame_only = c.first_frame_only;
    fit.note.clone_from(&c.note);
}

/// Writes `replaced` (in message order) into `messages`; returns per
/// message whether it changed.
fn rewrite(messages: &mut [Message], replaced: &[Replacement<'_>]) -> Vec<bool> {
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
    changed
}
