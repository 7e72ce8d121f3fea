//! The messages of a fitting as a host hands them over: each read and
//! decoded, or known by its digest (see [`crate::history::known`]) and not
//! read. A fitting never changes a known message (it holds no inline
//! image), so the digest's stand-in serves every phase: its role for the
//! newest turn, its images by URL at their true paths, its size and its
//! text's tokens for the account; its value in the outcome is `null`, for
//! the caller keeps its own.

use crate::budget::{json_len_with, EstimateReport, ModelProfile, Tally};
use crate::history::known::{decode_inputs, Decoded};
use crate::history::{Digest, Input, Settled};
use crate::json_path::JsonPath;
use crate::media::payload::Payloads;
use crate::messages::walk::for_each_image;
use crate::messages::{Format, ImagePart, Message, MessageError};
use serde_json::Value;
use std::rc::Rc;

/// The messages of a fitting, decoded or stood in for.
pub(super) struct FitMessages {
    /// Each message decoded, a known one's stand-in in its place.
    pub messages: Vec<Message>,
    /// The digest of each known message.
    pub known: Vec<Option<Rc<Digest>>>,
    /// The serialized size of each message.
    pub sizes: Vec<u64>,
}

impl FitMessages {
    /// `inputs` decoded in the settled format; also the digest of each
    /// message sent again unchanged that a fitting cannot change.
    pub(super) fn read(
        inputs: Vec<Input>,
        settled: &Settled,
        payloads: &dyn Payloads,
    ) -> Result<(FitMessages, Vec<Option<Digest>>), MessageError> {
        let (decoded, digests) = decode_inputs(inputs, settled, payloads)?;
        let n = decoded.len();
        let mut read = FitMessages {
            messages: Vec::with_capacity(n),
            known: Vec::with_capacity(n),
            sizes: Vec::with_capacity(n),
        };
        for (message, size) in decoded {
            let (message, known) = match message {
                Decoded::Known(d) => (d.stand_in.clone(), Some(d)),
                Decoded::Read(m) => (m, None),
            };
            read.messages.push(message);
            read.known.push(known);
            read.sizes.push(size);
        }
        Ok((read, digests))
    }

    /// Calls `f(message, ordinal, path, image)` for every image, in
    /// order, at its path in the messages as sent.
    pub(super) fn for_each_image<'m>(
        &'m self,
        f: &mut dyn FnMut(usize, usize, &JsonPath, &'m ImagePart),
    ) {
        let root = JsonPath::root("messages");
        for (i, m) in self.messages.iter().enumerate() {
            match &self.known[i] {
                Some(d) => d.for_each_image(i, &mut |k, path, img| f(i, k, path, img)),
                None => for_each_image(m, &root.index(i), &mut |k, path, img| f(i, k, path, img)),
            }
        }
    }

    /// The account of the messages under `profile`, the request being
    /// `request_bytes`.
    pub(super) fn estimate(
        &self,
        profile: &ModelProfile,
        request_bytes: u64,
        payloads: &dyn Payloads,
    ) -> EstimateReport {
        let mut tally = Tally::new(profile, payloads);
        for (i, m) in self.messages.iter().enumerate() {
            match &self.known[i] {
                Some(d) => d.tally(&mut tally, i),
                None => tally.message(i, m),
            }
        }
        tally.finish(request_bytes, None)
    }

    /// The wire value of each message, `null` for a known one; in each
    /// message `changed`, the placeholders in picture-only places drawn
    /// by `payloads`' host.
    pub(super) fn into_values(
        self,
        payloads: &dyn Payloads,
        changed: &[bool],
    ) -> (Vec<Value>, Vec<Option<Rc<Digest>>>) {
        let values = self
            .messages
            .into_iter()
            .zip(&self.known)
            .enumerate()
            .map(|(i, (mut m, d))| {
                if d.is_some() {
                    return Value::Null;
                }
                if changed.get(i) == Some(&true) {
                    m.draw_pictures(payloads);
                }
                m.into_wire()
            })
            .collect();
        (values, self.known)
    }
}

/// `values` (in `format`) as inputs of a compaction, a known message by its
/// digest.
pub(super) fn as_inputs(values: Vec<Value>, known: &[Option<Rc<Digest>>]) -> Vec<Input> {
    values
        .into_iter()
        .zip(known)
        .map(|(v, d)| match d {
            Some(d) => Input::known(Rc::clone(d)),
            None => Input::Read(v),
        })
        .collect()
}

/// The size and the account of the request sent as `values` (in `format`;
/// a known message, `null`, counted from its digest) under `profile`.
pub(super) fn measure_sent(
    values: &[Value],
    known: &[Option<Rc<Digest>>],
    format: Format,
    profile: &ModelProfile,
    payloads: &dyn Payloads,
) -> Result<(u64, EstimateReport), MessageError> {
    let root = JsonPath::root("messages");
    let mut tally = Tally::new(profile, payloads);
    let mut bytes = 0;
    for (i, v) in values.iter().enumerate() {
        match &known[i] {
            Some(d) => {
                bytes += d.size;
                d.tally(&mut tally, i);
            }
            None => {
                bytes += json_len_with(v, payloads);
                tally.message(i, &Message::decode(format, v.clone(), &root.index(i))?);
            }
        }
    }
    Ok((bytes, tally.finish(bytes, None)))
}
