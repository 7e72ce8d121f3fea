//! What a call works to, its target: the model profile, with its request
//! limits, that `compactContext`, `estimate`, `fitContext` and
//! `repairContext` read from their options alike. The boundary converts each
//! option's value as it is ([`TargetOptions`]), deciding nothing;
//! [`resolve_target`] reads them.
//!
//! `model` is a model id: its profile, `profile` replacing figures of it (or,
//! naming a `provider`, a whole profile), `limits` replacing its request
//! limits. Two older shapes are still read, and name a provider's defaults
//! rather than a model's: `model` as `{provider, maxImages?, maxRequestBytes?,
//! limits?}`, and, with no `model`, `provider` with `maxImages`,
//! `maxRequestBytes` and `limits` beside it. Either way the limits given
//! beside the provider replace its own, then those of `limits` replace them.

use super::limits::{Provider, RequestLimits};
use super::profiles::{provider_profile, resolve_profile};
use super::{ModelProfile, ProfileError, ProfileOverrides};
use crate::json_path::JsonPath;
use crate::option_error::OptionError;

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

impl ModelProfile {
    /// The profile with its request limits set to `limits`.
    pub fn with_limits(self, limits: RequestLimits) -> ModelProfile {
        ModelProfile {
            max_images: limits.max_images,
            max_image_bytes: limits.max_image_bytes,
            max_request_bytes: limits.max_request_bytes,
            ..self
        }
    }
}

/// The options that name a call's target, each as the caller gave it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TargetOptions {
    /// `model`.
    pub model: ModelOption,
    /// `profile`: figures of the model's profile to replace, or a whole
    /// profile; read with a model id.
    pub profile: Option<ProfileOverrides>,
    /// `limits`: read with a model id, and with `provider`.
    pub limits: LimitOverrides,
    /// `provider` (older): read when there is no `model`.
    pub provider: Option<String>,
    /// `maxImages` and `maxRequestBytes` (older): read beside `provider`.
    pub beside_provider: LimitOverrides,
}

/// The `model` option as given.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum ModelOption {
    /// Not given (`undefined` or `null`).
    #[default]
    Absent,
    /// A model id (`claude-sonnet-4-5`, `bedrock/…`).
    Id(String),
    /// The older `{provider, maxImages?, maxRequestBytes?, limits?}`.
    Provider(ProviderOption),
    /// A value of another type, named by its type (`number`, `boolean`).
    Other(String),
}

/// The older `model` object: a provider with limits of its own.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderOption {
    /// `provider`.
    pub provider: Option<String>,
    /// `maxImages` and `maxRequestBytes`.
    pub beside_provider: LimitOverrides,
    /// `limits`.
    pub limits: LimitOverrides,
}

/// The names a provider may be given by, for messages.
const PROVIDERS: &str = "'openai', 'anthropic', 'gemini', 'bedrock' or 'vertex'";

/// What a call with no target is told.
const MODEL_EXPECTED: &str = "expected a model id such as 'claude-sonnet-4-5'";

/// The target the options of the options object at `at` name (its profile,
/// with the request limits the call works to); `None` when they name none.
/// An option that cannot be used is refused at its path.
pub fn resolve_target(
    options: &TargetOptions,
    at: &JsonPath,
) -> Result<Option<ModelProfile>, OptionError> {
    match &options.model {
        ModelOption::Id(id) => model_target(id, options, at).map(Some),
        ModelOption::Provider(p) => provider_target(p, &at.key("model")).map(Some),
        ModelOption::Other(type_name) => Err(OptionError::new(
            &at.key("model"),
            format!("{MODEL_EXPECTED}, got {type_name}"),
        )),
        ModelOption::Absent => match &options.provider {
            None => Ok(None),
            Some(name) => provider_target(
                &ProviderOption {
                    provider: Some(name.clone()),
                    beside_provider: options.beside_provider,
                    limits: options.limits,
                },
                at,
            )
            .map(Some),
        },
    }
}

/// As [`resolve_target`], for a call that cannot work without a target:
/// naming none is refused at `model`.
pub fn required_target(
    options: &TargetOptions,
    at: &JsonPath,
) -> Result<ModelProfile, OptionError> {
    resolve_target(options, at)?.ok_or_else(|| OptionError::new(&at.key("model"), MODEL_EXPECTED))
}

/// The target a model id names: its profile with `profile` and `limits`.
fn model_target(
    id: &str,
    options: &TargetOptions,
    at: &JsonPath,
) -> Result<ModelProfile, OptionError> {
    let profile = resolve_profile(id, options.profile.as_ref())
        .map_err(|e| profile_error(e, &at.key("profile")))?;
    let limits = profile.limits().overridden(&options.limits);
    Ok(profile.with_limits(limits))
}

/// The target a provider names (`at` is the object it is given in): its
/// defaults, the limits beside it, then its `limits`.
fn provider_target(option: &ProviderOption, at: &JsonPath) -> Result<ModelProfile, OptionError> {
    let path = at.key("provider");
    let name = option
        .provider
        .as_deref()
        .ok_or_else(|| OptionError::new(&path, format!("expected {PROVIDERS}")))?;
    let provider = Provider::from_name(name).ok_or_else(|| {
        OptionError::new(
            &path,
            format!(
                "unknown provider {}; expected {PROVIDERS}",
                crate::quoted(name)
            ),
        )
    })?;
    let profile = provider_profile(provider);
    let limits = profile
        .limits()
        .overridden(&option.beside_provider)
        .overridden(&option.limits);
    Ok(profile.with_limits(limits))
}

/// A refused profile's error at its field, under the `profile` option at `at`.
fn profile_error(e: ProfileError, at: &JsonPath) -> OptionError {
    let path = match e.path.as_str() {
        "" => at.to_string(),
        field => format!("{at}.{field}"),
    };
    OptionError {
        path,
        message: e.message,
    }
}

#[cfg(test)]
#[path = "target_tests.rs"]
mod tests;
