//! A profile given as data, read field by field from its JSON object (as
//! the token rule is, in `rule_input`): each bad value is refused at its
//! own field, and one reader serves every field rather than a derive
//! compiled for each field's type.

use super::rules::{BytesOn, Detail, MimeSet, TokenRule};
use super::spec::{ProfileError, ProfileOverrides};
use crate::budget::limits::Provider;
use serde_json::Value;

/// The fields a profile may give, by their names.
const FIELDS: [&str; 14] = [
    "provider",
    "source",
    "tokens",
    "defaultDetail",
    "accepts",
    "acceptsAnimated",
    "maxLongEdge",
    "manyImages",
    "manyImagesLongEdge",
    "maxImages",
    "maxImageBytes",
    "imageBytesOn",
    "maxRequestBytes",
    "contextTokens",
];

impl<'de> serde::Deserialize<'de> for ProfileOverrides {
    /// Reads the profile's JSON object: see [`ProfileOverrides::from_value`].
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = <Value as serde::Deserialize>::deserialize(d)?;
        ProfileOverrides::from_value(&value).map_err(|e| {
            serde::de::Error::custom(match e.path.as_str() {
                "" => e.message,
                path => format!("{path}: {}", e.message),
            })
        })
    }
}

impl ProfileOverrides {
    /// Reads a profile from its JSON text; a misspelt field is refused.
    pub fn from_json(text: &str) -> Result<ProfileOverrides, ProfileError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| ProfileError::new("", e.to_string()))?;
        ProfileOverrides::from_value(&value)
    }

    /// Reads a profile from its JSON object. A field that is absent keeps
    /// the model's figure; a limit that is `null` removes the limit; a
    /// misspelt field is refused at the profile, a bad value at its field.
    pub fn from_value(value: &Value) -> Result<ProfileOverrides, ProfileError> {
        let obj = value
            .as_object()
            .ok_or_else(|| ProfileError::new("", "expected a profile object"))?;
        let mut o = ProfileOverrides::default();
        for (key, v) in obj {
            read_field(&mut o, key, v).map_err(|message| {
                let path = if FIELDS.contains(&key.as_str()) {
                    key.as_str()
                } else {
                    ""
                };
                ProfileError::new(path, message)
            })?;
        }
        Ok(o)
    }
}

/// Sets the field `key` of `o` to `v`; or what is wrong with it.
fn read_field(o: &mut ProfileOverrides, key: &str, v: &Value) -> Result<(), String> {
    // A field that is no limit keeps the model's value when `null`.
    if v.is_null()
        && matches!(
            key,
            "provider" | "source" | "tokens" | "accepts" | "acceptsAnimated" | "imageBytesOn"
        )
    {
        return Ok(());
    }
    match key {
        "provider" => o.provider = Some(provider(v)?),
        "source" => o.source = Some(string(v)?.to_owned()),
        "tokens" => {
            // A bad figure of the rule is named by `check`, at its path.
            o.tokens = Some(TokenRule::from_json(v)?);
        }
        "defaultDetail" => {
            o.default_detail = Some(nullable(v, |v| {
                v.as_str()
                    .and_then(Detail::parse)
                    .ok_or("expected 'low', 'medium', 'high', 'auto' or 'original'")
            })?)
        }
        "accepts" => o.accepts = Some(MimeSet::from_json(v)?),
        "acceptsAnimated" => o.accepts_animated = Some(v.as_bool().ok_or("expected a boolean")?),
        "maxLongEdge" => o.max_long_edge = Some(nullable(v, side)?),
        "manyImages" => o.many_images = Some(nullable(v, count)?),
        "manyImagesLongEdge" => o.many_images_long_edge = Some(nullable(v, side)?),
        "maxImages" => o.max_images = Some(nullable(v, count)?),
        "maxImageBytes" => o.max_image_bytes = Some(nullable(v, whole)?),
        "imageBytesOn" => o.image_bytes_on = Some(bytes_on(v)?),
        "maxRequestBytes" => o.max_request_bytes = Some(nullable(v, whole)?),
        "contextTokens" => o.context_tokens = Some(nullable(v, whole)?),
        _ => {
            return Err(format!(
                "unknown field `{key}`, expected one of {}",
                FIELDS.join(", ")
            ))
        }
    }
    Ok(())
}

/// `null` (no limit), or the value `read` reads.
fn nullable<T, E: Into<String>>(
    v: &Value,
    read: impl Fn(&Value) -> Result<T, E>,
) -> Result<Option<T>, String> {
    if v.is_null() {
        return Ok(None);
    }
    read(v).map(Some).map_err(Into::into)
}

fn string(v: &Value) -> Result<&str, String> {
    v.as_str().ok_or_else(|| "expected a string".to_owned())
}

/// A whole number from 0.
fn whole(v: &Value) -> Result<u64, &'static str> {
    v.as_u64().ok_or("expected a whole number from 0")
}

/// A side in pixels.
fn side(v: &Value) -> Result<u32, &'static str> {
    v.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or("expected a whole number of pixels from 0 to 4294967295")
}

/// A number of images.
fn count(v: &Value) -> Result<usize, &'static str> {
    v.as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or("expected a whole number from 0")
}

fn provider(v: &Value) -> Result<Provider, String> {
    let name = string(v)?;
    Provider::from_name(name).ok_or_else(|| {
        format!(
            "unknown provider {name:?}; expected 'openai', 'anthropic', 'gemini', 'bedrock' or 'vertex'"
        )
    })
}

fn bytes_on(v: &Value) -> Result<BytesOn, &'static str> {
    match v.as_str() {
        Some("base64") => Ok(BytesOn::Base64),
        Some("decoded") => Ok(BytesOn::Decoded),
        _ => Err("expected 'base64' or 'decoded'"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(json: &str) -> ProfileError {
        ProfileOverrides::from_json(json).unwrap_err()
    }

    #[test]
    fn each_bad_value_is_refused_at_its_field() {
        let cases = [
            (r#"{"maxImages":-1}"#, "maxImages"),
            (r#"{"maxImages":1.5}"#, "maxImages"),
            (r#"{"maxLongEdge":5000000000}"#, "maxLongEdge"),
            (r#"{"contextTokens":"many"}"#, "contextTokens"),
            (r#"{"accepts":["image/svg"]}"#, "accepts"),
            (r#"{"accepts":"image/png"}"#, "accepts"),
            (r#"{"defaultDetail":"max"}"#, "defaultDetail"),
            (r#"{"imageBytesOn":"encoded"}"#, "imageBytesOn"),
            (r#"{"acceptsAnimated":"yes"}"#, "acceptsAnimated"),
            (r#"{"provider":"mistral"}"#, "provider"),
            (r#"{"source":7}"#, "source"),
            (
                r#"{"tokens":{"kind":"anthropic-pixels","longEdge":1568}}"#,
                "tokens",
            ),
        ];
        for (json, path) in cases {
            assert_eq!(refusal(json).path, path, "{json}");
        }
        let e = refusal(r#"{"maxImagez":1}"#);
        assert_eq!(e.path, "", "a misspelt field is the profile's fault");
        assert!(e.message.starts_with("unknown field `maxImagez`"), "{e}");
        assert_eq!(refusal("[1]").path, "");
        assert_eq!(refusal("{").path, "");
    }

    #[test]
    fn null_removes_a_limit_and_keeps_any_other_field() {
        let o = ProfileOverrides::from_json(
            r#"{"maxImages":null,"defaultDetail":null,"provider":null,"accepts":null,"tokens":null}"#,
        )
        .unwrap();
        assert_eq!(
            (
                o.max_images,
                o.default_detail,
                o.provider,
                o.accepts,
                o.tokens
            ),
            (Some(None), Some(None), None, None, None)
        );
        assert_eq!(
            ProfileOverrides::from_json(r#"{"manyImages":20,"maxImageBytes":5242880}"#).unwrap(),
            ProfileOverrides {
                many_images: Some(Some(20)),
                max_image_bytes: Some(Some(5_242_880)),
                ..ProfileOverrides::default()
            }
        );
    }
}
