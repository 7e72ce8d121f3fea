//! Moving values across the boundary: JavaScript values to `serde_json`
//! values and back, and reading options.

use super::CtxpackError;
use js_sys::{Array, Function, Reflect};
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Converts a JavaScript value into JSON, naming `path` when it cannot be.
pub fn from_js(value: &JsValue, path: &str) -> Result<Value, CtxpackError> {
    serde_wasm_bindgen::from_value(value.clone()).map_err(|e| {
        CtxpackError::new("INVALID_MESSAGE", format!("not a JSON value: {e}")).at(path)
    })
}

/// Converts JSON into a JavaScript value (objects as plain objects).
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, CtxpackError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| CtxpackError::new("INTERNAL", format!("could not build the result: {e}")))
}

/// The text argument, or `INVALID_ARGUMENT` at `path`.
pub fn string_arg(value: &JsValue, path: &str) -> Result<String, CtxpackError> {
    value.as_string().ok_or_else(|| {
        CtxpackError::invalid_argument(path, format!("expected a string, got {}", js_type(value)))
    })
}

/// The array argument, or `INVALID_ARGUMENT` at `path`.
pub fn array_arg(value: &JsValue, path: &str) -> Result<Array, CtxpackError> {
    if Array::is_array(value) {
        Ok(value.clone().unchecked_into())
    } else {
        Err(CtxpackError::invalid_argument(
            path,
            format!("expected an array, got {}", js_type(value)),
        ))
    }
}

/// The options object: `undefined`/`null` reads as empty; anything but an
/// object is `INVALID_ARGUMENT`.
pub fn options_arg(value: Option<&JsValue>, path: &str) -> Result<Options, CtxpackError> {
    let Some(value) = value else {
        return Ok(Options {
            obj: None,
            path: path.to_owned(),
        });
    };
    if value.is_undefined() || value.is_null() {
        return Ok(Options {
            obj: None,
            path: path.to_owned(),
        });
    }
    if !value.is_object() {
        return Err(CtxpackError::invalid_argument(
            path,
            format!("options must be an object, got {}", js_type(value)),
        ));
    }
    Ok(Options {
        obj: Some(value.clone()),
        path: path.to_owned(),
    })
}

/// An options object, read field by field with typed accessors.
pub struct Options {
    obj: Option<JsValue>,
    path: String,
}

impl Options {
    /// The raw value of `key` (`undefined` when absent).
    pub fn get(&self, key: &str) -> JsValue {
        match &self.obj {
            Some(o) => Reflect::get(o, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED),
            None => JsValue::UNDEFINED,
        }
    }

    /// The JSON path of option `key`.
    pub fn path_of(&self, key: &str) -> String {
        format!("{}.{key}", self.path)
    }

    /// An optional string option.
    pub fn string(&self, key: &str) -> Result<Option<String>, CtxpackError> {
        let v = self.get(key);
        if v.is_undefined() || v.is_null() {
            return Ok(None);
        }
        v.as_string().map(Some).ok_or_else(|| {
            CtxpackError::invalid_option(
                self.path_of(key),
                format!("expected a string, got {}", js_type(&v)),
            )
        })
    }

    /// An optional boolean option.
    pub fn bool(&self, key: &str) -> Result<Option<bool>, CtxpackError> {
        let v = self.get(key);
        if v.is_undefined() || v.is_null() {
            return Ok(None);
        }
        v.as_bool().map(Some).ok_or_else(|| {
            CtxpackError::invalid_option(
                self.path_of(key),
                format!("expected a boolean, got {}", js_type(&v)),
            )
        })
    }

    /// An optional non-negative number option.
    pub fn number(&self, key: &str) -> Result<Option<f64>, CtxpackError> {
        let v = self.get(key);
        if v.is_undefined() || v.is_null() {
            return Ok(None);
        }
        match v.as_f64() {
            Some(n) if n.is_finite() && n >= 0.0 => Ok(Some(n)),
            _ => Err(CtxpackError::invalid_option(
                self.path_of(key),
                format!("expected a non-negative number, got {}", js_type(&v)),
            )),
        }
    }

    /// An optional function option.
    pub fn function(&self, key: &str) -> Result<Option<Function>, CtxpackError> {
        let v = self.get(key);
        if v.is_undefined() || v.is_null() {
            return Ok(None);
        }
        v.dyn_into::<Function>().map(Some).map_err(|v| {
            CtxpackError::invalid_option(
                self.path_of(key),
                format!("expected a function, got {}", js_type(&v)),
            )
        })
    }
}

/// A short description of a value's type for messages.
pub fn js_type(v: &JsValue) -> String {
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
