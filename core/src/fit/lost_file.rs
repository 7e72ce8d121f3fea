//! The repair of a `file-missing` refusal, in phases: the records forget
//! the lost file and each reference to it becomes its original again (an
//! expansion for the lost file), a compaction keeping every history image
//! sends them (uploading them again when the fitting offloads), and the
//! request is fitted to the model.

use super::inputs::as_inputs;
use super::offload_after::compact_keeping_all;
use super::repair::RepairError;
use super::repair_call::{RepairCall, Repaired};
use super::resizer::Resizer;
use crate::history::{Digest, ExpandCall, Input, LostFile, Settled};
use crate::stash::StashBackend;
use std::rc::Rc;

impl<B: StashBackend, R: Resizer> RepairCall<'_, B, R> {
    /// See [`RepairCall::run`] for a `file-missing` refusal.
    pub(super) async fn put_back(
        self,
        inputs: Vec<Input>,
        settled: &Settled,
    ) -> Result<Repaired, RepairError> {
        let RepairCall { refusal, fit } = self;
        let Some(stash) = fit.stash else {
            return Err(RepairError::NotARefusal);
        };
        let format = settled.format;
        let known: Vec<Option<Rc<Digest>>> = inputs
            .iter()
            .map(|i| match i {
                Input::Known(d) => Some(Rc::clone(d.digest())),
                _ => None,
            })
            .collect();
        let lost = LostFile {
            name: refusal.file_id.as_deref(),
            account: fit.offload.map_or("", |o| o.account),
        };
        let (restored, digests) = ExpandCall::new(stash, fit.payloads)
            .with_lost_file(lost)
            .run(inputs, settled)
            .await?;
        if restored.report.restored == 0 {
            return Err(RepairError::NotARefusal);
        }
        let given = Settled::given(format);
        let reupload = compact_keeping_all(stash, fit.profile, fit.offload, fit.payloads);
        let (sent, _) = reupload
            .run(&mut as_inputs(restored.messages, &known), &given)
            .await?;
        let fit = super::FitCall {
            offload: None,
            ..fit
        };
        let (mut outcome, _) = fit.run(as_inputs(sent.messages, &known), &given).await?;
        let earlier = restored.changed.iter().zip(&sent.changed);
        for (c, (r, s)) in outcome.changed.iter_mut().zip(earlier) {
            *c |= *r || *s;
        }
        Ok(Repaired {
            outcome,
            digests,
            reupload: Some(sent.report),
        })
    }
}
