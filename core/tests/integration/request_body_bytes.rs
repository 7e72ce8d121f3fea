//! A request body given as bytes and read after the one before it (the
//! messages within the bytes the two share taken as they were read, only
//! the rest read): what reading it whole gives.
#![cfg(not(target_arch = "wasm32"))]

use crate::common::*;
use ctxpack_core::body::{
    body_edits, read_body, BodyEdit, BodyMemo, PreviousBody, ReadAgain, ReadInputs,
};
use ctxpack_core::history::{
    settle_inputs_after, Changes, CompactCall, CompactOptions, CompactReport, KnownPrefix,
};
use ctxpack_core::messages::Format;
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashConfig};

/// The bytes form of a server's bodies: its stash, the body before, and
/// the messages it knows by their text.
#[derive(Default)]
pub(crate) struct BytesForm {
    pub(crate) stash: MemoryBackend,
    previous: Option<PreviousBody>,
    memo: BodyMemo,
    /// Per body: how many of its first messages were taken from the
    /// measured prefix of the body before.
    pub(crate) taken: Vec<usize>,
}

/// What the bytes form gave: the report, the body with its edits made, and
/// how many messages were taken from the body before.
pub(crate) struct BytesOutcome {
    pub(crate) outcome: Changes<CompactReport>,
    pub(crate) spliced: String,
    pub(crate) reused: usize,
    /// The byte the messages were looked for from (0: the whole body).
    pub(crate) read_from: usize,
}

/// How many leading bytes `a` and `b` share.
pub(crate) fn shared(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// `text` with `edits` (offsets in bytes) made.
pub(crate) fn splice(text: &str, edits: &[BodyEdit]) -> String {
    let mut out = Vec::new();
    let mut at = 0;
    for e in edits {
        assert!(e.start >= at && e.end >= e.start, "edits in order");
        out.extend_from_slice(&text.as_bytes()[at..e.start]);
        out.extend_from_slice(e.text.as_bytes());
        at = e.end;
    }
    out.extend_from_slice(&text.as_bytes()[at..]);
    String::from_utf8(out).expect("edits at character boundaries")
}

impl BytesForm {
    /// Compacts `text` given as bytes after the body before (the bytes the
    /// two share not handed over).
    pub(crate) fn compact(
        &mut self,
        text: &str,
        format: Option<Format>,
        options: CompactOptions,
    ) -> BytesOutcome {
        static CONFIG: std::sync::OnceLock<StashConfig> = std::sync::OnceLock::new();
        self.memo.begin_call();
        let memo = &mut self.memo;
        let bytes = text.as_bytes();
        let ReadAgain {
            mut body,
            reused,
            read_from,
            prefix,
        } = match self.previous.take() {
            Some(previous) => {
                let same = shared(previous.text().as_bytes(), bytes);
                previous
                    .read_next(same, &bytes[same..], format, &mut |raw| memo.known(raw))
                    .unwrap()
            }
            None => ReadAgain {
                body: read_body(text.to_string(), format, &mut |raw| memo.known(raw)).unwrap(),
                reused: 0,
                read_from: 0,
                prefix: KnownPrefix::default(),
            },
        };
        let mut inputs = std::mem::take(&mut body.inputs);
        // The first messages known as they were measured, as a server takes them.
        let taken = prefix.usable(format, &options);
        let settled = settle_inputs_after(&mut inputs, taken, format, &options, &mut |i| {
            body.read_message(i)
        })
        .unwrap();
        let read = ReadInputs::after(&inputs, taken);
        let access = StashAccess {
            backend: &self.stash,
            config: CONFIG.get_or_init(StashConfig::default),
            now: 1_000.0,
        };
        let call = CompactCall::new(access, options, &body.text).with_known_prefix(&prefix, taken);
        let (outcome, digests) = block_on(call.run_changes(&mut inputs, &settled)).unwrap();
        self.taken.push(taken);
        for (i, digest) in digests.iter().enumerate() {
            if let Some(d) = digest {
                self.memo.keep(body.raw(i), std::rc::Rc::clone(d));
            }
        }
        let edits = body_edits(&body, outcome.messages.iter().map(|(i, v)| (*i, v)));
        let spliced = splice(text, &edits);
        self.previous = Some(PreviousBody::keep(
            body,
            format,
            inputs,
            read,
            &digests,
            prefix,
            settled.format,
        ));
        BytesOutcome {
            outcome,
            spliced,
            reused,
            read_from,
        }
    }
}
