//! Offload in the formats several providers share (AI SDK, LangChain, UI
//! messages: the provider is the caller's), and the repair of a request
//! whose file the provider lost: the file forgotten, its image put back and
//! uploaded again.

use crate::common::calls::*;
use crate::common::*;
use crate::offload::{expand, keep, offload, offload_to, responses_chat, Recorder, T0};
use ctxpack_core::history::{
    settle_inputs_for_expansion, CompactCall, CompactReport, ExpandCall, Input, LostFile, Offload,
    Outcome,
};
use ctxpack_core::messages::FileProvider;
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashConfig};
use serde_json::{json, Value};

#[test]
fn ai_sdk_messages_reference_the_named_provider_s_files_and_come_back_whole() {
    let chat = json!([
        {"role": "user", "content": [{"type": "image", "image": b64(PNG), "mediaType": "image/png"}, {"type": "text", "text": "a"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "seen"}]},
        {"role": "user", "content": [{"type": "file", "mediaType": "image/jpeg", "data": {"type": "data", "data": b64(JPEG)}}]},
        {"role": "assistant", "content": [{"type": "text", "text": "seen"}]},
        {"role": "user", "content": [{"type": "text", "text": "and?"}]}
    ]);
    let (stash, up) = (MemoryBackend::new(), Recorder::default());
    let out = offload(
        &stash,
        &up,
        &chat,
        (FileProvider::Gemini, "", 0),
        keep(2),
        T0,
    );
    assert_eq!(
        (out.report.format, out.report.offloaded),
        ("ai-sdk", 2),
        "{:?}",
        out.report
    );
    assert_eq!(
        out.messages[0]["content"][0],
        json!({"type": "file", "mediaType": "image/png", "data": {"type": "reference", "reference": {"google": "https://generativelanguage.googleapis.com/v1beta/files/f1"}}})
    );
    let back = expand(&stash, out.messages, T0 + 1.0);
    assert_eq!(Value::Array(back.messages), chat);
    // Without a provider named, the AI SDK's images stay inline, and why.
    let unnamed = offload_to(&stash, &up, &chat, (None, "", 0), keep(2), T0);
    assert_eq!(unnamed.report.offloaded, 0);
    assert_eq!(unnamed.messages[0], chat[0]);
    assert!(unnamed
        .report
        .offload_note
        .unwrap()
        .contains("offload.provider"));
}

#[test]
fn langchain_and_ui_messages_reference_the_named_provider_s_files_and_come_back_whole() {
    let langchain = json!([
        ["human", [{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {"url": data_url("image/png", PNG), "detail": "high"}}]],
        ["ai", "seen"],
        {"role": "user", "content": [{"type": "image", "data": b64(JPEG), "mimeType": "image/jpeg"}]},
        ["ai", "seen"],
        ["human", "and?"]
    ]);
    let ui = json!([
        {"id": "1", "role": "user", "parts": [{"type": "text", "text": "a"}, {"type": "file", "mediaType": "image/png", "filename": "a.png", "url": data_url("image/png", PNG)}]},
        {"id": "2", "role": "assistant", "parts": [{"type": "text", "text": "seen"}]},
        {"id": "3", "role": "user", "parts": [{"type": "file", "mediaType": "image/jpeg", "url": data_url("image/jpeg", JPEG)}]},
        {"id": "4", "role": "assistant", "parts": [{"type": "text", "text": "seen"}]},
        {"id": "5", "role": "user", "parts": [{"type": "text", "text": "and?"}]}
    ]);
    for (chat, format) in [(langchain, "langchain"), (ui, "ui-message")] {
        for provider in FileProvider::ALL {
            let (stash, up) = (MemoryBackend::new(), Recorder::default());
            let out = offload(&stash, &up, &chat, (provider, "", 0), keep(2), T0);
            assert_eq!(
                (out.report.format, out.report.offloaded, out.report.uploaded),
                (format, 2, 2),
                "{provider:?}: {:?}",
                out.report
            );
            let text = serde_json::to_string(&out.messages).unwrap();
            assert!(!text.contains(&b64(JPEG)) && !text.contains(&b64(PNG)[..64]));
            let back = expand(&stash, out.messages.clone(), T0 + 1.0);
            assert_eq!(Value::Array(back.messages), chat, "{format} {provider:?}");
            // Sent again: nothing uploaded, the same request.
            let again = offload(&stash, &up, &chat, (provider, "", 0), keep(2), T0 + 2.0);
            assert_eq!((again.report.uploaded, again.messages), (0, out.messages));
        }
    }
}

/// Repairs `msgs` after the provider lost `lost`, as the package's
/// `repairContext` does: the file forgotten and its image put back, then
/// compacted with every history image kept, offloading with `up` to its
/// provider (inline when `None`). Returns the compaction and whether each message changed
/// in either step.
fn repair(
    stash: &MemoryBackend,
    up: Option<(&Recorder, FileProvider)>,
    msgs: Vec<Value>,
    lost: Option<&str>,
    now: f64,
) -> (Outcome<CompactReport>, Vec<bool>) {
    static CONFIG: std::sync::OnceLock<StashConfig> = std::sync::OnceLock::new();
    let access = StashAccess {
        backend: stash,
        config: CONFIG.get_or_init(StashConfig::default),
        now,
    };
    let payloads = &ctxpack_core::media::InMemory;
    let lost = LostFile {
        name: lost,
        account: "",
    };
    let mut inputs: Vec<Input> = msgs.iter().cloned().map(Input::Read).collect();
    let settled =
        settle_inputs_for_expansion(&mut inputs, None, &mut |i| Ok::<_, ()>(msgs[i].clone()))
            .unwrap();
    let expansion = ExpandCall::new(access, payloads).with_lost_file(lost);
    let (restored, _) = block_on(expansion.run(inputs, &settled)).unwrap();
    let all = keep(usize::MAX);
    let mut call = CompactCall::new(access, all, payloads);
    if let Some((uploader, provider)) = up {
        uploader.now.set(now);
        call = call.with_offload(Offload {
            uploader,
            provider: Some(provider),
            account: "",
            min_bytes: 0,
        });
    }
    let out = block_on(call.run_values(restored.messages, None)).unwrap();
    let changed = out
        .changed
        .iter()
        .zip(&restored.changed)
        .map(|(a, b)| *a || *b)
        .collect();
    (out, changed)
}

#[test]
fn a_file_the_provider_lost_is_forgotten_and_its_image_uploaded_again() {
    let (stash, up) = (MemoryBackend::new(), Recorder::default());
    let chat = responses_chat(&[PNG, JPEG], GIF);
    let sent = offload(
        &stash,
        &up,
        &chat,
        (FileProvider::OpenAi, "", 0),
        keep(2),
        T0,
    );
    assert_eq!(sent.report.uploaded, 2);
    let lost = sent.messages[0]["content"][1]["file_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let other = sent.messages[2]["content"][1].clone();

    let (fixed, changed) = repair(
        &stash,
        Some((&up, FileProvider::OpenAi)),
        sent.messages.clone(),
        Some(&lost),
        T0 + 1.0,
    );
    assert_eq!(
        (fixed.report.uploaded, fixed.report.offloaded),
        (1, 1),
        "{:?}",
        fixed.report
    );
    assert_eq!(
        fixed.messages[0]["content"][1]["file_id"], "file-3",
        "a new file"
    );
    assert_eq!(
        fixed.messages[2]["content"][1], other,
        "the other reference stays"
    );
    assert_eq!(changed, [true, false, false, false, false]);
    assert_eq!(fixed.messages[4], chat[4], "the newest turn as it was");
    let text = serde_json::to_string(&fixed.messages).unwrap();
    assert!(!text.contains(&lost) && !text.contains(&b64(PNG)));
    // The record forgot the lost file: sent again, the new one is used.
    let again = offload(
        &stash,
        &up,
        &chat,
        (FileProvider::OpenAi, "", 0),
        keep(2),
        T0 + 2.0,
    );
    assert_eq!(again.report.uploaded, 0);
    assert_eq!(again.messages, fixed.messages);
    assert_eq!(up.uploads.borrow().len(), 3);

    // Without an offload the image goes back inline; without a name, every
    // file the request references is taken as lost. (A reference to a file
    // a record has forgotten cannot be put back: no record names it.)
    let (inline, _) = repair(
        &stash,
        None,
        again.messages.clone(),
        Some("file-3"),
        T0 + 3.0,
    );
    assert_eq!(inline.messages[0], chat[0]);
    assert_eq!(inline.messages[2], again.messages[2]);
    // The inline image is uploaded again by the compaction, the other as
    // its file is taken as lost.
    let (all, changed) = repair(
        &stash,
        Some((&up, FileProvider::OpenAi)),
        inline.messages.clone(),
        None,
        T0 + 4.0,
    );
    assert_eq!(all.report.uploaded, 2);
    assert_eq!(changed, [true, false, true, false, false]);
    let text = serde_json::to_string(&all.messages).unwrap();
    assert!(!text.contains("file-2") && !text.contains("file-3") && !text.contains(&b64(PNG)));
    // A file no record names changes nothing.
    let (unknown, changed) = repair(
        &stash,
        Some((&up, FileProvider::OpenAi)),
        all.messages.clone(),
        Some("file-elsewhere"),
        T0 + 5.0,
    );
    assert_eq!(changed, [false; 5]);
    assert_eq!(unknown.report.uploaded, 0);
}

#[test]
fn a_gemini_file_lost_is_found_by_the_name_its_refusal_gives() {
    // Gemini's refusal names the file `f1` ("You do not have permission to
    // access the File f1 or it may not exist."); its API `files/f1`; the
    // reference holds the URI `files.upload` answered.
    let chat = json!([
        {"role": "user", "parts": [{"text": "a"}, {"inlineData": {"mimeType": "image/png", "data": b64(PNG)}}]},
        {"role": "model", "parts": [{"text": "seen"}]},
        {"role": "user", "parts": [{"inlineData": {"mimeType": "image/jpeg", "data": b64(JPEG)}}]},
        {"role": "model", "parts": [{"text": "seen"}]},
        {"role": "user", "parts": [{"text": "and?"}]}
    ]);
    let uri = |n: usize| format!("https://generativelanguage.googleapis.com/v1beta/files/f{n}");
    for (lost, by) in [("f1", "the refusal's word"), ("files/f1", "the API's name")] {
        let (stash, up) = (MemoryBackend::new(), Recorder::default());
        let gemini = (FileProvider::Gemini, "", 0);
        let sent = offload(&stash, &up, &chat, gemini, keep(2), T0);
        assert_eq!(sent.report.uploaded, 2, "{:?}", sent.report);
        assert_eq!(sent.messages[0]["parts"][1]["fileData"]["fileUri"], uri(1));
        let up_gemini = Some((&up, FileProvider::Gemini));
        let (fixed, changed) = repair(
            &stash,
            up_gemini,
            sent.messages.clone(),
            Some(lost),
            T0 + 1.0,
        );
        assert_eq!(changed, [true, false, false, false, false], "by {by}");
        assert_eq!(fixed.report.uploaded, 1, "by {by}: {:?}", fixed.report);
        assert_eq!(fixed.messages[0]["parts"][1]["fileData"]["fileUri"], uri(3));
        assert_eq!(fixed.messages[2], sent.messages[2], "the other file stays");
        // Another file's last segment is not this one.
        let (other, changed) = repair(
            &stash,
            up_gemini,
            fixed.messages.clone(),
            Some("f13"),
            T0 + 2.0,
        );
        assert_eq!((changed, other.report.uploaded), (vec![false; 5], 0));
    }
}
