//! JSON values: the message model every module works on.
//!
//! A small, order-preserving JSON model in the spirit of `crate::json::Value`
//! (the same variants, accessors and number semantics) without the serde
//! machinery behind it: objects keep their keys in insertion order in a
//! plain list (messages have a handful of keys; lookups are linear), numbers
//! are an unsigned, a negative or a floating-point value, and text goes in and
//! out through [`from_str`] and [`to_string`].

mod macros;
mod map;
mod number;
mod parse;
mod value;
mod write;

pub use map::Map;
pub use number::Number;
pub use parse::{from_slice, from_str, ParseError};
pub use value::Value;
pub use write::{escaped_len, quoted, text_len, to_string, write_value};

/// Types that have a JSON form: the results handed back to JavaScript,
/// and whatever `json!` is given (taken by reference, as `serde_json`'s
/// macro takes it).
pub trait ToJson {
    /// This value as JSON.
    fn to_json(&self) -> Value;
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn to_json(&self) -> Value {
        (**self).to_json()
    }
}

impl<T: ToJson> ToJson for [T] {
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(ToJson::to_json).collect())
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn to_json(&self) -> Value {
        self.as_slice().to_json()
    }
}

impl<T: ToJson> ToJson for Option<T> {
    /// The value, or `null` for `None`.
    fn to_json(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToJson::to_json)
    }
}

impl ToJson for str {
    fn to_json(&self) -> Value {
        Value::String(self.to_owned())
    }
}

macro_rules! to_json_by_from {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn to_json(&self) -> Value {
                Value::from(self.clone())
            }
        }
    )*};
}
to_json_by_from!(Value, Map, String, bool, f64, u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

#[cfg(test)]
mod tests;
