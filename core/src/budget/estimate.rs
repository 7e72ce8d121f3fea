//! Token and size accounting before a request is sent: image tokens from each
//! image's real dimensions by each provider's published formula, text tokens
//! by a documented approximation, and the provider's limits.
//!
//! - OpenAI (vision guide): `detail: low` costs 85 tokens; otherwise the image
//!   is fit inside 2048×2048, then scaled so its shortest side is at most
//!   768 px, and costs 170 per 512-px tile plus 85.
//! - Anthropic (vision docs): an image whose long edge exceeds 1568 px is
//!   scaled down to it; tokens ≈ width × height / 750.
//! - Gemini (API docs): 258 tokens when both sides are ≤ 384 px; otherwise the
//!   image is cut into 768×768 tiles of 258 tokens each.
//! - Bedrock (Claude models): as Anthropic.
//! - Text: one token per CJK character, one per 4 bytes of other UTF-8 text,
//!   plus 4 per message — within about 10 % of real tokenizers on chat text.

use crate::budget::limits::{Provider, RequestLimits};
use crate::budget::profiles::{
    image_tokens_at, profile_image_tokens, BytesOn, Detail, ModelProfile,
};
use crate::json_path::JsonPath;
use crate::media::{image_dimensions, Dimensions};
use crate::messages::walk::{for_each_image, for_each_text_without_paths};
use crate::messages::{ImagePart, ImageSource, Message};

/// Image tokens for `dims` under `provider`'s rule in general (`low`
/// detail for OpenAI); a model's own rule is [`profile_image_tokens`].
pub fn image_tokens(provider: Provider, dims: Dimensions, low_detail: bool) -> u64 {
    profile_image_tokens(
        &super::profiles::provider_profile(provider),
        dims,
        low_detail,
    )
}

/// Dimensions assumed for an image whose header cannot be read (a URL):
/// 1024×1024, a typical screenshot or photo after client-side resizing.
pub const UNKNOWN_DIMENSIONS: Dimensions = Dimensions {
    width: 1024,
    height: 1024,
};

/// Text tokens by the approximation in the module docs.
pub fn text_tokens(text: &str) -> u64 {
    let mut cjk = 0u64;
    let mut other_bytes = 0u64;
    for c in text.chars() {
        let u = c as u32;
        let is_cjk = (0x3040..=0x30ff).contains(&u)
            || (0x3400..=0x9fff).contains(&u)
            || (0xac00..=0xd7af).contains(&u)
            || (0xf900..=0xfaff).contains(&u)
            || (0xff00..=0xffef).contains(&u);
        if is_cjk {
            cjk += 1;
        } else {
            other_bytes += c.len_utf8() as u64;
        }
    }
    cjk + other_bytes.div_ceil(4)
}

/// One image's account.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageEstimate {
    /// JSON path of the image part.
    pub path: String,
    /// Width in px (assumed for URLs).
    pub width: u32,
    /// Height in px (assumed for URLs).
    pub height: u32,
    /// True when the dimensions were read from the image.
    pub measured: bool,
    /// Decoded bytes (0 for URLs).
    pub bytes: u64,
    /// Estimated tokens.
    pub tokens: u64,
}

/// A request's account.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EstimateReport {
    /// The provider.
    pub provider: &'static str,
    /// Images in the request.
    pub image_count: usize,
    /// Their tokens.
    pub image_tokens: u64,
    /// Text tokens (approximate).
    pub text_tokens: u64,
    /// Both.
    pub total_tokens: u64,
    /// Serialized JSON size of the messages.
    pub request_bytes: u64,
    /// Each image.
    pub images: Vec<ImageEstimate>,
    /// The provider's limits.
    pub limits: RequestLimits,
    /// Limits this request exceeds, as sentences.
    pub exceeded: Vec<String>,
    /// The date (`YYYY-MM-DD`) the model was retired, or is to be, if
    /// announced: requests to a model past its date fail.
    pub model_retired: Option<&'static str>,
}

/// The detail a part asks for: OpenAI's `detail` (on the part or its
/// `image_url`), Gemini 3's `mediaResolution` / `media_resolution` (a
/// level, or `{level}`), or an Interactions image's `resolution`; `None`
/// when it names none.
pub fn part_detail(wire: &serde_json::Map<String, serde_json::Value>) -> Option<Detail> {
    let level = |v: &serde_json::Value| {
        v.as_str()
            .or_else(|| v.get("level").and_then(|l| l.as_str()))
            .and_then(Detail::parse)
    };
    wire.get("image_url")
        .and_then(|u| u.get("detail"))
        .or_else(|| wire.get("detail"))
        .and_then(level)
        .or_else(|| {
            wire.get("mediaResolution")
                .or_else(|| wire.get("media_resolution"))
                .or_else(|| wire.get("resolution"))
                .and_then(level)
        })
}

/// Accounts for `messages` (whose serialized size is `request_bytes`) under
/// `profile`'s rules (a model's, or a provider's in general): image tokens
/// by its formula, and the limits it sets — images, bytes per image (on the
/// base64 text or the decoded image, as the profile says), bytes per
/// request, the largest side and the many-image rule. `limits` overrides
/// the profile's request limits.
pub fn estimate(
    messages: &[Message],
    profile: &ModelProfile,
    request_bytes: u64,
    limits: Option<RequestLimits>,
    payloads: &dyn crate::media::payload::Payloads,
) -> EstimateReport {
    let mut tally = Tally::new(profile, payloads);
    for (i, m) in messages.iter().enumerate() {
        tally.message(i, m);
    }
    tally.finish(request_bytes, limits)
}

/// The tokens of message `m`'s text as an estimate counts them: 4, plus
/// each text's.
pub fn message_text_tokens(m: &Message) -> u64 {
    let mut text = 4u64;
    for_each_text_without_paths(m, &mut |t| text += text_tokens(t));
    text
}

/// An estimate's account, message by message: a message read, or one a
/// digest stands for.
pub struct Tally<'p> {
    profile: &'p ModelProfile,
    payloads: &'p dyn crate::media::payload::Payloads,
    images: Vec<ImageEstimate>,
    text: u64,
}

impl<'p> Tally<'p> {
    /// An empty account under `profile`, payloads read through `payloads`.
    pub fn new(
        profile: &'p ModelProfile,
        payloads: &'p dyn crate::media::payload::Payloads,
    ) -> Tally<'p> {
        Tally {
            profile,
            payloads,
            images: Vec::new(),
            text: 0,
        }
    }

    /// Counts message `i`, read as `m`.
    pub fn message(&mut self, i: usize, m: &Message) {
        self.text += message_text_tokens(m);
        let (profile, payloads, images) = (self.profile, self.payloads, &mut self.images);
        for_each_image(
            m,
            &JsonPath::root("messages").index(i),
            &mut |_, path, img| {
                images.push(image_estimate(img, path, profile, payloads));
            },
        );
    }

    /// Counts `tokens` of text (a message a digest stands for).
    pub(crate) fn text(&mut self, tokens: u64) {
        self.text += tokens;
    }

    /// Counts the image `img` at `path`.
    pub(crate) fn image(&mut self, img: &ImagePart, path: &JsonPath) {
        self.images
            .push(image_estimate(img, path, self.profile, self.payloads));
    }

    /// The report for a request of `request_bytes` under `limits` (the
    /// profile's when `None`).
    pub fn finish(self, request_bytes: u64, limits: Option<RequestLimits>) -> EstimateReport {
        let profile = self.profile;
        let images = self.images;
        let limits = limits.unwrap_or_else(|| profile.limits());
        let exceeded = exceeded_limits(&images, profile, &limits, request_bytes);
        let image_tokens: u64 = images.iter().map(|i| i.tokens).sum();
        EstimateReport {
            provider: profile.provider,
            image_count: images.len(),
            image_tokens,
            text_tokens: self.text,
            total_tokens: image_tokens + self.text,
            request_bytes,
            images,
            limits,
            exceeded,
            model_retired: profile.retired,
        }
    }
}

/// The account of the image `img` at `path`: its dimensions read from its
/// header (assumed for a URL or a header that cannot be read), its bytes as
/// `profile` counts them (none for a URL), and its tokens by `profile`'s
/// formula at the detail its part asks for.
fn image_estimate(
    img: &ImagePart,
    path: &JsonPath,
    profile: &ModelProfile,
    payloads: &dyn crate::media::payload::Payloads,
) -> ImageEstimate {
    let detail = part_detail(&img.wire);
    let (dims, bytes) = match img.source() {
        ImageSource::Url(_) | ImageSource::Opaque => (None, 0),
        src => match src.inline() {
            Some((_, payload)) => {
                let facts = payloads.head(payload, 64 * 1024);
                let bytes = match profile.image_bytes_on {
                    BytesOn::Base64 => facts.len,
                    BytesOn::Decoded => facts.decoded_len,
                };
                (image_dimensions(&facts.head), bytes as u64)
            }
            None => (None, 0),
        },
    };
    let measured = dims.is_some();
    let d = dims.unwrap_or(UNKNOWN_DIMENSIONS);
    ImageEstimate {
        path: path.to_string(),
        width: d.width,
        height: d.height,
        measured,
        bytes,
        tokens: image_tokens_at(profile, d, detail),
    }
}

/// The limits `images` and a request of `request_bytes` exceed under
/// `profile` and `limits`, as sentences, in this order: the image count,
/// each image's sides, each image's bytes, the request's bytes.
fn exceeded_limits(
    images: &[ImageEstimate],
    profile: &ModelProfile,
    limits: &RequestLimits,
    request_bytes: u64,
) -> Vec<String> {
    let provider = profile.provider;
    let mut exceeded = Vec::new();
    if let Some(max) = limits.max_images {
        if images.len() > max {
            exceeded.push(format!(
                "{} images; {} allows {max} per request",
                images.len(),
                provider
            ));
        }
    }
    exceeded_image_sides(images, profile, &mut exceeded);
    if let Some(max) = limits.max_image_bytes {
        for img in images.iter().filter(|i| i.bytes > max) {
            exceeded.push(format!(
                "{} is {} bytes; {} allows {max} per image",
                img.path, img.bytes, provider
            ));
        }
    }
    if let Some(max) = limits.max_request_bytes {
        if request_bytes > max {
            exceeded.push(format!(
                "the request is {request_bytes} bytes; {provider} allows {max}"
            ));
        }
    }
    exceeded
}

/// Adds to `exceeded` a sentence for each measured image whose long edge is
/// over what `profile` allows: its own largest side, else the many-image
/// rule's when the request has more images than that rule allows at full size.
fn exceeded_image_sides(
    images: &[ImageEstimate],
    profile: &ModelProfile,
    exceeded: &mut Vec<String>,
) {
    let provider = profile.provider;
    let long_edge = |i: &ImageEstimate| i.width.max(i.height);
    let many = profile
        .many_images
        .zip(profile.many_images_long_edge)
        .filter(|(n, _)| images.len() > *n);
    for img in images.iter().filter(|i| i.measured) {
        if let Some(max) = profile.max_long_edge.filter(|m| long_edge(img) > *m) {
            exceeded.push(format!(
                "{} is {}×{} px; {provider} allows {max} px per side",
                img.path, img.width, img.height
            ));
        } else if let Some((n, max)) = many.filter(|(_, m)| long_edge(img) > *m) {
            exceeded.push(format!(
                "{} is {}×{} px; with more than {n} images {provider} allows {max} px per side",
                img.path, img.width, img.height
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(width: u32, height: u32) -> Dimensions {
        Dimensions { width, height }
    }

    #[test]
    fn a_parts_detail_or_media_resolution_is_read() {
        let part = |v: serde_json::Value| part_detail(v.as_object().unwrap());
        use serde_json::json;
        assert_eq!(
            part(json!({"type":"image_url","image_url":{"url":"x","detail":"low"}})),
            Some(Detail::Low)
        );
        assert_eq!(
            part(json!({"type":"input_image","detail":"original"})),
            Some(Detail::Original)
        );
        assert_eq!(
            part(json!({"inlineData":{},"mediaResolution":{"level":"MEDIA_RESOLUTION_MEDIUM"}})),
            Some(Detail::Medium)
        );
        assert_eq!(
            part(json!({"inline_data":{},"media_resolution":"media_resolution_low"})),
            Some(Detail::Low)
        );
        assert_eq!(
            part(
                json!({"type":"image","data":"x","mime_type":"image/png","resolution":"ultra_high"})
            ),
            Some(Detail::High)
        );
        assert_eq!(part(json!({"type":"image"})), None);
    }

    #[test]
    fn openai_tiles_match_the_published_examples() {
        // 1024×1024 high: 768×768 → 4 tiles → 765.
        assert_eq!(image_tokens(Provider::OpenAi, d(1024, 1024), false), 765);
        // 2048×4096: fit to 1024×2048, shortest side to 768 → 768×1536 → 6 tiles → 1105.
        assert_eq!(image_tokens(Provider::OpenAi, d(2048, 4096), false), 1105);
        assert_eq!(image_tokens(Provider::OpenAi, d(4096, 8192), true), 85);
        // Small images are not scaled up: 200×200 → one tile.
        assert_eq!(image_tokens(Provider::OpenAi, d(200, 200), false), 255);
    }

    #[test]
    fn anthropic_and_gemini_rules() {
        // 1000×1000 / 750 = 1333.3 → 1334.
        assert_eq!(
            image_tokens(Provider::Anthropic, d(1000, 1000), false),
            1334
        );
        // 3136×1568 → long edge to 1568 → 1568×784 = 1 229 312 px, over
        // ~1,600 tokens → scaled to 1549×774 → 1599.
        assert_eq!(
            image_tokens(Provider::Anthropic, d(3136, 1568), false),
            1599
        );
        assert_eq!(image_tokens(Provider::Gemini, d(384, 384), false), 258);
        assert_eq!(image_tokens(Provider::Gemini, d(1000, 800), false), 258 * 4);
    }

    #[test]
    fn text_approximation() {
        assert_eq!(text_tokens("这是什么"), 4);
        assert_eq!(text_tokens("abcdefgh"), 2);
        assert_eq!(text_tokens(""), 0);
    }
}
