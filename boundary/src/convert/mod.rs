//! Moving values across the boundary. Messages are read field by field into
//! JSON with long image payloads left in JavaScript (see `external`); results
//! are written back with those payloads as the very same JavaScript strings.
//! Reading is bounded in depth; writing never lets a `__proto__` key touch a
//! prototype.

pub mod body_memo;
pub mod bytes;
mod caller_strings;
pub mod external;
pub mod js_payloads;
pub mod memory;
pub mod message_memo;
mod node_host;
pub mod payload_memo;
pub mod previous_body;
mod static_key;
mod string_memo;
mod text;
mod text_memo;
pub mod text_payloads;

use self::caller_strings::{read_string, Holding};
use self::external::Table;
pub use self::static_key::static_key;
use crate::CtxpackError;
use ctxpack_core::history::Lang;
use ctxpack_core::media::KeptKind;
use ctxpack_core::messages::Format;
use js_sys::{Array, Function, JsString, Object, Reflect};
use serde::Serialize;
use serde_json::{Map, Number, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// How deep a message may nest before it is refused.
pub const MAX_DEPTH: usize = 256;

/// Strings at least this long, under a payload key or starting with `data:`,
/// stay in JavaScript.
pub const EXTERNAL_MIN: u32 = 1024;

/// Reads a JavaScript value as JSON, keeping long payloads and non-JSON
/// values in `table`. `path` names the value for errors.
pub fn from_js_kept(value: &JsValue, path: &str, table: &Table) -> Result<Value, CtxpackError> {
    read(
        value,
        &Place::Root(path),
        table,
        0,
        None,
        Holding::PayloadKeys,
    )
}

/// As [`from_js_kept`], for a value searched for binary anywhere (a tool
/// result): any long string that begins as base64 stays in JavaScript too,
/// whatever its key, so the search reads its facts a piece at a time and
/// remembers them instead of copying it into wasm memory.
pub fn from_js_kept_any_base64(
    value: &JsValue,
    path: &str,
    table: &Table,
) -> Result<Value, CtxpackError> {
    read(
        value,
        &Place::Root(path),
        table,
        0,
        None,
        Holding::AnyBase64,
    )
}

/// As [`from_js_kept`]; with `loose`, for messages whose tool results will
/// be searched for binary: any other long string that begins as base64
/// stays in JavaScript too, as loose text (`Payloads::loose_text`), which
/// the core reads in pieces where it searches and puts back as text
/// everywhere else; so does one that may be JSON text (opening `{` or `[`),
/// which the core reads only when the memo of sanitized texts cannot
/// answer for it (`Payloads::held_json`).
pub fn from_js_kept_loose(
    value: &JsValue,
    path: &str,
    table: &Table,
    loose: bool,
) -> Result<Value, CtxpackError> {
    let holding = if loose {
        Holding::Loose
    } else {
        Holding::PayloadKeys
    };
    read(value, &Place::Root(path), table, 0, None, holding)
}

/// Where a value being read sits: written out as a JSON path only when an
/// error names it, so reading a value allocates no path.
enum Place<'a> {
    /// The argument itself, by its path.
    Root(&'a str),
    /// A key of an object.
    Key(&'a Place<'a>, &'a str),
    /// An entry of an array.
    Index(&'a Place<'a>, usize),
}

impl Place<'_> {
    /// The JSON path of this place.
    fn path(&self) -> ctxpack_core::JsonPath {
        match self {
            Place::Root(path) => ctxpack_core::JsonPath::root(path),
            Place::Key(parent, key) => parent.path().key(key),
            Place::Index(parent, i) => parent.path().index(*i),
        }
    }
}

/// A JavaScript number as JSON: a whole number below 2^53 as an integer
/// (`-0` stays a float, so its sign survives), anything else as a float.
fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 && !(n == 0.0 && n.is_sign_negative())
    {
        Value::Number(Number::from(n as i64))
    } else {
        Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

fn is_plain_object(v: &JsValue) -> bool {
    let proto = Object::get_prototype_of(v);
    if proto.is_null() {
        return true;
    }
    Object::get_prototype_of(&proto).is_null()
}

/// Reads `value`, at `place` and `depth` levels deep, as JSON: strings by
/// `holding`'s rule (a long payload under `key` stays in `table`), numbers,
/// booleans, arrays and plain objects as themselves, any other object kept
/// in `table` as it is.
fn read(
    value: &JsValue,
    place: &Place<'_>,
    table: &Table,
    depth: usize,
    key: Option<&str>,
    holding: Holding,
) -> Result<Value, CtxpackError> {
    if depth > MAX_DEPTH {
        return Err(CtxpackError::new(
            ctxpack_core::ErrorCode::InvalidMessage,
            format!("nested more than {MAX_DEPTH} levels deep"),
        )
        .at(place.path().as_str()));
    }
    if value.is_null() || value.is_undefined() {
        return Ok(Value::Null);
    }
    // Strings and objects, what messages are made of, are asked for first:
    // each question is a call into JavaScript.
    if let Some(s) = value.dyn_ref::<JsString>() {
        return Ok(read_string(s, key, holding, table));
    }
    if !value.is_object() {
        if let Some(b) = value.as_bool() {
            return Ok(Value::Bool(b));
        }
        if let Some(n) = value.as_f64() {
            return Ok(number(n));
        }
    }
    if Array::is_array(value) {
        return read_array(value.unchecked_ref(), place, table, depth, key, holding);
    }
    // Not a function (`typeof` "function" is no object), and neither bytes
    // nor any other class's instance: those have a prototype before
    // `Object.prototype`.
    if value.is_object() && is_plain_object(value) {
        return read_object(value.unchecked_ref(), place, table, depth, holding);
    }
    Ok(kept(value, table))
}

/// Reads the array `arr` (at `place`, under `key`) entry by entry.
fn read_array(
    arr: &Array,
    place: &Place<'_>,
    table: &Table,
    depth: usize,
    key: Option<&str>,
    holding: Holding,
) -> Result<Value, CtxpackError> {
    let mut out = Vec::with_capacity(arr.length() as usize);
    // Entries of an Ollama `images` array are payloads like keyed ones.
    let item_key = key.filter(|k| *k == "images");
    for (i, item) in arr.iter().enumerate() {
        out.push(read(
            &item,
            &Place::Index(place, i),
            table,
            depth + 1,
            item_key,
            holding,
        )?);
    }
    Ok(Value::Array(out))
}

/// Reads the plain object `obj` (at `place`) by its own string keys,
/// leaving out the properties that are undefined, functions or symbols.
fn read_object(
    obj: &Object,
    place: &Place<'_>,
    table: &Table,
    depth: usize,
    holding: Holding,
) -> Result<Value, CtxpackError> {
    let mut map = Map::new();
    for js_key in Object::keys(obj).iter() {
        let Some(k) = js_key.as_string() else {
            continue;
        };
        let v = Reflect::get(obj, &js_key).unwrap_or(JsValue::UNDEFINED);
        if v.is_undefined() || v.is_function() || v.is_symbol() {
            continue;
        }
        let child = read(
            &v,
            &Place::Key(place, &k),
            table,
            depth + 1,
            Some(&k),
            holding,
        )?;
        map.insert(k, child);
    }
    Ok(Value::Object(map))
}

/// A value JSON cannot hold, kept in `table` as it is and read as its
/// reference: bytes (read as base64 when an image needs them), dates, URLs,
/// class instances, big integers.
fn kept(value: &JsValue, table: &Table) -> Value {
    let kind = match bytes::bytes_kind(value) {
        Some(b) => KeptKind::Bytes(b),
        None => KeptKind::Opaque,
    };
    Value::String(table.keep_as(value.clone(), kind))
}

/// Writes JSON back as JavaScript, references of `table` resolved to the
/// values they stand for.
pub fn to_js_kept(value: &Value, table: &Table) -> JsValue {
    match value {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(n) => JsValue::from_f64(n.as_f64().unwrap_or(0.0)),
        Value::String(s) => table.resolve(s).unwrap_or_else(|| JsValue::from_str(s)),
        Value::Array(items) => items
            .iter()
            .map(|v| to_js_kept(v, table))
            .collect::<Array>()
            .into(),
        Value::Object(map) => {
            let obj = Object::new();
            for (k, v) in map {
                set_own(&obj, k, &to_js_kept(v, table));
            }
            obj.into()
        }
    }
}

/// Sets an own data property, even for `__proto__` (which plain assignment
/// would turn into a prototype change).
fn set_own(obj: &Object, key: &str, value: &JsValue) {
    if key == "__proto__" {
        let desc = Object::new();
        let _ = Reflect::set(&desc, &"value".into(), value);
        let _ = Reflect::set(&desc, &"writable".into(), &JsValue::TRUE);
        let _ = Reflect::set(&desc, &"enumerable".into(), &JsValue::TRUE);
        let _ = Reflect::set(&desc, &"configurable".into(), &JsValue::TRUE);
        let _ = Reflect::define_property(obj, &JsValue::from_str(key), &desc);
    } else {
        let _ = Reflect::set(obj, &JsValue::from_str(key), value);
    }
}

/// A result as a JavaScript value: its JSON form, parsed (objects as plain
/// objects, `None` as `null`; fields that are absent when `None` are
/// skipped by their type). One string crosses and `JSON.parse` builds the
/// whole value, where setting each field from wasm would cross once a
/// field.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    serde_json::to_string(value)
        .ok()
        .and_then(|json| js_sys::JSON::parse(&json).ok())
        .unwrap_or(JsValue::NULL)
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
    if value.is_null_or_undefined() {
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
    /// The raw value of `key` (`undefined` when absent or when reading it throws).
    pub fn get(&self, key: &'static str) -> JsValue {
        match &self.obj {
            Some(o) => Reflect::get(o, &static_key(key)).unwrap_or(JsValue::UNDEFINED),
            None => JsValue::UNDEFINED,
        }
    }

    /// The JSON path of option `key`.
    pub fn path_of(&self, key: &str) -> String {
        format!("{}.{key}", self.path)
    }

    /// An optional string option.
    pub fn string(&self, key: &'static str) -> Result<Option<String>, CtxpackError> {
        let v = self.get(key);
        if v.is_null_or_undefined() {
            return Ok(None);
        }
        v.as_string().map(Some).ok_or_else(|| {
            CtxpackError::invalid_option(
                self.path_of(key),
                format!("expected a string, got {}", js_type(&v)),
            )
        })
    }

    /// The `format` option: a message format's name, or absent.
    pub fn format(&self) -> Result<Option<Format>, CtxpackError> {
        match self.string("format")? {
            Some(name) => Ok(Some(Format::from_name(&name, &self.path_of("format"))?)),
            None => Ok(None),
        }
    }

    /// The `lang` option: `"en"` (the default) or `"zh"`.
    pub fn lang(&self) -> Result<Lang, CtxpackError> {
        match self.string("lang")? {
            None => Ok(Lang::En),
            Some(name) => Lang::from_name(&name).ok_or_else(|| {
                CtxpackError::invalid_option(
                    self.path_of("lang"),
                    format!(
                        "unknown language {}; expected 'en' or 'zh'",
                        ctxpack_core::quoted(&name)
                    ),
                )
            }),
        }
    }

    /// An optional nested options object (`INVALID_OPTION` when it is not one).
    pub fn object(&self, key: &'static str) -> Result<Option<Options>, CtxpackError> {
        let v = self.get(key);
        if v.is_null_or_undefined() {
            return Ok(None);
        }
        if !v.is_object() || Array::is_array(&v) {
            return Err(CtxpackError::invalid_option(
                self.path_of(key),
                format!("expected an object, got {}", js_type(&v)),
            ));
        }
        Ok(Some(Options {
            obj: Some(v),
            path: self.path_of(key),
        }))
    }

    /// An optional array option (`INVALID_OPTION` when it is not one).
    pub fn array(&self, key: &'static str) -> Result<Option<Array>, CtxpackError> {
        let v = self.get(key);
        if v.is_null_or_undefined() {
            return Ok(None);
        }
        if !Array::is_array(&v) {
            return Err(CtxpackError::invalid_option(
                self.path_of(key),
                format!("expected an array, got {}", js_type(&v)),
            ));
        }
        Ok(Some(v.unchecked_into()))
    }

    /// An optional boolean option.
    pub fn bool(&self, key: &'static str) -> Result<Option<bool>, CtxpackError> {
        let v = self.get(key);
        if v.is_null_or_undefined() {
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
    pub fn number(&self, key: &'static str) -> Result<Option<f64>, CtxpackError> {
        let v = self.get(key);
        if v.is_null_or_undefined() {
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
    pub fn function(&self, key: &'static str) -> Result<Option<Function>, CtxpackError> {
        let v = self.get(key);
        if v.is_null_or_undefined() {
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
