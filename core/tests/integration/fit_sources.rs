//! Fitting what cameras and other programs really write: photos stored
//! turned with an EXIF orientation, formats a model does not take, and the
//! rule that a re-encode is never larger than the original it replaces.

use crate::common;
use crate::common::calls::*;

use common::codec::Codec;
use common::*;
use ctxpack_core::budget::model_profile;
use ctxpack_core::fit::{Action, FitCall, FitOptions, Reason, StashAccess};
use ctxpack_core::media::{decode_base64, image_dimensions, InMemory};
use ctxpack_core::stash::{MemoryBackend, StashBackend, StashConfig};
use image::{ImageFormat, Rgb, RgbImage};
use serde_json::{json, Value};
use std::io::Cursor;

fn encode(img: &RgbImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, format).unwrap();
    out.into_inner()
}

/// A JPEG stored `w`×`h` whose stored left quarter is red and the rest
/// blue, with an APP1 Exif segment giving `orientation`.
fn turned_jpeg(w: u32, h: u32, orientation: u16) -> Vec<u8> {
    turned_jpeg_at(w, h, orientation, 75)
}

/// [`turned_jpeg`] at JPEG `quality`, with grain so that quality shows in
/// the bytes.
fn turned_jpeg_at(w: u32, h: u32, orientation: u16, quality: u8) -> Vec<u8> {
    let mut s = 99u32;
    let img = RgbImage::from_fn(w, h, |x, _| {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let grain = (s >> 27) as u8;
        if x < w / 4 {
            Rgb([220 - grain, 20 + grain, 20])
        } else {
            Rgb([20 + grain, 20, 220 - grain])
        }
    });
    let mut plain = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut plain, quality)
        .encode_image(&img)
        .unwrap();
    with_orientation(&plain, orientation)
}

/// `jpeg` with an APP1 Exif segment giving `orientation` after its SOI.
fn with_orientation(plain: &[u8], orientation: u16) -> Vec<u8> {
    // Big-endian TIFF with one SHORT entry: Orientation.
    let mut exif = b"Exif\0\0MM\0*\0\0\0\x08\0\x01".to_vec();
    exif.extend_from_slice(&[0x01, 0x12, 0, 3, 0, 0, 0, 1]);
    exif.extend_from_slice(&orientation.to_be_bytes());
    exif.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
    let mut out = plain[..2].to_vec();
    out.extend_from_slice(&[0xff, 0xe1]);
    out.extend_from_slice(&u16::try_from(exif.len() + 2).unwrap().to_be_bytes());
    out.extend_from_slice(&exif);
    out.extend_from_slice(&plain[2..]);
    out
}

fn part(mime: &str, bytes: &[u8]) -> Value {
    json!({"type": "image", "source": {"type": "base64", "media_type": mime, "data": b64(bytes)}})
}

/// An older turn holding `image`, then a question.
fn history_with(mime: &str, image: &[u8]) -> Vec<Value> {
    vec![
        json!({"role": "user", "content": [part(mime, image), {"type": "text", "text": "this one"}]}),
        json!({"role": "assistant", "content": "noted"}),
        json!({"role": "user", "content": "and now?"}),
    ]
}

fn first_image(values: &[Value]) -> (String, Vec<u8>) {
    let source = &values[0]["content"][0]["source"];
    (
        source["media_type"].as_str().unwrap().to_owned(),
        decode_base64(source["data"].as_str().unwrap()).unwrap(),
    )
}

/// `values` fitted to `model` through the codec, with originals going to
/// `backend` when there is one.
fn fit(
    backend: Option<&MemoryBackend>,
    model: &str,
    values: Vec<Value>,
) -> ctxpack_core::history::Outcome<ctxpack_core::fit::FitReport> {
    let config = StashConfig::default();
    let stash = backend.map(|backend| StashAccess {
        backend,
        config: &config,
        now: 1.0e12,
    });
    block_on(fit_values(
        stashing(
            FitCall::new(
                &model_profile(model),
                FitOptions::default(),
                &Codec::default(),
                &InMemory,
            ),
            stash,
        ),
        values,
        None,
    ))
    .unwrap()
}

#[test]
fn a_phone_portrait_is_measured_as_shown_and_sent_upright() {
    // Stored landscape 1600×1200, shown portrait 1200×1600 (orientation 6:
    // turn 90° clockwise, so the stored left quarter is the shown top).
    let photo = turned_jpeg(1600, 1200, 6);
    let backend = MemoryBackend::default();
    let out = fit(Some(&backend), "gpt-4o", history_with("image/jpeg", &photo));
    let fit = &out.report.images[0];
    let before = fit.before.as_ref().unwrap();
    assert_eq!(
        (before.width, before.height, before.orientation),
        (1200, 1600, Some(6))
    );
    assert_eq!(fit.action, Action::Downscaled, "{fit:?}");
    // GPT-4o reads it with its short side at 768: 768×1024, portrait.
    let after = fit.after.as_ref().unwrap();
    assert_eq!(
        (after.width, after.height, after.orientation),
        (768, 1024, None)
    );
    assert!(fit.reasons.contains(&Reason::ExifOrientation));
    let scale = fit.scale.unwrap();
    assert!((scale.x - 1200.0 / 768.0).abs() < 1e-9 && (scale.y - 1600.0 / 1024.0).abs() < 1e-9);
    let (_, sent) = first_image(&out.messages);
    let pixels = image::load_from_memory(&sent).unwrap().into_rgb8();
    assert_eq!(pixels.dimensions(), (768, 1024));
    let top = pixels.get_pixel(384, 40).0;
    let bottom = pixels.get_pixel(384, 1000).0;
    assert!(
        top[0] > 150 && top[2] < 100,
        "the top is the red edge: {top:?}"
    );
    assert!(bottom[2] > 150 && bottom[0] < 100, "{bottom:?}");
    // The original, turned as it was, waits in the stash.
    let md5 = fit.id.as_deref().unwrap().strip_prefix("history_").unwrap();
    let rec = block_on(backend.get_record(md5)).unwrap().unwrap();
    assert_eq!(decode_base64(&rec.payload).unwrap(), photo);
}

#[test]
fn every_orientation_reads_as_shown() {
    for o in 1..=8u16 {
        let dims = image_dimensions(&turned_jpeg(64, 32, o)).unwrap();
        let want = if o >= 5 { (32, 64) } else { (64, 32) };
        assert_eq!((dims.width, dims.height), want, "orientation {o}");
    }
}

#[test]
fn a_small_turned_photo_is_made_upright_only_when_that_is_not_larger() {
    // Within every limit of Claude: only the turn asks for a change.
    // A camera's quality-95 JPEG: upright at 85 is smaller, and goes.
    let out = fit(
        None,
        "claude-sonnet-4-5",
        history_with("image/jpeg", &turned_jpeg_at(400, 300, 8, 95)),
    );
    let fit_95 = &out.report.images[0];
    assert_eq!(fit_95.reasons, vec![Reason::ExifOrientation]);
    assert_eq!(fit_95.action, Action::Reencoded, "{fit_95:?}");
    let (before, after) = (
        fit_95.before.as_ref().unwrap(),
        fit_95.after.as_ref().unwrap(),
    );
    assert!(after.bytes < before.bytes);
    assert_eq!(
        (after.width, after.height, after.orientation, after.quality),
        (300, 400, None, Some(85))
    );
    // A quality-20 JPEG written by the codec's own encoder: no upright
    // encoding at 85 or 70 is smaller, so it goes as stored, turned by its
    // EXIF orientation, with a note.
    let small = ctxpack_codec::transcode(
        &turned_jpeg_at(400, 300, 1, 95),
        ctxpack_codec::Request {
            width: 400,
            height: 300,
            format: ctxpack_codec::OutputFormat::Jpeg { quality: 20 },
        },
    )
    .unwrap();
    let photo = with_orientation(&small.bytes, 8);
    let out = fit(
        None,
        "claude-sonnet-4-5",
        history_with("image/jpeg", &photo),
    );
    let fit_30 = &out.report.images[0];
    assert_eq!(fit_30.action, Action::Kept, "{fit_30:?}");
    assert_eq!(fit_30.after, fit_30.before);
    assert!(fit_30.note.as_deref().unwrap().contains("EXIF orientation"));
    assert_eq!(first_image(&out.messages).1, photo);
}

#[test]
fn a_format_the_model_does_not_take_is_converted_and_its_original_kept() {
    let drawing = RgbImage::from_fn(300, 200, |x, y| {
        if (x / 20 + y / 20) % 2 == 0 {
            Rgb([250, 250, 250])
        } else {
            Rgb([10, 120, 10])
        }
    });
    let bmp = encode(&drawing, ImageFormat::Bmp);
    let backend = MemoryBackend::default();
    let out = fit(
        Some(&backend),
        "claude-sonnet-4-5",
        history_with("image/bmp", &bmp),
    );
    let fit = &out.report.images[0];
    assert_eq!(fit.reasons, vec![Reason::UnsupportedFormat], "{fit:?}");
    assert_eq!(fit.action, Action::Reencoded);
    let (mime, sent) = first_image(&out.messages);
    assert_eq!(mime, "image/png", "a lossless drawing stays lossless");
    assert_eq!(
        image::load_from_memory(&sent).unwrap().into_rgb8(),
        drawing,
        "PNG keeps every pixel"
    );
    assert!(out.report.fits);
    let md5 = fit.id.as_deref().unwrap().strip_prefix("history_").unwrap();
    let rec = block_on(backend.get_record(md5)).unwrap().unwrap();
    assert_eq!(decode_base64(&rec.payload).unwrap(), bmp);
    assert_eq!(rec.mime, "image/bmp");
}

#[test]
fn what_cannot_be_decoded_fails_with_a_code_and_stays() {
    // A HEIC header the codec cannot decode: for Claude it must change.
    let mut heic = vec![0, 0, 0, 0x18];
    heic.extend_from_slice(b"ftypheic\0\0\0\0mif1heic");
    heic.extend_from_slice(&[0; 64]);
    let values = history_with("image/heic", &heic);
    let out = fit(None, "claude-sonnet-4-5", values.clone());
    // Without an `ispe` box there are no dimensions to plan with: left
    // alone, and the message is the caller's own.
    assert_eq!(out.messages, values);
    // With dimensions the plan converts it, and the codec's failure is
    // reported with its code.
    heic.extend_from_slice(&[0, 0, 0, 0x14]);
    heic.extend_from_slice(b"ispe\0\0\0\0");
    heic.extend_from_slice(&640u32.to_be_bytes());
    heic.extend_from_slice(&480u32.to_be_bytes());
    let values = history_with("image/heic", &heic);
    let out = fit(None, "claude-sonnet-4-5", values.clone());
    let fit = &out.report.images[0];
    assert_eq!(fit.action, Action::Failed);
    assert_eq!(fit.reasons, vec![Reason::UnsupportedFormat]);
    assert!(
        fit.note
            .as_deref()
            .unwrap()
            .starts_with("IMAGE_DECODE_FAILED"),
        "{fit:?}"
    );
    assert_eq!(out.messages, values);
    assert!(!out.report.fits);
    assert_eq!(
        out.report.problems,
        vec!["messages[0].content[0] is image/heic, which the model does not take, and could not be converted"]
    );
}
