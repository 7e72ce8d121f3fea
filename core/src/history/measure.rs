//! Compaction's first phases: the tool results sanitized (when asked),
//! the messages measured and decoded, before any image is stashed.

use crate::budget::json_len_with;
use crate::history::compact::{CompactOptions, CompactReport};
use crate::history::flow::{decode, sizes_of};
use crate::history::listing::Listing;
use crate::history::loose::put_back_loose;
use crate::history::payloads::CompactPayloads;
use crate::history::tool_results::{sanitize_tool_results, Sanitized};
use crate::media::payload::Payloads;
use crate::messages::{detect_format, Format, Message, MessageError, Role};
use crate::stash::{StashAccess, StashBackend};
use crate::tool_results::slots::{raw_role, tool_result_slots, Slot};
use serde_json::Value;
use std::collections::BTreeSet;

/// The messages decoded and measured, before any image is stashed.
pub(super) struct Measured {
    /// The messages, decoded.
    pub messages: Vec<Message>,
    /// The serialized size of each (after sanitizing).
    pub sizes: Vec<u64>,
    /// Per message: did sanitizing its tool results change it?
    pub sanitized: Vec<bool>,
    /// The binaries sanitizing stashed.
    pub binary_ids: BTreeSet<String>,
    /// Of those, the ones remembered outcomes named, renewed as referenced
    /// records are.
    pub remembered: Vec<String>,
    /// The report, begun: format, size before, binaries.
    pub report: CompactReport,
}

/// Measure: the sizes of `values` (in `format`, detected when `None`),
/// their tool results sanitized first when `options` ask it (against
/// `stash`, whose records `listing` holds once listed), then decoded.
pub(super) async fn measure<B: StashBackend>(
    stash: StashAccess<'_, B>,
    listing: &mut Listing,
    mut values: Vec<Value>,
    format: Option<Format>,
    options: CompactOptions,
    payloads: &dyn CompactPayloads,
) -> Result<Measured, MessageError> {
    let format = format.unwrap_or_else(|| detect_format(&values));
    let slots: Vec<Vec<Slot>> = if options.sanitize_tool_results {
        sanitized_slots(format, &mut values, payloads)
    } else {
        Vec::new()
    };
    let mut sizes = sizes_of(&values, payloads);
    let Sanitized {
        changed: sanitized,
        ids: binary_ids,
        remembered,
        grown: held_grown,
        report: binaries,
    } = if options.sanitize_tool_results {
        sanitize_tool_results(stash, listing, &mut values, &slots, payloads).await
    } else {
        Sanitized {
            changed: vec![false; values.len()],
            ..Sanitized::default()
        }
    };
    let bytes_before = loose_as_text(
        &mut values,
        &slots,
        &mut sizes,
        &sanitized,
        &held_grown,
        payloads,
    );
    let (format, messages) = decode(values, Some(format))?;
    let report = CompactReport {
        format: format.name(),
        bytes_before,
        binaries_stashed: binaries.stashed,
        failures: binaries.failures,
        ..CompactReport::default()
    };
    Ok(Measured {
        messages,
        sizes,
        sanitized,
        binary_ids,
        remembered,
        report,
    })
}

/// The tool results the search reads, per message before the newest user
/// message of `values`; loose strings anywhere else are text from here on.
fn sanitized_slots(
    format: Format,
    values: &mut [Value],
    payloads: &dyn Payloads,
) -> Vec<Vec<Slot>> {
    let cutoff = sanitize_cutoff(format, values);
    values
        .iter_mut()
        .enumerate()
        .map(|(i, message)| {
            let slots = if i < cutoff {
                tool_result_slots(format, message)
            } else {
                Vec::new()
            };
            put_back_loose(message, &slots, payloads);
            slots
        })
        .collect()
}

/// Makes the loose strings the search left text again (only messages with
/// tool results, at `slots`, can hold any now), and returns the size
/// before, which counts them as the text they are. `sizes` become those of
/// the sanitized messages, what the image pass starts from: a message
/// `sanitized` changed, or that held loose strings, is measured again; a
/// held text put back as it was grew it by `held_grown`, counted for it
/// already.
fn loose_as_text(
    values: &mut [Value],
    slots: &[Vec<Slot>],
    sizes: &mut [u64],
    sanitized: &[bool],
    held_grown: &[i64],
    payloads: &dyn Payloads,
) -> u64 {
    let mut bytes_before = 0i64;
    for (i, message) in values.iter_mut().enumerate() {
        let (grown, any) = if slots.get(i).is_some_and(|s| !s.is_empty()) {
            put_back_loose(message, &[], payloads)
        } else {
            (0, false)
        };
        let held = held_grown.get(i).copied().unwrap_or(0);
        bytes_before += sizes[i] as i64 + grown + held;
        if any || sanitized[i] {
            sizes[i] = json_len_with(message, payloads);
        } else {
            sizes[i] = (sizes[i] as i64 + held).max(0) as u64;
        }
    }
    bytes_before.max(0) as u64
}

/// The index of the newest user message of the raw `values`: tool results
/// before it are sanitized (none when there is none).
fn sanitize_cutoff(format: Format, values: &[Value]) -> usize {
    values
        .iter()
        .rposition(|v| raw_role(format, v) == Some(Role::User))
        .unwrap_or(0)
}
