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
}
