//! `toMultimodal`: finds the markdown images of user text, resolves each
//! one's source (data URL in place, `fetch` for http/blob, the host's
//! resolver for the rest) and hands the results to the core, which builds
//! the parts. It lives in this module, beside the parser, not in the main
//! one: a page's first compaction does not need it.

use ctxpack_boundary::convert::external::Table;
use ctxpack_boundary::convert::js_payloads::JsPayloads;
use ctxpack_boundary::convert::text_payloads::cut_payloads;
use ctxpack_boundary::convert::{js_type, options_arg, to_js, to_js_kept};
use ctxpack_boundary::event_loop::HOST_LOOP;
use ctxpack_boundary::fetch::{call_resolver, fetch_bytes, Fetched};
use ctxpack_boundary::promise::to_promise;
use ctxpack_boundary::CtxpackError;
use ctxpack_core::calls::part_options;
use ctxpack_core::event_loop::Slicer;
use ctxpack_core::markdown::{
    build_parts, parse_markdown_images, resolve_bytes, resolve_data_url, resolve_data_url_sliced,
    source_kind, with_byte_offsets, ResolveError, ResolvedImage, SourceKind,
};
use ctxpack_core::media::Payloads;
use ctxpack_core::JsonPath;
use js_sys::{Array, Function, JsString, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Turns user text with markdown images into ordered content parts. Images
/// that cannot be resolved stay in the text as markdown and are listed in
/// `missing` (`toMultimodal` in the package; the main module declares it).
#[wasm_bindgen(js_name = __toMultimodal, skip_typescript)]
pub fn to_multimodal_js(text: JsValue, options: Option<JsValue>) -> Promise {
    to_promise(Box::pin(to_multimodal(text, options)))
}

/// `toMultimodal`, awaited from Rust.
pub async fn to_multimodal(
    text: JsValue,
    options: Option<JsValue>,
) -> Result<JsValue, CtxpackError> {
    HOST_LOOP.mark_began();
    let Some(text) = text.dyn_ref::<JsString>() else {
        return Err(CtxpackError::invalid_argument(
            "text",
            format!("expected a string, got {}", js_type(&text)),
        ));
    };
    let opts = options_arg(options.as_ref(), "options")?;
    let detail = opts.string("detail")?;
    let options = part_options(
        opts.format()?,
        detail.as_deref(),
        opts.bool("keepAlt")?,
        &JsonPath::root("options"),
    )?;
    let resolver = opts.function("resolve")?;

    // Long data-URL payloads stay in JavaScript; the parser reads the rest.
    // Long work in short tasks: the host runs between images.
    let table = Table::new();
    let payloads = JsPayloads(&table);
    let slicer = Slicer::new(&HOST_LOOP);
    let cut = cut_payloads(text, &table, &slicer).await;
    let mut images = with_byte_offsets(&cut.text, parse_markdown_images(&cut.text));
    // Offsets are reported in the caller's text.
    for img in &mut images {
        img.start = cut.original_offset(img.start);
        img.end = cut.original_offset(img.end);
    }
    let mut resolved = Vec::with_capacity(images.len());
    for img in &images {
        slicer.checkpoint().await;
        let url = whole_payload(cut.restore(&img.url), &table);
        resolved.push(resolve_one(&url, resolver.as_ref(), &payloads, &slicer).await);
    }
    let out = build_parts(&cut.text, &images, resolved, options);
    // The parts carry the caller's payload strings; the lists carry none.
    let result = Object::new();
    let content: Array = out
        .content
        .into_iter()
        .map(|part| to_js_kept(&cut.restore_value(part), &table))
        .collect();
    let _ = Reflect::set(&result, &"content".into(), &content);
    let _ = Reflect::set(&result, &"images".into(), &to_js(&out.images));
    let _ = Reflect::set(&result, &"missing".into(), &to_js(&out.missing));
    let _ = Reflect::set(&result, &"corrected".into(), &to_js(&out.corrected));
    Ok(result.into())
}

/// `url` as the core reads it: a data URL whose payload is exactly one
/// payload left in JavaScript keeps its reference; one whose payload has
/// more text around a reference (a base64 run cut short by a stray
/// character) is read whole, so it is judged as written.
fn whole_payload(url: String, table: &Table) -> String {
    let payload = url.split_once(',').map_or("", |(_, p)| p);
    if !url.contains('\u{0}') || ctxpack_core::media::parse_external_ref(payload).is_some() {
        return url;
    }
    table
        .resolve(&url)
        .and_then(|v| v.as_string())
        .unwrap_or(url)
}

async fn resolve_one(
    url: &str,
    resolver: Option<&Function>,
    payloads: &dyn Payloads,
    slicer: &Slicer<'_>,
) -> Result<ResolvedImage, ResolveError> {
    let fetched = match source_kind(url) {
        SourceKind::Data => return resolve_data_url_sliced(url, payloads, slicer).await,
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
