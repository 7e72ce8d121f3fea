//! The built-in table, read from the providers' pages on 2026-11-25. Unknown
//! ids match by family prefix (`claude-sonnet-4-9` finds `claude-`), else
//! the provider's defaults; a `provider/model` id (OpenRouter, gateways) is
//! read without its prefix, and the platform it names (Bedrock, Vertex AI)
//! sets its platform's limits.

use super::rules::{BytesOn, Detail, MimeSet, TokenRule};
use super::{ModelProfile, MB};
use crate::budget::limits::Provider;

const OPENAI_DOCS: &str = "developers.openai.com/api/docs/guides/images-vision, read 2026-11-25";
const ANTHROPIC_DOCS: &str = "platform.claude.com/docs/en/build-with-claude/vision, docs.anthropic.com/en/api/overview, platform.claude.com/docs/en/models, read 2026-11-25";
const BEDROCK_DOCS: &str = "platform.claude.com/docs/en/build-with-claude/vision, docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html, github.com/RooCodeInc/Roo-Code/issues/8800, read 2026-11-25";
const VERTEX_DOCS: &str = "platform.claude.com/docs/en/build-with-claude/vision, read 2026-11-25";
const GEMINI_DOCS: &str = "ai.google.dev/gemini-api/docs/image-understanding, /tokens, /media-resolution, firebase.google.com/docs/ai-logic/input-file-requirements, read 2026-11-25";

// Each page, and what it says:
// - OpenAI vision guide: PNG, JPEG, WEBP, non-animated GIF; 20 MB per
//   image, 500 images and 50 MB per request; detail low/high/auto (default
//   auto); the tile and patch rules ("calculating costs").
// - Claude vision: 100 images per request with a 200k-token window, 600
//   otherwise; 8000 px, 2000 px with more than 20 images; 5 MB of base64
//   per image on Bedrock and Vertex AI; 1568 px, ~1,600 tokens, w·h/750.
//   API overview: 32 MB per request. Models: context windows.
// - Bedrock: 20 MB InvokeModel payload; Claude 4.x on Bedrock refuses the
//   21st image ("too many images and documents: 21 + 0 > 20", Roo-Code#8800).
// - Vertex AI: a request limit lower than 32 MB, not given as a figure.
// - Gemini: 258 tokens per 768-px tile, one tile within 384 px; Gemini 3
//   per-part media_resolution, images default to high; PNG, JPEG, WEBP,
//   HEIC, HEIF (Vertex AI image understanding: 3,000 images per prompt);
//   20 MB inline request (Firebase AI Logic input file requirements).

/// OpenAI's image types: PNG, JPEG, WEBP, non-animated GIF.
const OPENAI_ACCEPTS: MimeSet = MimeSet::PNG_JPEG_GIF_WEBP;
/// Anthropic's image types: JPEG, PNG, GIF, WebP.
const ANTHROPIC_ACCEPTS: MimeSet = MimeSet::PNG_JPEG_GIF_WEBP;
/// Gemini's image types: PNG, JPEG, WEBP, HEIC, HEIF.
const GEMINI_ACCEPTS: MimeSet = MimeSet::PNG_JPEG_WEBP_HEIC_HEIF;

const fn openai(matched: &'static str, tokens: TokenRule, context: u64) -> ModelProfile {
    ModelProfile {
        matched,
        provider: "openai",
        tokens,
        default_detail: Some(Detail::Auto),
        accepts: OPENAI_ACCEPTS,
        accepts_animated: false,
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

/// A Claude model on the Anthropic API: 100 images per request with a
/// 200k-token window, 600 with a larger one.
const fn anthropic(
    matched: &'static str,
    long_edge: u32,
    max_tokens: u32,
    context: u64,
) -> ModelProfile {
    ModelProfile {
        matched,
        provider: "anthropic",
        tokens: TokenRule::anthropic_pixels(long_edge, max_tokens),
        default_detail: None,
        accepts: ANTHROPIC_ACCEPTS,
        // Animated GIFs are taken (the model reads one frame); nothing in
        // the vision guide refuses them.
        accepts_animated: true,
        max_long_edge: Some(8000),
        many_images: Some(20),
        many_images_long_edge: Some(2000),
        max_images: Some(if context > 200_000 { 600 } else { 100 }),
        max_image_bytes: Some(5 * MB),
        image_bytes_on: BytesOn::Base64,
        max_request_bytes: Some(32 * MB),
        context_tokens: Some(context),
        source: ANTHROPIC_DOCS,
    }
}

const fn gemini(matched: &'static str, tokens: TokenRule, detail: Option<Detail>) -> ModelProfile {
    ModelProfile {
        matched,
        provider: "gemini",
        tokens,
        default_detail: detail,
        accepts: GEMINI_ACCEPTS,
        accepts_animated: false,
        max_long_edge: None,
        many_images: None,
        many_images_long_edge: None,
        max_images: Some(3000),
        max_image_bytes: Some(7 * MB),
        image_bytes_on: BytesOn::Decoded,
        max_request_bytes: Some(20 * MB),
        context_tokens: Some(1_048_576),
        source: GEMINI_DOCS,
    }
}

/// A Claude row on Amazon Bedrock: 20 images, 5 MB of base64 per image,
/// 20 MB per request.
const fn on_bedrock(row: ModelProfile) -> ModelProfile {
    ModelProfile {
        provider: "bedrock",
        max_images: Some(20),
        max_image_bytes: Some(5 * MB),
        max_request_bytes: Some(20 * MB),
        source: BEDROCK_DOCS,
        ..row
    }
}

/// A Claude row on Google Vertex AI: 5 MB of base64 per image; the request
/// limit is lower than the API's but not published as a figure.
const fn on_vertex(row: ModelProfile) -> ModelProfile {
    ModelProfile {
        provider: "vertex",
        max_image_bytes: Some(5 * MB),
        max_request_bytes: None,
        source: VERTEX_DOCS,
        ..row
    }
}

const TILES_4O: TokenRule = TokenRule::openai_tiles(85, 170);
const GEMINI_3: TokenRule = TokenRule::GeminiMediaResolution {
    high: 1120,
    medium: 560,
    low: 280,
};
/// Claude models whose window is 200k tokens (100 images per request).
const CLAUDE_200K: u64 = 200_000;
/// Claude models whose window is 1M tokens (600 images per request).
const CLAUDE_1M: u64 = 1_000_000;

/// The table, most specific first: a model id matches the first row it
/// starts with.
pub const PROFILES: &[ModelProfile] = &[
    // OpenAI: tiles (base, per tile) or patches (multiplier), per the
    // "Calculating costs" tables of the vision guide.
    openai("gpt-4o-mini", TokenRule::openai_tiles(2833, 5667), 128_000),
    openai("gpt-4o", TILES_4O, 128_000),
    openai("gpt-4.1-mini", TokenRule::openai_patches(1620), 1_047_576),
    openai("gpt-4.1-nano", TokenRule::openai_patches(2460), 1_047_576),
    openai("gpt-4.1", TILES_4O, 1_047_576),
    openai("gpt-5-mini", TokenRule::openai_patches(1620), 400_000),
    openai("gpt-5-nano", TokenRule::openai_patches(2460), 400_000),
    openai("gpt-5", TokenRule::openai_tiles(70, 140), 400_000),
    openai("o4-mini", TokenRule::openai_patches(1720), 200_000),
    openai("o3", TokenRule::openai_tiles(75, 150), 200_000),
    openai("o1", TokenRule::openai_tiles(75, 150), 200_000),
    openai("gpt-", TILES_4O, 128_000),
    // Anthropic: w·h/750 after the long edge is scaled to 1568 px (2576 px on
    // Opus 4.7) and the image to ~1,600 tokens (4,784 on Opus 4.7). 200k-token
    // windows: Claude 3, Claude 4.0, 4.1, 4.5 (1M only in beta); 1M: Opus and
    // Sonnet 4.6, Opus 4.7 and the current lineup.
    anthropic("claude-opus-4-7", 2576, 4784, CLAUDE_1M),
    anthropic("claude-opus-4-6", 1568, 1600, CLAUDE_1M),
    anthropic("claude-sonnet-4-6", 1568, 1600, CLAUDE_1M),
    anthropic("claude-haiku-4-5", 1568, 1600, CLAUDE_200K),
    anthropic("claude-sonnet-4-5", 1568, 1600, CLAUDE_200K),
    anthropic("claude-opus-4-5", 1568, 1600, CLAUDE_200K),
    anthropic("claude-opus-4-1", 1568, 1600, CLAUDE_200K),
    anthropic("claude-opus-4-0", 1568, 1600, CLAUDE_200K),
    anthropic("claude-sonnet-4-0", 1568, 1600, CLAUDE_200K),
    anthropic("claude-opus-4-2025", 1568, 1600, CLAUDE_200K),
    anthropic("claude-sonnet-4-2025", 1568, 1600, CLAUDE_200K),
    anthropic("claude-3", 1568, 1600, CLAUDE_200K),
    anthropic("claude-", 1568, 1600, CLAUDE_1M),
    // Gemini: 2.x tiles; 3 by media resolution (images default to high).
    gemini("gemini-3", GEMINI_3, Some(Detail::High)),
    gemini("gemini-", TokenRule::GEMINI_TILES, None),
];

/// The rules of `provider`'s models in general: what `estimate` applies
/// when given a provider rather than a model, and what an id no row
/// matches falls back to. Claude's general limits are those of its
/// 200k-token models, which every Claude model meets.
pub fn provider_profile(provider: Provider) -> ModelProfile {
    let claude = anthropic("anthropic", 1568, 1600, CLAUDE_200K);
    match provider {
        Provider::Anthropic => claude,
        Provider::Bedrock => ModelProfile {
            matched: "bedrock",
            ..on_bedrock(claude)
        },
        Provider::Vertex => ModelProfile {
            matched: "vertex",
            ..on_vertex(claude)
        },
        Provider::Gemini => gemini("gemini", TokenRule::GEMINI_TILES, None),
        Provider::OpenAi => openai("openai", TILES_4O, 128_000),
    }
}

/// The platform an id names: Bedrock (`bedrock/…`, `anthropic.claude-…`,
/// `us.anthropic.claude-…`), Vertex AI (`vertex/…`, `vertex_ai/…`,
/// `claude-sonnet-4-5@20250929`), else none.
fn platform_of(named: Option<Provider>, lower: &str) -> Option<Provider> {
    match named {
        Some(p @ (Provider::Bedrock | Provider::Vertex)) => Some(p),
        _ if lower.contains("anthropic.claude") => Some(Provider::Bedrock),
        _ if lower.starts_with("claude") && lower.contains('@') => Some(Provider::Vertex),
        _ => None,
    }
}

/// The profile of `model_id`: a registered profile, else its row, else its
/// family's, else the defaults of the provider the id names (`claude…`,
/// `gemini…`, `anthropic/…`, `bedrock/…`), else OpenAI's.
pub fn model_profile(model_id: &str) -> ModelProfile {
    let lower = model_id.trim().to_ascii_lowercase();
    // `provider/model` (OpenRouter, gateways) and Bedrock's `anthropic.claude-…`.
    let (prefix, bare) = match lower.rsplit_once('/') {
        Some((p, m)) => (Some(p), m),
        None => (None, lower.as_str()),
    };
    if let Some(p) = super::registry::find(&lower, bare) {
        return p;
    }
    let bare = bare
        .strip_prefix("us.")
        .or_else(|| bare.strip_prefix("eu."))
        .or_else(|| bare.strip_prefix("global."))
        .unwrap_or(bare);
    let bare = bare.strip_prefix("anthropic.").unwrap_or(bare);
    // The provider a prefix names: `bedrock/…`, `openrouter/anthropic/…`.
    let named = prefix
        .and_then(|p| p.rsplit('/').next())
        .and_then(Provider::from_name);
    let platform = platform_of(named, &lower);
    if let Some(row) = PROFILES.iter().find(|p| bare.starts_with(p.matched)) {
        return match (platform, row.provider) {
            (Some(Provider::Bedrock), "anthropic") => on_bedrock(*row),
            (Some(Provider::Vertex), "anthropic") => on_vertex(*row),
            _ => *row,
        };
    }
    let provider = platform.or(named).unwrap_or(Provider::OpenAi);
    provider_profile(provider)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            TokenRule::anthropic_pixels(2576, 4784)
        );
        assert_eq!(
            model_profile("claude-sonnet-4-5-20250929").matched,
            "claude-sonnet-4-5"
        );
        assert_eq!(
            model_profile("anthropic/claude-sonnet-4.5").provider,
            "anthropic"
        );
        assert_eq!(model_profile("gemini-3-pro-preview").tokens, GEMINI_3);
        assert_eq!(
            model_profile("gemini-2.5-flash").tokens,
            TokenRule::GEMINI_TILES
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
    fn claude_takes_100_images_with_a_200k_window_and_600_with_1m() {
        for (id, images, window) in [
            ("claude-haiku-4-5-20251001", 100, 200_000),
            ("claude-sonnet-4-5", 100, 200_000),
            ("claude-sonnet-4-20250514", 100, 200_000),
            ("claude-3-5-sonnet-20241022", 100, 200_000),
            ("claude-opus-4-6", 600, 1_000_000),
            ("claude-sonnet-4-6", 600, 1_000_000),
            ("claude-opus-4-7", 600, 1_000_000),
            ("claude-opus-5-5", 600, 1_000_000),
        ] {
            let p = model_profile(id);
            assert_eq!(
                (p.max_images, p.context_tokens),
                (Some(images), Some(window)),
                "{id}"
            );
        }
        assert_eq!(provider_profile(Provider::Anthropic).max_images, Some(100));
    }

    #[test]
    fn each_platform_sets_its_own_limits() {
        let api = model_profile("claude-sonnet-4-6");
        let bedrock = model_profile("bedrock/anthropic.claude-sonnet-4-6");
        let cross = model_profile("us.anthropic.claude-opus-4-7-v1:0");
        let vertex = model_profile("claude-sonnet-4-5@20250929");
        let vertex_prefixed = model_profile("vertex_ai/claude-opus-4-6");
        assert_eq!(
            (api.max_images, api.max_request_bytes),
            (Some(600), Some(32 * MB))
        );
        assert_eq!(
            (
                bedrock.provider,
                bedrock.max_images,
                bedrock.max_image_bytes,
                bedrock.max_request_bytes
            ),
            ("bedrock", Some(20), Some(5 * MB), Some(20 * MB))
        );
        assert_eq!(
            (cross.provider, cross.tokens),
            ("bedrock", TokenRule::anthropic_pixels(2576, 4784))
        );
        assert_eq!(
            (vertex.provider, vertex.max_images, vertex.max_request_bytes),
            ("vertex", Some(100), None)
        );
        assert_eq!(
            (vertex_prefixed.provider, vertex_prefixed.max_images),
            ("vertex", Some(600))
        );
        assert_eq!(model_profile("bedrock/some-new-model").provider, "bedrock");
    }

    #[test]
    fn each_provider_names_the_image_types_it_takes() {
        let gpt = model_profile("gpt-5");
        assert!(gpt.accepts_mime("image/webp") && gpt.accepts_mime("image/gif"));
        assert!(!gpt.accepts_mime("image/heic") && !gpt.accepts_animated);
        assert_eq!(gpt.default_detail, Some(Detail::Auto));
        let claude = model_profile("claude-sonnet-4-5");
        assert!(claude.accepts_mime("image/jpeg") && !claude.accepts_mime("image/avif"));
        let gemini = model_profile("gemini-2.5-pro");
        assert!(gemini.accepts_mime("image/heif") && !gemini.accepts_mime("image/gif"));
        for row in PROFILES {
            assert!(row.source.contains("read 2026-11"), "{}", row.matched);
            assert_eq!(row.tokens.zero_figure(), None, "{}", row.matched);
        }
    }
}
