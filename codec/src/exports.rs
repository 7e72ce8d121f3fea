//! The module's one export: `transcodeImage`.

use crate::{transcode, OutputFormat, Request};
use js_sys::{Error, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

/// The same allocator as the main module's: Talc, smaller than dlmalloc.
#[cfg(feature = "allocator")]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// Decodes `bytes`, resizes to `width`×`height` and encodes as `mime`
/// (`image/jpeg` at `quality`, or `image/png`). Resolves to
/// `{data: Uint8Array, width, height, mime}`; throws an `Error` whose `code`
/// is `IMAGE_DECODE_FAILED`, `IMAGE_RESIZE_FAILED`, `IMAGE_ENCODE_FAILED` or
/// `INVALID_OPTION`.
#[wasm_bindgen(js_name = transcodeImage)]
pub fn transcode_image(
    bytes: &[u8],
    width: u32,
    height: u32,
    mime: &str,
    quality: u8,
) -> Result<Object, JsValue> {
    let to_js = |e: crate::CodecError| -> JsValue {
        let error = Error::new(&e.to_string());
        let _ = Reflect::set(&error, &"code".into(), &e.code().into());
        error.into()
    };
    let format = OutputFormat::from_mime(mime, quality).map_err(to_js)?;
    let out = transcode(
        bytes,
        Request {
            width,
            height,
            format,
        },
    )
    .map_err(to_js)?;
    let obj = Object::new();
    let data = Uint8Array::from(out.bytes.as_slice());
    let _ = Reflect::set(&obj, &"data".into(), &data);
    let _ = Reflect::set(&obj, &"width".into(), &out.width.into());
    let _ = Reflect::set(&obj, &"height".into(), &out.height.into());
    let _ = Reflect::set(&obj, &"mime".into(), &out.mime.into());
    Ok(obj)
}
