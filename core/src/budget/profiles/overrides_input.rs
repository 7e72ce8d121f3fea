//! A profile given as data, read through the serde derives of
//! [`ProfileOverrides`] and [`TokenRule`](super::rules::TokenRule). A
//! refusal names the field it is about, the first one refused on its own
//! (`maxImages`, `tokens`, a misspelt `maxImagez`), or none for the profile
//! itself (one that is no object).

use super::spec::{ProfileError, ProfileOverrides};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

impl ProfileOverrides {
    /// Reads a profile from its JSON text; a misspelt field is refused.
    pub fn from_json(text: &str) -> Result<ProfileOverrides, ProfileError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| ProfileError::new("", e.to_string()))?;
        // A derive would also read a list, by position.
        let Some(fields) = value.as_object() else {
            return Err(ProfileError::new("", "expected a profile object"));
        };
        // Read from the value, so that a refusal says no line and column.
        ProfileOverrides::deserialize(&value).map_err(|e| {
            // The field at fault: the first one refused on its own.
            let path = fields
                .iter()
                .find(|(key, v)| {
                    let alone =
                        Value::Object([((*key).clone(), (*v).clone())].into_iter().collect());
                    ProfileOverrides::deserialize(&alone).is_err()
                })
                .map(|(key, _)| key.clone())
                .unwrap_or_default();
            ProfileError::new(path, e.to_string())
        })
    }
}

/// A limit as given: `null` (no limit) is `Some(None)`, a figure
/// `Some(Some(n))`; a limit left out stays `None` (`#[serde(default)]`).
pub(super) fn limit<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

#[cfg(test)]
mod tests {
    use super::super::rules::TokenRule;
    use super::*;

    fn refusal(json: &str) -> ProfileError {
        ProfileOverrides::from_json(json).unwrap_err()
    }

    #[test]
    fn each_bad_value_is_refused_at_its_field() {
        let cases = [
            (r#"{"maxImages":-1}"#, "maxImages"),
            (r#"{"maxImages":1.5}"#, "maxImages"),
            (r#"{"maxLongEdge":5000000000}"#, "maxLongEdge"),
            (r#"{"contextTokens":"many"}"#, "contextTokens"),
            (r#"{"accepts":["image/svg"]}"#, "accepts"),
            (r#"{"accepts":"image/png"}"#, "accepts"),
            (r#"{"defaultDetail":"max"}"#, "defaultDetail"),
            (r#"{"imageBytesOn":"encoded"}"#, "imageBytesOn"),
            (r#"{"acceptsAnimated":"yes"}"#, "acceptsAnimated"),
            (r#"{"provider":"mistral"}"#, "provider"),
            (r#"{"source":7}"#, "source"),
            (
                r#"{"tokens":{"kind":"anthropic-pixels","longEdge":1568}}"#,
                "tokens",
            ),
        ];
        for (json, path) in cases {
            assert_eq!(refusal(json).path, path, "{json}");
        }
        let e = refusal(r#"{"maxImagez":1}"#);
        assert_eq!(
            e.path, "maxImagez",
            "a misspelt field is refused where it is"
        );
        assert!(e.message.starts_with("unknown field `maxImagez`"), "{e}");
        assert!(!e.message.contains("line"), "no line and column: {e}");
        assert_eq!(refusal("[1]").path, "");
        assert_eq!(refusal("{").path, "");
        assert!(refusal(r#"{"provider":"mistral"}"#)
            .message
            .starts_with("unknown provider \"mistral\""));
        assert!(refusal(r#"{"accepts":["image/svg"]}"#)
            .message
            .starts_with("unknown image type \"image/svg\""));
    }

    #[test]
    fn names_are_read_as_apps_spell_them() {
        let o = ProfileOverrides::from_json(
            r#"{"provider":"Claude","defaultDetail":"MEDIA_RESOLUTION_LOW","accepts":["image/JPG"]}"#,
        )
        .unwrap();
        assert_eq!(o.provider, Some(crate::budget::limits::Provider::Anthropic));
        assert_eq!(
            o.default_detail,
            Some(Some(super::super::rules::Detail::Low))
        );
        assert!(o.accepts.is_some_and(|a| a.contains("image/jpeg")));
    }

    #[test]
    fn null_removes_a_limit_and_keeps_any_other_field() {
        let o = ProfileOverrides::from_json(
            r#"{"maxImages":null,"defaultDetail":null,"provider":null,"accepts":null,"tokens":null}"#,
        )
        .unwrap();
        assert_eq!(
            (
                o.max_images,
                o.default_detail,
                o.provider,
                o.accepts,
                o.tokens
            ),
            (Some(None), Some(None), None, None, None)
        );
        assert_eq!(
            ProfileOverrides::from_json(r#"{"manyImages":20,"maxImageBytes":5242880}"#).unwrap(),
            ProfileOverrides {
                many_images: Some(Some(20)),
                max_image_bytes: Some(Some(5_242_880)),
                ..ProfileOverrides::default()
            }
        );
    }

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
        assert!(rule(r#"{"kind":"gemini-tiles","tile":1.5}"#).is_err());
        // The documented figures a rule leaves out.
        assert_eq!(
            rule(r#"{"kind":"gemini-tiles"}"#),
            Ok(TokenRule::GeminiTiles {
                per_tile: 258,
                tile: 768,
                small_side: 384
            })
        );
        // The rule round-trips through its own JSON.
        let tiles = TokenRule::openai_tiles(85, 170);
        assert_eq!(rule(&serde_json::to_string(&tiles).unwrap()), Ok(tiles));
        let patches = TokenRule::openai_patches(1200);
        assert_eq!(rule(&serde_json::to_string(&patches).unwrap()), Ok(patches));
    }
}
