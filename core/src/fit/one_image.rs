//! Fitting one image: the encodings tried through the [`Resizer`] until one
//! meets the image's target — and is not larger in bytes than the original
//! the model could have taken instead.

use super::attempt::{first_attempt, next_attempt, within_bytes, MAX_ATTEMPTS, PHOTO_QUALITIES};
use super::resizer::Resizer;
use super::source::{source_target, SourceFacts};
use super::target::{image_target, measured_bytes, ImageTarget, Reason};
use crate::budget::{BytesOn, ModelProfile};
use crate::media::payload::Payloads;
use crate::media::{image_dimensions, sniff_mime, Dimensions, Orientation};
use crate::messages::image::ImageTemplate;

/// An inline image whose header could be read.
pub(super) struct Inline {
    pub payload: String,
    pub md5: String,
    pub mime: String,
    /// As shown: EXIF orientation applied.
    pub dims: Dimensions,
    pub orientation: Option<Orientation>,
    pub text_len: u64,
    pub decoded: u64,
    pub animated: bool,
    pub template: Option<ImageTemplate>,
}

/// A new encoding of one image.
#[derive(Clone)]
pub(super) struct Change {
    pub payload: String,
    pub mime: String,
    pub dims: Dimensions,
    pub text_len: u64,
    pub decoded: u64,
    pub reasons: Vec<Reason>,
    pub first_frame_only: bool,
    /// The JPEG quality chosen, for a JPEG.
    pub quality: Option<u8>,
    /// Why it was sent although larger than the original.
    pub note: Option<String>,
}

/// What happened to one image that had to change.
#[derive(Clone)]
pub(super) enum Outcome {
    Changed(Change),
    Kept(Vec<Reason>, String),
    Failed(Vec<Reason>, String),
}

/// What `img` must become for `profile`; `None` when it goes as it is.
pub(super) fn target_of(
    profile: &ModelProfile,
    img: &Inline,
    many: bool,
    low: bool,
) -> Option<ImageTarget> {
    let base = image_target(profile, img.dims, img.decoded, many, low);
    let facts = SourceFacts {
        turned: img.orientation.is_some_and(Orientation::turns),
        animated: img.animated,
    };
    source_target(profile, &img.mime, img.dims, facts, base)
}

fn limit_words(target: &ImageTarget) -> String {
    format!(
        "no encoding came under {} bytes ({})",
        target.max_bytes.unwrap_or(0),
        match target.bytes_on {
            BytesOn::Base64 => "measured on the base64",
            BytesOn::Decoded => "decoded",
        }
    )
}

/// Tries the encodings for one image until one fits its target. A soft
/// target (the size the model reads at, an upright turn) is met only by an
/// encoding with fewer bytes than the original, else the original is kept;
/// a hard one (a limit the model refuses the original over) prefers such an
/// encoding, trying lower qualities and sizes, and sends the smallest that
/// meets the limits when none is smaller. A format the model does not take
/// has no original to compare with: the first encoding within the limits
/// goes.
pub(super) async fn fit_one<R: Resizer>(
    resizer: &R,
    profile: &ModelProfile,
    img: &Inline,
    low: bool,
    many: bool,
    payloads: &dyn Payloads,
) -> Option<Outcome> {
    let target = target_of(profile, img, many, low)?;
    if img.animated && !target.is_hard() {
        return Some(Outcome::Kept(
            target.reasons,
            "animated: sent whole rather than as its first frame".into(),
        ));
    }
    let convert = target.reasons.contains(&Reason::UnsupportedFormat);
    let hard = target.is_hard();
    let chase = chase_target(&target, img, convert);
    let mut attempt = first_attempt(&img.mime, img.dims, &target);
    let mut best: Option<Change> = None;
    for _ in 0..MAX_ATTEMPTS {
        let payload = match resizer
            .resize(&img.payload, &img.mime, img.dims, &attempt)
            .await
        {
            Ok(p) => p,
            Err(e) => {
                return Some(Outcome::Failed(
                    target.reasons,
                    format!("{}: {}", e.code, e.message),
                ))
            }
        };
        let change = match read_attempt(payload, &attempt, img, &target, payloads) {
            Ok(change) => change,
            Err(words) => return Some(Outcome::Failed(target.reasons, words)),
        };
        let decoded = change.decoded;
        let fits = within_bytes(decoded, &target);
        if fits && (convert || decoded < img.decoded) {
            return Some(Outcome::Changed(change));
        }
        if fits && best.as_ref().is_none_or(|b| decoded < b.decoded) {
            best = Some(change);
        }
        match next_attempt(&attempt, decoded, &chase) {
            Some(n) if hard || within_soft(&target, &attempt, &n) => attempt = n,
            _ => break,
        }
    }
    Some(give_up(target, hard, best, img))
}

/// The byte cap the attempts chase: the model's limit and, unless the
/// original cannot be sent at all (`convert`), the original's own size.
fn chase_target(target: &ImageTarget, img: &Inline, convert: bool) -> ImageTarget {
    let original = measured_bytes(img.decoded, target.bytes_on);
    ImageTarget {
        max_bytes: if convert {
            target.max_bytes
        } else {
            Some(target.max_bytes.map_or(original, |m| m.min(original)))
        },
        ..target.clone()
    }
}

/// What an attempt made: `payload` with its sizes and header read (all
/// that is needed: it is not stashed, so it is not hashed), or why it is
/// not an image within the attempt's pixels.
fn read_attempt(
    payload: String,
    attempt: &super::Attempt,
    img: &Inline,
    target: &ImageTarget,
    payloads: &dyn Payloads,
) -> Result<Change, String> {
    let facts = payloads.head(&payload, 64 * 1024);
    let dims = image_dimensions(&facts.head);
    let Some(dims) = dims.filter(|d| d.width <= attempt.width && d.height <= attempt.height) else {
        return Err(format!(
            "the resizer returned {} instead of an image of at most {}×{}",
            dims.map_or("something unreadable".into(), |d| format!(
                "{}×{}",
                d.width, d.height
            )),
            attempt.width,
            attempt.height
        ));
    };
    Ok(Change {
        mime: sniff_mime(&facts.head).unwrap_or(attempt.mime).to_owned(),
        payload,
        dims,
        text_len: facts.len as u64,
        decoded: facts.decoded_len as u64,
        reasons: target.reasons.clone(),
        first_frame_only: img.animated,
        quality: (attempt.mime == "image/jpeg").then_some(attempt.quality),
        note: None,
    })
}

/// Whether a soft target may try `next` after `attempt`: it never costs
/// more than the first try (the size the model reads at), or, for an
/// upright turn, the same kind of encoding at a lower quality.
fn within_soft(target: &ImageTarget, attempt: &super::Attempt, next: &super::Attempt) -> bool {
    target.reasons.contains(&Reason::ExifOrientation)
        && next.mime == attempt.mime
        && next.mime == "image/jpeg"
        && next.quality >= PHOTO_QUALITIES[1]
        && (next.width, next.height) == (attempt.width, attempt.height)
}

/// The outcome when no attempt both fit and had fewer bytes: a soft target
/// keeps the original; a hard one sends the smallest encoding that fit
/// (`best`), or fails.
fn give_up(target: ImageTarget, hard: bool, best: Option<Change>, img: &Inline) -> Outcome {
    if !hard {
        let turned = target.reasons.contains(&Reason::ExifOrientation);
        return Outcome::Kept(
            target.reasons,
            if turned {
                "no upright encoding had fewer bytes; sent as stored, with its EXIF orientation"
            } else {
                "smaller pixels did not make fewer bytes; sent as it was"
            }
            .into(),
        );
    }
    match best {
        Some(mut change) => {
            change.note = Some(format!(
                "no encoding within the model's limits had fewer bytes than the original ({} > {}); the smallest was sent, as the model refuses the original",
                change.decoded, img.decoded
            ));
            Outcome::Changed(change)
        }
        None => {
            let words = limit_words(&target);
            Outcome::Failed(target.reasons, words)
        }
    }
}
