//! Fitting and compacting on a host's event loop. The first sight of a
//! large payload costs the host a pass over its text (a browser hashes a
//! string the first time it is looked up), so no phase may read every image
//! before it lets the host run: here each first sight costs 15 ms on a clock
//! moved by hand, and the longest stretch between two pauses stays within
//! one slice and one more image, whether fitting hashes (with a stash), only
//! measures (without), or repairs a refusal. And every payload fitting,
//! compaction and expansion hash is first offered to the host to read in
//! pieces (`Payloads::prepare_facts`), and so is every payload held outside
//! wasm memory that sanitizing a tool result hashes.

use crate::common;
use crate::common::calls::*;

use common::codec::Codec;
use common::fit_images::*;
use common::*;
use ctxpack_core::budget::{model_profile, parse_provider_error};
use ctxpack_core::event_loop::Slicer;
use ctxpack_core::event_loop::{EventLoop, SLICE_MS};
use ctxpack_core::fit::{FitCall, FitOptions, RepairCall};
use ctxpack_core::history::{CompactCall, CompactOptions};
use ctxpack_core::media::{
    external_ref, facts_of_text, find_external_ref, head_of_text, PayloadFacts, PayloadHead,
    Payloads,
};
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashConfig};
use ctxpack_core::tool_results::{sanitize_targets, OnWriteFailure, SanitizeOptions, Target};
use ctxpack_core::JsonPath;
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;

/// What reading a payload for the first time costs, in milliseconds.
const FIRST_SIGHT_MS: f64 = 15.0;

/// A clock moved by the payload reads, noting the longest stretch of work
/// between two pauses.
#[derive(Default)]
struct Host {
    now: Cell<f64>,
    last_pause: Cell<f64>,
    longest: Cell<f64>,
    pauses: Cell<usize>,
}

impl Host {
    fn note_stretch(&self) {
        let stretch = self.now.get() - self.last_pause.get();
        self.longest.set(self.longest.get().max(stretch));
    }
}

impl EventLoop for Host {
    fn now_ms(&self) -> f64 {
        self.now.get()
    }
    fn pause(&self) -> Pin<Box<dyn Future<Output = ()> + '_>> {
        self.note_stretch();
        self.last_pause.set(self.now.get());
        self.pauses.set(self.pauses.get() + 1);
        Box::pin(async {})
    }
}

/// Payloads in memory whose first read of each text costs time on `host`.
struct FirstSightCosts<'h> {
    host: &'h Host,
    seen: RefCell<HashSet<String>>,
}

impl FirstSightCosts<'_> {
    fn sight(&self, s: &str) {
        if self.seen.borrow_mut().insert(s.to_owned()) {
            self.host.now.set(self.host.now.get() + FIRST_SIGHT_MS);
        }
    }
}

impl Payloads for FirstSightCosts<'_> {
    fn with_full(&self, s: &str, f: &mut dyn FnMut(&str)) {
        f(s)
    }
    fn facts(&self, s: &str, head_bytes: usize) -> PayloadFacts {
        self.sight(s);
        facts_of_text(self, s, head_bytes)
    }
    fn head(&self, s: &str, head_bytes: usize) -> PayloadHead {
        self.sight(s);
        head_of_text(self, s, head_bytes)
    }
    fn event_loop(&self) -> Option<&dyn EventLoop> {
        Some(self.host)
    }
}

impl ctxpack_core::tool_results::SanitizeMemo for FirstSightCosts<'_> {}

/// Eight history images and a newest one, all distinct and all wider than
/// Claude reads (so each is resized, and its resized form read too).
fn nine_images() -> Vec<Value> {
    let shots: Vec<Vec<u8>> = (0..9).map(|s| photo(1600, 60, s)).collect();
    conversation(&shots[..8], &shots[8..])
}

/// Runs `fit` over payloads that cost [`FIRST_SIGHT_MS`] at first sight;
/// the longest stretch without a pause, and the number of pauses.
fn longest_stretch(fit: impl FnOnce(&FirstSightCosts<'_>)) -> (f64, usize) {
    let host = Host::default();
    let payloads = FirstSightCosts {
        host: &host,
        seen: RefCell::default(),
    };
    fit(&payloads);
    host.note_stretch();
    assert_eq!(
        payloads.seen.borrow().len(),
        18,
        "every image and its resized form"
    );
    (host.longest.get(), host.pauses.get())
}

#[test]
fn fitting_lets_the_host_run_between_images_in_every_phase() {
    let profile = model_profile("claude-sonnet-4-5");
    let codec = Codec::default();
    let backend = MemoryBackend::default();
    let config = StashConfig::default();
    let refusal = parse_provider_error(
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.2.image.source.base64: image exceeds 5 MB maximum: 15908784 bytes > 5242880 bytes"}}"#,
    )
    .unwrap();
    let runs: [(&str, (f64, usize)); 3] = [
        (
            "with a stash",
            longest_stretch(|p| {
                let out = block_on(fit_values(
                    stashing(
                        FitCall::new(&profile, FitOptions::default(), &codec, p),
                        stash_at(&backend, &config),
                    ),
                    nine_images(),
                    None,
                ));
                let report = out.unwrap().report;
                assert!(report.fits);
                assert_eq!(report.changed, 9);
            }),
        ),
        (
            "without a stash",
            longest_stretch(|p| {
                let out = block_on(fit_values(
                    FitCall::<MemoryBackend, _>::new(&profile, FitOptions::default(), &codec, p),
                    nine_images(),
                    None,
                ));
                assert!(out.unwrap().report.fits);
            }),
        ),
        (
            "repairing",
            longest_stretch(|p| {
                let out = block_on(repair_values(
                    RepairCall::new(
                        &refusal,
                        stashing(
                            FitCall::new(&profile, FitOptions::default(), &codec, p),
                            stash_at(&backend, &config),
                        ),
                    ),
                    nine_images(),
                    None,
                ));
                assert!(out.unwrap().report.fits);
            }),
        ),
    ];
    for (what, (longest, pauses)) in runs {
        assert!(
            longest < SLICE_MS + FIRST_SIGHT_MS,
            "{what}: {longest} ms without a pause"
        );
        assert!(pauses >= 8, "{what}: {pauses} pauses for 270 ms of reads");
    }
}

/// Payloads in memory that note, in order, which payloads were prepared
/// and which were hashed.
#[derive(Default)]
struct Recorded {
    log: RefCell<Vec<(&'static str, String)>>,
}

impl Payloads for Recorded {
    fn with_full(&self, s: &str, f: &mut dyn FnMut(&str)) {
        f(s)
    }
    fn facts(&self, s: &str, head_bytes: usize) -> PayloadFacts {
        self.log
            .borrow_mut()
            .push(("facts", ctxpack_core::md5_hex(s.as_bytes())));
        facts_of_text(self, s, head_bytes)
    }
    fn prepare_facts<'a>(
        &'a self,
        s: &'a str,
        _head_bytes: usize,
        _slicer: &'a Slicer<'a>,
    ) -> Pin<Box<dyn Future<Output = ()> + 'a>> {
        self.log
            .borrow_mut()
            .push(("prepare", ctxpack_core::md5_hex(s.as_bytes())));
        Box::pin(async {})
    }
}

impl ctxpack_core::tool_results::SanitizeMemo for Recorded {}

impl Recorded {
    /// The payloads hashed, each checked to have been prepared just before.
    fn hashed_after_preparing(&self) -> usize {
        let log = self.log.borrow();
        let hashed: Vec<usize> = (0..log.len()).filter(|&i| log[i].0 == "facts").collect();
        for &i in &hashed {
            assert!(
                i > 0 && log[i - 1] == ("prepare", log[i].1.clone()),
                "payload {} hashed without being prepared: {:?}",
                log[i].1,
                &log[..=i]
            );
        }
        hashed.len()
    }
}

#[test]
fn every_payload_fitting_compaction_and_expansion_hash_is_prepared_first() {
    let backend = MemoryBackend::default();
    let config = StashConfig::default();
    let fitting = Recorded::default();
    let out = block_on(fit_values(
        stashing(
            FitCall::new(
                &model_profile("claude-sonnet-4-5"),
                FitOptions::default(),
                &Codec::default(),
                &fitting,
            ),
            stash_at(&backend, &config),
        ),
        nine_images(),
        None,
    ));
    assert!(out.unwrap().report.fits);
    assert_eq!(fitting.hashed_after_preparing(), 9);

    let compacting = Recorded::default();
    let stash = MemoryBackend::default();
    let access = || StashAccess {
        backend: &stash,
        config: &config,
        now: 1.0e12,
    };
    let out = block_on(
        CompactCall::new(access(), CompactOptions::default(), &compacting)
            .run_values(nine_images(), None),
    )
    .unwrap();
    assert_eq!(out.report.stashed, 8);
    assert_eq!(compacting.hashed_after_preparing(), 8);

    // Putting the originals back checks each one's MD5.
    let expanding = Recorded::default();
    let back = block_on(expand_values(access(), out.messages, None, &expanding)).unwrap();
    assert_eq!(back.report.restored, 8);
    assert_eq!(expanding.hashed_after_preparing(), 8);
}

/// Texts held outside wasm memory, as the boundary holds a tool result's
/// payloads (reference `i` of table 0 stands for `texts[i]`), noting which
/// were prepared and which were hashed.
struct HeldRecorded {
    texts: Vec<String>,
    log: Recorded,
}

impl Payloads for HeldRecorded {
    fn with_full(&self, s: &str, f: &mut dyn FnMut(&str)) {
        match find_external_ref(s) {
            Some((_, 0, i)) => f(&self.texts[i as usize]),
            _ => f(s),
        }
    }
    fn facts(&self, s: &str, head_bytes: usize) -> PayloadFacts {
        self.log
            .log
            .borrow_mut()
            .push(("facts", ctxpack_core::md5_hex(s.as_bytes())));
        facts_of_text(self, s, head_bytes)
    }
    fn prepare_facts<'a>(
        &'a self,
        s: &'a str,
        head_bytes: usize,
        slicer: &'a Slicer<'a>,
    ) -> Pin<Box<dyn Future<Output = ()> + 'a>> {
        self.log.prepare_facts(s, head_bytes, slicer)
    }
}

impl ctxpack_core::tool_results::SanitizeMemo for HeldRecorded {}

#[test]
fn every_payload_sanitizing_hashes_is_prepared_first() {
    let texts = vec![b64(PNG), b64(JPEG), b64(WEBP)];
    let payloads = HeldRecorded {
        texts: texts.clone(),
        log: Recorded::default(),
    };
    let value = serde_json::json!({
        "screenshot": { "data": external_ref(0, 0) },
        "pages": [format!("data:image/jpeg;base64,{}", external_ref(0, 1))],
        "imageBase64": external_ref(0, 2),
    });
    let mut targets = [Target {
        value,
        path: JsonPath::root("result"),
        changed: false,
        holds_references: true,
    }];
    let stash = MemoryBackend::default();
    let (report, _) = block_on(sanitize_targets(
        Some(&stash),
        &StashConfig::default(),
        1.0e12,
        &mut targets,
        &SanitizeOptions {
            threshold_bytes: 100,
            ..SanitizeOptions::default()
        },
        OnWriteFailure::KeepInline,
        &payloads,
    ));
    assert_eq!(report.stashed, 3);
    assert_eq!(payloads.log.hashed_after_preparing(), 3);
    // Each marker names the MD5 of the held text.
    let out = ToString::to_string(&targets[0].value);
    for text in &texts {
        assert!(out.contains(&format!("history_{}", md5(text))), "{out}");
    }
}
