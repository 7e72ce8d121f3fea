//! The options that name a call's target (`model`, `profile`, `limits`,
//! and the older `provider`, `maxImages`, `maxRequestBytes`), converted
//! from JavaScript field by field for the core, which reads them
//! (`ctxpack_core::budget::resolve_target`).

use crate::convert::{js_type, options_arg, Options};
use crate::CtxpackError;
use ctxpack_core::budget::{LimitOverrides, ModelOption, ProviderOption, TargetOptions};

/// The target options of `opts`, each converted as it is.
pub(crate) fn target_options(opts: &Options) -> Result<TargetOptions, CtxpackError> {
    Ok(TargetOptions {
        model: model_option(opts)?,
        profile: super::profile::profile_value(opts)?,
        limits: limit_overrides(opts)?,
        provider: opts.string("provider")?,
        beside_provider: beside_provider(opts)?,
    })
}

/// `model`: an id, an object (the older `{provider, …}`), or another value
/// named by its type.
fn model_option(opts: &Options) -> Result<ModelOption, CtxpackError> {
    let model = opts.get("model");
    if model.is_null_or_undefined() {
        Ok(ModelOption::Absent)
    } else if let Some(id) = model.as_string() {
        Ok(ModelOption::Id(id))
    } else if model.is_object() {
        let m = options_arg(Some(&model), &opts.path_of("model"))?;
        Ok(ModelOption::Provider(ProviderOption {
            provider: m.string("provider")?,
            beside_provider: beside_provider(&m)?,
            limits: limit_overrides(&m)?,
        }))
    } else {
        Ok(ModelOption::Other(js_type(&model)))
    }
}

/// `maxImages` and `maxRequestBytes` of `opts`.
fn beside_provider(opts: &Options) -> Result<LimitOverrides, CtxpackError> {
    Ok(LimitOverrides {
        max_images: opts.number("maxImages")?,
        max_image_bytes: None,
        max_request_bytes: opts.number("maxRequestBytes")?,
    })
}

/// The numbers of the `limits` object of `opts` (none when it is absent).
fn limit_overrides(opts: &Options) -> Result<LimitOverrides, CtxpackError> {
    let Some(l) = opts.object("limits")? else {
        return Ok(LimitOverrides::default());
    };
    Ok(LimitOverrides {
        max_images: l.number("maxImages")?,
        max_image_bytes: l.number("maxImageBytes")?,
        max_request_bytes: l.number("maxRequestBytes")?,
    })
}
