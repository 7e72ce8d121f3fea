//! A profile given as data: every field of a [`ModelProfile`] by its
//! JavaScript name, to replace some figures of a model's profile or, with a
//! `provider`, to make a whole profile of that provider's defaults.

use super::rules::{BytesOn, Detail, MimeSet, TokenRule};
use super::{model_profile, provider_profile, ModelProfile};
use crate::budget::limits::Provider;

/// Fields of a [`ModelProfile`] to replace: every figure may be set by the
/// caller (a gateway's own limits, a newer model's). `null` removes a limit.
/// With `provider`, the profile starts from that provider's defaults rather
/// than the model's row: a whole profile for a model ctxpack does not know.
///
/// As data (its serde derive, see [`ProfileOverrides::from_json`]): the
/// fields in camelCase, a misspelt one refused; a limit that is `null`
/// removes the limit, any other field that is `null` keeps the model's.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProfileOverrides {
    /// Whose API it is; starts the profile from its defaults.
    pub provider: Option<Provider>,
    /// See [`ModelProfile::source`].
    pub source: Option<String>,
    /// See [`ModelProfile::tokens`].
    pub tokens: Option<TokenRule>,
    /// See [`ModelProfile::default_detail`].
    #[serde(default, deserialize_with = "super::overrides_input::limit")]
    pub default_detail: Option<Option<Detail>>,
    /// See [`ModelProfile::accepts`].
    pub accepts: Option<MimeSet>,
    /// See [`ModelProfile::accepts_animated`].
    pub accepts_animated: Option<bool>,
    /// See [`ModelProfile::max_long_edge`].
    #[serde(default, deserialize_with = "super::overrides_input::limit")]
    pub max_long_edge: Option<Option<u32>>,
    /// See [`ModelProfile::many_images`].
    #[serde(default, deserialize_with = "super::overrides_input::limit")]
    pub many_images: Option<Option<usize>>,
    /// See [`ModelProfile::many_images_long_edge`].
    #[serde(default, deserialize_with = "super::overrides_input::limit")]
    pub many_images_long_edge: Option<Option<u32>>,
    /// See [`ModelProfile::max_images`].
    #[serde(default, deserialize_with = "super::overrides_input::limit")]
    pub max_images: Option<Option<usize>>,
    /// See [`ModelProfile::max_image_bytes`].
    #[serde(default, deserialize_with = "super::overrides_input::limit")]
    pub max_image_bytes: Option<Option<u64>>,
    /// See [`ModelProfile::image_bytes_on`].
    pub image_bytes_on: Option<BytesOn>,
    /// See [`ModelProfile::max_request_bytes`].
    #[serde(default, deserialize_with = "super::overrides_input::limit")]
    pub max_request_bytes: Option<Option<u64>>,
    /// See [`ModelProfile::context_tokens`].
    #[serde(default, deserialize_with = "super::overrides_input::limit")]
    pub context_tokens: Option<Option<u64>>,
}

/// Why a profile given as data was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ProfileError {
    /// Where in the profile, relative to it (`tokens.tile`; empty for the
    /// profile itself).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl ProfileError {
    pub(super) fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ProfileError {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// The longest source text a profile given as data keeps.
const MAX_SOURCE: usize = 300;

impl ProfileOverrides {
    /// Refuses a token rule with a zero figure (a division by nothing).
    pub fn check(&self) -> Result<(), ProfileError> {
        if let Some(figure) = self.tokens.as_ref().and_then(TokenRule::zero_figure) {
            return Err(ProfileError::new(
                format!("tokens.{figure}"),
                "must be a positive number",
            ));
        }
        if self.source.as_ref().is_some_and(|s| s.len() > MAX_SOURCE) {
            return Err(ProfileError::new(
                "source",
                format!("at most {MAX_SOURCE} bytes"),
            ));
        }
        Ok(())
    }
}

impl ModelProfile {
    /// The profile with `overrides` applied (its `provider` and `source`
    /// aside: see [`resolve_profile`]).
    pub fn with_overrides(mut self, o: &ProfileOverrides) -> ModelProfile {
        if let Some(t) = o.tokens {
            self.tokens = t;
        }
        if let Some(v) = o.default_detail {
            self.default_detail = v;
        }
        if let Some(v) = o.accepts {
            self.accepts = v;
        }
        if let Some(v) = o.accepts_animated {
            self.accepts_animated = v;
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
}

/// The profile a call uses for `model_id` given `spec` (its `profile`
/// option): the model's profile with the fields replaced, or, when `spec`
/// names a `provider`, that provider's defaults with them. `matched` and
/// `source` name what was given.
pub fn resolve_profile(
    model_id: &str,
    spec: Option<&ProfileOverrides>,
) -> Result<ModelProfile, ProfileError> {
    let Some(spec) = spec else {
        return Ok(model_profile(model_id));
    };
    spec.check()?;
    let mut profile = match spec.provider {
        Some(p) => ModelProfile {
            matched: super::names::name_or(model_id.trim(), "options.profile"),
            source: "options.profile",
            ..provider_profile(p)
        },
        None => model_profile(model_id),
    };
    if let Some(source) = &spec.source {
        profile.source = super::names::name_or(source, "options.profile");
    }
    Ok(profile.with_overrides(spec))
}

#[cfg(test)]
mod tests {
    use super::super::MB;
    use super::*;

    #[test]
    fn every_field_can_be_overridden_and_null_removes_a_limit() {
        let o = ProfileOverrides::from_json(
            r#"{"maxImages":50,"maxRequestBytes":null,"tokens":{"kind":"gemini-tiles"},"imageBytesOn":"decoded","accepts":["image/png"],"acceptsAnimated":true,"defaultDetail":"low","contextTokens":1000}"#,
        )
        .unwrap();
        let p = resolve_profile("claude-sonnet-4-5", Some(&o)).unwrap();
        assert_eq!(p.max_images, Some(50));
        assert_eq!(p.max_request_bytes, None);
        assert_eq!(p.tokens, TokenRule::GEMINI_TILES);
        assert_eq!(p.image_bytes_on, BytesOn::Decoded);
        assert!(p.accepts_mime("image/png") && !p.accepts_mime("image/jpeg") && p.accepts_animated);
        assert_eq!(
            (p.default_detail, p.context_tokens),
            (Some(Detail::Low), Some(1000))
        );
        assert_eq!(p.max_image_bytes, Some(5 * MB), "absent fields are kept");
        assert_eq!((p.matched, p.provider), ("claude-sonnet-4-5", "anthropic"));
        let e = ProfileOverrides::from_json(r#"{"maxImagez":1}"#).unwrap_err();
        assert!(e.message.contains("maxImagez"), "{e}");
    }

    #[test]
    fn a_whole_profile_starts_from_its_providers_defaults() {
        let o = ProfileOverrides::from_json(
            r#"{"provider":"anthropic","tokens":{"kind":"anthropic-pixels","longEdge":1000,"maxTokens":900},"maxImages":8,"source":"our gateway, 2026-11"}"#,
        )
        .unwrap();
        let p = resolve_profile("acme-vision-2", Some(&o)).unwrap();
        assert_eq!(
            (p.matched, p.provider, p.source),
            ("acme-vision-2", "anthropic", "our gateway, 2026-11")
        );
        assert_eq!(p.tokens, TokenRule::anthropic_pixels(1000, 900));
        assert_eq!(
            (p.max_images, p.many_images_long_edge),
            (Some(8), Some(2000))
        );
        // Without a provider the unknown id would have been OpenAI's.
        assert_eq!(
            resolve_profile("acme-vision-2", None).unwrap().provider,
            "openai"
        );
    }

    #[test]
    fn bad_profiles_name_the_bad_field() {
        let zero = ProfileOverrides::from_json(
            r#"{"tokens":{"kind":"anthropic-pixels","longEdge":1568,"maxTokens":1600,"pixelsPerToken":0}}"#,
        )
        .unwrap();
        assert_eq!(
            resolve_profile("x", Some(&zero)).unwrap_err(),
            ProfileError::new("tokens.pixelsPerToken", "must be a positive number")
        );
        assert!(ProfileOverrides::from_json(r#"{"provider":"mistral"}"#)
            .unwrap_err()
            .message
            .contains("unknown provider"));
        assert!(ProfileOverrides::from_json(r#"{"accepts":["image/svg"]}"#).is_err());
        assert!(ProfileOverrides::from_json(r#"{"maxImages":-1}"#).is_err());
    }
}
