//! The phases a fitting and a repair run after the fitting itself: with an
//! offload, the history images left inline go by reference; a lost file is
//! forgotten, its images put back, uploaded again and the request fitted.

use crate::common::calls::*;
use crate::common::codec::Codec;
use crate::common::*;
use crate::offload::{responses_chat, Recorder};
use ctxpack_core::budget::{model_profile, ModelProfile, ProviderRefusal};
use ctxpack_core::fit::{FitCall, FitOptions, RepairCall, RepairError};
use ctxpack_core::history::Offload;
use ctxpack_core::media::InMemory;
use ctxpack_core::messages::Format;
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashConfig};
use serde_json::Value;

const T0: f64 = 1_700_000_000_000.0;

/// What both tests fit with: a memory stash, an uploader that records,
/// GPT-4o's profile, the codec, and a Responses chat of two history images.
#[derive(Default)]
struct Setup {
    stash: MemoryBackend,
    config: StashConfig,
    up: Recorder,
    codec: Codec,
}

const RESPONSES: Option<Format> = Some(Format::OpenAiResponses);

impl Setup {
    fn chat() -> Vec<Value> {
        responses_chat(&[PNG, JPEG], PNG)
            .as_array()
            .unwrap()
            .clone()
    }

    fn offload(&self) -> Offload<'_> {
        Offload {
            uploader: &self.up,
            provider: None,
            account: "",
            min_bytes: 0,
        }
    }

    /// A fitting to `profile` offloading, with the stash unless `bare`.
    fn fit<'a>(
        &'a self,
        profile: &'a ModelProfile,
        bare: bool,
    ) -> FitCall<'a, MemoryBackend, Codec> {
        let call = FitCall::new(profile, FitOptions::default(), &self.codec, &InMemory)
            .with_offload(self.offload());
        let access = StashAccess {
            backend: &self.stash,
            config: &self.config,
            now: T0,
        };
        stashing(call, (!bare).then_some(access))
    }
}

/// The file ids the messages reference, in order.
fn file_ids(messages: &[Value]) -> Vec<String> {
    let text = serde_json::to_string(messages).unwrap();
    text.split("\"file_id\":\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap().to_owned())
        .collect()
}

#[test]
fn a_fitting_with_offload_sends_the_history_images_it_leaves_inline_by_reference() {
    let setup = Setup::default();
    let profile = model_profile("gpt-4o");
    let out = block_on(fit_values(
        setup.fit(&profile, false),
        Setup::chat(),
        RESPONSES,
    ))
    .unwrap();
    let sent = out.report.offload.as_ref().expect("the offload's report");
    assert_eq!((sent.offloaded, sent.uploaded), (2, 2), "{sent:?}");
    assert_eq!(file_ids(&out.messages), ["file-1", "file-2"]);
    assert!(out.changed[0] && out.changed[2] && !out.changed[4]);
    // The newest turn's image stays inline.
    assert!(out.messages[4]["content"][0]["image_url"].is_string());

    // Without a stash no file can be remembered: nothing goes by reference.
    let out = block_on(fit_values(
        setup.fit(&profile, true),
        Setup::chat(),
        RESPONSES,
    ))
    .unwrap();
    assert!(out.report.offload.is_none() && file_ids(&out.messages).is_empty());
    assert_eq!(setup.up.uploads.borrow().len(), 2);
}

#[test]
fn a_lost_file_is_forgotten_put_back_uploaded_again_and_fitted() {
    let setup = Setup::default();
    let profile = model_profile("gpt-4o");
    let sent = block_on(fit_values(
        setup.fit(&profile, false),
        Setup::chat(),
        RESPONSES,
    ))
    .unwrap();
    assert_eq!(file_ids(&sent.messages), ["file-1", "file-2"]);

    let lost = ProviderRefusal {
        file_id: Some("file-1".into()),
        ..ProviderRefusal::named("file-missing", "openai").unwrap()
    };
    let repair = |refusal, bare| {
        let (inputs, settled) = read_all(sent.messages.clone(), RESPONSES);
        let call = RepairCall::new(refusal, setup.fit(&profile, bare));
        block_on(call.run(inputs, &settled))
    };
    let repaired = repair(&lost, false).unwrap();
    let reupload = repaired
        .reupload
        .expect("the compaction that uploaded again");
    assert_eq!(reupload.uploaded, 1, "{reupload:?}");
    // Only the lost file's image is uploaded again; the other keeps its file.
    assert_eq!(file_ids(&repaired.outcome.messages), ["file-3", "file-2"]);
    assert!(repaired.outcome.changed[0] && !repaired.outcome.changed[2]);
    assert!(repaired.outcome.report.fits);

    // A file no message references, or no stash to forget it in: no
    // refusal a repair fixes.
    let other = ProviderRefusal {
        file_id: Some("file-9".into()),
        ..lost.clone()
    };
    for (refusal, bare) in [(&other, false), (&lost, true)] {
        let err = repair(refusal, bare).unwrap_err();
        assert!(matches!(err, RepairError::NotARefusal), "{err}");
    }
}
