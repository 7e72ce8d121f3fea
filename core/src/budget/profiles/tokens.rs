//! The token formulas and the size a model reads an image at, every figure
//! read from the profile's [`TokenRule`].

use super::rules::{Detail, TokenRule};
use super::ModelProfile;
use crate::media::Dimensions;

/// The detail an image is read at: the part's own, else the profile's
/// default; `low` is the caller saying `detail: 'low'`.
fn effective(profile: &ModelProfile, low: bool) -> Option<Detail> {
    if low {
        Some(Detail::Low)
    } else {
        profile.default_detail
    }
}

/// The image tokens `profile` counts for an image of `dims`; `low` is
/// OpenAI's `detail: 'low'` (and Gemini 3's `low` media resolution).
pub fn profile_image_tokens(profile: &ModelProfile, dims: Dimensions, low: bool) -> u64 {
    image_tokens_at(profile, dims, effective(profile, low))
}

/// The image tokens `profile` counts for an image of `dims` read at
/// `detail` (`None`: the profile's default).
pub fn image_tokens_at(profile: &ModelProfile, dims: Dimensions, detail: Option<Detail>) -> u64 {
    let detail = detail.or(profile.default_detail);
    let (w, h) = (f64::from(dims.width.max(1)), f64::from(dims.height.max(1)));
    match profile.tokens {
        TokenRule::OpenaiTiles {
            base,
            per_tile,
            tile,
            fit_box,
            shortest_side,
            ..
        } => {
            if detail == Some(Detail::Low) {
                return u64::from(base);
            }
            let fit = (f64::from(fit_box) / w.max(h)).min(1.0);
            let (w, h) = (w * fit, h * fit);
            let shrink = (f64::from(shortest_side) / w.min(h)).min(1.0);
            let (w, h) = ((w * shrink).round(), (h * shrink).round());
            let t = f64::from(tile.max(1));
            let tiles = ((w / t).ceil() * (h / t).ceil()) as u64;
            u64::from(per_tile) * tiles + u64::from(base)
        }
        TokenRule::OpenaiPatches {
            multiplier_milli,
            patch,
            max_patches,
        } => {
            let patches = openai_patches(w, h, f64::from(patch.max(1)), f64::from(max_patches));
            (patches * u64::from(multiplier_milli)).div_ceil(1000)
        }
        TokenRule::AnthropicPixels {
            pixels_per_token, ..
        } => {
            let seen = seen_size_at(profile, dims, detail);
            (f64::from(seen.width) * f64::from(seen.height) / f64::from(pixels_per_token.max(1)))
                .ceil() as u64
        }
        TokenRule::AnthropicPatches {
            patch, max_tokens, ..
        } => {
            let seen = seen_size_at(profile, dims, detail);
            let p = patch.max(1);
            (u64::from(seen.width.div_ceil(p)) * u64::from(seen.height.div_ceil(p)))
                .min(u64::from(max_tokens))
        }
        TokenRule::GeminiTiles {
            per_tile,
            tile,
            small_side,
        } => {
            let small = f64::from(small_side);
            if w <= small && h <= small {
                u64::from(per_tile)
            } else {
                let t = f64::from(tile.max(1));
                ((w / t).ceil() * (h / t).ceil()) as u64 * u64::from(per_tile)
            }
        }
        TokenRule::GeminiMediaResolution { high, medium, low } => u64::from(match detail {
            Some(Detail::Low) => low,
            Some(Detail::Medium) => medium,
            _ => high,
        }),
    }
}

/// The size at which `profile`'s model reads an image of `dims`: a larger
/// image is scaled down (aspect kept) by the model's own rule before it is
/// counted, so an image downscaled to this size costs the same tokens.
/// Gemini documents no such size: images are read as they are.
pub fn seen_size(profile: &ModelProfile, dims: Dimensions, low: bool) -> Dimensions {
    seen_size_at(profile, dims, effective(profile, low))
}

/// [`seen_size`] at `detail` (`None`: the profile's default).
pub fn seen_size_at(
    profile: &ModelProfile,
    dims: Dimensions,
    detail: Option<Detail>,
) -> Dimensions {
    let detail = detail.or(profile.default_detail);
    let (w, h) = (f64::from(dims.width.max(1)), f64::from(dims.height.max(1)));
    let scale = match profile.tokens {
        TokenRule::AnthropicPixels {
            long_edge,
            max_tokens,
            pixels_per_token,
        } => {
            let s = (f64::from(long_edge) / w.max(h)).min(1.0);
            let area = (w * s) * (h * s);
            let cap = f64::from(max_tokens) * f64::from(pixels_per_token);
            if area > cap {
                s * (cap / area).sqrt()
            } else {
                s
            }
        }
        TokenRule::OpenaiTiles { low_box, .. } if detail == Some(Detail::Low) => {
            (f64::from(low_box) / w.max(h)).min(1.0)
        }
        TokenRule::OpenaiTiles {
            fit_box,
            shortest_side,
            ..
        } => {
            let fit = (f64::from(fit_box) / w.max(h)).min(1.0);
            fit * (f64::from(shortest_side) / (w.min(h) * fit)).min(1.0)
        }
        TokenRule::OpenaiPatches {
            patch, max_patches, ..
        } => patch_scale(w, h, f64::from(patch.max(1)), f64::from(max_patches)),
        TokenRule::AnthropicPatches {
            patch,
            long_edge,
            max_tokens,
        } => {
            let s = (f64::from(long_edge) / w.max(h)).min(1.0);
            s * patch_scale(w * s, h * s, f64::from(patch.max(1)), f64::from(max_tokens))
        }
        TokenRule::GeminiTiles { .. } | TokenRule::GeminiMediaResolution { .. } => 1.0,
    };
    if scale >= 1.0 {
        return dims;
    }
    Dimensions {
        width: ((w * scale).floor() as u32).max(1),
        height: ((h * scale).floor() as u32).max(1),
    }
}

/// The scale that brings a `w`×`h` image within `cap` patches of `patch`
/// px: the area to fit, then further so its width or height is a whole
/// number of patches (1 when it fits already).
fn patch_scale(w: f64, h: f64, p: f64, cap: f64) -> f64 {
    if (w / p).ceil() * (h / p).ceil() <= cap {
        return 1.0;
    }
    let shrink = (p * p * cap / (w * h)).sqrt();
    let (sw, sh) = (w * shrink / p, h * shrink / p);
    shrink * (sw.floor() / sw).min(sh.floor() / sh)
}

/// OpenAI's patch count: at most `cap` patches of `patch` px; a larger image
/// shrinks to fit, then further so its width or height is a whole number of
/// patches.
pub(super) fn openai_patches(w: f64, h: f64, patch: f64, cap: f64) -> u64 {
    let raw = (w / patch).ceil() * (h / patch).ceil();
    if raw <= cap {
        return raw as u64;
    }
    let shrink = (patch * patch * cap / (w * h)).sqrt();
    let (sw, sh) = (w * shrink / patch, h * shrink / patch);
    let adjust = (sw.floor() / sw).min(sh.floor() / sh);
    let (rw, rh) = (w * shrink * adjust, h * shrink * adjust);
    ((rw / patch).ceil() * (rh / patch).ceil()).min(cap) as u64
}

#[cfg(test)]
mod tests {
    use super::super::{model_profile, BytesOn, MB};
    use super::*;

    fn d(width: u32, height: u32) -> Dimensions {
        Dimensions { width, height }
    }

    #[test]
    fn token_formulas_match_the_documented_examples() {
        let gpt4o = model_profile("gpt-4o");
        assert_eq!(profile_image_tokens(&gpt4o, d(1024, 1024), false), 765);
        assert_eq!(profile_image_tokens(&gpt4o, d(2048, 4096), false), 1105);
        assert_eq!(profile_image_tokens(&gpt4o, d(4096, 8192), true), 85);
        // Patches: 1024×1024 is 32×32 patches; 1800×2400 shrinks to 33×44.
        let mini = model_profile("gpt-4.1-mini");
        assert_eq!(openai_patches(1024.0, 1024.0, 32.0, 1536.0), 1024);
        assert_eq!(openai_patches(1800.0, 2400.0, 32.0, 1536.0), 1452);
        assert_eq!(profile_image_tokens(&mini, d(1024, 1024), false), 1659);
        // Anthropic: 1000×1000 → 1334; the long edge scales to 1568 (2576 on Opus 4.7).
        let sonnet = model_profile("claude-sonnet-4-5");
        assert_eq!(profile_image_tokens(&sonnet, d(1000, 1000), false), 1334);
        assert_eq!(
            profile_image_tokens(&sonnet, d(3136, 1568), false),
            (1549u64 * 774).div_ceil(750)
        );
        // From Opus 4.7 on: ⌈w/28⌉×⌈h/28⌉, the long edge to 2576 px, at most 4,784.
        let opus = model_profile("claude-opus-4-7");
        assert_eq!(profile_image_tokens(&opus, d(2576, 1288), false), 92 * 46);
        assert_eq!(profile_image_tokens(&opus, d(1000, 1000), false), 36 * 36);
        let sonnet = model_profile("claude-sonnet-5-5");
        assert_eq!(profile_image_tokens(&sonnet, d(960, 540), false), 35 * 20);
        // 5152×2576 → 2576×1288; 4000×4000 → at most 4,784 patches.
        assert_eq!(profile_image_tokens(&sonnet, d(5152, 2576), false), 92 * 46);
        assert_eq!(seen_size(&sonnet, d(5152, 2576), false), d(2576, 1288));
        let square = seen_size(&sonnet, d(4000, 4000), false);
        assert!(square.width.div_ceil(28) * square.height.div_ceil(28) <= 4784);
        assert!(square.width > 1900, "{square:?}");
        assert_eq!(
            profile_image_tokens(&sonnet, d(4000, 4000), false),
            u64::from(square.width.div_ceil(28) * square.height.div_ceil(28))
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

    #[test]
    fn every_figure_is_read_from_the_profile() {
        let mut p = model_profile("gpt-4o");
        p.tokens = TokenRule::OpenaiTiles {
            base: 10,
            per_tile: 100,
            tile: 256,
            fit_box: 1024,
            shortest_side: 512,
            low_box: 256,
        };
        // 2000×1000 → 1024×512 → short side already 512 → 4×2 tiles of 256.
        assert_eq!(seen_size(&p, d(2000, 1000), false), d(1024, 512));
        assert_eq!(profile_image_tokens(&p, d(2000, 1000), false), 10 + 8 * 100);
        assert_eq!(seen_size(&p, d(2000, 1000), true), d(256, 128));
        p.tokens = TokenRule::OpenaiPatches {
            multiplier_milli: 1000,
            patch: 16,
            max_patches: 100,
        };
        assert_eq!(profile_image_tokens(&p, d(160, 160), false), 100);
        assert_eq!(profile_image_tokens(&p, d(64, 64), false), 16);
        p.tokens = TokenRule::AnthropicPixels {
            long_edge: 1000,
            max_tokens: 100_000,
            pixels_per_token: 1000,
        };
        assert_eq!(profile_image_tokens(&p, d(2000, 1000), false), 500);
        p.tokens = TokenRule::GeminiTiles {
            per_tile: 100,
            tile: 500,
            small_side: 200,
        };
        assert_eq!(profile_image_tokens(&p, d(200, 150), false), 100);
        assert_eq!(profile_image_tokens(&p, d(1000, 600), false), 400);
        assert_eq!(
            (p.max_image_bytes, p.image_bytes_on),
            (Some(20 * MB), BytesOn::Decoded)
        );
    }

    #[test]
    fn gemini_3_counts_by_media_resolution_and_its_default() {
        let g = model_profile("gemini-3-pro-preview");
        assert_eq!(g.default_detail, Some(Detail::High));
        let at = |detail| image_tokens_at(&g, d(4000, 3000), detail);
        assert_eq!(
            (at(Some(Detail::Low)), at(Some(Detail::Medium)), at(None)),
            (280, 560, 1120)
        );
        let mut low_default = g;
        low_default.default_detail = Some(Detail::Low);
        assert_eq!(
            profile_image_tokens(&low_default, d(4000, 3000), false),
            280
        );
    }
}
