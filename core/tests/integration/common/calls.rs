//! The core's calls over messages given as values, each read (as a host
//! hands over messages it meets for the first time): the inputs are built
//! here, and the calls' own `run` runs them.

use ctxpack_core::fit::{FitCall, FitReport, RepairCall, RepairError, Resizer};
use ctxpack_core::history::{
    settle_inputs, CompactCall, CompactOptions, CompactReport, ExpandCall, ExpandReport, Input,
    Outcome, Settled,
};
use ctxpack_core::media::Payloads;
use ctxpack_core::messages::{Format, MessageError};
use ctxpack_core::stash::{StashAccess, StashBackend};
use serde_json::Value;
use std::future::Future;

/// `values` (in `format`, detected when `None`) as the inputs of a call
/// that remembers nothing: each read.
pub fn read_all(values: Vec<Value>, format: Option<Format>) -> (Vec<Input>, Settled) {
    let mut inputs: Vec<Input> = values.into_iter().map(Input::Read).collect();
    let defaults = CompactOptions::default();
    let settled = settle_inputs(&mut inputs, format, &defaults, &mut |_| {
        Ok::<_, MessageError>(Value::Null)
    });
    (inputs, settled.expect("no message is read again"))
}

/// A compaction run over values (see [`read_all`]): its outcome.
pub trait RunValues {
    /// Compacts `values` in `format` (detected when `None`).
    fn run_values(
        self,
        values: Vec<Value>,
        format: Option<Format>,
    ) -> impl Future<Output = Result<Outcome<CompactReport>, MessageError>>;
}

impl<B: StashBackend> RunValues for CompactCall<'_, B> {
    async fn run_values(
        self,
        values: Vec<Value>,
        format: Option<Format>,
    ) -> Result<Outcome<CompactReport>, MessageError> {
        let (mut inputs, settled) = read_all(values, format);
        Ok(self.run(&mut inputs, &settled).await?.0)
    }
}

/// An expansion over `stash` of `values` (see [`read_all`]).
pub async fn expand_values<B: StashBackend>(
    stash: StashAccess<'_, B>,
    values: Vec<Value>,
    format: Option<Format>,
    payloads: &dyn Payloads,
) -> Result<Outcome<ExpandReport>, MessageError> {
    let (inputs, settled) = read_all(values, format);
    let call = ExpandCall::new(stash, payloads);
    Ok(call.run(inputs, &settled).await?.0)
}

/// `call` with `stash`, when given.
pub fn stashing<'a, B, R: Resizer>(
    call: FitCall<'a, B, R>,
    stash: Option<StashAccess<'a, B>>,
) -> FitCall<'a, B, R> {
    match stash {
        Some(s) => call.with_stash(s),
        None => call,
    }
}

/// A fitting of `values` (see [`read_all`]).
pub async fn fit_values<B: StashBackend, R: Resizer>(
    call: FitCall<'_, B, R>,
    values: Vec<Value>,
    format: Option<Format>,
) -> Result<Outcome<FitReport>, MessageError> {
    let (inputs, settled) = read_all(values, format);
    Ok(call.run(inputs, &settled).await?.0)
}

/// A repair of `values` (see [`read_all`]).
pub async fn repair_values<B: StashBackend, R: Resizer>(
    call: RepairCall<'_, B, R>,
    values: Vec<Value>,
    format: Option<Format>,
) -> Result<Outcome<FitReport>, RepairError> {
    let (inputs, settled) = read_all(values, format);
    Ok(call.run(inputs, &settled).await?.outcome)
}
