//! What a compaction reads of its options, alike for the messages as
//! objects (`compactContext`) and for a request body as text
//! (`compactRequestBody`).

use crate::api::call::Call;
use crate::api::slack::slack_option;
use crate::api::target::target_options;
use crate::stash::StashInner;
use crate::CtxpackError;
use ctxpack_core::calls::{compact_options, CompactInput};
use ctxpack_core::history::CompactOptions;
use ctxpack_core::messages::Format;
use js_sys::{Object, Reflect};
use std::rc::Rc;
use wasm_bindgen::JsValue;

/// A compaction's options, read.
pub(crate) struct CompactSettings {
    /// The format named, if any.
    pub format: Option<Format>,
    /// The core's options.
    pub options: CompactOptions,
    /// The stash.
    pub stash: Rc<StashInner>,
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
