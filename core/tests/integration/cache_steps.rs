//! Evictions in steps keep a provider's prompt cache: over a session in
//! which the app re-sends its originals and one new image arrives a turn,
//! the turns that change a message before the previous request's newest
//! turn are at most one per step (plus one), every request still fits, and
//! a limit on images is met with the headroom of its batch.

use crate::common::calls::*;
use crate::common::{b64, block_on};
use ctxpack_core::budget::{RequestLimits, Slack};
use ctxpack_core::history::{CompactCall, CompactOptions, CompactReport, Outcome};
use ctxpack_core::media::InMemory;
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashConfig};
use proptest::prelude::*;
use serde_json::{json, Value};

/// The session's turn `i`: a user message with an image of `size` bytes
/// (its bytes unique to the turn) and the assistant's answer.
fn turn(i: usize, size: usize) -> [Value; 2] {
    let mut bytes = vec![(i % 251) as u8; size.max(8)];
    bytes[..8].copy_from_slice(&(i as u64).to_le_bytes());
    [
        json!({"role":"user","content":[
            {"type":"text","text": format!("step {i}")},
            {"type":"image_url","image_url":{"url": format!("data:image/png;base64,{}", b64(&bytes))}}
        ]}),
        json!({"role":"assistant","content": format!("done {i}")}),
    ]
}

/// Compacts every turn of a session of `sizes.len()` turns with `options`
/// (the app re-sending its originals); returns each turn's outcome.
fn session(sizes: &[usize], options: CompactOptions) -> Vec<Outcome<CompactReport>> {
    let stash = MemoryBackend::new();
    let config = StashConfig::default();
    let mut originals = Vec::new();
    let mut outcomes = Vec::new();
    for (i, &size) in sizes.iter().enumerate() {
        originals.extend(turn(i, size));
        // The request ends with the newest user message.
        let request = originals[..originals.len() - 1].to_vec();
        let access = StashAccess {
            backend: &stash,
            config: &config,
            now: 1e12 + i as f64,
        };
        let out = block_on(CompactCall::new(access, options, &InMemory).run_values(request, None))
            .unwrap();
        outcomes.push(out);
    }
    outcomes
}

/// The turns (after the first) that change a message the previous request
/// held before its newest turn.
fn turns_changing_the_prefix(outcomes: &[Outcome<CompactReport>]) -> usize {
    outcomes
        .windows(2)
        .filter(|w| {
            let before = w[0].report.newest_user_index.unwrap_or(0);
            w[0].messages[..before] != w[1].messages[..before]
        })
        .count()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        ..ProptestConfig::default()
    })]

    #[test]
    fn a_window_drops_its_images_in_steps(
        sizes in prop::collection::vec(64usize..600, 2..40),
        keep in 1usize..6,
        step in 1usize..10,
    ) {
        let options = CompactOptions {
            keep_recent_images: keep,
            slack: Slack { images: step, headroom_permille: 0 },
            ..CompactOptions::default()
        };
        let outcomes = session(&sizes, options);
        let turns = sizes.len() - 1;
        prop_assert!(turns_changing_the_prefix(&outcomes) <= turns.div_ceil(step) + 1);
        for out in &outcomes {
            prop_assert!(out.report.kept <= keep + step);
        }
        // The newest turn is never touched.
        for out in &outcomes {
            let n = out.report.newest_user_index.unwrap();
            prop_assert!(out.messages[n]["content"][1]["image_url"].is_object());
        }
    }

    #[test]
    fn a_limit_is_met_with_headroom_in_batches(
        sizes in prop::collection::vec(64usize..600, 2..60),
        max_images in 3usize..30,
        headroom in 1u16..=500,
        bytes_limit in prop::option::of(6_000u64..40_000),
    ) {
        let slack = Slack { images: 4, headroom_permille: headroom };
        let limits = RequestLimits {
            max_images: Some(max_images),
            max_image_bytes: None,
            max_request_bytes: bytes_limit,
        };
        let options = CompactOptions {
            keep_recent_images: 1000,
            limits: Some(limits),
            slack,
            ..CompactOptions::default()
        };
        let outcomes = session(&sizes, options);
        let turns = sizes.len() - 1;
        let batch = slack.batch(Some(max_images));
        prop_assert!(turns_changing_the_prefix(&outcomes) <= turns.div_ceil(batch) + 1);
        for out in &outcomes {
            // Every request fits: its images and, when it can, its bytes.
            let bytes: u64 = out.messages.iter().map(|m| m.to_string().len() as u64).sum::<u64>()
                + out.messages.len() as u64 + 1;
            if out.report.fits {
                prop_assert!(out.report.kept <= max_images);
                if let Some(b) = bytes_limit {
                    prop_assert!(bytes <= b, "{} > {}", bytes, b);
                }
            } else {
                // Only when even stashing every history image leaves it over.
                prop_assert_eq!(out.report.kept, 1);
            }
        }
        if bytes_limit.is_none() {
            assert_image_headroom(&outcomes, max_images, batch)?;
        }
    }
}

/// The headroom a limit on images alone is met with, over a session that
/// brings one image a turn: turn `t` holds `t + 1` images. While they fit,
/// none is stashed. Past the limit, a whole batch goes at once and no
/// more: a batch fewer stashed would be over the limit. So a turn that
/// stashes a new batch (and changes the prefix) leaves `batch - 1` images
/// to spare, which the next `batch - 1` turns fill by only appending.
fn assert_image_headroom(
    outcomes: &[Outcome<CompactReport>],
    max_images: usize,
    batch: usize,
) -> Result<(), TestCaseError> {
    for (t, out) in outcomes.iter().enumerate() {
        let images = t + 1;
        let kept = out.report.kept;
        if images <= max_images {
            prop_assert_eq!(kept, images, "turn {}: nothing stashed while it fits", t);
        } else {
            prop_assert!(kept <= max_images, "turn {}: {} > {}", t, kept, max_images);
            prop_assert!(
                kept + batch > max_images,
                "turn {}: {} kept, more than a batch of {} below {}",
                t,
                kept,
                batch,
                max_images
            );
        }
    }
    for (t, w) in outcomes.windows(2).enumerate() {
        let before = w[0].report.newest_user_index.unwrap_or(0);
        if w[0].messages[..before] != w[1].messages[..before] {
            prop_assert_eq!(
                max_images - w[1].report.kept,
                batch - 1,
                "turn {}: the headroom after a batch",
                t + 1
            );
        }
    }
    Ok(())
}

#[test]
fn exact_slack_is_one_image_a_turn() {
    let sizes = [100; 12];
    let options = CompactOptions {
        keep_recent_images: 3,
        slack: Slack::EXACT,
        ..CompactOptions::default()
    };
    // Each turn from the fifth slides the window by one.
    assert_eq!(turns_changing_the_prefix(&session(&sizes, options)), 12 - 4);
    let stepped = CompactOptions {
        slack: Slack {
            images: 4,
            headroom_permille: 0,
        },
        ..options
    };
    assert_eq!(turns_changing_the_prefix(&session(&sizes, stepped)), 2);
}

/// An agent's turn `i`: a user message with an image, a tool call whose
/// result is JSON text holding a generated image's base64, and an answer.
fn agent_turn(i: usize) -> [Value; 4] {
    let [user, _] = turn(i, 200);
    let mut generated = vec![(i % 7) as u8; 12_000];
    generated[..8].copy_from_slice(&(i as u64 + 1000).to_le_bytes());
    let result = json!({"ok": true, "image": format!("data:image/png;base64,{}", b64(&generated))});
    [
        user,
        json!({"role":"assistant","content":null,"tool_calls":[{"id": format!("c{i}"),"type":"function","function":{"name":"draw","arguments":"{}"}}]}),
        json!({"role":"tool","tool_call_id": format!("c{i}"),"content": result.to_string()}),
        json!({"role":"assistant","content": format!("drew {i}")}),
    ]
}

#[test]
fn sanitized_tool_results_and_collapsed_text_change_a_message_the_same_way_every_turn() {
    let options = CompactOptions {
        sanitize_tool_results: true,
        collapse_text: true,
        ..CompactOptions::default()
    };
    let stash = MemoryBackend::new();
    let config = StashConfig::default();
    let mut originals: Vec<Value> = Vec::new();
    let mut kept: Vec<Value> = Vec::new();
    let mut outcomes = Vec::new();
    for i in 0..8 {
        let t = agent_turn(i);
        originals.extend(t.iter().cloned());
        kept.extend(t.iter().cloned());
        let access = StashAccess {
            backend: &stash,
            config: &config,
            now: 1e12 + i as f64,
        };
        // The app that re-sends its originals, and the one that keeps what
        // ctxpack gave it: the same request either way.
        let request = originals[..originals.len() - 3].to_vec();
        let out = block_on(CompactCall::new(access, options, &InMemory).run_values(request, None))
            .unwrap();
        let again = kept[..kept.len() - 3].to_vec();
        let from_kept =
            block_on(CompactCall::new(access, options, &InMemory).run_values(again, None)).unwrap();
        assert_eq!(from_kept.messages, out.messages, "turn {i}");
        if i > 0 {
            assert!(out.report.binaries_stashed > 0 && out.report.stashed > 0);
        }
        kept = out.messages.clone();
        kept.extend(originals[originals.len() - 3..].iter().cloned());
        outcomes.push(out);
    }
    assert_eq!(turns_changing_the_prefix(&outcomes), 0);
}

/// A byte limit counts the request as JSON text, the commas between its
/// messages and its brackets included: a session whose messages alone
/// would fill the limit exactly is compacted below it (found by the
/// property above).
#[test]
fn a_byte_limit_counts_the_commas_and_brackets() {
    let sizes = [
        394, 262, 334, 247, 130, 160, 340, 82, 142, 268, 391, 106, 532, 295,
    ];
    let limits = RequestLimits {
        max_images: Some(14),
        max_image_bytes: None,
        max_request_bytes: Some(7212),
    };
    let options = CompactOptions {
        keep_recent_images: 1000,
        limits: Some(limits),
        slack: Slack {
            images: 4,
            headroom_permille: 1,
        },
        ..CompactOptions::default()
    };
    let last = session(&sizes, options).pop().unwrap();
    let bytes: u64 = last
        .messages
        .iter()
        .map(|m| m.to_string().len() as u64)
        .sum::<u64>()
        + last.messages.len() as u64
        + 1;
    assert!(last.report.fits);
    assert!(last.report.stashed > 0, "an image had to go");
    assert!(bytes <= 7212, "{bytes} > 7212");
}
