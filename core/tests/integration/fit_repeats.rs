//! Fitting a request that shows the same image more than once, and several
//! images in one message: each image is resized once, its original is
//! stashed once with the shape of every part that showed it, and every part
//! gets the resized image in its own shape.

use crate::common;
use crate::common::calls::*;

use common::codec::Codec;
use common::*;
use ctxpack_core::budget::model_profile;
use ctxpack_core::fit::{Action, FitCall, FitOptions, StashAccess};
use ctxpack_core::media::{decode_base64, image_dimensions, InMemory};
use ctxpack_core::stash::{MemoryBackend, StashBackend, StashConfig};
use image::{ImageFormat, Rgb, RgbImage};
use serde_json::{json, Value};
use std::io::Cursor;

/// A photo-like PNG of `w`×`h`, different for each `seed`.
fn photo(w: u32, h: u32, seed: u32) -> Vec<u8> {
    let img = RgbImage::from_fn(w, h, |x, y| {
        Rgb([
            (x * 255 / w) as u8 ^ (seed as u8),
            (y * 255 / h) as u8,
            ((x + y + seed) % 256) as u8,
        ])
    });
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, ImageFormat::Png).unwrap();
    out.into_inner()
}

fn block(png: &[u8]) -> Value {
    json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(png)}})
}

#[test]
fn a_repeated_image_is_resized_and_stashed_once_and_every_part_gets_it() {
    let (a, b, c) = (
        photo(2400, 1600, 1),
        photo(2400, 1600, 2),
        photo(2400, 1600, 3),
    );
    let mut a_cached = block(&a);
    a_cached["cache_control"] = json!({"type": "ephemeral"});
    let values = vec![
        json!({"role": "user", "content": [block(&a), {"type": "text", "text": "and"}, block(&b)]}),
        json!({"role": "assistant", "content": "noted"}),
        json!({"role": "user", "content": [a_cached, {"type": "text", "text": "again"}]}),
        json!({"role": "assistant", "content": "the same one"}),
        json!({"role": "user", "content": [block(&c), {"type": "text", "text": "and now?"}]}),
    ];
    let backend = MemoryBackend::default();
    let config = StashConfig::default();
    let codec = Codec::default();
    let out = block_on(fit_values(
        FitCall::new(
            &model_profile("claude-sonnet-4-5"),
            FitOptions::default(),
            &codec,
            &InMemory,
        )
        .with_stash(StashAccess {
            backend: &backend,
            config: &config,
            now: 1.0e12,
        }),
        values,
        None,
    ))
    .unwrap();
    assert!(out.report.fits, "{:?}", out.report.problems);
    assert_eq!(codec.calls.get(), 3, "A is resized once for both its parts");
    assert_eq!(out.changed, [true, false, true, false, true]);
    let actions: Vec<Action> = out.report.images.iter().map(|i| i.action).collect();
    assert_eq!(actions, [Action::Downscaled; 4]);

    // Every part holds its resized image, in its own shape.
    let data = |m: usize, p: usize| {
        out.messages[m]["content"][p]["source"]["data"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (a0, b0, a2, c4) = (data(0, 0), data(0, 2), data(2, 0), data(4, 0));
    assert_eq!(a0, a2, "both parts of A get the one resized A");
    assert!(a0 != b0 && a0 != c4 && b0 != c4);
    for payload in [&a0, &b0, &c4] {
        let dims = image_dimensions(&decode_base64(payload).unwrap()).unwrap();
        assert!(dims.width <= 1568, "{dims:?}");
    }
    assert_eq!(
        out.messages[2]["content"][0]["cache_control"]["type"],
        "ephemeral"
    );
    assert_eq!(out.messages[0]["content"][1]["text"], "and");

    // One record per original, A's with the shape of both its parts.
    let id = |png: &[u8]| md5(&b64(png));
    let ids: Vec<Option<String>> = out.report.images.iter().map(|i| i.id.clone()).collect();
    let history = |png: &[u8]| Some(format!("history_{}", id(png)));
    assert_eq!(ids, [history(&a), history(&b), history(&a), history(&c)]);
    let metas = block_on(backend.list_meta()).unwrap();
    assert_eq!(metas.len(), 3);
    let parts = |png: &[u8]| {
        let record = block_on(backend.get_record(&id(png))).unwrap().unwrap();
        assert_eq!(record.payload, b64(png), "the original is kept");
        match serde_json::from_str::<Value>(&record.part.unwrap()).unwrap() {
            Value::Array(templates) => templates.len(),
            _ => 1,
        }
    };
    assert_eq!((parts(&a), parts(&b), parts(&c)), (2, 1, 1));
}
