//! The parts a profile is made of: the token rule with every figure it
//! uses named, the `detail` an image is read at, what a byte limit is
//! measured on, and the image types a model takes.

/// How a model counts an image's tokens. Every figure the formula uses is a
/// field; fields left out of a profile given as data take the documented
/// figure shown on each.
///
/// As given in a profile (its serde derive): a figure marked with a default
/// may be left out, any other must be there, and one the kind does not use
/// is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum TokenRule {
    /// OpenAI tiles: fit in `fitBox`², shortest side to `shortestSide`, then
    /// `base + perTile × tiles` of `tile` px; `detail: 'low'` is `base` alone,
    /// read at `lowBox`².
    #[serde(rename_all = "camelCase")]
    OpenaiTiles {
        /// Tokens for the image as a whole.
        base: u32,
        /// Tokens per tile.
        per_tile: u32,
        /// The tile's side, px (512).
        #[serde(default = "tile")]
        tile: u32,
        /// The square an image is first fitted into, px (2048).
        #[serde(default = "fit_box")]
        fit_box: u32,
        /// The shortest side is then scaled down to this, px (768).
        #[serde(default = "shortest_side")]
        shortest_side: u32,
        /// The square a `detail: 'low'` image is read at, px (512).
        #[serde(default = "low_box")]
        low_box: u32,
    },
    /// OpenAI patches: `patch`-px patches, at most `maxPatches` (the image
    /// shrinks to fit), times a per-model multiplier (in thousandths).
    #[serde(rename_all = "camelCase")]
    OpenaiPatches {
        /// The multiplier × 1000.
        multiplier_milli: u32,
        /// The patch's side, px (32).
        #[serde(default = "patch")]
        patch: u32,
        /// The most patches one image is read as (1536).
        #[serde(default = "max_patches")]
        max_patches: u32,
    },
    /// Anthropic: `width × height / pixelsPerToken` after scaling the long
    /// edge to `longEdge` and the image to at most `maxTokens`.
    #[serde(rename_all = "camelCase")]
    AnthropicPixels {
        /// The long edge images are scaled to, px.
        long_edge: u32,
        /// The most tokens one image costs; larger images are scaled down.
        max_tokens: u32,
        /// Pixels per token (750).
        #[serde(default = "pixels_per_token")]
        pixels_per_token: u32,
    },
    /// Anthropic from Claude Opus 4.7 on: `⌈width / patch⌉ × ⌈height /
    /// patch⌉` visual tokens after scaling the long edge to `longEdge` and
    /// the image to at most `maxTokens` patches.
    #[serde(rename_all = "camelCase")]
    AnthropicPatches {
        /// The patch's side, px (28).
        #[serde(default = "anthropic_patch")]
        patch: u32,
        /// The long edge images are scaled to, px.
        long_edge: u32,
        /// The most patches (tokens) one image costs.
        max_tokens: u32,
    },
    /// Gemini 2.x: `perTile` tokens for an image within `smallSide`², else
    /// `perTile` per `tile`-px tile.
    #[serde(rename_all = "camelCase")]
    GeminiTiles {
        /// Tokens per tile, and for a small image (258).
        #[serde(default = "gemini_per_tile")]
        per_tile: u32,
        /// The tile's side, px (768).
        #[serde(default = "gemini_tile")]
        tile: u32,
        /// An image with both sides within this is one tile, px (384).
        #[serde(default = "gemini_small_side")]
        small_side: u32,
    },
    /// Gemini 3: a fixed count per image, by `media_resolution`.
    GeminiMediaResolution {
        /// Tokens at `high`.
        high: u32,
        /// Tokens at `medium`.
        medium: u32,
        /// Tokens at `low`.
        low: u32,
    },
}

/// The documented figures a profile given as data may leave out.
pub(super) mod figures {
    /// OpenAI's tile, px.
    pub const TILE: u32 = 512;
    /// OpenAI's box, px.
    pub const FIT_BOX: u32 = 2048;
    /// OpenAI's shortest side, px.
    pub const SHORTEST_SIDE: u32 = 768;
    /// OpenAI's low-detail box, px.
    pub const LOW_BOX: u32 = 512;
    /// OpenAI's patch, px.
    pub const PATCH: u32 = 32;
    /// OpenAI's patch cap.
    pub const MAX_PATCHES: u32 = 1536;
    /// Anthropic's pixels per token.
    pub const PIXELS_PER_TOKEN: u32 = 750;
    /// Anthropic's patch, px.
    pub const ANTHROPIC_PATCH: u32 = 28;
    /// Gemini's tokens per tile.
    pub const GEMINI_PER_TILE: u32 = 258;
    /// Gemini's tile, px.
    pub const GEMINI_TILE: u32 = 768;
    /// Gemini's one-tile side, px.
    pub const GEMINI_SMALL_SIDE: u32 = 384;
}
use figures::*;

// The figures a token rule given in a profile may leave out.
const fn tile() -> u32 {
    TILE
}
const fn fit_box() -> u32 {
    FIT_BOX
}
const fn shortest_side() -> u32 {
    SHORTEST_SIDE
}
const fn low_box() -> u32 {
    LOW_BOX
}
const fn patch() -> u32 {
    PATCH
}
const fn max_patches() -> u32 {
    MAX_PATCHES
}
const fn pixels_per_token() -> u32 {
    PIXELS_PER_TOKEN
}
const fn anthropic_patch() -> u32 {
    ANTHROPIC_PATCH
}
const fn gemini_per_tile() -> u32 {
    GEMINI_PER_TILE
}
const fn gemini_tile() -> u32 {
    GEMINI_TILE
}
const fn gemini_small_side() -> u32 {
    GEMINI_SMALL_SIDE
}

impl TokenRule {
    /// OpenAI's tile rule with the vision guide's geometry.
    pub const fn openai_tiles(base: u32, per_tile: u32) -> TokenRule {
        TokenRule::OpenaiTiles {
            base,
            per_tile,
            tile: TILE,
            fit_box: FIT_BOX,
            shortest_side: SHORTEST_SIDE,
            low_box: LOW_BOX,
        }
    }

    /// OpenAI's patch rule with the vision guide's patch size and cap.
    pub const fn openai_patches(multiplier_milli: u32) -> TokenRule {
        TokenRule::OpenaiPatches {
            multiplier_milli,
            patch: PATCH,
            max_patches: MAX_PATCHES,
        }
    }

    /// Anthropic's rule at 750 pixels per token.
    pub const fn anthropic_pixels(long_edge: u32, max_tokens: u32) -> TokenRule {
        TokenRule::AnthropicPixels {
            long_edge,
            max_tokens,
            pixels_per_token: PIXELS_PER_TOKEN,
        }
    }

    /// Anthropic's patch rule from Claude Opus 4.7 on: 28-px patches, the
    /// long edge to 2576 px, at most 4,784 patches.
    pub const ANTHROPIC_PATCHES: TokenRule = TokenRule::AnthropicPatches {
        patch: ANTHROPIC_PATCH,
        long_edge: 2576,
        max_tokens: 4784,
    };

    /// Gemini 2.x's tile rule.
    pub const GEMINI_TILES: TokenRule = TokenRule::GeminiTiles {
        per_tile: GEMINI_PER_TILE,
        tile: GEMINI_TILE,
        small_side: GEMINI_SMALL_SIDE,
    };

    /// The name of a figure that must not be zero and is, if any.
    pub fn zero_figure(&self) -> Option<&'static str> {
        let figures: &[(&'static str, u32)] = match self {
            TokenRule::OpenaiTiles {
                tile,
                fit_box,
                shortest_side,
                low_box,
                ..
            } => &[
                ("tile", *tile),
                ("fitBox", *fit_box),
                ("shortestSide", *shortest_side),
                ("lowBox", *low_box),
            ],
            TokenRule::OpenaiPatches {
                patch, max_patches, ..
            } => &[("patch", *patch), ("maxPatches", *max_patches)],
            TokenRule::AnthropicPixels {
                long_edge,
                max_tokens,
                pixels_per_token,
            } => &[
                ("longEdge", *long_edge),
                ("maxTokens", *max_tokens),
                ("pixelsPerToken", *pixels_per_token),
            ],
            TokenRule::AnthropicPatches {
                patch,
                long_edge,
                max_tokens,
            } => &[
                ("patch", *patch),
                ("longEdge", *long_edge),
                ("maxTokens", *max_tokens),
            ],
            TokenRule::GeminiTiles {
                tile, small_side, ..
            } => &[("tile", *tile), ("smallSide", *small_side)],
            TokenRule::GeminiMediaResolution { .. } => &[],
        };
        figures.iter().find(|(_, v)| *v == 0).map(|(n, _)| *n)
    }
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

/// The level of detail an image is read at: OpenAI's `detail` and Gemini
/// 3's `media_resolution` (`low`, `medium`, `high`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case", try_from = "String")]
pub enum Detail {
    /// Low detail: OpenAI's `low`, Gemini's `MEDIA_RESOLUTION_LOW`.
    Low,
    /// Gemini's `MEDIA_RESOLUTION_MEDIUM`.
    Medium,
    /// High detail.
    High,
    /// OpenAI's `auto` (the model decides; counted as `high`).
    Auto,
    /// OpenAI's `original` (the image as sent; counted as `high`).
    Original,
}

impl Detail {
    /// Reads a part's `detail` or `media_resolution` value: `low`, `high`,
    /// `auto`, `original`, or Gemini's `MEDIA_RESOLUTION_LOW`/`_MEDIUM`/`_HIGH`
    /// (any case; `ULTRA_HIGH` counts as high).
    pub fn parse(text: &str) -> Option<Detail> {
        let t = text.trim().to_ascii_lowercase();
        let t = t.strip_prefix("media_resolution_").unwrap_or(&t);
        match t {
            "low" => Some(Detail::Low),
            "medium" => Some(Detail::Medium),
            "high" | "ultra_high" => Some(Detail::High),
            "auto" => Some(Detail::Auto),
            "original" => Some(Detail::Original),
            _ => None,
        }
    }
}

impl TryFrom<String> for Detail {
    type Error = &'static str;

    /// A level as [`Detail::parse`] reads it (a profile's `defaultDetail`).
    fn try_from(text: String) -> Result<Detail, Self::Error> {
        Detail::parse(&text).ok_or("expected 'low', 'medium', 'high', 'auto' or 'original'")
    }
}

/// The image MIME types ctxpack can name in a profile, one bit each.
const MIMES: [&str; 9] = [
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "image/heic",
    "image/heif",
    "image/avif",
    "image/bmp",
    "image/tiff",
];

/// A set of image MIME types, as a profile's `accepts` holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(try_from = "Vec<String>")]
pub struct MimeSet(u16);

impl MimeSet {
    /// No image type: a model that reads no images.
    pub const NONE: MimeSet = MimeSet(0);
    /// PNG, JPEG, GIF and WebP.
    pub const PNG_JPEG_GIF_WEBP: MimeSet = MimeSet(0b1111);
    /// PNG, JPEG, WebP, HEIC and HEIF.
    pub const PNG_JPEG_WEBP_HEIC_HEIF: MimeSet = MimeSet(0b11_1011);

    /// The bit of `mime` (any case, parameters ignored, `image/jpg` read as
    /// `image/jpeg`), if ctxpack knows the type.
    fn bit(mime: &str) -> Option<u16> {
        let m = mime.split(';').next().unwrap_or("").trim();
        let m = if m.eq_ignore_ascii_case("image/jpg") {
            "image/jpeg"
        } else {
            m
        };
        MIMES
            .iter()
            .position(|k| k.eq_ignore_ascii_case(m))
            .map(|i| 1 << i)
    }

    /// True when `mime` is in the set.
    pub fn contains(self, mime: &str) -> bool {
        Self::bit(mime).is_some_and(|b| self.0 & b != 0)
    }

    /// The MIME types in the set.
    pub fn iter(self) -> impl Iterator<Item = &'static str> {
        MIMES
            .iter()
            .enumerate()
            .filter(move |(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, m)| *m)
    }
}

impl serde::Serialize for MimeSet {
    /// The MIME types, as a list.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl TryFrom<Vec<String>> for MimeSet {
    type Error = String;

    /// The set of a list of MIME types (a profile's `accepts`); an unknown
    /// type is refused.
    fn try_from(list: Vec<String>) -> Result<MimeSet, String> {
        let mut set = 0;
        for m in &list {
            set |= Self::bit(m).ok_or_else(|| {
                format!(
                    "unknown image type {m:?}; expected one of {}",
                    MIMES.join(", ")
                )
            })?;
        }
        Ok(MimeSet(set))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mime_sets_read_and_write_as_lists() {
        let s = MimeSet::PNG_JPEG_WEBP_HEIC_HEIF;
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            [
                "image/png",
                "image/jpeg",
                "image/webp",
                "image/heic",
                "image/heif"
            ]
        );
        assert!(s.contains("IMAGE/JPG") && s.contains("image/heic; q=1"));
        assert!(!s.contains("image/gif") && !s.contains("image/x-unknown"));
        let back: MimeSet = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        assert!(serde_json::from_str::<MimeSet>(r#"["image/svg+xml"]"#).is_err());
    }

    #[test]
    fn details_read_openai_and_gemini_spellings() {
        assert_eq!(Detail::parse("MEDIA_RESOLUTION_LOW"), Some(Detail::Low));
        assert_eq!(
            Detail::parse("media_resolution_medium"),
            Some(Detail::Medium)
        );
        assert_eq!(Detail::parse("original"), Some(Detail::Original));
        assert_eq!(Detail::parse("MEDIA_RESOLUTION_UNSPECIFIED"), None);
    }

    #[test]
    fn figures_left_out_take_the_documented_ones_and_zero_is_named() {
        let r: TokenRule =
            serde_json::from_str(r#"{"kind":"openai-tiles","base":85,"perTile":170}"#).unwrap();
        assert_eq!(r, TokenRule::openai_tiles(85, 170));
        let r: TokenRule = serde_json::from_str(r#"{"kind":"gemini-tiles"}"#).unwrap();
        assert_eq!(r, TokenRule::GEMINI_TILES);
        let r: TokenRule =
            serde_json::from_str(r#"{"kind":"openai-patches","multiplierMilli":1000,"patch":0}"#)
                .unwrap();
        assert_eq!(r.zero_figure(), Some("patch"));
        assert!(serde_json::from_str::<TokenRule>(
            r#"{"kind":"anthropic-pixels","longEdge":1,"maxTokens":1,"pixelPerToken":1}"#
        )
        .is_err());
    }
}
