//! The phases a fitting and a repair run after the fitting itself: with an
//! offload, the history images left inline go by reference; a lost file is
//! forgotten, its images put back, uploaded again and the request fitted.

use crate::common::calls::*;
use crate::common::codec::Codec;
use crate::common::*;
use crate::offload::{responses_chat, Recorder};
use ctxpack_core::budget::{model_profile, ProviderRefusal};
use ctxpack_core::fit::{FitCall, FitOptions, RepairCall, RepairError};
use ctxpack_core::history::Offload;
use ctxpack_core::media::InMemory;
use ctxpack_core::messages::Format;
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashConfig};
use serde_json::Value;

const T0: f64 = 1_700_000_000_000.0;

fn offload(uploader: &Recorder) -> Offload<'_> {
    Offload {
        uploader,
        provider: None,
        account: "",
        min_bytes: 0,
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
    let (stash, config, up) = (
        MemoryBackend::new(),
        StashConfig::default(),
        Recorder::default(),
    );
    let access = StashAccess {
        backend: &stash,
        config: &config,
        now: T0,
    };
    let chat = responses_chat(&[PNG, JPEG], PNG);
    let values = chat.as_array().unwrap().clone();
    let profile = model_profile("gpt-4o");
    let (codec, options) = (Codec::default(), FitOptions::default());
    let responses = Some(Format::OpenAiResponses);
    let call = FitCall::new(&profile, options, &codec, &InMemory)
        .with_stash(access)
        .with_offload(offload(&up));
    let out = block_on(fit_values(call, values.clone(), responses)).unwrap();
    let sent = out.report.offload.as_ref().expect("the offload's report");
    assert_eq!((sent.offloaded, sent.uploaded), (2, 2), "{sent:?}");
    assert_eq!(file_ids(&out.messages), ["file-1", "file-2"]);
    assert!(out.changed[0] && out.changed[2] && !out.changed[4]);
    // The newest turn's image stays inline.
    assert!(out.messages[4]["content"][0]["image_url"].is_string());

    // Without a stash no file can be remembered: nothing goes by reference.
    let call = FitCall::<MemoryBackend, _>::new(&profile, options, &codec, &InMemory)
        .with_offload(offload(&up));
    let out = block_on(fit_values(call, values, responses)).unwrap();
    assert!(out.report.offload.is_none() && file_ids(&out.messages).is_empty());
    assert_eq!(up.uploads.borrow().len(), 2);
}

#[test]
fn a_lost_file_is_forgotten_put_back_uploaded_again_and_fitted() {
    let (stash, config, up) = (
        MemoryBackend::new(),
        StashConfig::default(),
        Recorder::default(),
    );
    let access = StashAccess {
        backend: &stash,
        config: &config,
        now: T0,
    };
    let profile = model_profile("gpt-4o");
    let (codec, options) = (Codec::default(), FitOptions::default());
    let responses = Some(Format::OpenAiResponses);
    let chat = responses_chat(&[PNG, JPEG], PNG);
    let fit = || {
        FitCall::new(&profile, options, &codec, &InMemory)
            .with_stash(access)
            .with_offload(offload(&up))
    };
    let sent = block_on(fit_values(
        fit(),
        chat.as_array().unwrap().clone(),
        responses,
    ))
    .unwrap();
    assert_eq!(file_ids(&sent.messages), ["file-1", "file-2"]);

    let lost = ProviderRefusal {
        file_id: Some("file-1".into()),
        ..ProviderRefusal::named("file-missing", "openai").unwrap()
    };
    let (inputs, settled) = read_all(sent.messages.clone(), responses);
    let repaired = block_on(RepairCall::new(&lost, fit()).run(inputs, &settled)).unwrap();
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
    let (inputs, settled) = read_all(sent.messages.clone(), responses);
    let err = block_on(RepairCall::new(&other, fit()).run(inputs, &settled)).unwrap_err();
    assert!(matches!(err, RepairError::NotARefusal), "{err}");
    let unstashed = FitCall::<MemoryBackend, _>::new(&profile, options, &codec, &InMemory);
    let (inputs, settled) = read_all(sent.messages, responses);
    let err = block_on(RepairCall::new(&lost, unstashed).run(inputs, &settled)).unwrap_err();
    assert!(matches!(err, RepairError::NotARefusal), "{err}");
}
