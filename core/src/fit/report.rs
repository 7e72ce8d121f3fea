//! What a fitting did, per image and for the whole request.

use super::Reason;
use crate::media::Dimensions;

/// What became of one image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Sent as it was.
    Kept,
    /// Sent smaller.
    Downscaled,
    /// Sent at the same size in another encoding (JPEG, or a lower quality).
    Reencoded,
    /// Replaced by `[Picture:history_<md5>]`; its original is in the stash.
    Stashed,
    /// It had to change and could not (see `note`).
    Failed,
}

/// An image's figures as the model counts them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Figures {
    /// Width in px.
    pub width: u32,
    /// Height in px.
    pub height: u32,
    /// Decoded bytes.
    pub bytes: u64,
    /// Length of its base64 text.
    pub base64_bytes: u64,
    /// Tokens by the model's formula.
    pub tokens: u64,
    /// MIME type.
    pub mime: String,
    /// The JPEG quality ctxpack chose (of an image it encoded as JPEG): 90
    /// to 80 for screenshots and other lossless sources, so text stays
    /// readable; 85 to 55 for photos.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quality: Option<u8>,
    /// The EXIF orientation the original is stored with (2–8; width and
    /// height are as shown, with it applied). Absent when stored upright.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub orientation: Option<u8>,
}

/// From the pixels sent to the original's pixels: a point `(x, y)` the
/// model names in the image it was sent is `(x × scale.x, y × scale.y)` in
/// the original as shown (EXIF orientation applied), e.g. to map a
/// computer-use click back to the screen it was taken from.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Scale {
    /// Original width ÷ sent width.
    pub x: f64,
    /// Original height ÷ sent height.
    pub y: f64,
}

impl Scale {
    /// The scale from `sent` to `original`.
    pub fn between(original: Dimensions, sent: Dimensions) -> Scale {
        let ratio = |o: u32, s: u32| f64::from(o) / f64::from(s.max(1));
        Scale {
            x: ratio(original.width, sent.width),
            y: ratio(original.height, sent.height),
        }
    }
}

/// One image's account.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageFit {
    /// JSON path of the image part in the messages given.
    pub path: String,
    /// What became of it.
    pub action: Action,
    /// Why it changed (empty when kept).
    pub reasons: Vec<Reason>,
    /// As given; `None` for an image given by URL or with a payload that
    /// cannot be read.
    pub before: Option<Figures>,
    /// As sent; `None` when stashed (or not an inline image).
    pub after: Option<Figures>,
    /// `history_<md5>` of the original in the stash, when it changed and the
    /// stash holds the original (what `get_history_image` gives back).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// For an image sent changed (downscaled or re-encoded): from sent
    /// pixels to the original's, to map coordinates the model gives back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<Scale>,
    /// True when an animated image was sent as its first frame only.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub first_frame_only: bool,
    /// Anything else worth knowing: why it failed, why it was left alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The request's account.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FitReport {
    /// The profile row that applied.
    pub model: &'static str,
    /// Its provider.
    pub provider: &'static str,
    /// The format of the messages.
    pub format: &'static str,
    /// True when the request meets every limit of the model.
    pub fits: bool,
    /// What is still over, as sentences (empty when it fits).
    pub problems: Vec<String>,
    /// How many images the request held before the fitting.
    pub images_before: usize,
    /// Images sent.
    pub images_after: usize,
    /// Estimated tokens before.
    pub tokens_before: u64,
    /// Estimated tokens sent.
    pub tokens_after: u64,
    /// Serialized request bytes before.
    pub bytes_before: u64,
    /// Serialized request bytes sent.
    pub bytes_after: u64,
    /// Images made smaller or re-encoded.
    pub changed: usize,
    /// Images stashed.
    pub stashed: usize,
    /// The first message holding an image this call stashed for the first
    /// time (`null` when none). Images are resized the same way on every
    /// turn and an earlier call's stashed images come back as the same
    /// placeholders, so a provider's prompt cache holds the messages before
    /// it from the previous request.
    pub first_changed_index: Option<usize>,
    /// Every image, in document order.
    pub images: Vec<ImageFit>,
    /// With an offload: the compaction that sent the history images the
    /// fitting left inline by reference, as fitted. Not serialized with the
    /// rest: a host writes it as the report's `offload` itself (the main
    /// module serializes each report once).
    #[serde(skip)]
    pub offload: Option<crate::history::CompactReport>,
}
