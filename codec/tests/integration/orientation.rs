//! EXIF orientation: the size asked for is the image as shown, and the
//! result is upright with no orientation left in it.

use crate::support;

use ctxpack_codec::{transcode, OutputFormat, Request};
use support::*;

fn fit(bytes: &[u8], width: u32, height: u32, format: OutputFormat) -> ctxpack_codec::Encoded {
    transcode(
        bytes,
        Request {
            width,
            height,
            format,
        },
    )
    .unwrap()
}

fn assert_upright(bytes: &[u8], width: u32, height: u32, what: &str) {
    let img = image::load_from_memory(bytes).unwrap().into_rgb8();
    assert_eq!(img.dimensions(), (width, height), "{what}");
    let at = |x: u32, y: u32| img.get_pixel(x, y).0;
    let (x0, x1, y0, y1) = (width / 8, width * 7 / 8, height / 8, height * 7 / 8);
    assert!(
        near(at(x0, y0), TOP_LEFT, 30),
        "{what}: top-left {:?}",
        at(x0, y0)
    );
    assert!(
        near(at(x1, y0), TOP_RIGHT, 30),
        "{what}: top-right {:?}",
        at(x1, y0)
    );
    assert!(
        near(at(x0, y1), BOTTOM_LEFT, 30),
        "{what}: bottom-left {:?}",
        at(x0, y1)
    );
    assert!(
        near(at(x1, y1), REST, 30),
        "{what}: bottom-right {:?}",
        at(x1, y1)
    );
}

#[test]
fn a_jpeg_stored_1600_by_1200_comes_out_upright_for_all_eight_orientations() {
    for orientation in 1..=8u8 {
        let swapped = orientation >= 5;
        let shown = if swapped {
            marked(1200, 1600)
        } else {
            marked(1600, 1200)
        };
        let stored = stored_for(&shown, orientation);
        assert_eq!(stored.dimensions(), (1600, 1200));
        let file = with_orientation(&jpeg(&stored, 92), u16::from(orientation));
        let (w, h) = if swapped { (600, 800) } else { (800, 600) };
        for format in [OutputFormat::Png, OutputFormat::Jpeg { quality: 90 }] {
            let out = fit(&file, w, h, format);
            assert_eq!((out.width, out.height), (w, h));
            assert_eq!(out.orientation, orientation);
            assert_eq!(
                (out.source_width, out.source_height),
                shown.dimensions(),
                "the source as shown"
            );
            assert_upright(
                &out.bytes,
                w,
                h,
                &format!("orientation {orientation}, {format:?}"),
            );
            let mut decoder = image::ImageReader::new(std::io::Cursor::new(&out.bytes))
                .with_guessed_format()
                .unwrap()
                .into_decoder()
                .unwrap();
            use image::ImageDecoder;
            assert_eq!(
                decoder.orientation().unwrap(),
                image::metadata::Orientation::NoTransforms,
                "no orientation is written"
            );
        }
    }
}

#[test]
fn an_orientation_at_full_size_turns_without_resampling() {
    let shown = marked(120, 160);
    let file = with_orientation(&jpeg(&stored_for(&shown, 6), 95), 6);
    let out = fit(&file, 120, 160, OutputFormat::Png);
    assert_upright(&out.bytes, 120, 160, "orientation 6 at full size");
}

#[test]
fn a_missing_or_invalid_orientation_is_upright_as_stored() {
    let shown = marked(160, 120);
    for file in [jpeg(&shown, 92), with_orientation(&jpeg(&shown, 92), 9)] {
        let out = fit(&file, 80, 60, OutputFormat::Png);
        assert_eq!(out.orientation, 1);
        assert_upright(&out.bytes, 80, 60, "no orientation");
    }
}
