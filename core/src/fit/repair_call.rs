//! One repair of a refused request ([`RepairCall`]): a refusal about size
//! or images is met by fitting to the tighter limits it names; a
//! `file-missing` refusal by putting back the images offloaded as the lost
//! file (see [`super::lost_file`]).

use super::call::FitCall;
use super::inputs::FitMessages;
use super::measure::read_heads;
use super::repair::{kind_name, repair_profile, RepairError};
use super::report::FitReport;
use super::resizer::Resizer;
use crate::budget::{ProviderRefusal, RefusalKind};
use crate::history::{CompactReport, Digest, Input, Outcome, Settled};
use crate::stash::StashBackend;

/// A repair of `refusal`, fitting as its [`FitCall`] does (its stash and
/// offload with it); [`RepairCall::run`] repairs a request.
pub struct RepairCall<'a, B, R> {
    pub(super) refusal: &'a ProviderRefusal,
    pub(super) fit: FitCall<'a, B, R>,
}

/// A repair's outcome: the request fitted, the digests made (as a
/// fitting's), and, for a lost file, the compaction that uploaded its
/// images again.
#[derive(Debug)]
pub struct Repaired {
    /// The messages, as a fitting answers them.
    pub outcome: Outcome<FitReport>,
    /// The digest of each message sent again unchanged that a fitting
    /// cannot change, one per message.
    pub digests: Vec<Option<Digest>>,
    /// For a `file-missing` refusal: the report of the compaction that
    /// sent the images put back (uploaded again with an offload, inline
    /// without).
    pub reupload: Option<CompactReport>,
}

impl<'a, B: StashBackend, R: Resizer> RepairCall<'a, B, R> {
    /// A repair of `refusal` whose fitting is `fit`.
    pub fn new(refusal: &'a ProviderRefusal, fit: FitCall<'a, B, R>) -> Self {
        RepairCall { refusal, fit }
    }

    /// Repairs `inputs`, settled as for an expansion (see
    /// [`crate::history::settle_inputs_for_expansion`]: a digest that
    /// serves an expansion serves the fitting too). A refusal about size or
    /// images: the request fitted to the limits that fix it (see
    /// [`super::repair_profile`]), offloaded after as the fitting asks; an
    /// error when it is still over them. A `file-missing` refusal with a
    /// stash: the records forget the file, each reference to it becomes its
    /// original again, sent by a compaction keeping every history image
    /// (uploaded again with an offload), and the request is fitted to the
    /// model; [`RepairError::NotARefusal`] when no image was offloaded as
    /// it, or without a stash.
    pub async fn run(self, inputs: Vec<Input>, settled: &Settled) -> Result<Repaired, RepairError> {
        let kind = self.refusal.kind;
        if kind == RefusalKind::FileMissing {
            return self.put_back(inputs, settled).await;
        }
        let fit = &self.fit;
        let (read, _) = FitMessages::read(inputs.clone(), settled, fit.payloads)?;
        let bytes: u64 = read.sizes.iter().sum();
        read_heads(&fit.slicer, fit.payloads, &read.messages).await;
        let current = read.estimate(fit.profile, bytes, fit.payloads);
        drop(read);
        let repair = repair_profile(self.refusal, fit.profile, &current, fit.options.max_tokens);
        let options = super::FitOptions {
            max_tokens: repair.max_tokens,
            ..fit.options
        };
        let tightened = FitCall {
            profile: &repair.profile,
            options,
            ..self.fit
        };
        let (outcome, digests) = tightened.run(inputs, settled).await?;
        if !outcome.report.fits {
            return Err(RepairError::CannotFit {
                kind: kind_name(kind),
                problems: outcome.report.problems,
            });
        }
        Ok(Repaired {
            outcome,
            digests,
            reupload: None,
        })
    }
}
