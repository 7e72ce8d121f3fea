//! JPEG decoding with shrink-on-load: `jpeg-decoder` can run its inverse DCT
//! at 1/2, 1/4 or 1/8 scale, which skips most of the work of decoding a
//! camera original that is about to be made much smaller (libvips and
//! libjpeg do the same). The scale chosen is the largest reduction whose
//! result is still at least the requested size on both sides, so the
//! resizer always shrinks and never enlarges.

use crate::decoded::{orientation_in, swaps_sides, to_eight_bits, Decoded};
use crate::limits::{check_source, MAX_ALLOC};
use crate::CodecError;
use image::metadata::Orientation;
use image::{DynamicImage, GrayImage, ImageBuffer, Luma, RgbImage};
use jpeg_decoder::{Decoder, PixelFormat};
use std::io::Cursor;

/// Decodes a JPEG shown at `shown` (upright width×height), at the smallest
/// scale that still covers it.
pub fn decode(bytes: &[u8], shown: (u32, u32)) -> Result<Decoded, CodecError> {
    let fail = |e: jpeg_decoder::Error| CodecError::Decode(format!("JPEG: {e}"));
    let mut decoder = Decoder::new(Cursor::new(bytes));
    decoder.read_info().map_err(fail)?;
    let info = decoder
        .info()
        .ok_or_else(|| CodecError::Decode("JPEG: no frame header".into()))?;
    let (width, height) = (u32::from(info.width), u32::from(info.height));
    check_source(width, height)?;
    decoder.set_max_decoding_buffer_size(usize::try_from(MAX_ALLOC).unwrap_or(usize::MAX));
    let orientation = decoder
        .exif_data()
        .and_then(orientation_in)
        .unwrap_or(Orientation::NoTransforms);
    let icc = decoder.icc_profile();
    let (tw, th) = if swaps_sides(orientation) {
        (shown.1, shown.0)
    } else {
        shown
    };
    let (ow, oh) = choose_scale(&mut decoder, (width, height), (tw, th))?;
    let pixels = decoder.decode().map_err(fail)?;
    let (ow, oh) = (u32::from(ow), u32::from(oh));
    let wrong =
        || CodecError::Decode("JPEG: the decoder returned a buffer of the wrong size".into());
    let image = match info.pixel_format {
        PixelFormat::L8 => {
            DynamicImage::ImageLuma8(GrayImage::from_raw(ow, oh, pixels).ok_or_else(wrong)?)
        }
        PixelFormat::L16 => {
            let samples = pixels
                .chunks_exact(2)
                .map(|b| u16::from_be_bytes([b[0], b[1]]))
                .collect();
            let grey: ImageBuffer<Luma<u16>, Vec<u16>> =
                ImageBuffer::from_raw(ow, oh, samples).ok_or_else(wrong)?;
            to_eight_bits(DynamicImage::ImageLuma16(grey))
        }
        PixelFormat::RGB24 => {
            DynamicImage::ImageRgb8(RgbImage::from_raw(ow, oh, pixels).ok_or_else(wrong)?)
        }
        PixelFormat::CMYK32 => DynamicImage::ImageRgb8(
            RgbImage::from_raw(ow, oh, cmyk_to_rgb(&pixels)).ok_or_else(wrong)?,
        ),
    };
    Ok(Decoded {
        image,
        orientation,
        icc,
        stored: (width, height),
    })
}

/// Sets the decoder's scale to the largest reduction (1/8, 1/4, 1/2) that
/// is still at least `target` on both sides; returns the size it decodes to.
fn choose_scale(
    decoder: &mut Decoder<Cursor<&[u8]>>,
    full: (u32, u32),
    target: (u32, u32),
) -> Result<(u16, u16), CodecError> {
    let fail = |e: jpeg_decoder::Error| CodecError::Decode(format!("JPEG: {e}"));
    let scaled = |len: u32, eighths: u32| (len * eighths).div_ceil(8);
    let eighths = [1, 2, 4]
        .into_iter()
        .find(|&e| scaled(full.0, e) >= target.0 && scaled(full.1, e) >= target.1)
        .unwrap_or(8);
    let request = |e: u32| {
        (
            u16::try_from(scaled(full.0, e)).unwrap_or(u16::MAX),
            u16::try_from(scaled(full.1, e)).unwrap_or(u16::MAX),
        )
    };
    let (rw, rh) = request(eighths);
    let out = decoder.scale(rw, rh).map_err(fail)?;
    // The decoder picks the smallest scale that covers the request on one
    // side; if that leaves the other short, decode at full size.
    if u32::from(out.0) < target.0.min(full.0) || u32::from(out.1) < target.1.min(full.1) {
        let (fw, fh) = request(8);
        return decoder.scale(fw, fh).map_err(fail);
    }
    Ok(out)
}

/// RGB from the decoder's CMYK (it has already undone YCCK and Adobe's
/// inverted storage, so 0 is no ink). Without a CMYK profile this is the
/// naive conversion that viewers without colour management show.
fn cmyk_to_rgb(cmyk: &[u8]) -> Vec<u8> {
    let mut rgb = Vec::with_capacity(cmyk.len() / 4 * 3);
    for px in cmyk.chunks_exact(4) {
        let white = 255 - u16::from(px[3]);
        for &ink in &px[..3] {
            rgb.push(((255 - u16::from(ink)) * white / 255) as u8);
        }
    }
    rgb
}
