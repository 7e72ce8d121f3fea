//! JSON paths that name the value an error is about, such as
//! `messages[3].content[1].image_url.url`.

use std::fmt::{self, Write as _};

/// A JSON path in JavaScript accessor notation, rooted at a named argument.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct JsonPath(String);

impl JsonPath {
    /// A path that names a root value, e.g. the `messages` argument.
    pub fn root(name: &str) -> Self {
        JsonPath(name.to_owned())
    }

    /// The path of element `index` of the array at this path.
    pub fn index(&self, index: usize) -> Self {
        // Written piece by piece: paths are made for every message and
        // part read, and `format!`'s machinery costs more than the text.
        let mut path = String::with_capacity(self.0.len() + 8);
        path.push_str(&self.0);
        path.push('[');
        let _ = write!(path, "{index}");
        path.push(']');
        JsonPath(path)
    }

    /// The path of property `key` of the object at this path. Keys that are
    /// not plain identifiers are written in bracket notation.
    pub fn key(&self, key: &str) -> Self {
        let plain = !key.is_empty()
            && key
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
        if plain {
            let mut path = String::with_capacity(self.0.len() + 1 + key.len());
            path.push_str(&self.0);
            path.push('.');
            path.push_str(key);
            JsonPath(path)
        } else {
            let quoted = ToString::to_string(&serde_json::Value::from(key));
            JsonPath(format!("{}[{quoted}]", self.0))
        }
    }

    /// The path as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::JsonPath;

    #[test]
    fn builds_accessor_notation() {
        let p = JsonPath::root("messages")
            .index(3)
            .key("content")
            .index(1)
            .key("image_url")
            .key("url");
        assert_eq!(p.as_str(), "messages[3].content[1].image_url.url");
    }

    #[test]
    fn quotes_keys_that_are_not_identifiers() {
        let p = JsonPath::root("result").key("a b").key("1x").key("ok_1");
        assert_eq!(p.as_str(), "result[\"a b\"][\"1x\"].ok_1");
    }
}
