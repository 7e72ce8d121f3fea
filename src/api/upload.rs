//! The app's `upload` function as the core's [`Uploader`]: the image's
//! bytes handed to it as a `Uint8Array` with its type, id and size, its
//! answer `{id?, uri?, expiresAt?}` read back. Convert and call only.

use crate::convert::bytes::from_base64;
use crate::convert::external::Table;
use ctxpack_core::history::{Upload, UploadImage, Uploaded, Uploader};
use ctxpack_core::media::BytesKind;
use ctxpack_core::messages::FileRef;
use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

/// An upload function given by JavaScript, reading payloads through one
/// call's kept values.
pub(crate) struct JsUploader<'t> {
    /// The app's function.
    pub f: Function,
    /// Where the call's payloads are kept.
    pub table: &'t Table,
}

/// What a failed upload says: its `message`, or the value as text.
fn reason(e: JsValue) -> String {
    Reflect::get(&e, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "the upload function failed".into())
}

impl Uploader for JsUploader<'_> {
    fn upload<'a>(&'a self, image: UploadImage<'a>) -> Upload<'a> {
        Box::pin(async move {
            let text = self
                .table
                .payload(image.payload)
                .unwrap_or_else(|| JsValue::from_str(image.payload));
            let arg = Object::new();
            let set = |k: &str, v: JsValue| {
                let _ = Reflect::set(&arg, &k.into(), &v);
            };
            set("data", from_base64(&text, BytesKind::Uint8Array));
            set("mediaType", image.mime.into());
            set("md5", image.md5.into());
            set("bytes", (image.bytes as f64).into());
            let returned = self.f.call1(&JsValue::UNDEFINED, &arg).map_err(reason)?;
            let value = JsFuture::from(Promise::resolve(&returned))
                .await
                .map_err(reason)?;
            let field = |k: &str| Reflect::get(&value, &k.into()).unwrap_or(JsValue::UNDEFINED);
            Ok(Uploaded {
                file: FileRef {
                    id: field("id").as_string(),
                    uri: field("uri").as_string(),
                },
                expires_at: field("expiresAt").as_f64(),
            })
        })
    }
}
