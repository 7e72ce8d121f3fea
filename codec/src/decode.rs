//! Bytes to pixels, with what the file says about showing them: its EXIF
//! orientation and its ICC colour profile.

use crate::decoded::{orientation_in, to_eight_bits, Decoded};
use crate::limits::{check_source, image_limits, MAX_ALLOC};
use crate::{jpeg, sniff, CodecError};
use image::metadata::Orientation;
use image::{DynamicImage, ImageDecoder, ImageError, ImageReader};
use std::io::Cursor;

/// Decodes `bytes`. `shown` is the size the image will be shown at (upright):
/// a JPEG is decoded at the smallest of 1/8, 1/4, 1/2 or full scale that is
/// still at least that large, which is most of the work saved when a camera
/// original is fitted to a model.
pub fn decode(bytes: &[u8], shown: (u32, u32)) -> Result<Decoded, CodecError> {
    if let Some(format) = sniff::undecodable_format(bytes) {
        return Err(CodecError::UnsupportedFormat(format));
    }
    if bytes.starts_with(&[0xFF, 0xD8]) {
        return jpeg::decode(bytes, shown);
    }
    decode_with_image(bytes)
}

/// Decodes any format the `image` crate reads here (PNG, GIF's first frame,
/// WebP's first frame, BMP, TIFF), within the limits.
fn decode_with_image(bytes: &[u8]) -> Result<Decoded, CodecError> {
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| CodecError::Decode(e.to_string()))?;
    reader.limits(image_limits());
    let mut decoder = reader.into_decoder().map_err(decode_error)?;
    let (width, height) = decoder.dimensions();
    check_source(width, height)?;
    if decoder.total_bytes() > MAX_ALLOC {
        return Err(CodecError::TooLarge {
            width,
            height,
            limit: format!("at most {MAX_ALLOC} bytes of pixels"),
        });
    }
    // Metadata that cannot be read is metadata the image does not have.
    // A WebP's EXIF orientation is not applied: browsers (Chromium among
    // them) show WebP as stored, and ctxpack's core measures it so, so the
    // image sent is the one the user saw, on every path.
    let webp = bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP";
    let orientation = match decoder.orientation() {
        _ if webp => Orientation::NoTransforms,
        Ok(Orientation::NoTransforms) | Err(_) => decoder
            .exif_metadata()
            .ok()
            .flatten()
            .and_then(|exif| orientation_in(&exif))
            .unwrap_or(Orientation::NoTransforms),
        Ok(found) => found,
    };
    let icc = decoder.icc_profile().ok().flatten();
    let image = DynamicImage::from_decoder(decoder).map_err(decode_error)?;
    Ok(Decoded {
        image: to_eight_bits(image),
        orientation,
        icc,
        stored: (width, height),
    })
}

fn decode_error(e: ImageError) -> CodecError {
    match e {
        ImageError::Limits(l) => {
            CodecError::Decode(format!("the image is larger than the codec decodes: {l}"))
        }
        other => CodecError::Decode(other.to_string()),
    }
}
