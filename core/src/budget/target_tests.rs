//! Tests of reading a call's target: each shape the options may name it in,
//! and each refusal at its path.

use super::*;
use crate::budget::{model_profile, TokenRule};
use crate::error::CodedError;

fn at() -> JsonPath {
    JsonPath::root("options")
}

fn id(model: &str) -> TargetOptions {
    TargetOptions {
        model: ModelOption::Id(model.to_owned()),
        ..Default::default()
    }
}

fn profile(json: &str) -> Option<ProfileOverrides> {
    Some(ProfileOverrides::from_json(json).unwrap())
}

fn resolved(options: &TargetOptions) -> ModelProfile {
    resolve_target(options, &at()).unwrap().unwrap()
}

fn refused(options: &TargetOptions) -> (String, String) {
    let e = resolve_target(options, &at()).unwrap_err();
    assert_eq!(e.code(), crate::ErrorCode::InvalidOption);
    (e.path, e.message)
}

const fn limits(images: usize, image_bytes: u64, request_bytes: u64) -> RequestLimits {
    RequestLimits {
        max_images: Some(images),
        max_image_bytes: Some(image_bytes),
        max_request_bytes: Some(request_bytes),
    }
}

const MB: u64 = 1024 * 1024;

#[test]
fn no_model_and_no_provider_name_no_target() {
    assert_eq!(resolve_target(&TargetOptions::default(), &at()), Ok(None));
    // Limits alone name nothing to put them over.
    let only_limits = TargetOptions {
        limits: LimitOverrides {
            max_images: Some(3.0),
            ..Default::default()
        },
        beside_provider: LimitOverrides {
            max_images: Some(2.0),
            ..Default::default()
        },
        ..Default::default()
    };
    assert_eq!(resolve_target(&only_limits, &at()), Ok(None));
}

#[test]
fn a_call_that_needs_a_target_is_told_to_name_a_model() {
    let e = required_target(&TargetOptions::default(), &at()).unwrap_err();
    assert_eq!(e.path, "options.model");
    assert_eq!(e.message, "expected a model id such as 'claude-sonnet-4-5'");
    assert_eq!(
        required_target(&id("gpt-4o"), &at()),
        Ok(model_profile("gpt-4o"))
    );
}

#[test]
fn a_model_id_names_its_profile_and_its_limits() {
    let sonnet = resolved(&id("claude-sonnet-4-5"));
    assert_eq!(sonnet, model_profile("claude-sonnet-4-5"));
    assert_eq!(
        (sonnet.matched, sonnet.provider),
        ("claude-sonnet-4-5", "anthropic")
    );
    assert_eq!(sonnet.limits(), limits(100, 5 * MB, 32 * MB));
    // A platform's prefix names the platform's limits.
    assert_eq!(
        resolved(&id("bedrock/claude-sonnet-4-5")).max_images,
        Some(20)
    );
}

#[test]
fn limits_replace_the_model_s_own_and_the_rest_stays() {
    let options = TargetOptions {
        limits: LimitOverrides {
            max_images: Some(5.0),
            max_image_bytes: Some(1000.7),
            max_request_bytes: None,
        },
        ..id("claude-sonnet-4-5")
    };
    let p = resolved(&options);
    assert_eq!(p.limits(), limits(5, 1000, 32 * MB));
    assert_eq!(
        p,
        model_profile("claude-sonnet-4-5").with_limits(p.limits()),
        "only the limits change"
    );
    let negative = TargetOptions {
        limits: LimitOverrides {
            max_images: Some(-2.0),
            ..Default::default()
        },
        ..id("gpt-4o")
    };
    assert_eq!(resolved(&negative).max_images, Some(0));
}

#[test]
fn a_profile_replaces_figures_and_limits_go_over_it() {
    let options = TargetOptions {
        profile: profile(r#"{"maxImages":50,"maxRequestBytes":null,"contextTokens":1000}"#),
        limits: LimitOverrides {
            max_images: Some(7.0),
            ..Default::default()
        },
        ..id("gpt-4o")
    };
    let p = resolved(&options);
    assert_eq!(
        (p.max_images, p.max_request_bytes, p.context_tokens),
        (Some(7), None, Some(1000))
    );
    assert_eq!((p.matched, p.provider), ("gpt-4o", "openai"));
}

#[test]
fn a_profile_naming_a_provider_is_a_whole_profile_for_the_id() {
    let options = TargetOptions {
        profile: profile(
            r#"{"provider":"anthropic","tokens":{"kind":"anthropic-pixels","longEdge":1000,"maxTokens":900},"maxImages":8}"#,
        ),
        ..id("acme-vision-2")
    };
    let p = resolved(&options);
    assert_eq!(
        (p.matched, p.provider, p.source),
        ("acme-vision-2", "anthropic", "options.profile")
    );
    assert_eq!(p.tokens, TokenRule::anthropic_pixels(1000, 900));
    assert_eq!(p.max_images, Some(8));
}

#[test]
fn a_model_id_reads_neither_provider_nor_the_limits_beside_it() {
    let options = TargetOptions {
        provider: Some("gemini".into()),
        beside_provider: LimitOverrides {
            max_images: Some(1.0),
            max_request_bytes: Some(1.0),
            ..Default::default()
        },
        ..id("gpt-4o")
    };
    assert_eq!(resolved(&options), model_profile("gpt-4o"));
    // Nor an unknown name.
    let unknown = TargetOptions {
        provider: Some("mistral".into()),
        ..id("gpt-4o")
    };
    assert_eq!(resolved(&unknown), model_profile("gpt-4o"));
}

#[test]
fn the_older_model_object_names_a_provider_with_limits_of_its_own() {
    let bedrock = TargetOptions {
        model: ModelOption::Provider(ProviderOption {
            provider: Some("bedrock".into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    let p = resolved(&bedrock);
    assert_eq!((p.matched, p.provider), ("bedrock", "bedrock"));
    assert_eq!(p.limits(), limits(20, 5 * MB, 20 * MB));
    // Beside the provider, then its `limits` over those.
    let options = TargetOptions {
        model: ModelOption::Provider(ProviderOption {
            provider: Some("Claude".into()),
            beside_provider: LimitOverrides {
                max_images: Some(5.0),
                max_request_bytes: Some(1000.0),
                ..Default::default()
            },
            limits: LimitOverrides {
                max_images: Some(3.0),
                max_image_bytes: Some(2048.9),
                ..Default::default()
            },
        }),
        // The options' own `profile` and `limits` are a model id's.
        profile: profile(r#"{"maxImages":1}"#),
        limits: LimitOverrides {
            max_images: Some(1.0),
            ..Default::default()
        },
        ..Default::default()
    };
    let p = resolved(&options);
    assert_eq!(p.provider, "anthropic");
    assert_eq!(
        p.limits(),
        RequestLimits {
            max_images: Some(3),
            max_image_bytes: Some(2048),
            max_request_bytes: Some(1000),
        }
    );
}

#[test]
fn the_older_provider_option_reads_the_limits_beside_it() {
    let options = TargetOptions {
        provider: Some("openai".into()),
        beside_provider: LimitOverrides {
            max_images: Some(2.0),
            max_request_bytes: Some(500.0),
            ..Default::default()
        },
        limits: LimitOverrides {
            max_request_bytes: Some(400.0),
            ..Default::default()
        },
        ..Default::default()
    };
    let p = resolved(&options);
    assert_eq!((p.matched, p.provider), ("openai", "openai"));
    assert_eq!(
        p.limits(),
        RequestLimits {
            max_images: Some(2),
            max_image_bytes: Some(20 * MB),
            max_request_bytes: Some(400),
        }
    );
    // A model profile's `profile` option is not a provider's.
    let with_profile = TargetOptions {
        provider: Some("openai".into()),
        profile: profile(r#"{"maxImages":1}"#),
        ..Default::default()
    };
    assert_eq!(resolved(&with_profile).max_images, Some(500));
}

#[test]
fn a_model_of_another_type_is_refused_at_model() {
    let options = TargetOptions {
        model: ModelOption::Other("number".into()),
        provider: Some("openai".into()),
        ..Default::default()
    };
    assert_eq!(
        refused(&options),
        (
            "options.model".into(),
            "expected a model id such as 'claude-sonnet-4-5', got number".into()
        )
    );
}

#[test]
fn a_missing_or_unknown_provider_is_refused_where_it_is_given() {
    let in_model = |name: Option<&str>| TargetOptions {
        model: ModelOption::Provider(ProviderOption {
            provider: name.map(str::to_owned),
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(
        refused(&in_model(None)),
        (
            "options.model.provider".into(),
            "expected 'openai', 'anthropic', 'gemini', 'bedrock' or 'vertex'".into()
        )
    );
    let (path, message) = refused(&in_model(Some("mistral")));
    assert_eq!(path, "options.model.provider");
    assert!(
        message.starts_with("unknown provider \"mistral\"; expected 'openai'"),
        "{message}"
    );
    let top = TargetOptions {
        provider: Some("acme".into()),
        ..Default::default()
    };
    let (path, message) = refused(&top);
    assert_eq!(path, "options.provider");
    assert!(
        message.starts_with("unknown provider \"acme\""),
        "{message}"
    );
}

#[test]
fn a_profile_that_cannot_be_used_is_refused_at_its_field() {
    let zero = TargetOptions {
        profile: profile(
            r#"{"tokens":{"kind":"anthropic-pixels","longEdge":1568,"maxTokens":1600,"pixelsPerToken":0}}"#,
        ),
        ..id("gpt-4o")
    };
    assert_eq!(
        refused(&zero),
        (
            "options.profile.tokens.pixelsPerToken".into(),
            "must be a positive number".into()
        )
    );
    let long_source = TargetOptions {
        profile: Some(ProfileOverrides {
            source: Some("x".repeat(301)),
            ..Default::default()
        }),
        ..id("gpt-4o")
    };
    assert_eq!(refused(&long_source).0, "options.profile.source");
    // Under another options object, the paths are its.
    let e = required_target(&zero, &JsonPath::root("opts")).unwrap_err();
    assert_eq!(e.path, "opts.profile.tokens.pixelsPerToken");
}
