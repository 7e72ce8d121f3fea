//! The `json!` macro: JSON written as JSON in Rust source.

/// Builds a [`Value`](crate::json::Value) from JSON-like syntax:
/// `json!({"type": "text", "text": text, "tags": ["a", null]})`. Keys are
/// string literals; any other value is an expression, taken by reference
/// and turned into a value with [`ToJson`](crate::json::ToJson).
#[macro_export]
macro_rules! json {
    (null) => {
        $crate::json::Value::Null
    };
    ([]) => {
        $crate::json::Value::Array(::std::vec::Vec::new())
    };
    ([ $($tt:tt)+ ]) => {
        $crate::json::Value::Array($crate::json_items!([] $($tt)+))
    };
    ({}) => {
        $crate::json::Value::Object($crate::json::Map::new())
    };
    ({ $($tt:tt)+ }) => {{
        let mut map = $crate::json::Map::new();
        $crate::json_members!(map $($tt)+);
        $crate::json::Value::Object(map)
    }};
    ($other:expr) => {
        $crate::json::ToJson::to_json(&$other)
    };
}

/// The items of a `json!` array (an implementation detail of `json!`).
#[doc(hidden)]
#[macro_export]
macro_rules! json_items {
    ([$($done:expr,)*]) => {
        ::std::vec![$($done,)*]
    };
    ([$($done:expr,)*] null $(, $($rest:tt)*)?) => {
        $crate::json_items!([$($done,)* $crate::json::Value::Null,] $($($rest)*)?)
    };
    ([$($done:expr,)*] [$($item:tt)*] $(, $($rest:tt)*)?) => {
        $crate::json_items!([$($done,)* $crate::json!([$($item)*]),] $($($rest)*)?)
    };
    ([$($done:expr,)*] {$($item:tt)*} $(, $($rest:tt)*)?) => {
        $crate::json_items!([$($done,)* $crate::json!({$($item)*}),] $($($rest)*)?)
    };
    ([$($done:expr,)*] $item:expr $(, $($rest:tt)*)?) => {
        $crate::json_items!([$($done,)* $crate::json::ToJson::to_json(&$item),] $($($rest)*)?)
    };
}

/// The members of a `json!` object (an implementation detail of `json!`).
#[doc(hidden)]
#[macro_export]
macro_rules! json_members {
    ($map:ident) => {};
    ($map:ident $key:literal : null $(, $($rest:tt)*)?) => {
        $map.insert(::std::string::String::from($key), $crate::json::Value::Null);
        $crate::json_members!($map $($($rest)*)?);
    };
    ($map:ident $key:literal : [$($v:tt)*] $(, $($rest:tt)*)?) => {
        $map.insert(::std::string::String::from($key), $crate::json!([$($v)*]));
        $crate::json_members!($map $($($rest)*)?);
    };
    ($map:ident $key:literal : {$($v:tt)*} $(, $($rest:tt)*)?) => {
        $map.insert(::std::string::String::from($key), $crate::json!({$($v)*}));
        $crate::json_members!($map $($($rest)*)?);
    };
    ($map:ident $key:literal : $v:expr $(, $($rest:tt)*)?) => {
        $map.insert(::std::string::String::from($key), $crate::json::ToJson::to_json(&$v));
        $crate::json_members!($map $($($rest)*)?);
    };
}
