//! Hostile files: headers that claim huge sizes (decompression bombs),
//! headers that lie, truncations. Each is a coded error or a valid image,
//! never a panic.

use crate::support;

use ctxpack_codec::{transcode, CodecError, OutputFormat, Request};
use image::{ImageFormat, RgbImage};
use std::io::Cursor;
use support::*;

fn attempt(bytes: &[u8]) -> Result<ctxpack_codec::Encoded, CodecError> {
    transcode(
        bytes,
        Request {
            width: 64,
            height: 48,
            format: OutputFormat::Png,
        },
    )
}

fn encoded(img: &RgbImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, format).unwrap();
    out.into_inner()
}

/// `png` with its IHDR claiming `width`×`height`, CRC fixed up.
fn png_claiming(png: &[u8], width: u32, height: u32) -> Vec<u8> {
    let mut out = png.to_vec();
    out[16..20].copy_from_slice(&width.to_be_bytes());
    out[20..24].copy_from_slice(&height.to_be_bytes());
    let crc = crc32(&out[12..29]);
    out[29..33].copy_from_slice(&crc.to_be_bytes());
    out
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = (c >> 1) ^ (0xEDB8_8320 & (c & 1).wrapping_neg());
        }
    }
    !c
}

/// `jpeg` with its frame header claiming `width`×`height`.
fn jpeg_claiming(jpeg: &[u8], width: u16, height: u16) -> Vec<u8> {
    let mut out = jpeg.to_vec();
    let mut i = 2;
    while i + 9 < out.len() {
        let marker = out[i + 1];
        let len = usize::from(u16::from_be_bytes([out[i + 2], out[i + 3]]));
        if (0xC0..=0xCF).contains(&marker) && ![0xC4, 0xC8, 0xCC].contains(&marker) {
            out[i + 5..i + 7].copy_from_slice(&height.to_be_bytes());
            out[i + 7..i + 9].copy_from_slice(&width.to_be_bytes());
            return out;
        }
        i += 2 + len;
    }
    panic!("no frame header");
}

fn assert_decode_failure(result: Result<ctxpack_codec::Encoded, CodecError>, what: &str) {
    match result {
        Err(e) => assert_eq!(e.code(), "IMAGE_DECODE_FAILED", "{what}: {e}"),
        Ok(out) => panic!("{what}: decoded to {}×{}", out.width, out.height),
    }
}

/// The header check refused it (whether the codec's own or the decoder's,
/// which sees the size first for some formats).
fn assert_too_large(err: &CodecError, what: &str) {
    assert_eq!(err.code(), "IMAGE_DECODE_FAILED", "{what}");
    assert!(
        err.to_string().contains("larger than the codec decodes"),
        "{what}: {err}"
    );
}

#[test]
fn bombs_are_refused_from_the_header() {
    let png = encoded(&photo(64, 48), ImageFormat::Png);
    for (w, h) in [(16384, 16384), (100_000, 100_000), (16385, 1)] {
        let err = attempt(&png_claiming(&png, w, h)).unwrap_err();
        assert_too_large(&err, &format!("PNG {w}×{h}"));
    }
    let jpeg = jpeg(&photo(64, 48), 80);
    for (w, h) in [(65000, 65000), (16384, 16384)] {
        let err = attempt(&jpeg_claiming(&jpeg, w, h)).unwrap_err();
        assert_too_large(&err, &format!("JPEG {w}×{h}"));
    }
}

#[test]
fn headers_that_lie_within_the_limits_fail_or_decode_to_the_request() {
    let png = encoded(&photo(64, 48), ImageFormat::Png);
    let jpeg = jpeg(&photo(64, 48), 80);
    for (what, bytes) in [
        ("PNG 8000×8000", png_claiming(&png, 8000, 8000)),
        ("PNG 64×4000", png_claiming(&png, 64, 4000)),
        ("JPEG 8000×8000", jpeg_claiming(&jpeg, 8000, 8000)),
        ("JPEG 128×96", jpeg_claiming(&jpeg, 128, 96)),
    ] {
        match attempt(&bytes) {
            Ok(out) => assert_eq!((out.width, out.height), (64, 48), "{what}"),
            Err(e) => assert_eq!(e.code(), "IMAGE_DECODE_FAILED", "{what}: {e}"),
        }
    }
}

#[test]
fn every_truncation_of_every_format_is_a_coded_error_or_an_image() {
    let img = photo(64, 48);
    let files = [
        ("png", encoded(&img, ImageFormat::Png)),
        ("jpeg", jpeg(&img, 80)),
        ("gif", encoded(&img, ImageFormat::Gif)),
        ("webp", encoded(&img, ImageFormat::WebP)),
        ("bmp", encoded(&img, ImageFormat::Bmp)),
        ("tiff", encoded(&img, ImageFormat::Tiff)),
    ];
    for (what, file) in &files {
        assert!(attempt(file).is_ok(), "{what} whole");
        for cut in (0..file.len()).step_by((file.len() / 40).max(1)) {
            match attempt(&file[..cut]) {
                Ok(out) => assert_eq!((out.width, out.height), (64, 48)),
                Err(e) => assert_eq!(e.code(), "IMAGE_DECODE_FAILED", "{what} cut at {cut}: {e}"),
            }
        }
    }
    assert_decode_failure(attempt(&[]), "empty");
    assert_decode_failure(attempt(&[0xFF, 0xD8]), "a bare SOI");
}
