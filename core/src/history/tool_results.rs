//! Compaction's first step when it sanitizes tool results: each binary
//! payload in the tool results of the raw messages is stashed and replaced
//! by its marker. A tool result's JSON text the host held (see
//! [`SanitizeMemo::held_json`]) whose outcome it remembers is not read again
//! when the stash confirms every record that outcome names; otherwise it is
//! read, and a clean outcome is remembered for the next call.

use super::listing::{Listed, Listing};
use super::payloads::CompactPayloads;
use crate::json_path::JsonPath;
use crate::messages::placeholder::binary_marker_ids;
use crate::stash::{StashAccess, StashBackend};
use crate::tool_results::binary_stash::{
    sanitize_targets, target_text, text_target, BinaryReport, OnWriteFailure, Target,
};
use crate::tool_results::sanitize::{pointer_get, pointer_get_mut, SanitizeOptions, Seg};
use crate::tool_results::slots::{Slot, SlotKind};
use crate::tool_results::{escaped_len, HeldJson, SanitizedText};
use serde_json::Value;
use std::collections::BTreeSet;

/// What sanitizing the tool results did.
#[derive(Debug, Default)]
pub(super) struct Sanitized {
    /// Per message: did it change?
    pub changed: Vec<bool>,
    /// The ids of the records the markers put in name.
    pub ids: BTreeSet<String>,
    /// Of those, the ones a remembered outcome named: records confirmed,
    /// not written, whose expiry is renewed as a referenced record's is.
    pub remembered: Vec<String>,
    /// Per message: how many bytes longer the held JSON texts in it are
    /// written in JSON than the size before counted them.
    pub grown: Vec<i64>,
    /// The binaries stashed or filtered, for the call's report.
    pub report: BinaryReport,
}

/// A held JSON text whose remembered outcome waits for the stash's
/// confirmation.
struct Candidate {
    message: usize,
    slot: Slot,
    reference: String,
    outcome: SanitizedText,
}

/// A tool result being sanitized, and where it goes back.
struct Place {
    message: usize,
    slot: Slot,
    was_json: bool,
    /// For a held JSON text read now: its reference, its text and the
    /// markers it held already.
    held: Option<(String, String, usize)>,
}

/// The tool results to sanitize, each with the place it goes back to.
#[derive(Default)]
struct Found {
    targets: Vec<Target>,
    places: Vec<Place>,
}

impl Found {
    /// Adds `target`, going back to `place`.
    fn push(&mut self, target: Target, place: Place) {
        self.targets.push(target);
        self.places.push(place);
    }

    /// Adds the held JSON text `reference`, read as `read`, of `slot` in
    /// message `message`.
    fn push_held(
        &mut self,
        reference: String,
        read: String,
        root: &JsonPath,
        message: usize,
        slot: Slot,
    ) {
        let (target, was_json, held) = held_target(reference, read, root, message, &slot.pointer);
        self.push(
            target,
            Place {
                message,
                slot,
                was_json,
                held,
            },
        );
    }
}

/// Stashes binary payloads in the tool results of `values` (on the raw
/// messages, before decoding) at `slots`, per message: those before the
/// newest user message.
pub(super) async fn sanitize_tool_results<B: StashBackend>(
    stash: StashAccess<'_, B>,
    listing: &mut Listing,
    values: &mut [Value],
    slots: &[Vec<Slot>],
    payloads: &dyn CompactPayloads,
) -> Sanitized {
    let mut out = Sanitized {
        changed: vec![false; values.len()],
        grown: vec![0; values.len()],
        ..Sanitized::default()
    };
    let StashAccess {
        backend,
        config,
        now,
    } = stash;
    let root = JsonPath::root("messages");
    let (mut found, candidates) = find_targets(values, slots, &root, payloads);
    // Remembered outcomes, used once the stash confirms their records;
    // the others are read after all.
    let unconfirmed = match candidates.is_empty() {
        true => candidates,
        false => {
            let mut ids: Vec<String> = Vec::new();
            for c in &candidates {
                ids.extend(c.outcome.ids.iter().cloned());
            }
            let listed = listing.listed(backend, &ids).await;
            confirmed(backend, now, listed, candidates, &mut out, values, payloads).await
        }
    };
    for c in unconfirmed {
        if let Some(read) = payloads.loose_text(&c.reference) {
            found.push_held(c.reference, read, &root, c.message, c.slot);
        }
    }
    if found.targets.is_empty() {
        return out;
    }
    let (report, written) = sanitize_targets(
        Some(backend),
        config,
        now,
        &mut found.targets,
        &SanitizeOptions::default(),
        OnWriteFailure::KeepInline,
        payloads,
    )
    .await;
    listing.add(written);
    // Every binary found was stashed: each outcome depends on its text alone.
    let clean = report.failures.is_empty() && report.filtered == 0;
    out.report.stashed += report.stashed;
    out.report.filtered += report.filtered;
    out.report.failures.extend(report.failures);
    for (target, place) in found.targets.into_iter().zip(found.places) {
        put_back(target, place, clean, values, &mut out, payloads);
    }
    out
}

/// The tool results at `slots` of `values`: the targets to read now, and
/// the held JSON texts whose remembered outcomes wait for the stash.
fn find_targets(
    values: &[Value],
    slots: &[Vec<Slot>],
    root: &JsonPath,
    payloads: &dyn CompactPayloads,
) -> (Found, Vec<Candidate>) {
    let mut found = Found::default();
    let mut candidates = Vec::new();
    for (i, (message, slots)) in values.iter().zip(slots).enumerate() {
        for slot in slots.iter().cloned() {
            let Some(value) = pointer_get(message, &slot.pointer) else {
                continue;
            };
            match (slot.kind, value) {
                (SlotKind::Text, Value::String(text)) => match payloads.held_json(text) {
                    Some(HeldJson::Remembered(outcome)) => candidates.push(Candidate {
                        message: i,
                        slot,
                        reference: text.clone(),
                        outcome,
                    }),
                    Some(HeldJson::Text(read)) => {
                        found.push_held(text.clone(), read, root, i, slot)
                    }
                    None => {
                        let path = pointer_path(&root.index(i), &slot.pointer);
                        let (target, was_json) = text_target(text, path);
                        let place = Place {
                            message: i,
                            slot,
                            was_json,
                            held: None,
                        };
                        found.push(target, place);
                    }
                },
                (SlotKind::Structured, v) => {
                    let target = Target {
                        value: v.clone(),
                        path: pointer_path(&root.index(i), &slot.pointer),
                        changed: false,
                        holds_references: true,
                    };
                    let place = Place {
                        message: i,
                        slot,
                        was_json: true,
                        held: None,
                    };
                    found.push(target, place);
                }
                _ => {}
            }
        }
    }
    (found, candidates)
}

/// Writes `target`, sanitized, back to its `place` in `values`, and
/// accounts for it in `out`; a held JSON text whose outcome is `clean` (every
/// binary stashed) is remembered for the next call.
fn put_back(
    target: Target,
    place: Place,
    clean: bool,
    values: &mut [Value],
    out: &mut Sanitized,
    payloads: &dyn CompactPayloads,
) {
    let i = place.message;
    // A held text's length written in JSON: counted once.
    let escaped = place
        .held
        .as_ref()
        .map_or(0, |(_, read, _)| escaped_len(read));
    if let Some((reference, _, _)) = &place.held {
        out.grown[i] += escaped as i64 - payloads.text_len(reference) as i64;
    }
    let value = if target.changed {
        let ids = binary_marker_ids(&target.value);
        let value = match place.slot.kind {
            SlotKind::Text => Value::String(target_text(target, place.was_json)),
            SlotKind::Structured => target.value,
        };
        if let (Some((reference, _, before)), true, Value::String(text)) =
            (&place.held, clean && place.was_json, &value)
        {
            remember(reference, text, &ids, *before, escaped, payloads);
        }
        out.ids.extend(ids);
        out.changed[i] = true;
        value
    } else {
        // A held text left as it was goes back as the text read.
        match place.held {
            Some((_, read, _)) => Value::String(read),
            None => return,
        }
    };
    if let Some(place_value) = pointer_get_mut(&mut values[i], &place.slot.pointer) {
        *place_value = value;
    }
}

/// Remembers what sanitizing the held JSON text `reference` made of it:
/// `text`, naming the records `ids` (of which the text held `before`
/// already), `escaped` bytes long written in JSON.
fn remember(
    reference: &str,
    text: &str,
    ids: &[String],
    before: usize,
    escaped: u64,
    payloads: &dyn CompactPayloads,
) {
    let stashed = ids.len().saturating_sub(before);
    let mut unique: Vec<String> = Vec::new();
    for id in ids {
        if !unique.contains(id) {
            unique.push(id.clone());
        }
    }
    payloads.remember_sanitized(
        reference,
        SanitizedText {
            text: text.to_owned(),
            ids: unique,
            stashed,
            escaped_len: escaped,
        },
    );
}

/// The target for a held JSON text `reference`, read now as `read`; its
/// place keeps the reference, the text and how many markers the text held.
fn held_target(
    reference: String,
    read: String,
    root: &JsonPath,
    message: usize,
    pointer: &[Seg],
) -> (Target, bool, Option<(String, String, usize)>) {
    let path = pointer_path(&root.index(message), pointer);
    let (target, was_json) = text_target(&read, path);
    let before = binary_marker_ids(&target.value).len();
    (target, was_json, Some((reference, read, before)))
}

/// Uses each candidate's remembered outcome whose records the stash lists
/// live (`listed`, `None` when listing failed) and confirms (one commit
/// for all of them); returns the others.
async fn confirmed<B: StashBackend>(
    backend: &B,
    now: f64,
    listed: Option<&Listed>,
    candidates: Vec<Candidate>,
    out: &mut Sanitized,
    values: &mut [Value],
    payloads: &dyn CompactPayloads,
) -> Vec<Candidate> {
    let Some(listed) = listed.filter(|_| !candidates.is_empty()) else {
        return candidates;
    };
    let mut records = Vec::new();
    let mut asked = Vec::new();
    for c in &candidates {
        let confirm = c.outcome.confirmations(&|id| listed.get(id), now);
        asked.push(
            confirm
                .as_ref()
                .map(|r| records.len()..records.len() + r.len()),
        );
        records.extend(confirm.unwrap_or_default());
    }
    let results = if records.is_empty() {
        Vec::new()
    } else {
        backend.put_records(&records).await
    };
    let mut rest = Vec::new();
    for (c, asked) in candidates.into_iter().zip(asked) {
        let live =
            asked.is_some_and(|r| results.get(r).is_some_and(|r| r.iter().all(Result::is_ok)));
        match pointer_get_mut(&mut values[c.message], &c.slot.pointer) {
            Some(place) if live => {
                let SanitizedText {
                    text,
                    ids,
                    stashed,
                    escaped_len,
                } = c.outcome;
                out.grown[c.message] += escaped_len as i64 - payloads.text_len(&c.reference) as i64;
                *place = Value::String(text);
                out.changed[c.message] = true;
                out.report.stashed += stashed;
                out.remembered.extend(ids.iter().cloned());
                out.ids.extend(ids);
            }
            _ => rest.push(c),
        }
    }
    rest
}

fn pointer_path(base: &JsonPath, pointer: &[Seg]) -> JsonPath {
    pointer.iter().fold(base.clone(), |p, seg| match seg {
        Seg::Key(k) => p.key(k),
        Seg::Index(i) => p.index(*i),
    })
}
