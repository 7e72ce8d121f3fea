//! MIME sniffing and header dimensions on real images encoded by libvips
//! (`tests/fixtures/make.mjs`).

use ctxpack_core::markdown::resolve_data_url;
use ctxpack_core::media::{image_dimensions, sniff_mime, Dimensions};

const FIXTURES: &[(&str, &[u8], &str, u32, u32)] = &[
    (
        "chart.png",
        include_bytes!("../../../tests/fixtures/chart.png"),
        "image/png",
        64,
        48,
    ),
    (
        "photo.jpg",
        include_bytes!("../../../tests/fixtures/photo.jpg"),
        "image/jpeg",
        80,
        60,
    ),
    (
        "progressive.jpg",
        include_bytes!("../../../tests/fixtures/progressive.jpg"),
        "image/jpeg",
        41,
        29,
    ),
    (
        "anim.gif",
        include_bytes!("../../../tests/fixtures/anim.gif"),
        "image/gif",
        32,
        24,
    ),
    (
        "shot.webp",
        include_bytes!("../../../tests/fixtures/shot.webp"),
        "image/webp",
        50,
        40,
    ),
    (
        "lossless.webp",
        include_bytes!("../../../tests/fixtures/lossless.webp"),
        "image/webp",
        33,
        17,
    ),
];

#[test]
fn sniffs_type_and_reads_dimensions_of_real_images() {
    for (name, bytes, mime, w, h) in FIXTURES {
        assert_eq!(sniff_mime(bytes), Some(*mime), "{name}");
        assert_eq!(
            image_dimensions(bytes),
            Some(Dimensions {
                width: *w,
                height: *h
            }),
            "{name}"
        );
    }
}

#[test]
fn data_urls_of_real_images_resolve_with_corrected_types() {
    use base64::Engine;
    for (name, bytes, mime, w, h) in FIXTURES {
        let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
        // Declared as PNG: right for the PNG, corrected for the others.
        let r = resolve_data_url(&format!("data:image/png;base64,{b64}")).unwrap();
        assert_eq!(r.mime, *mime, "{name}");
        assert_eq!(r.bytes, bytes.len(), "{name}");
        assert_eq!(
            r.dimensions,
            Some(Dimensions {
                width: *w,
                height: *h
            }),
            "{name}"
        );
        assert_eq!(r.declared_mime.is_some(), *mime != "image/png", "{name}");
    }
}
