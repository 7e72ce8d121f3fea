//! `routeArtifact`: which part an artifact becomes for a model's
//! capabilities. It lives in this module, not the main one, because it is
//! pure and synchronous and only some apps call it: the main module stays
//! within its size budget, and the module holding it is instantiated
//! alongside the main one in browsers and required on first use in Node.
//!
//! The function returns `{ok: result}` or `{error: {code, message, path}}`;
//! the package's entry throws the error as the main module's
//! `CtxpackError`, so every error ctxpack throws is of the one class.

use ctxpack_core::history::Lang;
use ctxpack_core::messages::Format;
use ctxpack_core::tool_results::{route_artifact, Artifact, ArtifactBody, Capabilities};
use ctxpack_core::{quoted, CodedError, ErrorCode};
use js_sys::{Array, Function, Object, Reflect, Uint8Array};
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// An argument error on its way to the entry, which throws it as a
/// `CtxpackError`.
struct ArgError {
    code: ErrorCode,
    message: String,
    path: String,
}

impl ArgError {
    fn new(code: ErrorCode, path: &str, message: String) -> ArgError {
        ArgError {
            code,
            message,
            path: path.to_owned(),
        }
    }

    fn coded(e: &dyn CodedError) -> ArgError {
        ArgError {
            code: e.code(),
            message: e.to_string(),
            path: e.path().unwrap_or_default().to_owned(),
        }
    }
}

/// `"a string"`, `"null"`, `"an array"`: what a value is, for messages.
fn js_type(v: &JsValue) -> String {
    if v.is_null() {
        "null".into()
    } else if Array::is_array(v) {
        "an array".into()
    } else {
        v.js_typeof()
            .as_string()
            .unwrap_or_else(|| "unknown".into())
    }
}

fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// The string at `obj[key]`, absent when undefined or null; `code` at
/// `path` when it is something else.
fn string_at(
    obj: &JsValue,
    key: &str,
    code: ErrorCode,
    path: &str,
) -> Result<Option<String>, ArgError> {
    let v = get(obj, key);
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.as_string().map(Some).ok_or_else(|| {
        ArgError::new(
            code,
            path,
            format!("expected a string, got {}", js_type(&v)),
        )
    })
}

/// The capabilities object, or the function returning it (a registry
/// lookup); a lookup that throws, or anything not an object, has none.
fn read_capabilities(caps: &JsValue) -> Capabilities {
    let caps = match caps.dyn_ref::<Function>() {
        Some(f) => match f.call0(&JsValue::UNDEFINED) {
            Ok(v) => v,
            Err(_) => return Capabilities::default(),
        },
        None => caps.clone(),
    };
    if !caps.is_object() {
        return Capabilities::default();
    }
    let flag = |k: &str| get(&caps, k).as_bool().unwrap_or(false);
    Capabilities {
        vision: flag("vision"),
        file: flag("file"),
        audio: flag("audio"),
        video: flag("video"),
    }
}

fn read_artifact(artifact: &JsValue) -> Result<Artifact, ArgError> {
    if !artifact.is_object() {
        return Err(ArgError::new(
            ErrorCode::InvalidArgument,
            "artifact",
            format!("expected an object, got {}", js_type(artifact)),
        ));
    }
    let field = |k: &str| {
        string_at(
            artifact,
            k,
            ErrorCode::InvalidArgument,
            &format!("artifact.{k}"),
        )
    };
    let id = field("id")?.ok_or_else(|| {
        ArgError::new(
            ErrorCode::InvalidArgument,
            "artifact.id",
            "an artifact needs a string `id`".into(),
        )
    })?;
    let bytes = get(artifact, "bytes");
    let body =
        if bytes.is_instance_of::<Uint8Array>() || bytes.is_instance_of::<js_sys::ArrayBuffer>() {
            ArtifactBody::Bytes(Uint8Array::new(&bytes).to_vec())
        } else if let Some(t) = field("text")? {
            ArtifactBody::Text(t)
        } else if let Some(b) = field("base64")? {
            ArtifactBody::Base64(b)
        } else {
            return Err(ArgError::new(
                ErrorCode::InvalidArgument,
                "artifact",
                "an artifact needs `bytes`, `base64` or `text`".into(),
            ));
        };
    Ok(Artifact {
        id,
        filename: field("filename")?,
        mime_type: field("mimeType")?,
        body,
    })
}

/// The `lang` and `format` options.
fn read_options(options: &JsValue) -> Result<(Lang, Format), ArgError> {
    if options.is_undefined() || options.is_null() {
        return Ok((Lang::En, Format::DEFAULT));
    }
    if !options.is_object() {
        return Err(ArgError::new(
            ErrorCode::InvalidArgument,
            "options",
            format!("options must be an object, got {}", js_type(options)),
        ));
    }
    let lang = match string_at(options, "lang", ErrorCode::InvalidOption, "options.lang")? {
        None => Lang::En,
        Some(name) => Lang::from_name(&name).ok_or_else(|| {
            ArgError::new(
                ErrorCode::InvalidOption,
                "options.lang",
                format!("unknown language {}; expected 'en' or 'zh'", quoted(&name)),
            )
        })?,
    };
    let format = match string_at(
        options,
        "format",
        ErrorCode::InvalidOption,
        "options.format",
    )? {
        None => Format::DEFAULT,
        Some(name) => {
            Format::from_name(&name, "options.format").map_err(|e| ArgError::coded(&e))?
        }
    };
    Ok((lang, format))
}

/// Routes `artifact` for `capabilities` (an object or a function returning
/// one); `{ok: RouteResult}` or `{error: {code, message, path}}` (see the
/// module docs; `routeArtifact` in the package is this, unwrapped).
#[wasm_bindgen(js_name = routeArtifact, skip_typescript)]
pub fn route_artifact_js(artifact: JsValue, capabilities: JsValue, options: JsValue) -> JsValue {
    let routed = read_artifact(&artifact).and_then(|a| {
        let (lang, format) = read_options(&options)?;
        Ok(route_artifact(
            &a,
            read_capabilities(&capabilities),
            format,
            lang == Lang::Zh,
        ))
    });
    let out = Object::new();
    let set = |k: &str, v: &JsValue| {
        let _ = Reflect::set(&out, &JsValue::from_str(k), v);
    };
    match routed {
        Ok(result) => set(
            "ok",
            &result
                .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
                .unwrap_or(JsValue::NULL),
        ),
        Err(e) => {
            let error = Object::new();
            let _ = Reflect::set(&error, &"code".into(), &e.code.as_str().into());
            let _ = Reflect::set(&error, &"message".into(), &e.message.into());
            let _ = Reflect::set(&error, &"path".into(), &e.path.into());
            set("error", &error);
        }
    }
    out.into()
}
