//! `fitContext`'s and `repairContext`'s options: the model to fit to (a
//! target they cannot work without), whether the newest turn's images go
//! as they are, and the tokens the request may hold.

use crate::budget::{required_target, resolve_slack, ModelProfile, SlackOption, TargetOptions};
use crate::fit::FitOptions;
use crate::json_path::JsonPath;
use crate::option_error::OptionError;

/// The options of a fitting, each as the caller gave it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FitInput {
    /// `model`, `profile`, `limits` and the older `provider` shapes.
    pub target: TargetOptions,
    /// `keepNewest`.
    pub keep_newest: Option<bool>,
    /// `maxTokens`: a JavaScript number.
    pub max_tokens: Option<f64>,
    /// `slack`.
    pub slack: SlackOption,
}

/// A fitting's options, read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitSetup {
    /// The profile fitted to, with the call's limits.
    pub profile: ModelProfile,
    /// The fitting's own options.
    pub options: FitOptions,
}

/// The options of a fitting, read from `input` (the options object at
/// `at`): the newest turn's images are fitted too unless `keepNewest`, the
/// tokens are the model's context window unless `maxTokens` says less, and
/// history images are stashed in batches with the default slack.
pub fn fit_setup(input: &FitInput, at: &JsonPath) -> Result<FitSetup, OptionError> {
    let profile = required_target(&input.target, at)?;
    let max_tokens = match input.max_tokens {
        None => None,
        Some(n) if n.fract() == 0.0 && n >= 0.0 => Some(n as u64),
        Some(_) => {
            return Err(OptionError::new(
                &at.key("maxTokens"),
                "expected a whole number",
            ))
        }
    };
    Ok(FitSetup {
        profile,
        options: FitOptions {
            keep_newest: input.keep_newest.unwrap_or(false),
            max_tokens,
            slack: resolve_slack(input.slack, &at.key("slack"))?,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::{model_profile, LimitOverrides, ModelOption, Slack};

    fn at() -> JsonPath {
        JsonPath::root("options")
    }

    fn model(id: &str) -> TargetOptions {
        TargetOptions {
            model: ModelOption::Id(id.into()),
            ..Default::default()
        }
    }

    #[test]
    fn a_model_alone_fits_every_image_to_its_context_window() {
        let input = FitInput {
            target: model("gpt-4o"),
            ..Default::default()
        };
        let s = fit_setup(&input, &at()).unwrap();
        assert_eq!(s.profile, model_profile("gpt-4o"));
        assert_eq!(
            s.options,
            FitOptions {
                slack: Slack::DEFAULT,
                ..FitOptions::default()
            }
        );
        assert_eq!((s.options.keep_newest, s.options.max_tokens), (false, None));
    }

    #[test]
    fn given_options_are_read_and_limits_reach_the_profile() {
        let input = FitInput {
            target: TargetOptions {
                limits: LimitOverrides {
                    max_images: Some(4.0),
                    ..Default::default()
                },
                ..model("claude-sonnet-4-5")
            },
            keep_newest: Some(true),
            max_tokens: Some(1700.0),
            slack: SlackOption::Off,
        };
        let s = fit_setup(&input, &at()).unwrap();
        assert_eq!(s.profile.max_images, Some(4));
        assert_eq!(
            s.options,
            FitOptions {
                keep_newest: true,
                max_tokens: Some(1700),
                slack: Slack::EXACT,
            }
        );
    }

    #[test]
    fn no_model_and_a_fraction_of_a_token_are_refused_at_their_paths() {
        let e = fit_setup(&FitInput::default(), &at()).unwrap_err();
        assert_eq!(e.path, "options.model");
        for n in [1.5, -1.0] {
            let input = FitInput {
                target: model("gpt-4o"),
                max_tokens: Some(n),
                ..Default::default()
            };
            let e = fit_setup(&input, &at()).unwrap_err();
            assert_eq!(
                (e.path.as_str(), e.message.as_str()),
                ("options.maxTokens", "expected a whole number")
            );
        }
    }
}
