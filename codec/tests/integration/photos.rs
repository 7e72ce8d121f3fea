//! Real photos' quirks: CMYK and YCCK JPEGs, shrink-on-load against a full
//! decode, progressive JPEGs, 16-bit PNGs.

use crate::support;

use ctxpack_codec::{transcode, Encoded, OutputFormat, Request};
use image::imageops::FilterType;
use image::{DynamicImage, RgbImage};
use jpeg_encoder::{ColorType, Encoder};
use support::*;

fn fit(bytes: &[u8], width: u32, height: u32) -> Encoded {
    transcode(
        bytes,
        Request {
            width,
            height,
            format: OutputFormat::Png,
        },
    )
    .unwrap()
}

fn rgb_of(out: &Encoded) -> RgbImage {
    image::load_from_memory(&out.bytes).unwrap().into_rgb8()
}

/// A JPEG of CMYK pixels (0 = no ink), written Adobe-style by `jpeg-encoder`.
fn cmyk_jpeg(width: u16, height: u16, cmyk: [u8; 4], color: ColorType) -> Vec<u8> {
    let pixels: Vec<u8> = (0..usize::from(width) * usize::from(height))
        .flat_map(|_| cmyk)
        .collect();
    let mut out = Vec::new();
    Encoder::new(&mut out, 95)
        .encode(&pixels, width, height, color)
        .unwrap();
    out
}

#[test]
fn cmyk_and_ycck_jpegs_keep_their_colours() {
    // Magenta + yellow ink is red; cyan + magenta is blue; K darkens.
    let cases = [
        ([0, 255, 255, 0], [255, 0, 0]),
        ([255, 255, 0, 0], [0, 0, 255]),
        ([0, 0, 0, 128], [127, 127, 127]),
        ([0, 0, 0, 0], [255, 255, 255]),
    ];
    for color in [ColorType::Cmyk, ColorType::CmykAsYcck] {
        for (cmyk, rgb) in cases {
            let file = cmyk_jpeg(64, 48, cmyk, color);
            for (w, h) in [(64, 48), (16, 12)] {
                let got = rgb_of(&fit(&file, w, h)).get_pixel(w / 2, h / 2).0;
                assert!(
                    near(got, rgb, 8),
                    "{color:?} {cmyk:?} at {w}×{h}: {got:?}, want {rgb:?}"
                );
            }
        }
    }
}

/// The reference: a full decode (the `image` crate's own JPEG decoder) and
/// a Catmull-Rom resize.
fn full_decode_and_resize(file: &[u8], width: u32, height: u32) -> RgbImage {
    let full = image::load_from_memory(file).unwrap();
    full.resize_exact(width, height, FilterType::CatmullRom)
        .into_rgb8()
}

#[test]
fn shrink_on_load_matches_a_full_decode_and_resize() {
    let file = jpeg(&photo(2400, 1800), 90);
    // 1/2 (1200×900 decoded), 1/4 (600×450) and 1/8 (300×225) of the source.
    for (w, h) in [(1100, 825), (700, 525), (500, 375), (260, 195), (100, 75)] {
        let got = rgb_of(&fit(&file, w, h));
        let want = full_decode_and_resize(&file, w, h);
        let db = psnr(&got, &want);
        assert!(db >= 30.0, "{w}×{h}: PSNR {db:.1} dB");
    }
}

#[test]
fn shrink_on_load_keeps_odd_sizes_and_orientation() {
    let shown = marked(1001, 1333);
    let file = with_orientation(&jpeg(&stored_for(&shown, 8), 92), 8);
    let out = fit(&file, 251, 334);
    assert_eq!((out.width, out.height), (251, 334));
    let got = rgb_of(&out);
    let want = DynamicImage::ImageRgb8(shown)
        .resize_exact(251, 334, FilterType::CatmullRom)
        .into_rgb8();
    let db = psnr(&got, &want);
    assert!(db >= 25.0, "PSNR {db:.1} dB");
}

#[test]
fn a_progressive_jpeg_decodes_like_its_baseline_twin() {
    let img = photo(640, 480);
    let mut progressive = Vec::new();
    let mut encoder = Encoder::new(&mut progressive, 90);
    encoder.set_progressive(true);
    encoder
        .encode(img.as_raw(), 640, 480, ColorType::Rgb)
        .unwrap();
    let got = rgb_of(&fit(&progressive, 200, 150));
    let want = full_decode_and_resize(&progressive, 200, 150);
    assert!(psnr(&got, &want) >= 30.0);
}

#[test]
fn a_16_bit_png_is_read_at_its_colour() {
    let img = image::ImageBuffer::<image::Rgb<u16>, _>::from_pixel(
        40,
        30,
        image::Rgb([51400, 25700, 12850]),
    );
    let mut file = std::io::Cursor::new(Vec::new());
    img.write_to(&mut file, image::ImageFormat::Png).unwrap();
    let got = rgb_of(&fit(file.get_ref(), 20, 15)).get_pixel(10, 7).0;
    assert!(near(got, [200, 100, 50], 1), "{got:?}");
}
