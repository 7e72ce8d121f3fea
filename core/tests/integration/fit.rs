//! Fitting and repair end to end over the memory stash, with the codec
//! crate resizing real images: every refusal the providers send is turned
//! into a request that meets the limit it names and passes the profile.

use crate::common;
use crate::common::calls::*;

use common::codec::Codec;
use common::fit_images::*;
use common::*;
use ctxpack_core::budget::{estimate, model_profile, parse_provider_error, RefusalKind};
use ctxpack_core::fit::{Action, FitCall, FitOptions, RepairCall, RepairError, StashAccess};
use ctxpack_core::media::{decode_base64, image_dimensions, Dimensions, InMemory};
use ctxpack_core::messages::decode_messages;
use ctxpack_core::stash::{MemoryBackend, StashConfig};
use ctxpack_core::JsonPath;
use serde_json::{json, Value};

/// The codec, keeping the size and byte count of every encoding it made.
#[derive(Default)]
struct Recording {
    codec: Codec,
    made: std::cell::RefCell<Vec<(u32, u32, &'static str, usize)>>,
}

impl ctxpack_core::fit::Resizer for Recording {
    async fn resize(
        &self,
        payload: &str,
        mime: &str,
        source: Dimensions,
        a: &ctxpack_core::fit::Attempt,
    ) -> Result<String, ctxpack_core::fit::ResizeFailure> {
        let out = self.codec.resize(payload, mime, source, a).await?;
        let bytes = decode_base64(&out).unwrap().len();
        self.made
            .borrow_mut()
            .push((a.width, a.height, a.mime, bytes));
        Ok(out)
    }
}

#[test]
fn a_screenshot_that_would_grow_when_shrunk_is_sent_as_it_is_unless_a_limit_forces_it() {
    let shot = screenshot(3000, 1900, 1);
    let values = conversation(&[], std::slice::from_ref(&shot));
    let recording = Recording::default();
    let out = block_on(fit_values(
        FitCall::<MemoryBackend, _>::new(
            &model_profile("claude-sonnet-4-5"),
            FitOptions::default(),
            &recording,
            &InMemory,
        ),
        values.clone(),
        None,
    ))
    .unwrap();
    // Claude reads it smaller, so the size it reads at was tried: as a PNG
    // of fewer pixels, which came out larger than the original.
    let made = recording.made.borrow();
    assert!(!made.is_empty(), "no smaller encoding was tried");
    for &(width, height, mime, bytes) in made.iter() {
        assert!(width < 3000 && height < 1900, "{made:?}");
        assert_eq!(mime, "image/png", "{made:?}");
        assert!(bytes > shot.len(), "{made:?} against {}", shot.len());
    }
    // So the screenshot is kept, byte for byte.
    let img = &out.report.images[0];
    assert_eq!(img.action, Action::Kept, "{img:?}");
    assert_eq!(
        img.reasons,
        vec![ctxpack_core::fit::Reason::LargerThanModelReads]
    );
    assert_eq!(
        img.note.as_deref(),
        Some("smaller pixels did not make fewer bytes; sent as it was"),
        "{img:?}"
    );
    assert!(
        img.note.as_deref().unwrap().contains("fewer bytes"),
        "{img:?}"
    );
    assert_eq!(img.after, img.before);
    let before = img.before.as_ref().unwrap();
    assert_eq!(
        (before.width, before.height, before.bytes),
        (3000, 1900, shot.len() as u64)
    );
    assert_eq!(out.report.changed, 0);
    assert_eq!(out.messages, values);
    // With more than 20 images the 2000-px rule is a hard limit: it shrinks,
    // and never into more bytes than the original: a PNG of the resampled
    // text is larger, so the screenshot goes as a JPEG at a quality that
    // keeps text readable.
    let many = conversation(&vec![screenshot(3000, 1900, 1); 21], &[]);
    let out = block_on(fit_values(
        FitCall::<MemoryBackend, _>::new(
            &model_profile("claude-sonnet-4-5"),
            FitOptions::default(),
            &Codec::default(),
            &InMemory,
        ),
        many,
        None,
    ))
    .unwrap();
    assert!(out.report.fits, "{:?}", out.report.problems);
    for img in &out.report.images {
        assert_eq!(img.action, Action::Downscaled);
        assert!(img
            .reasons
            .contains(&ctxpack_core::fit::Reason::ManyImageRule));
        let (before, after) = (img.before.as_ref().unwrap(), img.after.as_ref().unwrap());
        assert!(after.bytes < before.bytes, "{img:?}");
        assert!(after.width <= 2000 && after.height <= 2000);
        assert_eq!(after.mime, "image/jpeg");
        assert!(after.quality.unwrap() >= 80, "{img:?}");
        let scale = img.scale.unwrap();
        assert!((scale.x - 3000.0 / f64::from(after.width)).abs() < 1e-9);
    }
}

#[test]
fn large_images_come_down_to_what_claude_reads_and_the_originals_wait_in_the_stash() {
    let backend = MemoryBackend::default();
    let config = StashConfig::default();
    let shots: Vec<Vec<u8>> = (0..3).map(|s| photo(3000, 1900, s)).collect();
    let values = conversation(&shots[..2], &shots[2..]);
    let profile = model_profile("claude-sonnet-4-5");
    let codec = Codec::default();
    let out = block_on(fit_values(
        stashing(
            FitCall::new(&profile, FitOptions::default(), &codec, &InMemory),
            stash_at(&backend, &config),
        ),
        values,
        None,
    ))
    .unwrap();
    let r = &out.report;
    assert!(r.fits, "{:?}", r.problems);
    assert_eq!((r.changed, r.stashed), (3, 0));
    assert_eq!(
        r.tokens_before, r.tokens_after,
        "the model reads them at this size anyway"
    );
    for (img, (dims, _)) in r.images.iter().zip(images_of(&out.messages)) {
        assert_eq!(img.action, Action::Downscaled);
        let after = img.after.as_ref().unwrap();
        assert_eq!((after.width, after.height), (dims.width, dims.height));
        assert!(dims.width <= 1568 && u64::from(dims.width * dims.height).div_ceil(750) <= 1600);
        assert_eq!(
            after.tokens,
            u64::from(dims.width * dims.height).div_ceil(750)
        );
        assert_eq!(after.mime, "image/png", "a lossless image stays PNG");
        assert!(after.bytes < img.before.as_ref().unwrap().bytes);
        // The original is in the stash under its own md5.
        let id = img.id.as_deref().unwrap().strip_prefix("history_").unwrap();
        let rec = block_on(ctxpack_core::stash::StashBackend::get_record(&backend, id))
            .unwrap()
            .unwrap();
        assert_eq!(
            image_dimensions(&decode_base64(&rec.payload).unwrap())
                .unwrap()
                .width,
            3000
        );
    }
    // Fitting the fitted request changes nothing more.
    let again = block_on(fit_values(
        stashing(
            FitCall::new(&profile, FitOptions::default(), &codec, &InMemory),
            stash_at(&backend, &config),
        ),
        out.messages,
        None,
    ))
    .unwrap();
    assert_eq!(again.report.changed, 0);
    assert!(again.changed.iter().all(|c| !c));
}

#[test]
fn keep_newest_leaves_the_newest_turn_and_no_stash_still_resizes() {
    let shots: Vec<Vec<u8>> = (0..2).map(|s| screenshot(2400, 1200, s)).collect();
    let values = conversation(&shots[..1], &shots[1..]);
    let profile = model_profile("gpt-4o");
    let out = block_on(fit_values(
        FitCall::<MemoryBackend, _>::new(
            &profile,
            FitOptions {
                keep_newest: true,
                max_tokens: None,
                ..FitOptions::default()
            },
            &Codec::default(),
            &InMemory,
        ),
        values,
        None,
    ))
    .unwrap();
    let actions: Vec<Action> = out.report.images.iter().map(|i| i.action).collect();
    assert_eq!(actions, vec![Action::Downscaled, Action::Kept]);
    assert_eq!(out.report.images[0].id, None, "no stash: no id");
    let dims = images_of(&out.messages);
    assert_eq!((dims[0].0.width, dims[0].0.height), (1536, 768));
    assert_eq!(dims[1].0.width, 2400);
}

/// What the conversation for each kind of refusal holds, and which model.
fn case(kind: RefusalKind, text: &str) -> (Vec<Value>, &'static str) {
    let small = screenshot(64, 48, 1);
    match kind {
        // Over 5 MB of base64; Gemini reads it as it is, so only the
        // refusal's limit makes it change.
        RefusalKind::ImageTooLarge => (
            conversation(&[], &[noise_png(1400, 1400)]),
            "gemini-2.5-pro",
        ),
        RefusalKind::ImageDimensions if text.contains("8000") => (
            conversation(&[], &[screenshot(8200, 300, 2)]),
            "gemini-2.5-pro",
        ),
        RefusalKind::ImageDimensions => (
            conversation(
                &[screenshot(2500, 1200, 3), screenshot(2500, 1200, 4)],
                &[screenshot(2500, 1200, 5)],
            ),
            "gemini-2.5-pro",
        ),
        RefusalKind::TooManyImages => (conversation(&vec![small; 101], &[]), "gemini-2.5-pro"),
        RefusalKind::ContextLength => (
            conversation(&vec![screenshot(1000, 1000, 6); 40], &[]),
            "claude-sonnet-4-5",
        ),
        RefusalKind::RequestTooLarge => (
            conversation(
                &[noise_png(600, 600), noise_png(600, 601)],
                &[screenshot(800, 600, 7)],
            ),
            "gemini-2.5-pro",
        ),
        RefusalKind::FileMissing => panic!("not a refusal about size: {text}"),
    }
}

const REFUSALS: &[&str] = &[
    r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.2.image.source.base64: image exceeds 5 MB maximum: 15908784 bytes > 5242880 bytes"}}"#,
    "ValidationException: The model returned the following errors:\nmessages.0.content.2.image.source.bytes: image exceeds 5 MB maximum:\n7167852 bytes > 5242880 bytes",
    r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages.135.content.6.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels"}}"#,
    "messages.1.content.0.image.source.base64: image dimensions exceed max allowed size: 8000 pixels",
    "ValidationException: image exceed max allowed size for many-image requests: 2000 pixels",
    "ValidationException: 400 Bad Request: Image exceeds max pixels allowed.",
    r#"{"type":"error","error":{"type":"invalid_request_error","message":"too many images and documents: 101 + 0 > 100"}}"#,
    "error, status code: 400, message: Too many images in request. Max is 10.",
    "Too many images in request: 11 images provided, but the model supports a maximum of 10 images.",
    "{'object': 'error', 'message': 'At most 5 image(s) may be provided in one request.', 'type': 'BadRequestError', 'param': None, 'code': 400}",
    "[invalid_request_error] request contains 52 images, exceeding the maximum of 50 allowed per request",
    r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 213610 tokens > 199999 maximum"}}"#,
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.",
    "DeepSeek API error: This model's maximum context length is 131072 tokens. However, you requested 5472941 tokens (5468845 in the messages, 4096 in the completion).",
    "{'object': 'error', 'message': \"This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (39000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.\", 'type': 'BadRequestError', 'code': 400}",
    r#"{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
    r#"{"error":{"code":400,"message":"The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}"#,
    "ValidationException: Input is too long for requested model.",
    r#"{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}"#,
    r#"ValidationException: The model returned the following errors: {"code":"validation_error","message":"Failed to buffer the request body: length limit exceeded"}"#,
];

#[test]
fn every_refusal_is_repaired_into_a_request_within_what_it_names() {
    let codec = Codec::default();
    for text in REFUSALS {
        let refusal = parse_provider_error(text).unwrap_or_else(|| panic!("not read: {text}"));
        let (values, model) = case(refusal.kind, text);
        let profile = model_profile(model);
        let bytes_before: u64 = values.iter().map(ctxpack_core::budget::json_len).sum();
        let (_, decoded) =
            decode_messages(values.clone(), None, &JsonPath::root("messages")).unwrap();
        let before = estimate(&decoded, &profile, bytes_before, None, &InMemory);
        drop(decoded);
        let backend = MemoryBackend::default();
        let config = StashConfig::default();
        let out = block_on(repair_values(
            RepairCall::new(
                &refusal,
                stashing(
                    FitCall::new(&profile, FitOptions::default(), &codec, &InMemory),
                    stash_at(&backend, &config),
                ),
            ),
            values,
            None,
        ))
        .unwrap_or_else(|e| panic!("{text}: {e}"));
        let r = &out.report;
        assert!(r.fits, "{text}: {:?}", r.problems);
        let images = images_of(&out.messages);
        match refusal.kind {
            RefusalKind::ImageTooLarge => {
                let limit = refusal.limit.unwrap() as usize;
                assert!(images.iter().all(|(_, b64)| *b64 <= limit), "{text}");
                assert!(before
                    .images
                    .iter()
                    .any(|i| (i.bytes as usize) > limit * 3 / 4));
            }
            RefusalKind::ImageDimensions => {
                let largest_before = before
                    .images
                    .iter()
                    .map(|i| i.width.max(i.height))
                    .max()
                    .unwrap();
                let limit = refusal.limit.map_or(largest_before * 3 / 4, |l| l as u32);
                assert!(largest_before > limit, "{text}");
                assert!(
                    images.iter().all(|(d, _)| d.width.max(d.height) <= limit),
                    "{text}: {images:?}"
                );
            }
            RefusalKind::TooManyImages => {
                let limit = refusal.limit.unwrap() as usize;
                assert!(before.image_count > limit);
                assert!(
                    images.len() <= limit && r.stashed == before.image_count - images.len(),
                    "{text}"
                );
            }
            RefusalKind::ContextLength => {
                assert!(r.tokens_after < r.tokens_before && r.stashed > 0, "{text}");
                if let (Some(limit), Some(actual)) = (refusal.limit, refusal.actual) {
                    // Scaled to the provider's count, the request is under its limit.
                    assert!(r.tokens_after * actual / r.tokens_before < limit, "{text}");
                }
            }
            RefusalKind::RequestTooLarge => {
                assert!(r.bytes_after * 4 <= r.bytes_before * 3, "{text}");
            }
            RefusalKind::FileMissing => panic!("not a refusal about size: {text}"),
        }
    }
}

#[test]
fn a_refusal_nothing_can_fix_is_an_error_that_says_why() {
    let long = "word ".repeat(4000);
    let values = vec![json!({"role": "user", "content": long})];
    let refusal =
        parse_provider_error("prompt is too long: 213610 tokens > 199999 maximum").unwrap();
    let err = block_on(repair_values(
        RepairCall::new(
            &refusal,
            FitCall::<MemoryBackend, _>::new(
                &model_profile("claude-sonnet-4-5"),
                FitOptions::default(),
                &Codec::default(),
                &InMemory,
            ),
        ),
        values,
        None,
    ))
    .unwrap_err();
    match err {
        RepairError::CannotFit { kind, problems } => {
            assert_eq!(kind, "context-length");
            assert!(
                problems.iter().any(|p| p.contains("tokens")),
                "{problems:?}"
            );
        }
        other => panic!("{other}"),
    }
}

#[test]
fn an_image_is_replaced_only_after_its_original_committed() {
    let backend = FlakyBackend::default();
    backend.fail_ids.borrow_mut().push("*".into());
    let config = StashConfig::default();
    let small = screenshot(64, 48, 1);
    // Three history images over a two-image limit, and one over 1000 px.
    let mut values = conversation(&vec![small; 3], &[photo(1600, 1200, 2)]);
    let given = values.clone();
    let profile = model_profile("claude-sonnet-4-5")
        .with_overrides(&serde_json::from_str(r#"{"maxImages":2,"maxLongEdge":1000}"#).unwrap());
    let out = block_on(fit_values(
        FitCall::new(
            &profile,
            FitOptions::default(),
            &Codec::default(),
            &InMemory,
        )
        .with_stash(StashAccess {
            backend: &backend,
            config: &config,
            now: 1.0e12,
        }),
        std::mem::take(&mut values),
        None,
    ))
    .unwrap();
    let r = &out.report;
    assert!(
        !r.fits,
        "nothing could be stashed, so the request is still over"
    );
    assert_eq!(r.stashed, 0);
    // The plan stashes the two oldest history images (four over a limit of
    // two): their writes fail, so both are failures, with the backend's
    // error. The third history image was not to change: kept. The newest
    // photo was resized, but its original never committed: a failure that
    // says so, sent as it was.
    let actions: Vec<Action> = r.images.iter().map(|i| i.action).collect();
    assert_eq!(
        actions,
        [Action::Failed, Action::Failed, Action::Kept, Action::Failed]
    );
    for i in &r.images[..2] {
        assert!(
            i.note.as_deref().unwrap().starts_with("QUOTA_EXCEEDED"),
            "{:?}",
            i.note
        );
        assert_eq!(i.reasons, [ctxpack_core::fit::Reason::TooManyImages]);
    }
    assert_eq!(r.images[2].note, None);
    assert!(r.images[3]
        .note
        .as_deref()
        .unwrap()
        .contains("could not be stashed"));
    for i in &r.images {
        assert_eq!(i.id, None, "no image names a stashed original");
        assert_eq!(i.after, i.before, "every image is sent as it was");
    }
    assert_eq!(out.messages, given, "every image is still the caller's own");
    assert!(backend.puts.get() > 0);
}
