//! Offload: the history images compaction keeps for the model go as
//! references to files uploaded once, their originals and files remembered
//! in the stash; uploads counted through an uploader that records them.

use crate::common::calls::*;
use crate::common::*;
use ctxpack_core::history::{
    CompactCall, CompactOptions, CompactReport, Offload, Outcome, Upload, UploadImage, Uploaded,
    Uploader, RENEW_BEFORE_MS,
};
use ctxpack_core::messages::{FileProvider, FileRef, Format};
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashBackend, StashConfig};
use serde_json::{json, Value};
use std::cell::RefCell;

pub(crate) const T0: f64 = 1_700_000_000_000.0;

/// An uploader that numbers its files, each living `life` ms (none when
/// `None`), and fails for the ids in `failing`.
#[derive(Default)]
pub(crate) struct Recorder {
    pub(crate) uploads: RefCell<Vec<(String, String, u64, usize)>>,
    pub(crate) life: Option<f64>,
    pub(crate) failing: RefCell<Vec<String>>,
    pub(crate) now: std::cell::Cell<f64>,
}

impl Uploader for Recorder {
    fn upload<'a>(&'a self, image: UploadImage<'a>) -> Upload<'a> {
        Box::pin(async move {
            if self.failing.borrow().iter().any(|id| id == image.md5) {
                return Err("503 Service Unavailable".to_owned());
            }
            let mut uploads = self.uploads.borrow_mut();
            uploads.push((
                image.md5.into(),
                image.mime.into(),
                image.bytes,
                image.payload.len(),
            ));
            let n = uploads.len();
            Ok(Uploaded {
                file: FileRef {
                    id: Some(format!("file-{n}")),
                    uri: Some(format!(
                        "https://generativelanguage.googleapis.com/v1beta/files/f{n}"
                    )),
                },
                expires_at: self.life.map(|l| self.now.get() + l),
            })
        })
    }
}

/// Compacts `msgs` at `now`, offloading to `provider` for `account`.
pub(crate) fn offload(
    stash: &MemoryBackend,
    uploader: &Recorder,
    msgs: &Value,
    (provider, account, min_bytes): (FileProvider, &str, u64),
    options: CompactOptions,
    now: f64,
) -> Outcome<CompactReport> {
    offload_to(
        stash,
        uploader,
        msgs,
        (Some(provider), account, min_bytes),
        options,
        now,
    )
}

/// [`offload`] with the provider named or not (`None`: the format's own).
pub(crate) fn offload_to(
    stash: &MemoryBackend,
    uploader: &Recorder,
    msgs: &Value,
    (provider, account, min_bytes): (Option<FileProvider>, &str, u64),
    options: CompactOptions,
    now: f64,
) -> Outcome<CompactReport> {
    static CONFIG: std::sync::OnceLock<StashConfig> = std::sync::OnceLock::new();
    uploader.now.set(now);
    let access = StashAccess {
        backend: stash,
        config: CONFIG.get_or_init(StashConfig::default),
        now,
    };
    let call =
        CompactCall::new(access, options, &ctxpack_core::media::InMemory).with_offload(Offload {
            uploader,
            provider,
            account,
            min_bytes,
        });
    block_on(call.run_values(msgs.as_array().unwrap().clone(), None)).unwrap()
}

/// An OpenAI Responses history: a user turn with each of `images`, an
/// answer after each, and a newest user turn with one more image.
pub(crate) fn responses_chat(images: &[&[u8]], newest: &[u8]) -> Value {
    let mut items = Vec::new();
    for (i, img) in images.iter().enumerate() {
        items.push(json!({"role": "user", "content": [{"type": "input_text", "text": format!("shot {i}")}, {"type": "input_image", "image_url": data_url("image/png", img), "detail": "high"}]}));
        items
            .push(json!({"role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}));
    }
    items.push(json!({"role": "user", "content": [{"type": "input_image", "image_url": data_url("image/png", newest), "detail": "high"}]}));
    Value::Array(items)
}

/// Compaction keeping the `n` newest history images, its window exact.
pub(crate) fn keep(n: usize) -> CompactOptions {
    CompactOptions {
        keep_recent_images: n,
        ..CompactOptions::default()
    }
}

#[test]
fn kept_history_images_go_by_reference_uploaded_once() {
    let stash = MemoryBackend::new();
    let up = Recorder::default();
    let chat = responses_chat(&[PNG, JPEG, GIF, WEBP], PNG);
    let openai = (FileProvider::OpenAi, "", 0);
    let out = offload(&stash, &up, &chat, openai, keep(2), T0);
    let r = &out.report;
    assert_eq!((r.stashed, r.offloaded, r.uploaded), (2, 2, 2), "{r:?}");
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    assert_eq!(r.offloaded_bytes, (b64(GIF).len() + b64(WEBP).len()) as u64);
    // The two oldest are placeholders; the two kept are references in the
    // Responses API's own shape; the newest turn is as it was.
    assert!(out.messages[0]["content"][1]["text"]
        .as_str()
        .unwrap()
        .contains(&md5(&b64(PNG))));
    assert_eq!(
        out.messages[4]["content"][1],
        json!({"type": "input_image", "file_id": "file-1", "detail": "high"})
    );
    assert_eq!(
        out.messages[6]["content"][1],
        json!({"type": "input_image", "file_id": "file-2", "detail": "high"})
    );
    assert_eq!(out.messages[8], chat[8]);
    assert!(!serde_json::to_string(&out.messages)
        .unwrap()
        .contains(&b64(GIF)));
    // What the app's upload received: the image's id, type, decoded size.
    let uploads = up.uploads.borrow().clone();
    assert_eq!(uploads[0].0, md5(&b64(GIF)));
    assert_eq!(
        (uploads[0].2, uploads[0].3),
        (GIF.len() as u64, b64(GIF).len())
    );
    // The originals are in the stash, their files in their records.
    let metas = block_on(stash.list_meta()).unwrap();
    let gif = metas.iter().find(|m| m.id == md5(&b64(GIF))).unwrap();
    assert_eq!(gif.files.len(), 1);
    assert_eq!(
        (gif.files[0].provider.as_str(), gif.files[0].id.as_deref()),
        ("openai", Some("file-1"))
    );
    // Sent again: nothing uploaded, the same references.
    let again = offload(&stash, &up, &chat, openai, keep(2), T0 + 60_000.0);
    assert_eq!((again.report.offloaded, again.report.uploaded), (2, 0));
    assert_eq!(again.messages, out.messages);
    assert_eq!(
        again.report.first_changed_index, None,
        "nothing new for the prompt cache"
    );
    // Compacting the compacted request changes nothing and uploads nothing.
    let twice = offload(
        &stash,
        &up,
        &Value::Array(out.messages.clone()),
        openai,
        keep(2),
        T0 + 60_000.0,
    );
    assert_eq!(twice.messages, out.messages);
    assert_eq!(up.uploads.borrow().len(), 2);
}

#[test]
fn a_file_near_its_expiry_is_uploaded_again_before_it_is_used() {
    let stash = MemoryBackend::new();
    let up = Recorder {
        life: Some(20.0 * 60_000.0),
        ..Recorder::default()
    };
    let chat = responses_chat(&[PNG, JPEG], GIF);
    let openai = (FileProvider::OpenAi, "", 0);
    let first = offload(&stash, &up, &chat, openai, keep(2), T0);
    assert_eq!(first.report.uploaded, 2);
    // 5 minutes on: 15 left, used.
    let soon = offload(&stash, &up, &chat, openai, keep(2), T0 + 5.0 * 60_000.0);
    assert_eq!(soon.report.uploaded, 0);
    // Within 10 minutes of its expiry: uploaded again, the new id sent.
    let late = T0 + 20.0 * 60_000.0 - RENEW_BEFORE_MS + 1.0;
    let renewed = offload(&stash, &up, &chat, openai, keep(2), late);
    assert_eq!(renewed.report.uploaded, 2);
    assert_eq!(renewed.messages[0]["content"][1]["file_id"], "file-3");
    assert_eq!(renewed.report.first_changed_index, Some(0));
}

#[test]
fn a_failed_upload_leaves_the_image_inline_and_says_why() {
    let stash = MemoryBackend::new();
    let up = Recorder::default();
    up.failing.borrow_mut().push(md5(&b64(JPEG)));
    let chat = responses_chat(&[PNG, JPEG], GIF);
    let out = offload(
        &stash,
        &up,
        &chat,
        (FileProvider::OpenAi, "", 0),
        keep(2),
        T0,
    );
    assert_eq!((out.report.offloaded, out.report.uploaded), (1, 1));
    assert_eq!(out.messages[2], chat[2], "inline, as it was");
    let f = &out.report.failures[0];
    assert_eq!(
        (f.code.as_str(), f.path.as_str()),
        ("UPLOAD_FAILED", "messages[2].content[1]")
    );
    assert!(f.reason.contains("503"), "{}", f.reason);
    assert_eq!(
        out.report.failed, 0,
        "no history image lost its place: kept inline"
    );
    // No file remembered for it: the next call tries again.
    up.failing.borrow_mut().clear();
    let again = offload(
        &stash,
        &up,
        &chat,
        (FileProvider::OpenAi, "", 0),
        keep(2),
        T0 + 1.0,
    );
    assert_eq!((again.report.offloaded, again.report.uploaded), (2, 1));
}

#[test]
fn each_account_and_provider_has_its_own_files() {
    let stash = MemoryBackend::new();
    let up = Recorder::default();
    let chat = responses_chat(&[PNG], GIF);
    let keep = keep(1);
    let at = |account, now| {
        offload(
            &stash,
            &up,
            &chat,
            (FileProvider::OpenAi, account, 0),
            keep,
            now,
        )
    };
    assert_eq!(at("a", T0).report.uploaded, 1);
    let b = at("b", T0 + 1.0);
    assert_eq!(b.report.uploaded, 1);
    assert_eq!(b.messages[0]["content"][1]["file_id"], "file-2");
    let a = at("a", T0 + 2.0);
    assert_eq!(a.report.uploaded, 0);
    assert_eq!(a.messages[0]["content"][1]["file_id"], "file-1");
    // Another provider's files are no reference of this format.
    let anthropic = offload(
        &stash,
        &up,
        &chat,
        (FileProvider::Anthropic, "a", 0),
        keep,
        T0 + 3.0,
    );
    assert_eq!(
        (anthropic.report.offloaded, anthropic.report.uploaded),
        (0, 0)
    );
    assert_eq!(anthropic.messages[0], chat[0]);
    let note = anthropic.report.offload_note.unwrap();
    assert!(note.contains("openai files, not anthropic"), "{note}");
}

#[test]
fn small_images_and_formats_without_references_stay_inline() {
    let stash = MemoryBackend::new();
    let up = Recorder::default();
    // At least 5,000 bytes: the chart goes, the photo stays.
    let chat = responses_chat(&[PNG, JPEG], GIF);
    let out = offload(
        &stash,
        &up,
        &chat,
        (FileProvider::OpenAi, "", 5_000),
        keep(2),
        T0,
    );
    assert_eq!(
        (out.report.offloaded, out.report.kept),
        (1, 2),
        "{:?}",
        out.report
    );
    assert_eq!(out.messages[2], chat[2]);
    // OpenAI Chat Completions takes no image by reference.
    let chat = json!([
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": data_url("image/png", PNG)}}]},
        {"role": "user", "content": "and?"}
    ]);
    let keep = keep(1);
    let out = offload(&stash, &up, &chat, (FileProvider::OpenAi, "", 0), keep, T0);
    assert_eq!(out.messages[0], chat[0]);
    assert_eq!(
        (out.report.offloaded, out.report.uploaded, out.report.kept),
        (0, 0, 1)
    );
    let note = out.report.offload_note.unwrap();
    assert!(note.starts_with("openai images stay inline"), "{note}");
}

#[test]
fn every_format_whose_api_takes_files_gets_its_own_reference() {
    let gemini_uri = "https://generativelanguage.googleapis.com/v1beta/files/f1";
    let cases = [
        (
            Format::Anthropic,
            FileProvider::Anthropic,
            json!([
                {"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(PNG)}, "cache_control": {"type": "ephemeral"}}]},
                {"role": "assistant", "content": "ok"},
                {"role": "user", "content": "and?"}
            ]),
            json!({"type": "image", "source": {"type": "file", "file_id": "file-1"}, "cache_control": {"type": "ephemeral"}}),
        ),
        (
            Format::Gemini,
            FileProvider::Gemini,
            json!([
                {"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": b64(PNG)}}]},
                {"role": "model", "parts": [{"text": "ok"}]},
                {"role": "user", "parts": [{"text": "and?"}]}
            ]),
            json!({"fileData": {"mimeType": "image/png", "fileUri": gemini_uri}}),
        ),
        (
            Format::GeminiInteractions,
            FileProvider::Gemini,
            json!([
                {"type": "user_input", "content": [{"type": "image", "data": b64(PNG), "mime_type": "image/png"}]},
                {"type": "model_output", "content": [{"type": "text", "text": "ok"}]},
                {"type": "user_input", "content": [{"type": "text", "text": "and?"}]}
            ]),
            json!({"type": "image", "uri": gemini_uri, "mime_type": "image/png"}),
        ),
    ];
    let keep = keep(1);
    for (format, provider, chat, want) in cases {
        let (stash, up) = (MemoryBackend::new(), Recorder::default());
        let out = offload(&stash, &up, &chat, (provider, "", 0), keep, T0);
        assert_eq!(out.report.format, format.name());
        assert_eq!(out.report.offloaded, 1, "{format:?}: {:?}", out.report);
        let part = if format == Format::Gemini {
            &out.messages[0]["parts"][0]
        } else {
            &out.messages[0]["content"][0]
        };
        assert_eq!(part, &want, "{format:?}");
    }
}

/// Expands `msgs` over `stash` at `now`.
pub(crate) fn expand(
    stash: &MemoryBackend,
    msgs: Vec<Value>,
    now: f64,
) -> Outcome<ctxpack_core::history::ExpandReport> {
    static CONFIG: std::sync::OnceLock<StashConfig> = std::sync::OnceLock::new();
    let access = StashAccess {
        backend: stash,
        config: CONFIG.get_or_init(StashConfig::default),
        now,
    };
    block_on(expand_values(
        access,
        msgs,
        None,
        &ctxpack_core::media::InMemory,
    ))
    .unwrap()
}

#[test]
fn expansion_puts_the_original_back_for_each_reference() {
    // The same image twice among the kept ones, and in every format whose
    // API takes files: the round trip gives the messages back exactly.
    let chats = [
        (
            FileProvider::OpenAi,
            responses_chat(&[PNG, JPEG, JPEG, GIF], WEBP),
        ),
        (
            FileProvider::Anthropic,
            json!([
                {"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(PNG)}}, {"type": "text", "text": "a"}]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "shot", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": b64(JPEG)}, "cache_control": {"type": "ephemeral"}}]}]},
                {"role": "assistant", "content": "ok"},
                {"role": "user", "content": "and?"}
            ]),
        ),
        (
            FileProvider::Gemini,
            json!([
                {"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": b64(PNG)}}, {"text": "a"}]},
                {"role": "model", "parts": [{"text": "ok"}]},
                {"role": "user", "parts": [{"inlineData": {"mimeType": "image/jpeg", "data": b64(JPEG)}}]},
                {"role": "model", "parts": [{"text": "ok"}]},
                {"role": "user", "parts": [{"text": "and?"}]}
            ]),
        ),
    ];
    for (provider, chat) in chats {
        let (stash, up) = (MemoryBackend::new(), Recorder::default());
        let out = offload(&stash, &up, &chat, (provider, "", 0), keep(3), T0);
        assert!(out.report.offloaded >= 2, "{provider:?}: {:?}", out.report);
        let text = serde_json::to_string(&out.messages).unwrap();
        assert!(
            !text.contains(&b64(JPEG)),
            "{provider:?}: no payload rides along"
        );
        let back = expand(&stash, out.messages, T0 + 1.0);
        assert_eq!(Value::Array(back.messages), chat, "{provider:?}");
        assert!(back.report.restored >= 2);
    }
}

#[test]
fn a_reference_no_record_names_stays_as_it_is() {
    let stash = MemoryBackend::new();
    let msgs = vec![
        json!({"role": "user", "content": [{"type": "input_image", "file_id": "file-elsewhere", "detail": "auto"}]}),
    ];
    let back = expand(&stash, msgs.clone(), T0);
    assert_eq!(back.messages, msgs);
    assert_eq!(back.report.restored, 0);
}

#[test]
fn without_a_provider_named_the_format_s_own_files_are_used() {
    let stash = MemoryBackend::new();
    let up = Recorder::default();
    let chat = responses_chat(&[PNG], GIF);
    let out = offload_to(&stash, &up, &chat, (None, "", 0), keep(1), T0);
    assert_eq!(
        (out.report.offloaded, out.report.offload_note.as_deref()),
        (1, None)
    );
    assert_eq!(out.messages[0]["content"][1]["file_id"], "file-1");
}
