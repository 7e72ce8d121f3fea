//! Real images for the fitting tests (screenshots, photos, noise), the
//! Anthropic conversations that hold them, and the stash they fit against.

use super::b64;
use ctxpack_core::fit::StashAccess;
use ctxpack_core::media::{decode_base64, image_dimensions, Dimensions};
use ctxpack_core::stash::{MemoryBackend, StashConfig};
use image::{ImageFormat, Rgb, RgbImage};
use serde_json::{json, Value};
use std::io::Cursor;

/// A screenshot: white, with dark lines of "text" and a coloured bar.
pub fn screenshot(w: u32, h: u32, seed: u32) -> Vec<u8> {
    let img = RgbImage::from_fn(w, h, |x, y| {
        if y < 40 {
            Rgb([40, 90, (seed * 37 % 255) as u8])
        } else if (y / 18) % 2 == 0 && (x / 7 + y / 18 + seed) % 5 != 0 && x % 900 < 700 {
            Rgb([30, 30, 30])
        } else {
            Rgb([255, 255, 255])
        }
    });
    encode(img, ImageFormat::Png)
}

/// A photo-like PNG: gradients with grain, which a smaller size compresses better.
pub fn photo(w: u32, h: u32, seed: u32) -> Vec<u8> {
    let mut s = seed.wrapping_add(7);
    let img = RgbImage::from_fn(w, h, |x, y| {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let grain = (s >> 28) as u8;
        Rgb([
            (x * 255 / w) as u8 ^ grain,
            (y * 255 / h) as u8,
            ((x + y) % 256) as u8 ^ grain,
        ])
    });
    encode(img, ImageFormat::Png)
}

/// Noise: the largest PNG for its size.
pub fn noise_png(w: u32, h: u32) -> Vec<u8> {
    let mut s = 12345u32;
    let img = RgbImage::from_fn(w, h, |_, _| {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let b = s.to_le_bytes();
        Rgb([b[1], b[2], b[3]])
    });
    encode(img, ImageFormat::Png)
}

pub fn encode(img: RgbImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, format).unwrap();
    out.into_inner()
}

pub fn image_part(png: &[u8]) -> Value {
    json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(png)}})
}

/// One user turn per image, answered; then a last question with `newest`.
pub fn conversation(images: &[Vec<u8>], newest: &[Vec<u8>]) -> Vec<Value> {
    let mut m = Vec::new();
    for (i, png) in images.iter().enumerate() {
        m.push(json!({"role": "user", "content": [image_part(png), {"type": "text", "text": format!("step {i}")}]}));
        m.push(json!({"role": "assistant", "content": "noted"}));
    }
    let mut last: Vec<Value> = newest.iter().map(|p| image_part(p)).collect();
    last.push(json!({"type": "text", "text": "and now?"}));
    m.push(json!({"role": "user", "content": last}));
    m
}

/// Each Anthropic image block's dimensions and base64 length.
pub fn images_of(values: &[Value]) -> Vec<(Dimensions, usize)> {
    let mut out = Vec::new();
    for m in values {
        for part in m["content"].as_array().into_iter().flatten() {
            if part["type"] == "image" {
                let payload = part["source"]["data"].as_str().unwrap();
                let bytes = decode_base64(payload).unwrap();
                out.push((image_dimensions(&bytes).unwrap(), payload.len()));
            }
        }
    }
    out
}

pub fn stash_at<'a>(
    backend: &'a MemoryBackend,
    config: &'a StashConfig,
) -> Option<StashAccess<'a, MemoryBackend>> {
    Some(StashAccess {
        backend,
        config,
        now: 1.0e12,
    })
}
