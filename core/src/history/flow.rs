//! History compaction end to end, over any [`StashBackend`], in named
//! phases: stash the tool results' binaries (`sanitize`), measure the
//! history images and plan (`measure`), write to the stash and wait for the
//! commit (`commit`), replace only what committed (`replace`), refresh what
//! the conversation references and sweep (`sweep`). And the reverse:
//! expansion (`restore`), and one image for the `get_history_image` tool
//! (`lookup`).

mod access;
mod commit;
mod lookup;
mod measure;
mod replace;
mod restore;
mod sanitize;
mod sweep;
mod wire;

use crate::budget::json_len_with;
use crate::event_loop::Slicer;
use crate::history::compact::{CompactOptions, CompactReport};
use crate::media::payload::Payloads;
use crate::messages::{detect_format, Format, Message, MessageError};
use crate::stash::{StashAccess, StashBackend};
use access::Stash;
use sanitize::{sanitize_tool_results, Sanitized};
use serde_json::Value;

pub use lookup::{answer_history_image_call, history_image, tool_image_part, Lang, PartDialect};
pub use restore::expand_history;

/// Messages after an operation: all of them, and which ones changed (an
/// unchanged message is the caller's value, moved through untouched).
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome<R> {
    /// Every message, in order.
    pub messages: Vec<Value>,
    /// Per message: did the operation change it?
    pub changed: Vec<bool>,
    /// What happened.
    pub report: R,
}

/// Compacts `values` against `backend` at time `now` (ms since the epoch).
/// (The arguments are the stash, the clock, the input, the options, the
/// progress callback and payload access: each a separate concern.)
/// Stash failures never throw: the images stay inline and the report says why.
pub async fn compact_history<B: StashBackend>(
    access: StashAccess<'_, B>,
    values: Vec<Value>,
    format: Option<Format>,
    options: CompactOptions,
    progress: &mut dyn FnMut(usize, usize, u64),
    payloads: &dyn Payloads,
) -> Result<Outcome<CompactReport>, MessageError> {
    let stash = Stash {
        backend: access.backend,
        config: access.config,
        now: access.now,
    };
    compact(stash, values, format, options, progress, payloads).await
}

/// [`compact_history`], phase by phase.
async fn compact<B: StashBackend>(
    stash: Stash<'_, B>,
    values: Vec<Value>,
    format: Option<Format>,
    options: CompactOptions,
    progress: &mut dyn FnMut(usize, usize, u64),
    payloads: &dyn Payloads,
) -> Result<Outcome<CompactReport>, MessageError> {
    // Long work in short tasks: the host runs between images.
    let slicer = Slicer::of(payloads.event_loop());
    let Decoded {
        mut messages,
        sizes,
        sanitized,
        mut report,
    } = prepare(stash, values, format, options, payloads).await?;
    let options = CompactOptions {
        request_bytes: sizes.iter().sum(),
        ..options
    };
    let plan = measure::measure(&messages, options, progress, payloads, &slicer).await;
    measure::report_plan(&mut report, &plan);
    let committed = commit::commit(stash, &messages, &plan, &mut report).await;
    let replacements = replace::replacements(plan, &committed, &mut report);
    let changed = replace::replace(
        &mut messages,
        &replacements,
        options.collapse_text,
        &sanitized.changed,
    );
    let referenced = replacements.referenced;
    sweep::sweep(
        stash,
        &referenced,
        committed,
        sanitized.written,
        &mut report,
    )
    .await;
    let (values, after) = wire::encode(messages, &changed, &sizes, payloads);
    report.bytes_after = after;
    Ok(Outcome {
        messages: values,
        changed,
        report,
    })
}

/// The messages a compaction starts from, decoded after the tool-result
/// phase, with their sizes and the report so far.
struct Decoded {
    /// The messages.
    messages: Vec<Message>,
    /// The serialized size of each, after the tool-result phase.
    sizes: Vec<u64>,
    /// What the tool-result phase did.
    sanitized: Sanitized,
    /// The report so far.
    report: CompactReport,
}

/// Measures `values`, runs the tool-result phase when `options` asks for
/// it, and decodes the result.
async fn prepare<B: StashBackend>(
    stash: Stash<'_, B>,
    mut values: Vec<Value>,
    format: Option<Format>,
    options: CompactOptions,
    payloads: &dyn Payloads,
) -> Result<Decoded, MessageError> {
    let mut sizes = wire::sizes_of(&values, payloads);
    let bytes_before: u64 = sizes.iter().sum();
    let format = format.unwrap_or_else(|| detect_format(&values));
    let mut sanitized = if options.sanitize_tool_results {
        sanitize_tool_results(stash, &mut values, format, payloads).await
    } else {
        Sanitized::nothing(values.len())
    };
    // Sizes of the sanitized messages: what the image pass starts from.
    for (i, changed) in sanitized.changed.iter().enumerate() {
        if *changed {
            sizes[i] = json_len_with(&values[i], payloads);
        }
    }
    let (format, messages) = wire::decode(values, Some(format))?;
    let report = CompactReport {
        format: format.name(),
        bytes_before,
        binaries_stashed: sanitized.report.stashed,
        failures: std::mem::take(&mut sanitized.report.failures),
        ..CompactReport::default()
    };
    Ok(Decoded {
        messages,
        sizes,
        sanitized,
        report,
    })
}
