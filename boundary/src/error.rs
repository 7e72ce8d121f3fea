//! `CtxpackError`: a real JavaScript `Error` whose prototype chain runs
//! through the exported `CtxpackError` class, so `instanceof CtxpackError` and
//! `instanceof Error` both hold, with a stable `code` and the JSON `path` of
//! the offending value.

use ctxpack_core::{CodedError, ErrorCode};
use js_sys::{Object, Reflect};
use std::cell::OnceCell;
use wasm_bindgen::prelude::*;

/// The class JavaScript sees. Instances are made by ctxpack, never by `new`.
#[wasm_bindgen(js_name = CtxpackError, skip_typescript)]
pub struct CtxpackErrorClass {
    _private: u8,
}

/// `CtxpackErrorCode`, generated from the core's one list of codes.
#[wasm_bindgen(typescript_custom_section)]
const CTXPACK_ERROR_CODE_TS: &str = ctxpack_core::ERROR_CODE_TYPESCRIPT;

#[wasm_bindgen(typescript_custom_section)]
const CTXPACK_ERROR_TS: &'static str = r#"
/**
 * The one error ctxpack throws: a real `Error` subclass with a stable `code`
 * and, when the error is about one value of the input, its JSON `path`
 * (e.g. `messages[3].content[1].image_url.url`). `cause` keeps the original
 * exception (a `DOMException`, an adapter's error) where there was one.
 */
export class CtxpackError extends Error {
  private constructor();
  readonly name: "CtxpackError";
  readonly code: CtxpackErrorCode;
  readonly path?: string;
  readonly cause?: unknown;
}
"#;

thread_local! {
    static PROTOTYPE: OnceCell<Object> = const { OnceCell::new() };
}

/// `CtxpackError.prototype`, re-parented onto `Error.prototype` the first time.
fn prototype() -> Object {
    PROTOTYPE.with(|cell| {
        cell.get_or_init(|| {
            let probe: JsValue = CtxpackErrorClass { _private: 0 }.into();
            let proto = Object::get_prototype_of(&probe);
            let error_proto = Object::get_prototype_of(&js_sys::Error::new(""));
            Object::set_prototype_of(&proto, &error_proto);
            proto
        })
        .clone()
    })
}

/// An error on its way to JavaScript.
#[derive(Debug)]
pub struct CtxpackError {
    code: ErrorCode,
    message: String,
    path: Option<String>,
    cause: Option<JsValue>,
}

impl CtxpackError {
    /// An error with a code and message and no path.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        CtxpackError {
            code,
            message: message.into(),
            path: None,
            cause: None,
        }
    }

    /// An `INVALID_ARGUMENT` error about the value at `path`.
    pub fn invalid_argument(path: impl Into<String>, message: impl Into<String>) -> Self {
        CtxpackError::new(ErrorCode::InvalidArgument, message).at(path)
    }

    /// An `INVALID_OPTION` error about the option at `path`.
    pub fn invalid_option(path: impl Into<String>, message: impl Into<String>) -> Self {
        CtxpackError::new(ErrorCode::InvalidOption, message).at(path)
    }

    /// Sets the JSON path.
    pub fn at(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// Keeps the original exception.
    pub fn caused_by(mut self, cause: JsValue) -> Self {
        self.cause = Some(cause);
        self
    }

    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The human-readable message (with the path in front, when there is one).
    pub fn message(&self) -> String {
        match &self.path {
            Some(p) if !self.message.starts_with(p.as_str()) => format!("{p}: {}", self.message),
            _ => self.message.clone(),
        }
    }
}

impl CtxpackError {
    /// A core error with its code, text and path.
    fn coded(e: &(impl CodedError + std::fmt::Display)) -> Self {
        CtxpackError {
            code: e.code(),
            message: e.to_string(),
            path: e.path().map(str::to_owned),
            cause: None,
        }
    }
}

impl From<ctxpack_core::messages::MessageError> for CtxpackError {
    fn from(e: ctxpack_core::messages::MessageError) -> Self {
        CtxpackError::coded(&e)
    }
}

impl From<ctxpack_core::body::BodyError> for CtxpackError {
    fn from(e: ctxpack_core::body::BodyError) -> Self {
        CtxpackError::coded(&e)
    }
}

impl From<ctxpack_core::OptionError> for CtxpackError {
    fn from(e: ctxpack_core::OptionError) -> Self {
        CtxpackError::invalid_option(e.path, e.message)
    }
}

impl From<ctxpack_core::stash::StashError> for CtxpackError {
    fn from(e: ctxpack_core::stash::StashError) -> Self {
        let cause = e
            .cause
            .and_then(|c| c.downcast::<JsValue>().ok())
            .map(|b| *b);
        CtxpackError {
            code: e.kind.code(),
            message: e.message,
            path: None,
            cause,
        }
    }
}

impl From<CtxpackError> for JsValue {
    fn from(e: CtxpackError) -> JsValue {
        let err = js_sys::Error::new(&e.message());
        err.set_name("CtxpackError");
        let obj: &Object = err.as_ref();
        Object::set_prototype_of(obj, &prototype());
        let _ = Reflect::set(obj, &"code".into(), &e.code.as_str().into());
        if let Some(p) = &e.path {
            let _ = Reflect::set(obj, &"path".into(), &p.as_str().into());
        }
        if let Some(c) = e.cause {
            let _ = Reflect::set(obj, &"cause".into(), &c);
        }
        err.into()
    }
}

/// The `CtxpackError` for an error the extras module reports as
/// `{code, message, path}` (the package's entry throws it), so that every
/// error ctxpack throws is of the one class. An unknown code is `INTERNAL`.
#[wasm_bindgen(js_name = __ctxpackError, skip_typescript)]
pub fn ctxpack_error_js(code: &str, message: String, path: Option<String>) -> JsValue {
    let e = CtxpackError::new(
        ErrorCode::from_text(code).unwrap_or(ErrorCode::Internal),
        message,
    );
    match path.filter(|p| !p.is_empty()) {
        Some(p) => e.at(p),
        None => e,
    }
    .into()
}
