//! The module's exports: `transcodeImage`, and a trap for the tests of the
//! JavaScript entries' recovery.

use crate::{transcode, OutputFormat, Request};
use js_sys::{Error, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

/// The same allocator as the main module's: Talc, smaller than dlmalloc.
#[cfg(feature = "allocator")]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// Decodes `bytes`, resizes to `width`×`height` (the image as shown: the
/// codec applies its EXIF orientation) and encodes as `mime` (`image/jpeg`
/// at `quality`, or `image/png`). Returns `{data: Uint8Array, width,
/// height, mime, sourceWidth, sourceHeight, orientation}` (the source's
/// size as shown and the EXIF orientation applied, 1–8); throws an `Error`
/// whose `code` is `IMAGE_DECODE_FAILED`, `IMAGE_RESIZE_FAILED`,
/// `IMAGE_ENCODE_FAILED` or `INVALID_OPTION`.
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
    let set = |key: &str, value: JsValue| {
        let _ = Reflect::set(&obj, &key.into(), &value);
    };
    set("data", data.into());
    set("width", out.width.into());
    set("height", out.height.into());
    set("mime", out.mime.into());
    set("sourceWidth", out.source_width.into());
    set("sourceHeight", out.source_height.into());
    set("orientation", out.orientation.into());
    Ok(obj)
}

/// Traps (a WebAssembly `unreachable`) after allocating `leak_mb` MiB that
/// are never freed: what a failed allocation or a bug in a decoder leaves
/// behind. Exists so the tests can check that the JavaScript entries replace
/// an instance after a trap; nothing else calls it.
#[doc(hidden)]
#[wasm_bindgen(js_name = __trapForTests)]
pub fn trap_for_tests(leak_mb: u32) {
    let held = vec![1u8; (leak_mb as usize) << 20];
    std::hint::black_box(&held);
    std::process::abort();
}

/// The bytes of the instance's linear memory, for the same tests.
#[doc(hidden)]
#[wasm_bindgen(js_name = __memoryBytesForTests)]
pub fn memory_bytes_for_tests() -> f64 {
    (core::arch::wasm32::memory_size(0) * 65536) as f64
}
