//! What a caller names a request's rules by: a provider (its defaults) with
//! limits of its own on top. `estimate`, `toTextOnly` and `compactContext`'s
//! `model` read them alike; the boundary only hands the option values over.

use super::limits::{limits_of, Provider, RequestLimits};

/// Limits a caller sets over a provider's or a model's, as JavaScript numbers:
/// each one given replaces that limit (a number below zero counts as zero, a
/// fraction is cut to its whole part).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LimitOverrides {
    /// `maxImages`: images per request.
    pub max_images: Option<f64>,
    /// `maxImageBytes`: bytes per image.
    pub max_image_bytes: Option<f64>,
    /// `maxRequestBytes`: bytes per request body.
    pub max_request_bytes: Option<f64>,
}

impl RequestLimits {
    /// These limits with each one `overrides` gives replaced.
    pub fn overridden(self, overrides: &LimitOverrides) -> RequestLimits {
        RequestLimits {
            max_images: overrides.max_images.map(|n| n as usize).or(self.max_images),
            max_image_bytes: overrides
                .max_image_bytes
                .map(|n| n as u64)
                .or(self.max_image_bytes),
            max_request_bytes: overrides
                .max_request_bytes
                .map(|n| n as u64)
                .or(self.max_request_bytes),
        }
    }
}

/// Why a provider named by a caller cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// No provider was named.
    #[error("expected 'openai', 'anthropic', 'gemini', 'bedrock' or 'vertex'")]
    MissingProvider,
    /// The name is no provider ctxpack knows.
    #[error("unknown provider {}", crate::quoted(.0))]
    UnknownProvider(String),
}

/// The provider named `name` and its limits: its defaults, then `direct`
/// (limits given beside the provider's name, as `compactContext`'s `model`
/// has them), then `limits` (the `limits` object) over those.
pub fn provider_limits(
    name: Option<&str>,
    direct: &LimitOverrides,
    limits: &LimitOverrides,
) -> Result<(Provider, RequestLimits), TargetError> {
    let name = name.ok_or(TargetError::MissingProvider)?;
    let provider =
        Provider::from_name(name).ok_or_else(|| TargetError::UnknownProvider(name.to_owned()))?;
    Ok((
        provider,
        limits_of(provider).overridden(direct).overridden(limits),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_provider_s_limits_take_the_caller_s_in_order() {
        let (provider, base) =
            provider_limits(Some("Claude"), &Default::default(), &Default::default()).unwrap();
        assert_eq!(provider, Provider::Anthropic);
        assert_eq!(base, limits_of(Provider::Anthropic));
        let direct = LimitOverrides {
            max_images: Some(5.0),
            max_request_bytes: Some(1000.0),
            ..Default::default()
        };
        let nested = LimitOverrides {
            max_images: Some(3.0),
            max_image_bytes: Some(2048.9),
            ..Default::default()
        };
        let (_, limits) = provider_limits(Some("anthropic"), &direct, &nested).unwrap();
        assert_eq!(
            limits,
            RequestLimits {
                max_images: Some(3),
                max_image_bytes: Some(2048),
                max_request_bytes: Some(1000),
            }
        );
        assert_eq!(
            base.overridden(&LimitOverrides {
                max_images: Some(-2.0),
                ..Default::default()
            })
            .max_images,
            Some(0)
        );
    }

    #[test]
    fn a_missing_or_unknown_provider_says_what_is_expected() {
        let none = LimitOverrides::default();
        assert_eq!(
            provider_limits(None, &none, &none),
            Err(TargetError::MissingProvider)
        );
        let err = provider_limits(Some("mistral"), &none, &none).unwrap_err();
        assert_eq!(err.to_string(), "unknown provider \"mistral\"");
        assert!(TargetError::MissingProvider
            .to_string()
            .contains("'vertex'"));
    }
}
