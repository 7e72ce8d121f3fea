//! Fitting an agent loop: a model's image limit is met by stashing the
//! oldest images the model has answered (the loop's tool results), never
//! the person's prompt nor the newest screenshot.

use crate::common;
use crate::common::calls::*;
use crate::loops::{holds_placeholder, inline_in, loop_messages, loop_shapes, screenshot, STEPS};

use common::codec::Codec;
use common::*;
use ctxpack_core::budget::{model_profile, Slack};
use ctxpack_core::fit::{FitCall, FitOptions, StashAccess};
use ctxpack_core::media::InMemory;
use ctxpack_core::stash::{MemoryBackend, StashConfig};

#[test]
fn an_image_limit_stashes_the_oldest_answered_screenshots_first() {
    let mut profile = model_profile("claude-sonnet-4-5");
    profile.max_images = Some(6);
    let config = StashConfig::default();
    for shape in loop_shapes() {
        let name = shape.format.name();
        let values = loop_messages(&shape, STEPS);
        let stash = MemoryBackend::new();
        let out = block_on(fit_values(
            FitCall::new(
                &profile,
                FitOptions {
                    slack: Slack::EXACT,
                    ..FitOptions::default()
                },
                &Codec::default(),
                &InMemory,
            )
            .with_stash(StashAccess {
                backend: &stash,
                config: &config,
                now: 1.0,
            }),
            values.clone(),
            Some(shape.format),
        ))
        .unwrap();
        // 13 images, 6 allowed: the 7 oldest screenshots go.
        let (shots, mockup) = inline_in(&out.messages);
        let expected: Vec<bool> = (0..STEPS).map(|n| n >= 7).collect();
        assert_eq!(shots, expected, "{name}");
        assert!(mockup, "{name}");
        assert_eq!(out.messages[0], values[0], "{name}");
        for n in 0..7 {
            let step = out.messages[2 + 2 * n].to_string();
            assert!(holds_placeholder(&step, &screenshot(n)), "{name} {n}");
        }
    }
}
