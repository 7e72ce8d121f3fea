//! Compaction's first phases: the tool results sanitized (when asked),
//! the messages measured and decoded, before any image is stashed.

use crate::budget::json_len_with;
use crate::history::compact::{CompactOptions, CompactReport};
use crate::history::known::{decode_with_digest, Digest, Input, Settled};
use crate::history::listing::Listing;
use crate::history::loose::put_back_loose;
use crate::history::payloads::CompactPayloads;
use crate::history::tool_results::{sanitize_tool_results, Sanitized};
use crate::history::untouched::Untouched;
use crate::media::payload::Payloads;
use crate::messages::{raw_turn, Format, Message, MessageError, Turn};
use crate::stash::{StashAccess, StashBackend};
use crate::tool_results::slots::{tool_result_slots, Slot};
use serde_json::Value;
use std::collections::BTreeSet;
use std::rc::Rc;

/// The messages decoded and measured, before any image is stashed.
pub(super) struct Measured {
    /// The messages decoded, or stood in for, that a plan reads: a known
    /// message whose stand-in holds nothing is left out (see
    /// `plan_messages`).
    pub messages: Vec<Message>,
    /// The index in the request of each of `messages`.
    pub at: Vec<usize>,
    /// Every message's turn, in order.
    pub turns: Vec<Turn>,
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
    /// Per message read: its digest, when compaction cannot change it
    /// (made now).
    pub digests: Vec<Option<Rc<Digest>>>,
    /// Per message: was it known by its digest (and not read)?
    pub known: Vec<bool>,
}

/// Measure: the sizes of `inputs` (in `format`), their tool results
/// sanitized first when `options` ask it (against `stash`, whose records
/// `listing` holds once listed), then decoded; a message known by its
/// digest is neither measured nor decoded: its digest's size and stand-in
/// serve.
pub(super) async fn measure<B: StashBackend>(
    stash: StashAccess<'_, B>,
    listing: &mut Listing,
    inputs: Vec<Input>,
    settled: &Settled,
    options: CompactOptions,
    payloads: &dyn CompactPayloads,
) -> Result<Measured, MessageError> {
    let (mut values, stand_ins, again) = split_inputs(inputs);
    let known: Vec<bool> = stand_ins.iter().map(Option::is_some).collect();
    let format = settled.format;
    let slots: Vec<Vec<Slot>> = if options.sanitize_tool_results {
        sanitized_slots(format, &mut values, &stand_ins, payloads)
    } else {
        Vec::new()
    };
    let mut sizes: Vec<u64> = values
        .iter()
        .zip(&stand_ins)
        .map(|(v, d)| {
            d.as_ref()
                .map_or_else(|| json_len_with(v, payloads), |d| d.size)
        })
        .collect();
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
    let each = EachRead {
        known: &stand_ins,
        again: &again,
        slots: &slots,
        sanitized: &sanitized,
        sizes: &sizes,
    };
    let Decoded {
        messages,
        at,
        turns,
        digests,
    } = decode_or_stand_in(values, settled, each)?;
    let report = CompactReport {
        format: format.name(),
        bytes_before,
        binaries_stashed: binaries.stashed,
        failures: binaries.failures,
        ..CompactReport::default()
    };
    Ok(Measured {
        messages,
        at,
        turns,
        sizes,
        sanitized,
        binary_ids,
        remembered,
        report,
        digests,
        known,
    })
}

/// The values read (`null` for a known message), the digests known
/// messages came with, and which messages were sent before unchanged.
fn split_inputs(inputs: Vec<Input>) -> (Vec<Value>, Vec<Option<Rc<Digest>>>, Vec<bool>) {
    let mut values = Vec::with_capacity(inputs.len());
    let mut stand_ins = Vec::with_capacity(inputs.len());
    let mut again = Vec::with_capacity(inputs.len());
    for input in inputs {
        let (value, digest, seen) = match input {
            Input::Read(v) => (v, None, false),
            Input::Again(v) => (v, None, true),
            Input::Known(d) => (Value::Null, Some(d), false),
        };
        values.push(value);
        stand_ins.push(digest);
        again.push(seen);
    }
    (values, stand_ins, again)
}

/// What measuring knows of each message when it decodes them.
struct EachRead<'x> {
    /// The digest a known message came with.
    known: &'x [Option<Rc<Digest>>],
    /// Was it sent before unchanged (a digest is made of it)?
    again: &'x [bool],
    /// The tool results sanitizing searched in it.
    slots: &'x [Vec<Slot>],
    /// Did sanitizing change it?
    sanitized: &'x [bool],
    sizes: &'x [u64],
}

/// The messages of a request as a plan reads them, with their turns and
/// digests.
struct Decoded {
    /// Each message decoded, or a known one's stand-in, unless the
    /// stand-in holds nothing.
    messages: Vec<Message>,
    /// The index in the request of each of `messages`.
    at: Vec<usize>,
    /// Every message's turn.
    turns: Vec<Turn>,
    /// Per message: its digest, when made now (a long list, most of it
    /// `None`: one pointer each).
    digests: Vec<Option<Rc<Digest>>>,
}

/// The messages decoded from `values` in the settled format, a known
/// message's stand-in in its place (`known`) unless it holds nothing; and
/// the digest of each message sent before unchanged (`again`) that
/// compaction cannot change (not one whose tool results were searched: its
/// value is no longer the caller's).
fn decode_or_stand_in(
    values: Vec<Value>,
    settled: &Settled,
    each: EachRead<'_>,
) -> Result<Decoded, MessageError> {
    let EachRead {
        known,
        again,
        slots,
        sanitized,
        sizes,
    } = each;
    let mut out = Decoded {
        messages: Vec::new(),
        at: Vec::new(),
        turns: Vec::with_capacity(values.len()),
        digests: vec![None; values.len()],
    };
    for (i, value) in values.into_iter().enumerate() {
        if let Some(d) = &known[i] {
            out.turns.push(d.stand_in.turn());
            if !d.stands_for_nothing() {
                out.messages.push(d.stand_in.clone());
                out.at.push(i);
            }
            continue;
        }
        let searched = slots.get(i).is_some_and(|s| !s.is_empty()) || sanitized[i];
        let remember = again[i] && !searched;
        let (message, digest) = decode_with_digest(value, settled, i, remember, sizes[i])?;
        out.digests[i] = digest.map(Rc::new);
        out.turns.push(message.turn());
        out.messages.push(message);
        out.at.push(i);
    }
    Ok(out)
}

/// The tool results the search reads, per message of `values` that is
/// history by the rule of history ([`Untouched`]: before the person's newest
/// message, or tool results the model has answered since); loose strings
/// anywhere else are text from here on.
fn sanitized_slots(
    format: Format,
    values: &mut [Value],
    digests: &[Option<Rc<Digest>>],
    payloads: &dyn Payloads,
) -> Vec<Vec<Slot>> {
    let turns: Vec<Turn> = values
        .iter()
        .zip(digests)
        .map(|(v, d)| match d {
            Some(d) => d.stand_in.turn(),
            None => raw_turn(format, v),
        })
        .collect();
    let rule = Untouched::of_turns(&turns);
    values
        .iter_mut()
        .enumerate()
        .map(|(i, message)| {
            let slots = if rule.is_history_turn(i, turns[i]) && digests[i].is_none() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::known::digest_of_text;
    use serde_json::json;

    #[test]
    fn a_known_message_whose_stand_in_holds_nothing_is_left_out_of_the_plan() {
        let placeholder = format!("see [Picture:history_{}]", "a".repeat(32));
        let blank = Rc::new(digest_of_text("just text"));
        let naming = Rc::new(digest_of_text(&placeholder));
        assert!(blank.stands_for_nothing() && !naming.stands_for_nothing());
        let read = json!({"role": "assistant", "content": "hi"});
        let known = [Some(blank), None, Some(naming), None];
        let values = vec![Value::Null, read.clone(), Value::Null, read];
        let each = EachRead {
            known: &known,
            again: &[false; 4],
            slots: &[],
            sanitized: &[false; 4],
            sizes: &[10; 4],
        };
        let decoded = decode_or_stand_in(values, &Settled::given(Format::OpenAi), each).unwrap();
        assert_eq!(decoded.at, vec![1, 2, 3]);
        assert_eq!(decoded.messages.len(), 3);
        assert_eq!(
            decoded.turns,
            vec![Turn::Person, Turn::Model, Turn::Person, Turn::Model]
        );
        assert_eq!(decoded.digests.len(), 4);
    }
}
