//! What a compaction reads of its options, alike for the messages as
//! objects (`compactContext`) and for a request body as text
//! (`compactRequestBody`).

use crate::api::call::Call;
use crate::api::slack::slack_option;
use crate::api::target::target_options;
use crate::api::upload::JsUploader;
use crate::convert::external::Table;
use crate::convert::Options;
use crate::stash::StashInner;
use crate::CtxpackError;
use ctxpack_core::calls::{compact_options, offload_options, CompactInput, OffloadInput};
use ctxpack_core::history::{CompactCall, CompactOptions, Offload};
use ctxpack_core::messages::{FileProvider, Format};
use ctxpack_core::stash::StashBackend;
use ctxpack_core::JsonPath;
use js_sys::{Function, Object, Reflect};
use std::rc::Rc;
use wasm_bindgen::JsValue;

/// A compaction's options, read.
pub(crate) struct CompactSettings {
    /// The format named, if any.
    pub format: Option<Format>,
    /// The core's options.
    pub options: CompactOptions,
    /// The `stash` option's stash, which a compaction needs.
    pub stash: Rc<StashInner>,
    /// `offload`, when given.
    pub offload: Option<OffloadSettings>,
}

/// The `offload` option, read.
pub(crate) struct OffloadSettings {
    /// The app's upload function.
    upload: Function,
    /// Whose files (none named: the format's own).
    provider: Option<FileProvider>,
    /// The app's name for the key or project.
    account: String,
    /// Smaller images stay inline.
    min_bytes: u64,
}

impl OffloadSettings {
    /// Reads the `offload` option of `opts`, if given.
    pub(crate) fn read(opts: &Options) -> Result<Option<OffloadSettings>, CtxpackError> {
        let Some(o) = opts.object("offload")? else {
            return Ok(None);
        };
        let upload = o.function("upload")?.ok_or_else(|| {
            CtxpackError::invalid_option(o.path_of("upload"), "expected a function")
        })?;
        let input = OffloadInput {
            provider: o.string("provider")?,
            account: o.string("account")?,
            min_bytes: o.number("minBytes")?,
        };
        let (provider, account, min_bytes) =
            offload_options(&input, &JsonPath::root(&opts.path_of("offload")))?;
        Ok(Some(OffloadSettings {
            upload,
            provider,
            account,
            min_bytes,
        }))
    }
}

/// `compaction` offloading as `settings` ask (uploading through
/// `uploader`, made of them with `uploader_of`), or as it is.
pub(crate) fn offloaded<'a, B: StashBackend>(
    compaction: CompactCall<'a, B>,
    settings: Option<&'a OffloadSettings>,
    uploader: Option<&'a JsUploader<'a>>,
) -> CompactCall<'a, B> {
    match offload_of(settings, uploader) {
        Some(offload) => compaction.with_offload(offload),
        None => compaction,
    }
}

/// The offload `settings` ask, uploading through `uploader` (made of them
/// with `uploader_of`); none without both.
pub(crate) fn offload_of<'a>(
    settings: Option<&'a OffloadSettings>,
    uploader: Option<&'a JsUploader<'a>>,
) -> Option<Offload<'a>> {
    let (o, uploader) = (settings?, uploader?);
    Some(Offload {
        uploader,
        provider: o.provider,
        account: &o.account,
        min_bytes: o.min_bytes,
    })
}

/// The uploader of `settings` over `table`'s kept values.
pub(crate) fn uploader_of<'t>(
    settings: Option<&OffloadSettings>,
    table: &'t Table,
) -> Option<JsUploader<'t>> {
    settings.map(|o| JsUploader {
        f: o.upload.clone(),
        table,
    })
}

impl CompactSettings {
    /// Reads `call`'s options.
    pub fn read(call: &Call) -> Result<CompactSettings, CtxpackError> {
        let opts = &call.opts;
        let stash = call.stash()?;
        let format = opts.format()?;
        let input = CompactInput {
            keep_recent_images: opts.number("keepRecentImages")?,
            collapse_text: opts.bool("collapseText")?,
            sanitize_tool_results: opts.bool("sanitizeToolResults")?,
            target: target_options(opts)?,
            slack: slack_option(opts)?,
            cache_breakpoint: opts.bool("cacheBreakpoint")?,
        };
        let options = compact_options(&input, &call.options_path())?;
        Ok(CompactSettings {
            format,
            options,
            stash,
            offload: OffloadSettings::read(opts)?,
        })
    }
}

/// The `onProgress` option as the core calls it: `{done, total, bytes}`
/// handed to the caller's function, whose throwing never stops the
/// compaction; nothing without one.
pub(crate) fn progress_of(call: &Call) -> Result<impl FnMut(usize, usize, u64), CtxpackError> {
    let on_progress = call.opts.function("onProgress")?;
    Ok(move |done: usize, total: usize, bytes: u64| {
        if let Some(f) = &on_progress {
            let p = Object::new();
            let _ = Reflect::set(&p, &"done".into(), &JsValue::from(done as f64));
            let _ = Reflect::set(&p, &"total".into(), &JsValue::from(total as f64));
            let _ = Reflect::set(&p, &"bytes".into(), &JsValue::from(bytes as f64));
            let _ = f.call1(&JsValue::UNDEFINED, &p);
        }
    })
}
