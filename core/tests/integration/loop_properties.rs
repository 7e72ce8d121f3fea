//! Properties of the rule of history over random sessions that mix chat
//! turns and agent loops, in every format with a tool-result shape for
//! images: no image the model has not answered is replaced, the person's
//! newest message is byte-identical, every other image is history within
//! the window and the slack, and expansion restores all.

use crate::common;
use crate::common::calls::*;
use crate::loops::{holds_placeholder, loop_shapes, screenshot};

use common::*;
use ctxpack_core::budget::Slack;
use ctxpack_core::history::{CompactCall, CompactOptions};
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashConfig};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::Value;

/// One turn of a session: the person's message (with an image or not),
/// then `steps` tool calls each answered with a screenshot (0: a chat
/// turn), then the model's answer, unless the session ends before it.
#[derive(Debug, Clone)]
struct GenTurn {
    image: bool,
    steps: usize,
    answered: bool,
}

fn turn_strategy() -> impl Strategy<Value = GenTurn> {
    (
        any::<bool>(),
        prop_oneof![Just(0usize), 1..5usize],
        any::<bool>(),
    )
        .prop_map(|(image, steps, answered)| GenTurn {
            image,
            steps,
            answered,
        })
}

/// What a message of a generated session is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Person,
    Model,
    Result,
}

/// A session in the loop shape `shape`: its messages, what each is, and
/// the image each holds (every image distinct).
fn session(shape: usize, turns: &[GenTurn]) -> (Vec<Value>, Vec<Kind>, Vec<Option<Vec<u8>>>) {
    let shape = &loop_shapes()[shape];
    let (mut values, mut kinds, mut images) = (Vec::new(), Vec::new(), Vec::new());
    let mut n = 0usize;
    let last = turns.len() - 1;
    for (t, turn) in turns.iter().enumerate() {
        let image = screenshot(200 + t);
        if turn.image {
            values.push((shape.prompt)(&image));
            images.push(Some(image));
        } else {
            // The prompt without its image: its text alone.
            let mut v = (shape.prompt)(&image);
            strip_image(&mut v, &common::b64(&image));
            values.push(v);
            images.push(None);
        }
        kinds.push(Kind::Person);
        for _ in 0..turn.steps {
            values.push((shape.call)(n));
            kinds.push(Kind::Model);
            images.push(None);
            let shot = screenshot(n);
            values.push((shape.result)(n, &shot));
            kinds.push(Kind::Result);
            images.push(Some(shot));
            n += 1;
        }
        if turn.answered || t < last {
            values.push((shape.call)(100 + t));
            kinds.push(Kind::Model);
            images.push(None);
        }
    }
    (values, kinds, images)
}

/// Removes from a prompt the part (or the `images` entry, or the tuple's
/// block) holding `payload`.
fn strip_image(v: &mut Value, payload: &str) {
    let holds = |x: &Value| x.to_string().contains(payload);
    match v {
        Value::Array(items) if items.len() == 2 && items[0].is_string() => {
            strip_image(&mut items[1], payload)
        }
        Value::Array(items) => items.retain(|x| !holds(x)),
        Value::Object(map) => {
            for key in ["content", "parts", "images"] {
                if let Some(x) = map.get_mut(key) {
                    strip_image(x, payload);
                }
            }
        }
        _ => {}
    }
}

static CONFIG: std::sync::LazyLock<StashConfig> = std::sync::LazyLock::new(StashConfig::default);

fn access(stash: &MemoryBackend, now: f64) -> StashAccess<'_, MemoryBackend> {
    StashAccess {
        backend: stash,
        config: &CONFIG,
        now,
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn history_is_what_the_model_has_answered(
        shape in 0..loop_shapes().len(),
        turns in prop::collection::vec(turn_strategy(), 1..4),
        keep in 0..4usize,
        slack in any::<bool>(),
    ) {
        let (input, kinds, images) = session(shape, &turns);
        let format = loop_shapes()[shape].format;
        let slack = if slack { Slack::DEFAULT } else { Slack::EXACT };
        let options = CompactOptions { keep_recent_images: keep, slack, ..CompactOptions::default() };
        let stash = MemoryBackend::new();
        let out = block_on(
            CompactCall::new(access(&stash, 1.0), options, &ctxpack_core::media::InMemory)
                .run_values(input.clone(), Some(format)),
        )
        .unwrap();
        let person = kinds.iter().rposition(|k| *k == Kind::Person).unwrap();
        let model = kinds.iter().rposition(|k| *k == Kind::Model);
        // History: before the person's newest message, and the tool results
        // after it that the model has answered.
        let history: Vec<usize> = (0..input.len())
            .filter(|&i| images[i].is_some())
            .filter(|&i| i < person || (kinds[i] == Kind::Result && model.is_some_and(|l| i < l)))
            .collect();
        let inline_kept = slack.window(history.len(), keep);
        prop_assert_eq!(out.report.newest_user_index, Some(person));
        prop_assert_eq!(out.messages[person].to_string(), input[person].to_string());
        for (i, image) in images.iter().enumerate() {
            let Some(image) = image else { continue };
            let text = out.messages[i].to_string();
            let pos = history.iter().position(|&h| h == i);
            let stashed = pos.is_some_and(|p| p < history.len() - inline_kept);
            prop_assert_eq!(holds_placeholder(&text, image), stashed, "{} {}", format.name(), i);
            prop_assert_eq!(text.contains(&b64(image)), !stashed, "{} {}", format.name(), i);
            if !stashed {
                prop_assert_eq!(&out.messages[i], &input[i]);
            }
        }
        let back = block_on(expand_values(
            access(&stash, 2.0),
            out.messages,
            Some(format),
            &ctxpack_core::media::InMemory,
        ))
        .unwrap();
        prop_assert_eq!(back.messages, input);
    }
}
