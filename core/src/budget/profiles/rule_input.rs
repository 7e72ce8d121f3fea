//! A token rule as given in a profile: its `kind` and any figures, read by
//! name from the JSON object (one reader for every kind, driven by the
//! tables below rather than a derive per variant, to keep the module small).

use super::rules::figures::*;
use super::rules::TokenRule;

/// The kinds of token rule, by their names.
const KINDS: [&str; 6] = [
    "openai-tiles",
    "openai-patches",
    "anthropic-pixels",
    "gemini-tiles",
    "gemini-media-resolution",
    "anthropic-patches",
];

/// The figures a token rule may name.
const NAMES: [&str; 16] = [
    "base",
    "perTile",
    "tile",
    "fitBox",
    "shortestSide",
    "lowBox",
    "multiplierMilli",
    "patch",
    "maxPatches",
    "longEdge",
    "maxTokens",
    "pixelsPerToken",
    "smallSide",
    "high",
    "medium",
    "low",
];

impl<'de> serde::Deserialize<'de> for TokenRule {
    /// Reads the rule's JSON object: see [`TokenRule::from_json`].
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = <serde_json::Value as serde::Deserialize>::deserialize(d)?;
        TokenRule::from_json(&value).map_err(serde::de::Error::custom)
    }
}

impl TokenRule {
    /// A rule from its JSON object: `kind` and its figures, by their names.
    /// The figures a kind needs must be there, the ones it may leave out
    /// take the documented values, and one the kind does not use is refused.
    pub fn from_json(value: &serde_json::Value) -> Result<TokenRule, String> {
        let obj = value
            .as_object()
            .ok_or("expected a token rule object with a `kind`")?;
        let (kind, f) = read_figures(obj)?;
        check_figures(kind, &f)?;
        let g = |k: usize, default: u32| f.get(k).copied().flatten().unwrap_or(default);
        Ok(match kind {
            0 => TokenRule::OpenaiTiles {
                base: g(0, 0),
                per_tile: g(1, 0),
                tile: g(2, TILE),
                fit_box: g(3, FIT_BOX),
                shortest_side: g(4, SHORTEST_SIDE),
                low_box: g(5, LOW_BOX),
            },
            1 => TokenRule::OpenaiPatches {
                multiplier_milli: g(6, 0),
                patch: g(7, PATCH),
                max_patches: g(8, MAX_PATCHES),
            },
            2 => TokenRule::AnthropicPixels {
                long_edge: g(9, 0),
                max_tokens: g(10, 0),
                pixels_per_token: g(11, PIXELS_PER_TOKEN),
            },
            3 => TokenRule::GeminiTiles {
                per_tile: g(1, GEMINI_PER_TILE),
                tile: g(2, GEMINI_TILE),
                small_side: g(12, GEMINI_SMALL_SIDE),
            },
            5 => TokenRule::AnthropicPatches {
                patch: g(7, ANTHROPIC_PATCH),
                long_edge: g(9, 0),
                max_tokens: g(10, 0),
            },
            _ => TokenRule::GeminiMediaResolution {
                high: g(13, 0),
                medium: g(14, 0),
                low: g(15, 0),
            },
        })
    }
}

/// The `kind` (its index in `KINDS`) and each figure of a rule's JSON
/// object, by its index in `NAMES`.
fn read_figures(
    obj: &serde_json::Map<String, serde_json::Value>,
) -> Result<(usize, [Option<u32>; 16]), String> {
    let mut kind = None;
    let mut f = [None; 16];
    for (key, v) in obj {
        if key == "kind" {
            kind = v.as_str().and_then(|k| KINDS.iter().position(|n| *n == k));
            if kind.is_none() {
                return Err(format!(
                    "unknown `kind`; expected one of {}",
                    KINDS.join(", ")
                ));
            }
            continue;
        }
        let at = NAMES
            .iter()
            .position(|n| n == key)
            .ok_or_else(|| format!("unknown field `{key}`"))?;
        let n = v
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| format!("`{key}` must be a whole number"))?;
        if let Some(slot) = f.get_mut(at) {
            *slot = Some(n);
        }
    }
    Ok((kind.ok_or("missing field `kind`")?, f))
}

/// Refuses a figure `kind` does not use, and a missing one it needs.
fn check_figures(kind: usize, f: &[Option<u32>; 16]) -> Result<(), String> {
    // Bits of NAMES: the figures each kind uses, and those it needs.
    let (uses, needs): (u16, u16) = match kind {
        0 => (0b11_1111, 0b11),
        1 => (0b1_1100_0000, 0b100_0000),
        2 => (0b1110_0000_0000, 0b110_0000_0000),
        3 => (0b1_0000_0000_0110, 0),
        5 => (0b110_1000_0000, 0b110_0000_0000),
        _ => (0b1110_0000_0000_0000, 0b1110_0000_0000_0000),
    };
    for (k, (v, name)) in f.iter().zip(NAMES).enumerate() {
        let bit = 1u16 << k;
        if v.is_some() && uses & bit == 0 {
            return Err(format!("unknown field `{name}` for this kind"));
        }
        if v.is_none() && needs & bit != 0 {
            return Err(format!("missing field `{name}`"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(json: &str) -> Result<TokenRule, String> {
        serde_json::from_str::<TokenRule>(json).map_err(|e| e.to_string())
    }

    #[test]
    fn each_kind_takes_its_own_figures_only() {
        assert_eq!(
            rule(r#"{"kind":"anthropic-pixels","longEdge":1568,"maxTokens":1600}"#),
            Ok(TokenRule::anthropic_pixels(1568, 1600))
        );
        assert_eq!(
            rule(r#"{"kind":"gemini-media-resolution","high":1,"medium":2,"low":3}"#),
            Ok(TokenRule::GeminiMediaResolution {
                high: 1,
                medium: 2,
                low: 3
            })
        );
        let e = rule(r#"{"kind":"anthropic-pixels","longEdge":1,"maxTokens":1,"perTile":5}"#);
        assert!(e.unwrap_err().contains("`perTile`"));
        let e = rule(r#"{"kind":"openai-tiles","base":85}"#);
        assert!(e.unwrap_err().contains("missing field `perTile`"));
        assert!(rule(r#"{"kind":"openai-squares"}"#).is_err());
        assert!(rule(r#"{"base":85}"#).is_err());
        assert_eq!(
            rule(r#"{"kind":"anthropic-patches","longEdge":2576,"maxTokens":4784}"#),
            Ok(TokenRule::ANTHROPIC_PATCHES)
        );
        assert!(rule(
            r#"{"kind":"anthropic-patches","longEdge":1,"maxTokens":1,"pixelsPerToken":1}"#
        )
        .is_err());
        // The rule round-trips through its own JSON.
        let tiles = TokenRule::openai_tiles(85, 170);
        assert_eq!(rule(&serde_json::to_string(&tiles).unwrap()), Ok(tiles));
    }
}
