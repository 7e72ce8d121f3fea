//! Model profiles: the image rules of each model, in one table — how it
//! counts image tokens, how large an image it takes, the many-image rule,
//! images per request, bytes per image and per request. Each row names its
//! source and the date it was read. Unknown ids match by family prefix
//! (`claude-sonnet-4-9` finds `claude-`), else the provider's defaults; a
//! `provider/model` id (OpenRouter, gateways) is read without its prefix.

use super::limits::Provider;
use crate::media::Dimensions;

/// How a model counts an image's tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum TokenRule {
    /// OpenAI 512-px tiles: fit in 2048², shortest side to 768, then `base +
    /// perTile × tiles`; `detail: 'low'` is `base` alone.
    OpenaiTiles {
        /// Tokens for the image as a whole.
        base: u32,
        /// Tokens per 512-px tile.
        #[serde(rename = "perTile")]
        per_tile: u32,
    },
    /// OpenAI 32-px patches, at most 1536 (the image shrinks to fit), times a
    /// per-model multiplier (in thousandths).
    OpenaiPatches {
        /// The multiplier × 1000.
        #[serde(rename = "multiplierMilli")]
        multiplier_milli: u32,
    },
    /// Anthropic: `width × height / 750` after scaling the long edge to
    /// `longEdge` and the image to at most `maxTokens` (the docs: "If your
    /// image's long edge is more than 1568 pixels, or your image is more than
    /// ~1,600 tokens, it will first be scaled down").
    AnthropicPixels {
        /// The long edge images are scaled to.
        #[serde(rename = "longEdge")]
        long_edge: u32,
        /// The most tokens one image costs; larger images are scaled down.
        #[serde(rename = "maxTokens")]
        max_tokens: u32,
    },
    /// Gemini 2.x: 258 tokens for an image within 384², else 258 per 768-px tile.
    GeminiTiles,
    /// Gemini 3: a fixed count per image, by `media_resolution` (default high).
    GeminiMediaResolution {
        /// Tokens at `high`, the default for images.
        high: u32,
        /// Tokens at `medium`.
        medium: u32,
        /// Tokens at `low`.
        low: u32,
    },
}

/// What an image-byte limit is measured on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BytesOn {
    /// The base64 text (Anthropic, Bedrock).
    Base64,
    /// The decoded image.
    Decoded,
}

/// The rules of one model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelProfile {
    /// The table row that matched: a model id or a family prefix.
    pub matched: &'static str,
    /// Whose API it is.
    pub provider: &'static str,
    /// How it counts image tokens.
    pub tokens: TokenRule,
    /// The largest side, in pixels, it accepts.
    pub max_long_edge: Option<u32>,
    /// The many-image rule: with more than `manyImages` images in a request,
    /// every side must be at most `manyImagesLongEdge` pixels.
    pub many_images: Option<usize>,
    /// The long edge under the many-image rule.
    pub many_images_long_edge: Option<u32>,
    /// Images per request.
    pub max_images: Option<usize>,
    /// Bytes per image.
    pub max_image_bytes: Option<u64>,
    /// What `maxImageBytes` is measured on.
    pub image_bytes_on: BytesOn,
    /// Bytes per request body.
    pub max_request_bytes: Option<u64>,
    /// Context window, in tokens.
    pub context_tokens: Option<u64>,
    /// Where the figures come from, and when they were read.
    pub source: &'static str,
}

const MB: u64 = 1024 * 1024;

const OPENAI_DOCS: &str = "platform.openai.com/docs/guides/images-vision (calculating costs; input requirements), read 2026-11";
const ANTHROPIC_DOCS: &str =
    "docs.anthropic.com/en/docs/build-with-claude/vision (image size, cost, limits), read 2026-11";
const GEMINI_DOCS: &str =
    "ai.google.dev/gemini-api/docs/image-understanding and /tokens, read 2026-11";

const fn openai(matched: &'static str, tokens: TokenRule, context: u64) -> ModelProfile {
    ModelProfile {
        matched,
        provider: "openai",
        tokens,
        max_long_edge: None,
        many_images: None,
        many_images_long_edge: None,
        max_images: Some(500),
        max_image_bytes: Some(20 * MB),
        image_bytes_on: BytesOn::Decoded,
        max_request_bytes: Some(50 * MB),
        context_tokens: Some(context),
        source: OPENAI_DOCS,
    }
}

const fn anthropic(
    matched: &'static str,
    long_edge: u32,
    max_tokens: u32,
    context: u64,
) -> ModelProfile {
    ModelProfile {
        matched,
        provider: "anthropic",
        tokens: TokenRule::AnthropicPixels {
            long_edge,
            max_tokens,
        },
        max_long_edge: Some(8000),
        many_images: Some(20),
        many_images_long_edge: Some(2000),
        max_images: Some(100),
        max_image_bytes: Some(5 * MB),
        image_bytes_on: BytesOn::Base64,
        max_request_bytes: Some(32 * MB),
        context_tokens: Some(context),
        source: ANTHROPIC_DOCS,
    }
}

const fn gemini(matched: &'static str, tokens: TokenRule, context: u64) -> ModelProfile {
    ModelProfile {
        matched,
        provider: "gemini",
        tokens,
        max_long_edge: None,
        many_images: None,
        many_images_long_edge: None,
        max_images: Some(3000),
        max_image_bytes: Some(7 * MB),
        image_bytes_on: BytesOn::Decoded,
        max_request_bytes: Some(20 * MB),
        context_tokens: Some(context),
        source: GEMINI_DOCS,
    }
}

const TILES_4O: TokenRule = TokenRule::OpenaiTiles {
    base: 85,
    per_tile: 170,
};
const GEMINI_3: TokenRule = TokenRule::GeminiMediaResolution {
    high: 1120,
    medium: 560,
    low: 280,
};

/// The table, most specific first: a model id matches the first row it
/// starts with.
pub const PROFILES: &[ModelProfile] = &[
    // OpenAI: tiles (base, per tile) or patches (multiplier), per the
    // "Calculating costs" tables of the vision guide.
    openai(
        "gpt-4o-mini",
        TokenRule::OpenaiTiles {
            base: 2833,
            per_tile: 5667,
        },
        128_000,
    ),
    openai("gpt-4o", TILES_4O, 128_000),
    openai(
        "gpt-4.1-mini",
        TokenRule::OpenaiPatches {
            multiplier_milli: 1620,
        },
        1_047_576,
    ),
    openai(
        "gpt-4.1-nano",
        TokenRule::OpenaiPatches {
            multiplier_milli: 2460,
        },
        1_047_576,
    ),
    openai("gpt-4.1", TILES_4O, 1_047_576),
    openai(
        "gpt-5-mini",
        TokenRule::OpenaiPatches {
            multiplier_milli: 1620,
        },
        400_000,
    ),
    openai(
        "gpt-5-nano",
        TokenRule::OpenaiPatches {
            multiplier_milli: 2460,
        },
        400_000,
    ),
    openai(
        "gpt-5",
        TokenRule::OpenaiTiles {
            base: 70,
            per_tile: 140,
        },
        400_000,
    ),
    openai(
        "o4-mini",
        TokenRule::OpenaiPatches {
            multiplier_milli: 1720,
        },
        200_000,
    ),
    openai(
        "o3",
        TokenRule::OpenaiTiles {
            base: 75,
            per_tile: 150,
        },
        200_000,
    ),
    openai(
        "o1",
        TokenRule::OpenaiTiles {
            base: 75,
            per_tile: 150,
        },
        200_000,
    ),
    openai("gpt-", TILES_4O, 128_000),
    // Anthropic: w·h/750 after the long edge is scaled to 1568 px (2576 px on
    // Opus 4.7); 8000 px at most, 2000 px with more than 20 images; 100
    // images and 32 MB per request; 5 MB per image, measured on the base64.
    // An image over ~1,600 tokens (1.15 megapixels) is scaled down too
    // (4,784 on Opus 4.7, whose long edge is 2576).
    anthropic("claude-opus-4-7", 2576, 4784, 200_000),
    anthropic("claude-", 1568, 1600, 200_000),
    // Gemini: 2.x tiles; 3 by media resolution (images default to high).
    gemini("gemini-3", GEMINI_3, 1_048_576),
    gemini("gemini-", TokenRule::GeminiTiles, 1_048_576),
];

/// The rules of `provider`'s models in general: what `estimate` applies
/// when given a provider rather than a model, and what an id no row
/// matches falls back to.
pub fn provider_profile(provider: Provider) -> ModelProfile {
    match provider {
        Provider::Anthropic => anthropic("anthropic", 1568, 1600, 200_000),
        Provider::Bedrock => ModelProfile {
            matched: "bedrock",
            provider: "bedrock",
            max_images: Some(20),
            max_image_bytes: Some(3_750_000),
            max_request_bytes: Some(20 * MB),
            source: "docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ImageBlock.html, read 2026-11",
            ..anthropic("bedrock", 1568, 1600, 200_000)
        },
        Provider::Gemini => gemini("gemini", TokenRule::GeminiTiles, 1_048_576),
        Provider::OpenAi => openai("openai", TILES_4O, 128_000),
    }
}

/// The profile of `model_id`: its row, else its family's, else the
/// defaults of the provider the id names (`claude…`, `gemini…`, `anthropic/…`,
/// `bedrock/…`), else OpenAI's.
pub fn model_profile(model_id: &str) -> ModelProfile {
    let lower = model_id.trim().to_ascii_lowercase();
    // `provider/model` (OpenRouter, gateways) and Bedrock's `anthropic.claude-…`.
    let (prefix, bare) = match lower.rsplit_once('/') {
        Some((p, m)) => (Some(p.to_owned()), m.to_owned()),
        None => (None, lower.clone()),
    };
    let bare = bare
        .strip_prefix("anthropic.")
        .or_else(|| bare.strip_prefix("us.anthropic."))
        .unwrap_or(&bare)
        .to_owned();
    let bedrock = prefix.as_deref() == Some("bedrock") || lower.contains("anthropic.claude");
    if let Some(row) = PROFILES.iter().find(|p| bare.starts_with(p.matched)) {
        if bedrock && row.provider == "anthropic" {
            return ModelProfile {
                matched: row.matched,
                ..provider_profile(Provider::Bedrock)
            };
        }
        return *row;
    }
    let provider = prefix
        .as_deref()
        .and_then(Provider::from_name)
        .unwrap_or(Provider::OpenAi);
    provider_profile(provider)
}

/// The image tokens `profile` counts for an image of `dims`; `low` is
/// OpenAI's `detail: 'low'` (and Gemini 3's `low` media resolution).
pub fn profile_image_tokens(profile: &ModelProfile, dims: Dimensions, low: bool) -> u64 {
    let (w, h) = (f64::from(dims.width.max(1)), f64::from(dims.height.max(1)));
    match profile.tokens {
        TokenRule::OpenaiTiles { base, per_tile } => {
            if low {
                return u64::from(base);
            }
            let fit = (2048.0 / w.max(h)).min(1.0);
            let (w, h) = (w * fit, h * fit);
            let shrink = (768.0 / w.min(h)).min(1.0);
            let (w, h) = ((w * shrink).round(), (h * shrink).round());
            let tiles = ((w / 512.0).ceil() * (h / 512.0).ceil()) as u64;
            u64::from(per_tile) * tiles + u64::from(base)
        }
        TokenRule::OpenaiPatches { multiplier_milli } => {
            let patches = openai_patches(w, h);
            (patches * u64::from(multiplier_milli)).div_ceil(1000)
        }
        TokenRule::AnthropicPixels { .. } => {
            let seen = seen_size(profile, dims, low);
            (f64::from(seen.width) * f64::from(seen.height) / 750.0).ceil() as u64
        }
        TokenRule::GeminiTiles => {
            if w <= 384.0 && h <= 384.0 {
                258
            } else {
                ((w / 768.0).ceil() * (h / 768.0).ceil()) as u64 * 258
            }
        }
        TokenRule::GeminiMediaResolution { high, low: l, .. } => {
            u64::from(if low { l } else { high })
        }
    }
}

/// The size at which `profile`'s model reads an image of `dims`: a larger
/// image is scaled down (aspect kept) by the model's own rule before it is
/// counted, so an image downscaled to this size costs the same tokens.
/// Gemini documents no such size: images are read as they are.
pub fn seen_size(profile: &ModelProfile, dims: Dimensions, low: bool) -> Dimensions {
    let (w, h) = (f64::from(dims.width.max(1)), f64::from(dims.height.max(1)));
    let scale = match profile.tokens {
        TokenRule::AnthropicPixels {
            long_edge,
            max_tokens,
        } => {
            let s = (f64::from(long_edge) / w.max(h)).min(1.0);
            let area = (w * s) * (h * s);
            let cap = f64::from(max_tokens) * 750.0;
            if area > cap {
                s * (cap / area).sqrt()
            } else {
                s
            }
        }
        TokenRule::OpenaiTiles { .. } if low => (512.0 / w.max(h)).min(1.0),
        TokenRule::OpenaiTiles { .. } => {
            let fit = (2048.0 / w.max(h)).min(1.0);
            fit * (768.0 / (w.min(h) * fit)).min(1.0)
        }
        TokenRule::OpenaiPatches { .. } => {
            const PATCH: f64 = 32.0;
            if (w / PATCH).ceil() * (h / PATCH).ceil() <= 1536.0 {
                1.0
            } else {
                let shrink = (PATCH * PATCH * 1536.0 / (w * h)).sqrt();
                let (sw, sh) = (w * shrink / PATCH, h * shrink / PATCH);
                shrink * (sw.floor() / sw).min(sh.floor() / sh)
            }
        }
        TokenRule::GeminiTiles | TokenRule::GeminiMediaResolution { .. } => 1.0,
    };
    if scale >= 1.0 {
        return dims;
    }
    Dimensions {
        width: ((w * scale).floor() as u32).max(1),
        height: ((h * scale).floor() as u32).max(1),
    }
}

/// OpenAI's 32-px patch count: at most 1536; a larger image shrinks to fit,
/// then further so its width or height is a whole number of patches.
fn openai_patches(w: f64, h: f64) -> u64 {
    const PATCH: f64 = 32.0;
    const CAP: f64 = 1536.0;
    let raw = (w / PATCH).ceil() * (h / PATCH).ceil();
    if raw <= CAP {
        return raw as u64;
    }
    let shrink = (PATCH * PATCH * CAP / (w * h)).sqrt();
    let (sw, sh) = (w * shrink / PATCH, h * shrink / PATCH);
    let adjust = (sw.floor() / sw).min(sh.floor() / sh);
    let (rw, rh) = (w * shrink * adjust, h * shrink * adjust);
    ((rw / PATCH).ceil() * (rh / PATCH).ceil()).min(CAP) as u64
}

/// Fields of a [`ModelProfile`] to replace: every figure may be set by the
/// caller (a gateway's own limits, a newer model's). `null` removes a limit.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProfileOverrides {
    /// See [`ModelProfile::tokens`].
    pub tokens: Option<TokenRule>,
    /// See [`ModelProfile::max_long_edge`].
    #[serde(default, with = "nullable")]
    pub max_long_edge: Option<Option<u32>>,
    /// See [`ModelProfile::many_images`].
    #[serde(default, with = "nullable")]
    pub many_images: Option<Option<usize>>,
    /// See [`ModelProfile::many_images_long_edge`].
    #[serde(default, with = "nullable")]
    pub many_images_long_edge: Option<Option<u32>>,
    /// See [`ModelProfile::max_images`].
    #[serde(default, with = "nullable")]
    pub max_images: Option<Option<usize>>,
    /// See [`ModelProfile::max_image_bytes`].
    #[serde(default, with = "nullable")]
    pub max_image_bytes: Option<Option<u64>>,
    /// See [`ModelProfile::image_bytes_on`].
    pub image_bytes_on: Option<BytesOn>,
    /// See [`ModelProfile::max_request_bytes`].
    #[serde(default, with = "nullable")]
    pub max_request_bytes: Option<Option<u64>>,
    /// See [`ModelProfile::context_tokens`].
    #[serde(default, with = "nullable")]
    pub context_tokens: Option<Option<u64>>,
}

/// A field that may be absent (keep), `null` (no limit) or a value.
mod nullable {
    use serde::{Deserialize, Deserializer};

    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Option<T>>, D::Error> {
        Option::<T>::deserialize(d).map(Some)
    }
}

impl ModelProfile {
    /// The profile with `overrides` applied.
    pub fn with_overrides(mut self, o: &ProfileOverrides) -> ModelProfile {
        if let Some(t) = o.tokens {
            self.tokens = t;
        }
        if let Some(v) = o.max_long_edge {
            self.max_long_edge = v;
        }
        if let Some(v) = o.many_images {
            self.many_images = v;
        }
        if let Some(v) = o.many_images_long_edge {
            self.many_images_long_edge = v;
        }
        if let Some(v) = o.max_images {
            self.max_images = v;
        }
        if let Some(v) = o.max_image_bytes {
            self.max_image_bytes = v;
        }
        if let Some(v) = o.image_bytes_on {
            self.image_bytes_on = v;
        }
        if let Some(v) = o.max_request_bytes {
            self.max_request_bytes = v;
        }
        if let Some(v) = o.context_tokens {
            self.context_tokens = v;
        }
        self
    }

    /// The request limits this profile sets.
    pub fn limits(&self) -> super::RequestLimits {
        super::RequestLimits {
            max_images: self.max_images,
            max_image_bytes: self.max_image_bytes,
            max_request_bytes: self.max_request_bytes,
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
    fn ids_match_their_row_then_their_family_then_the_provider() {
        assert_eq!(model_profile("gpt-4o-2024-08-06").matched, "gpt-4o");
        assert_eq!(model_profile("gpt-4o-mini").matched, "gpt-4o-mini");
        assert_eq!(
            model_profile("GPT-4.1-mini-2025-04-14").matched,
            "gpt-4.1-mini"
        );
        assert_eq!(model_profile("gpt-5-nano").matched, "gpt-5-nano");
        assert_eq!(model_profile("gpt-5.1").matched, "gpt-5");
        assert_eq!(
            model_profile("claude-opus-4-7").tokens,
            TokenRule::AnthropicPixels {
                long_edge: 2576,
                max_tokens: 4784
            }
        );
        assert_eq!(
            model_profile("claude-sonnet-4-5-20250929").matched,
            "claude-"
        );
        assert_eq!(
            model_profile("anthropic/claude-sonnet-4.5").provider,
            "anthropic"
        );
        assert_eq!(
            model_profile("anthropic.claude-3-5-sonnet-20241022-v2:0").provider,
            "bedrock"
        );
        assert_eq!(model_profile("gemini-3-pro-preview").tokens, GEMINI_3);
        assert_eq!(
            model_profile("gemini-2.5-flash").tokens,
            TokenRule::GeminiTiles
        );
        assert_eq!(model_profile("google/some-new-model").provider, "gemini");
        assert_eq!(model_profile("my-local-llava").provider, "openai");
        let claude = model_profile("claude-haiku-4-5");
        assert_eq!(
            (claude.many_images, claude.many_images_long_edge),
            (Some(20), Some(2000))
        );
        assert_eq!(
            (claude.max_image_bytes, claude.image_bytes_on),
            (Some(5 * MB), BytesOn::Base64)
        );
    }

    #[test]
    fn every_field_can_be_overridden_and_null_removes_a_limit() {
        let o: ProfileOverrides = serde_json::from_str(
            r#"{"maxImages":50,"maxRequestBytes":null,"tokens":{"kind":"gemini-tiles"},"imageBytesOn":"decoded"}"#,
        )
        .unwrap();
        let p = model_profile("claude-sonnet-4-5").with_overrides(&o);
        assert_eq!(p.max_images, Some(50));
        assert_eq!(p.max_request_bytes, None);
        assert_eq!(p.tokens, TokenRule::GeminiTiles);
        assert_eq!(p.image_bytes_on, BytesOn::Decoded);
        assert_eq!(p.max_image_bytes, Some(5 * MB), "absent fields are kept");
        assert!(serde_json::from_str::<ProfileOverrides>(r#"{"maxImagez":1}"#).is_err());
    }

    #[test]
    fn token_formulas_match_the_documented_examples() {
        let gpt4o = model_profile("gpt-4o");
        assert_eq!(profile_image_tokens(&gpt4o, d(1024, 1024), false), 765);
        assert_eq!(profile_image_tokens(&gpt4o, d(2048, 4096), false), 1105);
        assert_eq!(profile_image_tokens(&gpt4o, d(4096, 8192), true), 85);
        // Patches: 1024×1024 is 32×32 patches; 1800×2400 shrinks to 33×44.
        let mini = model_profile("gpt-4.1-mini");
        assert_eq!(openai_patches(1024.0, 1024.0), 1024);
        assert_eq!(openai_patches(1800.0, 2400.0), 1452);
        assert_eq!(profile_image_tokens(&mini, d(1024, 1024), false), 1659);
        // Anthropic: 1000×1000 → 1334; the long edge scales to 1568 (2576 on Opus 4.7).
        let sonnet = model_profile("claude-sonnet-4-5");
        assert_eq!(profile_image_tokens(&sonnet, d(1000, 1000), false), 1334);
        assert_eq!(
            profile_image_tokens(&sonnet, d(3136, 1568), false),
            (1549u64 * 774).div_ceil(750)
        );
        let opus = model_profile("claude-opus-4-7");
        assert_eq!(
            profile_image_tokens(&opus, d(2576, 1288), false),
            (2576u64 * 1288).div_ceil(750)
        );
        assert_eq!(
            profile_image_tokens(&model_profile("gemini-2.5-pro"), d(1000, 800), false),
            258 * 4
        );
        assert_eq!(
            profile_image_tokens(&model_profile("gemini-3-pro"), d(4000, 3000), false),
            1120
        );
    }
}
