//! `historyImageTool`: the `get_history_image` tool definition in a model
//! API's dialect, and `historyImageTexts`: what an answer of the tool says
//! besides the image. It lives in this module, not the main one, because it is
//! pure and synchronous and only apps that offer the tool call it: the main
//! module stays within its size budget.

use js_sys::{Object, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// The tool definition for `dialect` (the name of a format that has one:
/// `'openai'`, `'anthropic'`, `'mcp'`, `'openai-responses'`, `'gemini-interactions'`): `{ok: definition}`, or `{error: {code, message, path}}` for
/// another value (`historyImageTool` in the package is this, unwrapped).
#[wasm_bindgen(js_name = historyImageTool, skip_typescript)]
pub fn history_image_tool_js(dialect: JsValue) -> JsValue {
    let out = Object::new();
    let set = |target: &Object, k: &str, v: &JsValue| {
        let _ = Reflect::set(target, &JsValue::from_str(k), v);
    };
    let name = dialect.as_string().unwrap_or_default();
    match ctxpack_core::history::Dialect::from_name(&name) {
        Some(d) => set(
            &out,
            "ok",
            &ctxpack_core::history::history_image_tool(d)
                .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
                .unwrap_or(JsValue::NULL),
        ),
        None => {
            let error = Object::new();
            set(
                &error,
                "code",
                &ctxpack_core::ErrorCode::InvalidArgument.as_str().into(),
            );
            set(
                &error,
                "message",
                &format!(
                    "expected {}",
                    ctxpack_core::history::Dialect::expected_names()
                )
                .into(),
            );
            set(&error, "path", &"dialect".into());
            set(&out, "error", &error);
        }
    }
    out.into()
}

/// The texts of a `get_history_image` answer about image `id` (any string):
/// `{placeholder, found, missing}`, `placeholder` null when `id` is no image
/// id (`historyImageTexts` in the package).
#[wasm_bindgen(js_name = historyImageTexts, skip_typescript)]
pub fn history_image_texts_js(id: JsValue) -> JsValue {
    let id = id.as_string().unwrap_or_default();
    ctxpack_core::history::answer_texts(&id)
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or(JsValue::NULL)
}

/// Whether the AI SDK provider `provider` (a language model's `provider`
/// field; anything but a string is none) sends a tool result's `file`
/// parts as images: the core's rule, for the AI SDK adapter (the package
/// binds it as `__aiSdkToolResultsTakeFiles`).
#[wasm_bindgen(js_name = aiSdkToolResultsTakeFiles, skip_typescript)]
pub fn ai_sdk_tool_results_take_files_js(provider: JsValue) -> bool {
    ctxpack_core::history::ai_sdk_tool_result_takes_images(provider.as_string().as_deref())
}
