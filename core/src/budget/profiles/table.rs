//! Finding a model's row: the id read as its base id (without a provider
//! prefix, a date, `-latest`, a Vertex AI `@` version or a Bedrock
//! `-v1:0`), then the longest row it names, else its family's newest row,
//! else the provider's defaults. A `provider/model` id (OpenRouter,
//! gateways) is read without its prefix, and the platform it names (Bedrock,
//! Vertex AI) sets its platform's limits.

use super::rows::{
    profile_of, row, rows_starting, BEDROCK, CLAUDE, FAMILIES, GEMINI_2, GPT_4O, VERTEX,
};
use super::{ModelProfile, MB};
use crate::budget::limits::Provider;

// What the pages say, beyond each rule's figures:
// - Claude vision: 100 images per request with a 200k-token window, 600
//   otherwise; 8000 px, 2000 px with more than 20 images; 5 MB of base64
//   per image on Bedrock and Vertex AI; 32 MB per request.
// - Bedrock: 20 MB InvokeModel payload; Claude on Bedrock refuses the
//   21st image ("too many images and documents: 21 + 0 > 20", Roo-Code#8800).
// - Vertex AI: a request limit lower than 32 MB, not given as a figure.
// - Gemini: PNG, JPEG, WEBP, HEIC, HEIF; 3,000 images per prompt; 20 MB
//   inline request.

/// A Claude row on Amazon Bedrock: 20 images, 5 MB of base64 per image,
/// 20 MB per request.
const fn on_bedrock(row: ModelProfile) -> ModelProfile {
    ModelProfile {
        provider: "bedrock",
        max_images: Some(20),
        max_image_bytes: Some(5 * MB),
        max_request_bytes: Some(20 * MB),
        source: BEDROCK,
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
        source: VERTEX,
        ..row
    }
}

/// The rules of `provider`'s models in general: what `estimate` applies
/// when given a provider rather than a model, and what an id no row
/// matches falls back to. Claude's general limits are those of its
/// 200k-token models, which every Claude model meets.
pub fn provider_profile(provider: Provider) -> ModelProfile {
    const ANTHROPIC: ModelProfile = ModelProfile {
        matched: "anthropic",
        ..CLAUDE
    };
    match provider {
        Provider::Anthropic => ANTHROPIC,
        Provider::Bedrock => ModelProfile {
            matched: "bedrock",
            ..on_bedrock(ANTHROPIC)
        },
        Provider::Vertex => ModelProfile {
            matched: "vertex",
            ..on_vertex(ANTHROPIC)
        },
        Provider::Gemini => ModelProfile {
            matched: "gemini",
            ..GEMINI_2
        },
        Provider::OpenAi => ModelProfile {
            matched: "openai",
            ..GPT_4O
        },
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

/// True when `tail` (`-` and digits) is a date or a release stamp: `-MMDD`,
/// `-MM-DD`, `-MM-YYYY`, `-YYYYMMDD`, `-YYYY-MM-DD`.
fn date_len(id: &str) -> usize {
    let shapes: [&[usize]; 5] = [&[4, 2, 2], &[8], &[2, 4], &[2, 2], &[4]];
    let segments: Vec<&str> = id.rsplit('-').collect();
    shapes
        .iter()
        .find(|shape| {
            segments.len() > shape.len()
                && shape
                    .iter()
                    .rev()
                    .zip(&segments)
                    .all(|(n, s)| s.len() == *n && s.bytes().all(|b| b.is_ascii_digit()))
        })
        .map_or(0, |shape| shape.iter().map(|n| n + 1).sum())
}

/// The base id of a bare id: the model it names, as the table spells it.
pub(super) fn base_id(bare: &str) -> String {
    let end = bare
        .bytes()
        .position(|b| b == b'@' || b == b':')
        .unwrap_or(bare.len());
    let mut id = bare.get(..end).unwrap_or(bare).to_owned();
    if id.starts_with("claude-") {
        id = id.replace('.', "-");
    }
    // Bedrock's `-v1` (its `:0` cut above).
    if let Some(at) = id.rfind('-') {
        let version = id.get(at + 1..).and_then(|v| v.strip_prefix('v'));
        if version.is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())) {
            id.truncate(at);
        }
    }
    if let Some(stem) = id.strip_suffix("-latest") {
        id.truncate(stem.len());
    }
    let cut = date_len(&id);
    id.truncate(id.len() - cut);
    id
}

/// The row `id` names: the longest row that is `id`, or that `id` starts
/// with followed by `-` and a variant (`gpt-5-codex` is gpt-5's; a
/// version, `claude-opus-4-9` or `gpt-5.5`, is not `claude-opus-4`'s or
/// `gpt-5`'s).
fn named_row(id: &str) -> Option<ModelProfile> {
    let names = |r: &str| match id.strip_prefix(r) {
        Some("") => true,
        Some(rest) => rest.strip_prefix('-').is_some_and(|rest| {
            let next = rest.split('-').next().unwrap_or("");
            !(next.len() <= 2 && next.bytes().all(|b| b.is_ascii_digit()))
        }),
        None => false,
    };
    rows_starting(*id.as_bytes().first()?)
        .filter(|r| names(r.0))
        .max_by_key(|r| r.0.len())
        .and_then(profile_of)
}

/// The row of `id`'s family's newest model, marked inferred.
fn family_row(id: &str) -> Option<ModelProfile> {
    let (_, newest) = FAMILIES.iter().find(|(f, _)| id.starts_with(f))?;
    row(newest).map(|p| ModelProfile {
        inferred: true,
        ..p
    })
}

/// The profile of `model_id`: a registered profile, else its row, else its
/// family's newest row (inferred), else the defaults of the provider the id
/// names (`claude…`, `gemini…`, `anthropic/…`, `bedrock/…`), else OpenAI's.
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
    let bare = ["us.", "eu.", "apac.", "global."]
        .iter()
        .find_map(|r| bare.strip_prefix(r))
        .unwrap_or(bare);
    let bare = bare.strip_prefix("anthropic.").unwrap_or(bare);
    // The provider a prefix names: `bedrock/…`, `openrouter/anthropic/…`.
    let named = prefix
        .and_then(|p| p.rsplit('/').next())
        .and_then(Provider::from_name);
    let platform = platform_of(named, &lower);
    let id = base_id(bare);
    if let Some(row) = named_row(&id).or_else(|| family_row(&id)) {
        return match (platform, row.provider) {
            (Some(Provider::Bedrock), "anthropic") => on_bedrock(row),
            (Some(Provider::Vertex), "anthropic") => on_vertex(row),
            _ => row,
        };
    }
    let provider = platform.or(named).unwrap_or(Provider::OpenAi);
    provider_profile(provider)
}

#[cfg(test)]
mod tests {
    use super::super::rules::{BytesOn, Detail, TokenRule};
    use super::*;

    const GEMINI_3: TokenRule = TokenRule::GeminiMediaResolution {
        high: 1120,
        medium: 560,
        low: 280,
    };

    #[test]
    fn ids_match_their_row_then_their_family_then_the_provider() {
        assert_eq!(model_profile("gpt-4o-2024-08-06").matched, "gpt-4o");
        assert_eq!(model_profile("gpt-4o-mini").matched, "gpt-4o-mini");
        assert_eq!(
            model_profile("GPT-4.1-mini-2025-04-14").matched,
            "gpt-4.1-mini"
        );
        assert_eq!(model_profile("gpt-5-nano").matched, "gpt-5-nano");
        assert_eq!(model_profile("gpt-5.1").matched, "gpt-5.1");
        assert_eq!(model_profile("gpt-5-codex").matched, "gpt-5");
        assert_eq!(
            model_profile("claude-opus-4-7").tokens,
            TokenRule::ANTHROPIC_PATCHES
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
        assert!(!model_profile("google/some-new-model").inferred);
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
            ("bedrock", TokenRule::ANTHROPIC_PATCHES)
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
        for (id, ..) in super::super::rows::rows() {
            let row = model_profile(id);
            assert_eq!((row.matched, row.inferred), (id, false), "{id}");
            assert!(row.source.contains("read 2026-12-06"), "{id}");
            assert_eq!(row.tokens.zero_figure(), None, "{id}");
        }
    }
}
