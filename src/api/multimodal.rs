//! `toMultimodal`: resolves each markdown image's source (data URL in place,
//! `fetch` for http/blob, the host's resolver for the rest) and hands the
//! results to the core, which builds the parts.

use crate::convert::{options_arg, string_arg, to_js};
use crate::fetch::{call_resolver, fetch_bytes, Fetched};
use crate::promise::to_promise;
use crate::CtxpackError;
use ctxpack_core::markdown::{
    build_parts, resolve_bytes, resolve_data_url, source_kind, PartOptions, ResolveError,
    ResolvedImage, SourceKind,
};
use ctxpack_core::messages::Format;
use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TO_MULTIMODAL_TS: &'static str = r#"
/**
 * Turns user text with markdown images into ordered content parts: the text
 * before the first image, the image, the text between, … Images that cannot
 * be resolved stay in the text as markdown and are listed in `missing`.
 */
export function toMultimodal(text: string, options?: ToMultimodalOptions): Promise<MultimodalContent>;
"#;

/// Turns user text with markdown images into ordered content parts. Images
/// that cannot be resolved stay in the text as markdown and are listed in
/// `missing`. `parse` is the markdown module's parser (the package's entry
/// passes it; `toMultimodal` is this with it).
#[wasm_bindgen(js_name = __toMultimodal, skip_typescript)]
pub fn to_multimodal_js(text: JsValue, options: Option<JsValue>, parse: Function) -> Promise {
    to_promise(Box::pin(to_multimodal(text, options, parse)))
}

/// `toMultimodal`, awaited from Rust.
pub async fn to_multimodal(
    text: JsValue,
    options: Option<JsValue>,
    parse: Function,
) -> Result<JsValue, CtxpackError> {
    let text = string_arg(&text, "text")?;
    let opts = options_arg(options.as_ref(), "options")?;
    let format = opts.format()?.unwrap_or(Format::OpenAi);
    let detail = opts.string("detail")?;
    if let Some(d) = &detail {
        if !matches!(d.as_str(), "auto" | "low" | "high") {
            return Err(CtxpackError::invalid_option(
                opts.path_of("detail"),
                "expected auto, low or high",
            ));
        }
    }
    let keep_alt = opts.bool("keepAlt")?.unwrap_or(true);
    let resolver = opts.function("resolve")?;

    let images = crate::api::markdown::markdown_images(&text, &parse)?;
    let mut resolved = Vec::with_capacity(images.len());
    for img in &images {
        resolved.push(resolve_one(&img.url, resolver.as_ref()).await);
    }
    let out = build_parts(
        &text,
        &images,
        resolved,
        PartOptions {
            format,
            detail: detail.as_deref(),
            keep_alt,
        },
    );
    Ok(to_js(&out))
}

async fn resolve_one(
    url: &str,
    resolver: Option<&Function>,
) -> Result<ResolvedImage, ResolveError> {
    let fetched = match source_kind(url) {
        SourceKind::Data => return resolve_data_url(url),
        SourceKind::Fetch => fetch_bytes(url).await,
        SourceKind::Resolver => match resolver {
            Some(f) => call_resolver(f, url).await,
            None => Err("no `resolve` option for this kind of URL".to_owned()),
        },
    };
    match fetched.map_err(ResolveError::Unavailable)? {
        Fetched::Bytes(bytes, content_type) => resolve_bytes(&bytes, url, content_type.as_deref()),
        Fetched::DataUrl(s) => resolve_data_url(&s),
    }
}
