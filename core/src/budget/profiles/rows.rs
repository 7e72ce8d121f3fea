//! The built-in table as data: a few rules (a profile less its id) that
//! many models share by name, and one line per model naming its rule, read
//! from the providers' pages on 2026-12-06. Each rule names its source.

use super::rules::{BytesOn, Detail, MimeSet, TokenRule};
use super::{ModelProfile, MB};
use std::sync::OnceLock;

const ANTHROPIC: &str = "platform.claude.com/docs/en/build-with-claude/vision, /about-claude/models/overview, /about-claude/model-deprecations, read 2026-12-06";
const ANTHROPIC_PATCHES: &str = "platform.claude.com/docs/en/build-with-claude/vision, /models/haiku-5-5/overview, read 2026-12-06";
pub(super) const BEDROCK: &str = "platform.claude.com/docs/en/build-with-claude/vision, docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html, github.com/RooCodeInc/Roo-Code/issues/8800, read 2026-12-06";
pub(super) const VERTEX: &str =
    "platform.claude.com/docs/en/build-with-claude/vision, read 2026-12-06";
const OPENAI: &str =
    "developers.openai.com/api/docs/guides/images-vision, /models, read 2026-12-06";
const OPENAI_6: &str =
    "developers.openai.com/api/docs/models/gpt-6.2-sol, /guides/images-vision, read 2026-12-06";
const GEMINI: &str = "ai.google.dev/gemini-api/docs/image-understanding, /tokens, /media-resolution, firebase.google.com/docs/ai-logic/input-file-requirements, read 2026-12-06";
const GEMINI_4: &str = "docs.cloud.google.com/gemini-enterprise-agent-platform/models/start/get-started-with-gemini-4, /models/guides/gemini-4-neon, ai.google.dev/gemini-api/docs/media-resolution, read 2026-12-06";
const GEMMA: &str = "ai.google.dev/gemma/docs/core, read 2026-12-06";

/// A rule of OpenAI's API.
const fn openai(tokens: TokenRule, context: u64, source: &'static str) -> ModelProfile {
    ModelProfile {
        matched: "",
        inferred: false,
        retired: None,
        reads_images: true,
        provider: "openai",
        tokens,
        default_detail: Some(Detail::Auto),
        accepts: MimeSet::PNG_JPEG_GIF_WEBP,
        accepts_animated: false,
        max_long_edge: None,
        many_images: None,
        many_images_long_edge: None,
        max_images: Some(500),
        max_image_bytes: Some(20 * MB),
        image_bytes_on: BytesOn::Decoded,
        max_request_bytes: Some(50 * MB),
        context_tokens: Some(context),
        source,
    }
}

/// A Claude rule on the Anthropic API: 100 images per request with a
/// 200k-token window, 600 with a larger one.
const fn anthropic(tokens: TokenRule, context: u64) -> ModelProfile {
    ModelProfile {
        matched: "",
        inferred: false,
        retired: None,
        reads_images: true,
        provider: "anthropic",
        tokens,
        default_detail: None,
        accepts: MimeSet::PNG_JPEG_GIF_WEBP,
        // Animated GIFs are taken (the model reads one frame).
        accepts_animated: true,
        max_long_edge: Some(8000),
        many_images: Some(20),
        many_images_long_edge: Some(2000),
        max_images: Some(if context > 200_000 { 600 } else { 100 }),
        max_image_bytes: Some(5 * MB),
        image_bytes_on: BytesOn::Base64,
        max_request_bytes: Some(32 * MB),
        context_tokens: Some(context),
        source: match tokens {
            TokenRule::AnthropicPatches { .. } => ANTHROPIC_PATCHES,
            _ => ANTHROPIC,
        },
    }
}

/// A rule of the Gemini API.
const fn gemini(
    tokens: TokenRule,
    detail: Option<Detail>,
    context: u64,
    source: &'static str,
) -> ModelProfile {
    ModelProfile {
        matched: "",
        inferred: false,
        retired: None,
        reads_images: true,
        provider: "gemini",
        tokens,
        default_detail: detail,
        accepts: MimeSet::PNG_JPEG_WEBP_HEIC_HEIF,
        accepts_animated: false,
        max_long_edge: None,
        many_images: None,
        many_images_long_edge: None,
        max_images: Some(3000),
        max_image_bytes: Some(7 * MB),
        image_bytes_on: BytesOn::Decoded,
        max_request_bytes: Some(20 * MB),
        context_tokens: Some(context),
        source,
    }
}

/// `rule` for a model that reads no images: it takes none.
const fn text_only(rule: ModelProfile) -> ModelProfile {
    ModelProfile {
        reads_images: false,
        accepts: MimeSet::NONE,
        max_images: Some(0),
        default_detail: None,
        ..rule
    }
}

/// `rule` with at most `n` images per request.
const fn images(n: usize, rule: ModelProfile) -> ModelProfile {
    ModelProfile {
        max_images: Some(n),
        ..rule
    }
}

const TILES_4O: TokenRule = TokenRule::openai_tiles(85, 170);
const TILES_5: TokenRule = TokenRule::openai_tiles(70, 140);
const TILES_O: TokenRule = TokenRule::openai_tiles(75, 150);
const PATCHES_6: TokenRule = TokenRule::OpenaiPatches {
    multiplier_milli: 1200,
    patch: 32,
    max_patches: 2500,
};
const GEMINI_3: TokenRule = TokenRule::GeminiMediaResolution {
    high: 1120,
    medium: 560,
    low: 280,
};
const GEMMA_256: TokenRule = TokenRule::GeminiMediaResolution {
    high: 256,
    medium: 256,
    low: 256,
};
const CLAUDE_STD: TokenRule = TokenRule::anthropic_pixels(1568, 1600);
const M1: u64 = 1_048_576;

/// Claude's rule before Opus 4.7 with a 200k-token window: also the
/// Anthropic API's defaults.
pub(super) const CLAUDE: ModelProfile = anthropic(CLAUDE_STD, 200_000);
/// gpt-4o's rule: also OpenAI's defaults.
pub(super) const GPT_4O: ModelProfile = openai(TILES_4O, 128_000, OPENAI);
/// Gemini 2's rule: also Gemini's defaults.
pub(super) const GEMINI_2: ModelProfile = gemini(TokenRule::GEMINI_TILES, None, M1, GEMINI);

/// The rules, by name: what the lines of [`ROWS`] name.
pub(super) const RULES: &[(&str, ModelProfile)] = &[
    // Anthropic: w·h/750 within 1568 px and ~1,600 tokens (200k or 1M
    // window); from Opus 4.7 on, 28-px patches within 2576 px and 4,784.
    ("claude", CLAUDE),
    ("claude-1m", anthropic(CLAUDE_STD, 1_000_000)),
    (
        "claude-hi",
        anthropic(TokenRule::ANTHROPIC_PATCHES, 1_000_000),
    ),
    // OpenAI: tiles (base, per tile) or patches (multiplier), per the
    // "Calculating costs" tables of the vision guide.
    ("4o", GPT_4O),
    (
        "4o-mini",
        openai(TokenRule::openai_tiles(2833, 5667), 128_000, OPENAI),
    ),
    ("4.1", openai(TILES_4O, 1_047_576, OPENAI)),
    (
        "4.1-mini",
        openai(TokenRule::openai_patches(1620), 1_047_576, OPENAI),
    ),
    (
        "4.1-nano",
        openai(TokenRule::openai_patches(2460), 1_047_576, OPENAI),
    ),
    ("o", openai(TILES_O, 200_000, OPENAI)),
    (
        "o4-mini",
        openai(TokenRule::openai_patches(1720), 200_000, OPENAI),
    ),
    (
        "cua",
        openai(TokenRule::openai_tiles(65, 129), 8_192, OPENAI),
    ),
    ("5", openai(TILES_5, 400_000, OPENAI)),
    ("5-chat", openai(TILES_5, 128_000, OPENAI)),
    (
        "5-mini",
        openai(TokenRule::openai_patches(1620), 400_000, OPENAI),
    ),
    (
        "5-nano",
        openai(TokenRule::openai_patches(2460), 400_000, OPENAI),
    ),
    ("6", openai(PATCHES_6, 1_050_000, OPENAI_6)),
    ("text-8k", text_only(openai(TILES_4O, 8_192, OPENAI))),
    ("text-16k", text_only(openai(TILES_4O, 16_385, OPENAI))),
    ("text-32k", text_only(openai(TILES_4O, 32_768, OPENAI))),
    ("text-128k", text_only(openai(TILES_4O, 128_000, OPENAI))),
    ("text-200k", text_only(openai(TILES_4O, 200_000, OPENAI))),
    // Gemini: 2.x tiles; 3 and 4 by media resolution (images at high).
    (
        "gemini-2",
        gemini(TokenRule::GEMINI_TILES, None, M1, GEMINI),
    ),
    (
        "gemini-2-128k",
        gemini(TokenRule::GEMINI_TILES, None, 131_072, GEMINI),
    ),
    (
        "gemini-2-image",
        images(3, gemini(TokenRule::GEMINI_TILES, None, 32_768, GEMINI)),
    ),
    ("gemini-3", gemini(GEMINI_3, Some(Detail::High), M1, GEMINI)),
    (
        "gemini-3-image",
        images(14, gemini(GEMINI_3, Some(Detail::High), 65_536, GEMINI)),
    ),
    (
        "gemini-4",
        gemini(GEMINI_3, Some(Detail::High), M1, GEMINI_4),
    ),
    (
        "gemini-text",
        text_only(gemini(TokenRule::GEMINI_TILES, None, 32_768, GEMINI)),
    ),
    ("gemma", gemini(GEMMA_256, None, 131_072, GEMMA)),
    ("gemma-32k", gemini(GEMMA_256, None, 32_768, GEMMA)),
    (
        "gemma-text",
        text_only(gemini(GEMMA_256, None, 32_768, GEMMA)),
    ),
];

/// One line per model: its id (dated ids and aliases are read as it; an id
/// also covers `<id>-<variant>`, not `<id>.<n>` nor `<id>-<n>`), the rule it
/// follows, and the date it was retired or is to be, if announced.
pub const ROWS: &str = "\
claude-opus-5-5 claude-hi
claude-sonnet-5-5 claude-hi
claude-haiku-5-5 claude-hi
claude-fable-5-2 claude-hi
claude-mythos-5-2 claude-hi
claude-fable-5-1 claude-hi
claude-mythos-5-1 claude-hi
claude-opus-5 claude-hi
claude-sonnet-5 claude-hi
claude-fable-5 claude-hi
claude-mythos-5 claude-hi
claude-mythos-preview claude-hi
claude-opus-4-8 claude-hi
claude-opus-4-7 claude-hi
claude-opus-4-6 claude-1m
claude-sonnet-4-6 claude-1m
claude-haiku-4-5 claude
claude-opus-4-5 claude
claude-sonnet-4-5 claude 2026-11-30
claude-opus-4-1 claude
claude-opus-4-0 claude 2026-06-15
claude-opus-4 claude 2026-06-15
claude-sonnet-4-0 claude 2026-06-15
claude-sonnet-4 claude 2026-06-15
claude-3-7-sonnet claude 2026-02-19
claude-3-5-sonnet claude 2025-10-22
claude-3-5-haiku claude
claude-3-opus claude
claude-3-haiku claude
gpt-6.2 6
gpt-6.1 6
gpt-6 6
gpt-5.6 6
gpt-5.5 6
gpt-5.4-mini 5-mini
gpt-5.4-nano 5-nano
gpt-5.4 6
gpt-5.3-chat 5-chat
gpt-5.2-chat 5-chat
gpt-5.2 5
gpt-5.1-chat 5-chat
gpt-5.1-mini 5-mini
gpt-5.1 5
gpt-5-chat 5-chat
gpt-5-mini 5-mini
gpt-5-nano 5-nano
gpt-5 5
gpt-4.1-mini 4.1-mini
gpt-4.1-nano 4.1-nano
gpt-4.1 4.1
gpt-4o-mini-audio-preview text-128k
gpt-4o-mini-search-preview text-128k
gpt-4o-mini 4o-mini
gpt-4o-audio-preview text-128k
gpt-4o-search-preview text-128k
gpt-4o 4o
chatgpt-4o 4o
gpt-4-turbo-preview text-128k
gpt-4-turbo 4o
gpt-4-vision-preview 4o
gpt-4-0125-preview text-128k
gpt-4-1106-preview text-128k
gpt-4-32k text-32k
gpt-4 text-8k
gpt-3.5-turbo text-16k
o4-mini o4-mini
codex-mini o4-mini
o3-mini text-200k
o3 o
o1-mini text-128k
o1-preview text-128k
o1 o
computer-use-preview cua
gemini-4-neon gemini-4
gemini-4-argon gemini-4
gemini-4-carbon gemini-4
gemini-4-hydrogen gemini-4
gemini-3.8-flash gemini-3
gemini-3.7-flash gemini-3
gemini-3.6-flash gemini-3
gemini-3.5-flash gemini-3
gemini-3.1-pro gemini-3
gemini-3.1-flash-image gemini-3-image
gemini-3.1-flash-lite gemini-3
gemini-3.1-flash-tts gemini-text
gemini-3.8-flash-tts gemini-text
gemini-3.8-flash-lite-tts gemini-text
gemini-3-pro-image gemini-3-image
gemini-3-pro gemini-3
gemini-3-flash gemini-3
gemini-nano-banana gemini-3-image
nano-banana-pro gemini-3-image
gemini-flash-lite gemini-3
gemini-flash gemini-3
gemini-pro gemini-4
deep-research-max gemini-3
deep-research-pro gemini-3
deep-research gemini-3
gemini-2.5-pro-preview-tts gemini-text
gemini-2.5-pro gemini-2
gemini-2.5-flash-preview-tts gemini-text
gemini-2.5-flash-native-audio gemini-2-128k
gemini-2.5-flash-image gemini-2-image
gemini-2.5-flash-lite gemini-2
gemini-2.5-flash gemini-2
gemini-2.5-computer-use gemini-2-128k
gemini-2.0-flash-lite gemini-2
gemini-2.0-flash gemini-2
gemini-robotics-er-1.5 gemini-2
gemma-3n gemma-32k
gemma-3-1b gemma-text
gemma-3 gemma
lyria-3 gemini-text
";

/// Ids the table does not name, by family: the newest row of the family
/// they start with (its rule, `inferred`).
pub(super) const FAMILIES: &[(&str, &str)] = &[
    ("claude-opus-", "claude-opus-5-5"),
    ("claude-sonnet-", "claude-sonnet-5-5"),
    ("claude-haiku-", "claude-haiku-5-5"),
    ("claude-fable-", "claude-fable-5-2"),
    ("claude-mythos-", "claude-mythos-5-2"),
    ("claude-", "claude-opus-5-5"),
    ("gpt-", "gpt-6.2"),
    ("gemini-", "gemini-4-neon"),
    ("gemma-", "gemma-3"),
];

/// A row: its id, its rule's name and its retirement date.
type Row = (&'static str, &'static str, Option<&'static str>);

/// Each row, in the table's order: [`ROWS`] split into its rows the first
/// time a row is asked for (a call that fits to a model looks its row up
/// on every call; splitting the text each time cost more than the rest of
/// the lookup).
pub(super) fn rows() -> impl Iterator<Item = Row> {
    static TABLE: OnceLock<Vec<Row>> = OnceLock::new();
    TABLE
        .get_or_init(|| ROWS.lines().filter_map(row_of).collect())
        .iter()
        .copied()
}

/// The rows whose id begins with the byte `first`.
pub(super) fn rows_starting(first: u8) -> impl Iterator<Item = Row> {
    rows().filter(move |r| r.0.as_bytes().first() == Some(&first))
}

/// The row a line of [`ROWS`] holds.
fn row_of(line: &'static str) -> Option<Row> {
    let mut words = line.split(' ');
    Some((words.next()?, words.next()?, words.next()))
}

/// The model ids of the table, in its order.
pub fn model_ids() -> impl Iterator<Item = &'static str> {
    rows().map(|r| r.0)
}

/// The profile of the row named `id`, if any.
pub(super) fn row(id: &str) -> Option<ModelProfile> {
    rows().find(|r| r.0 == id).and_then(profile_of)
}

/// The profile of a row of [`rows`].
pub(super) fn profile_of((matched, rule, retired): Row) -> Option<ModelProfile> {
    let (_, profile) = RULES.iter().find(|r| r.0 == rule)?;
    Some(ModelProfile {
        matched,
        retired,
        ..*profile
    })
}
