//! Compaction's first phases: the tool results sanitized (when asked),
//! the messages measured and decoded, before any image is stashed.

use crate::budget::json_len_with;
use crate::history::compact::{CompactOptions, CompactReport};
use crate::history::digest::Digest;
use crate::history::known::{decode_with_digest, Input, Settled};
use crate::history::known_message::KnownMessage;
use crate::history::known_prefix::{plan_stand_in, KnownPrefix};
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

/// The messages decoded and measured, before any image is stashed (the
/// known ones' facts borrowed from the inputs, for `'i`).
pub(super) struct Measured<'i> {
    /// The messages decoded, or stood in for, that a plan reads: a known
    /// message whose stand-in holds nothing is left out (see
    /// `plan_messages`).
    pub messages: Vec<Message>,
    /// The index in the request of each of `messages`.
    pub at: Vec<usize>,
    /// Of each of `messages` that stands for a known message's texts alone
    /// (its texts left out), the ids of the placeholders they name.
    pub known_ids: Vec<Option<&'i [(u64, u64)]>>,
    /// The ids of the placeholders named by known messages before all of
    /// `messages` that are left out of them, in order, each time one is
    /// named (see [`KnownPrefix::named`]).
    pub named_before: &'i [(u64, u64)],
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
/// serve. The values read are taken out of `inputs`; the known messages
/// stay as they were handed. With `prefix` (a [`KnownPrefix`] of `inputs`
/// and how many of its messages the call takes from it), the facts of
/// those first messages are copied from it; it serves no call that
/// sanitizes.
pub(super) async fn measure<'i, B: StashBackend>(
    stash: StashAccess<'_, B>,
    listing: &mut Listing,
    inputs: &'i mut [Input],
    settled: &Settled,
    options: CompactOptions,
    payloads: &dyn CompactPayloads,
    prefix: Option<(&'i KnownPrefix, usize)>,
) -> Result<Measured<'i>, MessageError> {
    let (read, sanitized) = if options.sanitize_tool_results {
        sanitize_and_decode(stash, listing, inputs, settled, payloads).await?
    } else {
        let read = decode_as_read(inputs, settled, payloads, prefix)?;
        let sanitized = Sanitized {
            changed: vec![false; read.sizes.len()],
            ..Sanitized::default()
        };
        (read, sanitized)
    };
    let Read {
        sizes,
        known,
        bytes_before,
        decoded:
            Decoded {
                messages,
                at,
                known_ids,
                named_before,
                turns,
                digests,
            },
    } = read;
    let Sanitized {
        changed: sanitized,
        ids: binary_ids,
        remembered,
        report: binaries,
        ..
    } = sanitized;
    let report = CompactReport {
        format: settled.format.name(),
        bytes_before,
        binaries_stashed: binaries.stashed,
        failures: binaries.failures,
        ..CompactReport::default()
    };
    Ok(Measured {
        messages,
        at,
        known_ids,
        named_before,
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

/// The messages measured and decoded.
struct Read<'i> {
    /// Each message's serialized size (after sanitizing).
    sizes: Vec<u64>,
    /// Per message: was it known by its digest?
    known: Vec<bool>,
    /// The request's messages' size before (loose strings as text).
    bytes_before: u64,
    decoded: Decoded<'i>,
}

/// Measure and decode with no tool result sanitized: one pass over
/// `inputs` for the sizes, one to decode, taking each value read out of
/// them (no list of the values is made). The first messages `prefix`
/// gives are not looked at: their facts are copied from it.
fn decode_as_read<'i>(
    inputs: &'i mut [Input],
    settled: &Settled,
    payloads: &dyn CompactPayloads,
    prefix: Option<(&'i KnownPrefix, usize)>,
) -> Result<Read<'i>, MessageError> {
    let taken = prefix.map_or(0, |(p, n)| n.min(p.len()).min(inputs.len()));
    let (_, rest) = inputs.split_at_mut(taken);
    let mut sizes = Vec::with_capacity(taken + rest.len());
    if let Some((p, _)) = prefix {
        sizes.extend_from_slice(p.sizes(taken));
    }
    sizes.extend(rest.iter().map(|input| match input {
        Input::Known(k) => k.size,
        Input::Read(v) | Input::Again(v) => json_len_with(v, payloads),
    }));
    let mut known = vec![true; taken];
    known.extend(rest.iter().map(|input| matches!(input, Input::Known(_))));
    let handed = rest
        .iter_mut()
        .zip(&sizes[taken..])
        .map(|(input, &size)| match input {
            Input::Known(k) => Handed::Known(k),
            Input::Read(v) => Handed::Read(std::mem::take(v), false, size),
            Input::Again(v) => Handed::Read(std::mem::take(v), true, size),
        });
    let begun = prefix.map(|(p, _)| (p, taken));
    let decoded = decode_or_stand_in(begun, handed, settled, &|_| false)?;
    Ok(Read {
        bytes_before: sizes.iter().sum(),
        sizes,
        known,
        decoded,
    })
}

/// Measure and decode with the tool results sanitized first (against
/// `stash`, whose records `listing` holds once listed).
async fn sanitize_and_decode<'i, B: StashBackend>(
    stash: StashAccess<'_, B>,
    listing: &mut Listing,
    inputs: &'i mut [Input],
    settled: &Settled,
    payloads: &dyn CompactPayloads,
) -> Result<(Read<'i>, Sanitized), MessageError> {
    let (mut values, stand_ins, again) = split_inputs(inputs);
    let known = stand_ins.iter().map(Option::is_some).collect();
    let slots = sanitized_slots(settled.format, &mut values, &stand_ins, payloads);
    let mut sizes: Vec<u64> = values
        .iter()
        .zip(&stand_ins)
        .map(|(v, k)| k.map_or_else(|| json_len_with(v, payloads), |k| k.size))
        .collect();
    let sanitized = sanitize_tool_results(stash, listing, &mut values, &slots, payloads).await;
    let bytes_before = loose_as_text(
        &mut values,
        &slots,
        &mut sizes,
        &sanitized.changed,
        &sanitized.grown,
        payloads,
    );
    let handed = values
        .into_iter()
        .zip(stand_ins)
        .zip(again)
        .zip(&sizes)
        .map(|(((value, known), again), &size)| match known {
            Some(k) => Handed::Known(k),
            None => Handed::Read(value, again, size),
        });
    // Not a digest of a message whose tool results were searched: its
    // value is no longer the caller's.
    let searched = |i: usize| slots.get(i).is_some_and(|s| !s.is_empty()) || sanitized.changed[i];
    let decoded = decode_or_stand_in(None, handed, settled, &searched)?;
    let read = Read {
        sizes,
        known,
        bytes_before,
        decoded,
    };
    Ok((read, sanitized))
}

/// The values read, taken out of `inputs` (`null` left in their place, and
/// for a known message), the known messages as handed, and which messages
/// were sent before unchanged.
fn split_inputs(inputs: &mut [Input]) -> (Vec<Value>, Vec<Option<&KnownMessage>>, Vec<bool>) {
    let mut values = Vec::with_capacity(inputs.len());
    let mut stand_ins = Vec::with_capacity(inputs.len());
    let mut again = Vec::with_capacity(inputs.len());
    for input in inputs.iter_mut() {
        let (value, known, seen) = match input {
            Input::Read(v) => (std::mem::take(v), None, false),
            Input::Again(v) => (std::mem::take(v), None, true),
            Input::Known(k) => (Value::Null, Some(&*k), false),
        };
        values.push(value);
        stand_ins.push(known);
        again.push(seen);
    }
    (values, stand_ins, again)
}

/// One message as measuring hands it to decoding.
enum Handed<'x> {
    /// Known by its digest.
    Known(&'x KnownMessage),
    /// Its value as read, whether it was sent before unchanged, its size.
    Read(Value, bool, u64),
}

/// The messages of a request as a plan reads them, with their turns and
/// digests.
struct Decoded<'x> {
    /// Each message decoded, or a known one's stand-in, unless the
    /// stand-in holds nothing.
    messages: Vec<Message>,
    /// The index in the request of each of `messages`.
    at: Vec<usize>,
    /// Of each of `messages` that stands for a known message's texts alone
    /// (its texts left out), the ids of the placeholders they name.
    known_ids: Vec<Option<&'x [(u64, u64)]>>,
    /// The ids named by the known messages left out before them all.
    named_before: &'x [(u64, u64)],
    /// Every message's turn.
    turns: Vec<Turn>,
    /// Per message: its digest, when made now (a long list, most of it
    /// `None`: one pointer each).
    digests: Vec<Option<Rc<Digest>>>,
}

/// The messages `handed` decoded in the settled format, a known message's
/// stand-in in its place unless it holds nothing; and the digest of each
/// message sent before unchanged that compaction cannot change, unless
/// its tool results were `searched`. With `begun` (a prefix and how many
/// messages it gives), the messages handed follow those, whose facts are
/// the prefix's.
fn decode_or_stand_in<'x>(
    begun: Option<(&'x KnownPrefix, usize)>,
    handed: impl ExactSizeIterator<Item = Handed<'x>>,
    settled: &Settled,
    searched: &dyn Fn(usize) -> bool,
) -> Result<Decoded<'x>, MessageError> {
    let taken = begun.map_or(0, |(_, n)| n);
    // Room for the prefix's stand-ins and every message handed.
    let planned = begun.map_or(0, |(p, n)| p.stand_in_count(n)) + handed.len();
    let mut out = Decoded {
        messages: Vec::with_capacity(planned),
        at: Vec::with_capacity(planned),
        known_ids: Vec::with_capacity(planned),
        named_before: begun.map_or(&[], |(p, n)| p.named(n)),
        turns: Vec::with_capacity(taken + handed.len()),
        digests: vec![None; taken + handed.len()],
    };
    if let Some((prefix, n)) = begun {
        out.turns.extend_from_slice(prefix.turns(n));
        for (at, message, ids) in prefix.stand_ins(n) {
            out.messages.push(message);
            out.at.push(at);
            out.known_ids.push(ids);
        }
    }
    for (i, message) in handed.enumerate() {
        let i = taken + i;
        let (value, again, size) = match message {
            Handed::Known(k) => {
                out.turns.push(k.turn);
                if let Some((message, ids)) = plan_stand_in(k) {
                    out.messages.push(message);
                    out.at.push(i);
                    out.known_ids.push(ids);
                }
                continue;
            }
            Handed::Read(value, again, size) => (value, again, size),
        };
        let remember = again && !searched(i);
        let (message, digest) = decode_with_digest(value, settled, i, remember, size)?;
        out.digests[i] = digest.map(Rc::new);
        out.turns.push(message.turn());
        out.messages.push(message);
        out.at.push(i);
        out.known_ids.push(None);
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
    known: &[Option<&KnownMessage>],
    payloads: &dyn Payloads,
) -> Vec<Vec<Slot>> {
    let turns: Vec<Turn> = values
        .iter()
        .zip(known)
        .map(|(v, k)| match k {
            Some(k) => k.turn,
            None => raw_turn(format, v),
        })
        .collect();
    let rule = Untouched::of_turns(&turns);
    values
        .iter_mut()
        .enumerate()
        .map(|(i, message)| {
            let slots = if rule.is_history_turn(i, turns[i]) && known[i].is_none() {
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
    use crate::history::digest::digest_of_text;
    use serde_json::json;

    #[test]
    fn a_known_message_whose_stand_in_holds_nothing_is_left_out_of_the_plan() {
        let placeholder = format!("see [Picture:history_{}]", "a".repeat(32));
        let blank = Rc::new(digest_of_text("just text"));
        let naming = Rc::new(digest_of_text(&placeholder));
        assert!(blank.stands_for_nothing() && !naming.stands_for_nothing());
        let read = json!({"role": "assistant", "content": "hi"});
        let known = [blank, naming].map(KnownMessage::from);
        let handed = vec![
            Handed::Known(&known[0]),
            Handed::Read(read.clone(), false, 10),
            Handed::Known(&known[1]),
            Handed::Read(read, false, 10),
        ];
        let settled = Settled::given(Format::OpenAi);
        let decoded = decode_or_stand_in(None, handed.into_iter(), &settled, &|_| false).unwrap();
        assert_eq!(decoded.at, vec![1, 2, 3]);
        // The known one's placeholder, as its digest read it.
        let id = crate::hash::md5_number(&"a".repeat(32));
        assert_eq!(decoded.known_ids, vec![None, id.as_slice().into(), None]);
        assert_eq!(decoded.messages.len(), 3);
        assert_eq!(
            decoded.turns,
            vec![Turn::Person, Turn::Model, Turn::Person, Turn::Model]
        );
        assert_eq!(decoded.digests.len(), 4);
    }
}
