//! `compactContext`'s options: how many recent images stay, how messages
//! are written back, and the target whose limits further images are
//! stashed for.

use crate::budget::{resolve_slack, resolve_target, SlackOption, TargetOptions};
use crate::history::CompactOptions;
use crate::json_path::JsonPath;
use crate::option_error::OptionError;

/// `compactContext`'s options, each as the caller gave it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompactInput {
    /// `keepRecentImages`: a JavaScript number.
    pub keep_recent_images: Option<f64>,
    /// `collapseText`.
    pub collapse_text: Option<bool>,
    /// `sanitizeToolResults`.
    pub sanitize_tool_results: Option<bool>,
    /// `model`, `profile`, `limits` and the older `provider` shapes.
    pub target: TargetOptions,
    /// `slack`.
    pub slack: SlackOption,
    /// `cacheBreakpoint`.
    pub cache_breakpoint: Option<bool>,
}

/// The options of a compaction, read from `input` (the options object at
/// `at`): no recent image kept, text not collapsed, tool results left, no
/// limits to fit unless a target is named, and evictions in steps with the
/// default slack.
pub fn compact_options(input: &CompactInput, at: &JsonPath) -> Result<CompactOptions, OptionError> {
    let keep_recent_images = CompactOptions::keep_recent_images(input.keep_recent_images)
        .ok_or_else(|| OptionError::new(&at.key("keepRecentImages"), "expected a whole number"))?;
    let target = resolve_target(&input.target, at)?;
    Ok(CompactOptions {
        keep_recent_images,
        collapse_text: input.collapse_text.unwrap_or(false),
        sanitize_tool_results: input.sanitize_tool_results.unwrap_or(false),
        limits: target.map(|profile| profile.limits()),
        slack: resolve_slack(input.slack, &at.key("slack"))?,
        cache_breakpoint: input.cache_breakpoint.unwrap_or(false),
    })
}

/// `compactContext`'s `offload` option, each field as the caller gave it
/// (the `upload` function stays with the host).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OffloadInput {
    /// `provider`.
    pub provider: Option<String>,
    /// `account`.
    pub account: Option<String>,
    /// `minBytes`: a JavaScript number.
    pub min_bytes: Option<f64>,
}

/// What `offload` asks (the options object at `at`): whose files (none
/// named: the format's own), the account (`""` by default) and the smallest
/// image sent by reference (32 KiB by default).
pub fn offload_options(
    input: &OffloadInput,
    at: &JsonPath,
) -> Result<(Option<crate::messages::FileProvider>, String, u64), OptionError> {
    let provider = match input.provider.as_deref() {
        None => None,
        Some(name) => Some(
            crate::messages::FileProvider::from_name(name).ok_or_else(|| {
                OptionError::new(
                    &at.key("provider"),
                    "expected \"openai\", \"anthropic\" or \"gemini\"",
                )
            })?,
        ),
    };
    let min_bytes = match input.min_bytes {
        None => crate::history::DEFAULT_MIN_BYTES,
        Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 => n as u64,
        Some(_) => {
            return Err(OptionError::new(
                &at.key("minBytes"),
                "expected a whole number of bytes",
            ))
        }
    };
    Ok((
        provider,
        input.account.clone().unwrap_or_default(),
        min_bytes,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::{model_profile, ModelOption, ProviderOption};

    fn at() -> JsonPath {
        JsonPath::root("options")
    }

    #[test]
    fn nothing_given_keeps_no_recent_image_and_fits_no_limits() {
        let o = compact_options(&CompactInput::default(), &at()).unwrap();
        assert_eq!(
            (
                o.keep_recent_images,
                o.collapse_text,
                o.sanitize_tool_results,
                o.limits
            ),
            (0, false, false, None)
        );
    }

    #[test]
    fn given_options_are_read_and_a_model_names_its_limits() {
        let input = CompactInput {
            keep_recent_images: Some(3.0),
            collapse_text: Some(true),
            sanitize_tool_results: Some(true),
            target: TargetOptions {
                model: ModelOption::Id("claude-sonnet-4-5".into()),
                ..Default::default()
            },
            slack: SlackOption::Off,
            cache_breakpoint: None,
        };
        let o = compact_options(&input, &at()).unwrap();
        assert_eq!(
            (
                o.keep_recent_images,
                o.collapse_text,
                o.sanitize_tool_results
            ),
            (3, true, true)
        );
        assert_eq!(o.limits, Some(model_profile("claude-sonnet-4-5").limits()));
        let older = CompactInput {
            target: TargetOptions {
                model: ModelOption::Provider(ProviderOption {
                    provider: Some("bedrock".into()),
                    ..Default::default()
                }),
                ..Default::default()
            },
            ..Default::default()
        };
        let o = compact_options(&older, &at()).unwrap();
        assert_eq!(o.limits.and_then(|l| l.max_images), Some(20));
    }

    #[test]
    fn a_fraction_of_an_image_and_a_bad_target_are_refused_at_their_paths() {
        let half = CompactInput {
            keep_recent_images: Some(1.5),
            ..Default::default()
        };
        let e = compact_options(&half, &at()).unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            ("options.keepRecentImages", "expected a whole number")
        );
        let bad = CompactInput {
            target: TargetOptions {
                model: ModelOption::Other("number".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        assert_eq!(
            compact_options(&bad, &at()).unwrap_err().path,
            "options.model"
        );
    }

    #[test]
    fn offload_defaults_to_the_format_s_provider_32_kib_and_no_account() {
        let (p, account, min) =
            offload_options(&OffloadInput::default(), &at().key("offload")).unwrap();
        assert_eq!((p, account.as_str(), min), (None, "", 32 * 1024));
        let given = OffloadInput {
            provider: Some("gemini".into()),
            account: Some("proj-1".into()),
            min_bytes: Some(0.0),
        };
        let (p, account, min) = offload_options(&given, &at().key("offload")).unwrap();
        assert_eq!(
            (p, account.as_str(), min),
            (Some(crate::messages::FileProvider::Gemini), "proj-1", 0)
        );
        for (bad, path) in [
            (
                OffloadInput {
                    provider: Some("bedrock".into()),
                    ..Default::default()
                },
                "options.offload.provider",
            ),
            (
                OffloadInput {
                    min_bytes: Some(-1.0),
                    ..Default::default()
                },
                "options.offload.minBytes",
            ),
            (
                OffloadInput {
                    min_bytes: Some(0.5),
                    ..Default::default()
                },
                "options.offload.minBytes",
            ),
        ] {
            assert_eq!(
                offload_options(&bad, &at().key("offload"))
                    .unwrap_err()
                    .path,
                path
            );
        }
    }
}
