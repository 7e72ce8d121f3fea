//! Image parts, read in place: where each format keeps the image and its
//! MIME type, and how to write a new one.

pub use super::image_template::ImageTemplate;
pub use super::shape::ImageShape;
use crate::media::data_url::{is_data_url, DataUrl};
use crate::media::payload::{kept_kind, KeptKind};
use serde_json::{Map, Value};

/// What an image part points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageSource<'a> {
    /// An inline `data:` URL.
    DataUrl(&'a str),
    /// Inline base64 with a separately declared MIME type.
    Base64 {
        /// The declared MIME type, if any.
        mime: Option<&'a str>,
        /// The base64 text.
        data: &'a str,
    },
    /// A URL to fetch (`http(s):`, `blob:`, `file:` …); never stashed.
    Url(&'a str),
    /// A value ctxpack cannot read as text (bytes, a URL object); passed through.
    Opaque,
}

impl<'a> ImageSource<'a> {
    /// The declared MIME type and the base64 payload, for inline images.
    /// `None` for URLs, opaque values and data URLs that are not base64.
    pub fn inline(&self) -> Option<(Option<&'a str>, &'a str)> {
        match *self {
            ImageSource::DataUrl(url) => {
                let d = DataUrl::parse_unchecked(url).ok()?;
                Some(((!d.mime.is_empty()).then_some(d.mime), d.payload))
            }
            ImageSource::Base64 { mime, data } => Some((mime, data)),
            ImageSource::Url(_) | ImageSource::Opaque => None,
        }
    }
}

/// An image content part, kept as the caller's wire object.
#[derive(Debug, Clone, PartialEq)]
pub struct ImagePart {
    /// The part as it came, untouched.
    pub wire: Map<String, Value>,
    /// Where in `wire` the image is.
    pub shape: ImageShape,
}

impl ImagePart {
    fn container(&self) -> Option<&Map<String, Value>> {
        match self.shape.keys().container {
            Some(key) => self.wire.get(key)?.as_object(),
            None => Some(&self.wire),
        }
    }

    /// Reads what the part points at, without copying it.
    pub fn source(&self) -> ImageSource<'_> {
        let keys = self.shape.keys();
        let Some(c) = self.container() else {
            return ImageSource::Opaque;
        };
        let Some(value) = c.get(keys.value).and_then(Value::as_str) else {
            return ImageSource::Opaque;
        };
        match kept_kind(value) {
            Some(KeptKind::Opaque) => return ImageSource::Opaque,
            Some(KeptKind::Bytes(_)) | Some(KeptKind::Text) | None => {}
        }
        if is_data_url(value) {
            return ImageSource::DataUrl(value);
        }
        let mime_map = if keys.mime_outside { &self.wire } else { c };
        let mime = keys.mime.and_then(|k| {
            mime_map
                .get(k)
                .or_else(|| mime_map.get("mimeType"))
                .and_then(Value::as_str)
        });
        let bytes = matches!(kept_kind(value), Some(KeptKind::Bytes(_)));
        if bytes || self.shape.always_base64() || (keys.mime.is_some() && !value.contains(':')) {
            ImageSource::Base64 { mime, data: value }
        } else {
            ImageSource::Url(value)
        }
    }

    /// The part with its payload emptied: a small template that [`ImagePart::fill`]
    /// turns back into the same part. Returns `None` for non-inline images.
    pub fn template(&self) -> Option<ImageTemplate> {
        let source = self.source();
        let as_data_url = matches!(source, ImageSource::DataUrl(_));
        let bytes = match source {
            ImageSource::Base64 { data, .. } => match kept_kind(data) {
                Some(KeptKind::Bytes(kind)) => Some(kind),
                _ => None,
            },
            _ => None,
        };
        let (declared, _) = source.inline()?;
        let declared_mime = declared.map(str::to_owned);
        let keys = self.shape.keys();
        let wire = self.wire.clone_without(keys.container, keys.value);
        Some(ImageTemplate {
            wire,
            shape: self.shape,
            as_data_url,
            declared_mime,
            bytes,
        })
    }
}

trait CloneWithout {
    fn clone_without(&self, container: Option<&str>, key: &str) -> Map<String, Value>;
}

impl CloneWithout for Map<String, Value> {
    /// Clones the map, writing an empty string where the payload was, so key
    /// order is kept and the payload is not copied.
    fn clone_without(&self, container: Option<&str>, key: &str) -> Map<String, Value> {
        let mut out = Map::with_capacity(self.len());
        for (k, v) in self {
            let copy = match (container, v) {
                (Some(c), Value::Object(inner)) if c == k => {
                    Value::Object(inner.clone_without(None, key))
                }
                (None, _) if k == key => Value::String(String::new()),
                _ => v.clone(),
            };
            out.insert(k.clone(), copy);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn part(v: Value, shape: ImageShape) -> ImagePart {
        ImagePart {
            wire: v.as_object().cloned().unwrap_or_default(),
            shape,
        }
    }

    #[test]
    fn reads_each_shape_in_place() {
        let p = part(
            json!({"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA","detail":"high"}}),
            crate::messages::openai::IMAGE_URL_OBJECT,
        );
        assert_eq!(p.source().inline(), Some((Some("image/png"), "AAAA")));
        let p = part(
            json!({"type":"image","source":{"type":"base64","media_type":"image/gif","data":"R0lG"}}),
            crate::messages::anthropic::BASE64_SOURCE,
        );
        assert_eq!(
            p.source(),
            ImageSource::Base64 {
                mime: Some("image/gif"),
                data: "R0lG"
            }
        );
        let p = part(
            json!({"type":"image","image":"https://x.test/a.png"}),
            crate::messages::ai_sdk::IMAGE,
        );
        assert_eq!(p.source(), ImageSource::Url("https://x.test/a.png"));
        let p = part(
            json!({"type":"image","image":"AAAA","mediaType":"image/png"}),
            crate::messages::ai_sdk::IMAGE,
        );
        assert_eq!(p.source().inline(), Some((Some("image/png"), "AAAA")));
        let p = part(
            json!({"type":"image","image":{"0":1}}),
            crate::messages::ai_sdk::IMAGE,
        );
        assert_eq!(p.source(), ImageSource::Opaque);
    }

    #[test]
    fn template_round_trips_every_inline_shape() {
        let cases = [
            (
                json!({"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA","detail":"high"},"x":1}),
                crate::messages::openai::IMAGE_URL_OBJECT,
            ),
            (
                json!({"type":"image_url","image_url":"data:image/png;base64,AAAA"}),
                crate::messages::langchain::IMAGE_URL_STRING,
            ),
            (
                json!({"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"},"cache_control":{"type":"ephemeral"}}),
                crate::messages::anthropic::BASE64_SOURCE,
            ),
            (
                json!({"type":"image","image":"AAAA","mediaType":"image/png"}),
                crate::messages::ai_sdk::IMAGE,
            ),
            (
                json!({"type":"file","data":"AAAA","mediaType":"image/png","filename":"a.png"}),
                crate::messages::ai_sdk::DATA,
            ),
            (
                json!({"type":"image","source_type":"base64","data":"AAAA","mime_type":"image/png"}),
                crate::messages::langchain::SOURCE_TYPE_DATA,
            ),
            (
                json!({"type":"image","base64":"AAAA","mime_type":"image/png"}),
                crate::messages::langchain::BASE64,
            ),
            (
                json!({"type":"file","mediaType":"image","data":{"type":"data","data":"AAAA"},"filename":"a.png"}),
                crate::messages::ai_sdk::TAGGED_DATA,
            ),
            (
                json!({"type":"image","data":"AAAA","mimeType":"image/png"}),
                crate::messages::mcp::DATA_MIME_TYPE,
            ),
            (
                json!({"type":"image","image":"AAAA"}),
                crate::messages::ai_sdk::IMAGE,
            ),
            (
                json!({"type":"file","mediaType":"image/png","filename":"a.png","url":"data:image/png;base64,AAAA","providerMetadata":{"p":{}}}),
                crate::messages::ui_message::FILE_URL,
            ),
            (
                json!({"type":"input_image","image_url":"data:image/png;base64,AAAA","detail":"low","prompt_cache_breakpoint":{"mode":"explicit"}}),
                crate::messages::openai_responses::INPUT_IMAGE,
            ),
            (
                json!({"inlineData":{"mimeType":"image/png","data":"AAAA","displayName":"a.png"},"mediaResolution":{"level":"MEDIA_RESOLUTION_LOW"}}),
                crate::messages::gemini::INLINE_DATA,
            ),
            (
                json!({"type":"resource","resource":{"uri":"file:///a.png","mimeType":"image/png","blob":"AAAA"},"annotations":{"priority":1}}),
                crate::messages::mcp::RESOURCE_BLOB,
            ),
            (
                json!({"image":"AAAA","index":2}),
                crate::messages::ollama::IMAGE,
            ),
            (
                json!({"inlineData":{"mimeType":"image/png","data":"AAAA"}}),
                crate::messages::gemini::FUNCTION_RESPONSE_BLOB,
            ),
        ];
        for (v, shape) in cases {
            let p = part(v.clone(), shape);
            let t = p.template().unwrap();
            let text = t.to_json_text();
            assert!(!text.contains("AAAA"));
            assert_eq!(ImageTemplate::from_json_text(&text), Some(t.clone()));
            assert_eq!(Value::Object(t.fill("image/png", "AAAA")), v);
        }
    }

    #[test]
    fn template_text_is_the_stored_format() {
        let t = ImageTemplate {
            wire: json!({"type":"image","source":{"type":"base64","media_type":"image/gif","data":""}})
                .as_object()
                .unwrap()
                .clone(),
            shape: crate::messages::anthropic::BASE64_SOURCE,
            as_data_url: false,
            declared_mime: Some("image/gif".into()),
            bytes: None,
        };
        let stored = r#"{"wire":{"type":"image","source":{"type":"base64","media_type":"image/gif","data":""}},"shape":"AnthropicBase64","as_data_url":false,"declared_mime":"image/gif"}"#;
        assert_eq!(t.to_json_text(), stored);
        assert_eq!(ImageTemplate::from_json_text(stored), Some(t.clone()));
        let without = ImageTemplate {
            declared_mime: None,
            ..t
        };
        assert!(!without.to_json_text().contains("declared_mime"));
        assert_eq!(
            ImageTemplate::from_json_text(&without.to_json_text()),
            Some(without)
        );
        let shapes: Vec<ImageShape> = crate::messages::registry::all_shapes().collect();
        // A shape two formats hold is one spec: no two specs share a name.
        let mut names: Vec<&str> = shapes.iter().map(|s| s.name()).collect();
        names.sort_unstable();
        names.dedup();
        let mut specs: Vec<String> = shapes.iter().map(|s| format!("{:?}", s.keys())).collect();
        specs.sort_unstable();
        specs.dedup();
        assert_eq!(names.len(), specs.len());
        assert!(names.len() >= 17);
        for shape in shapes {
            assert_eq!(ImageShape::from_name(shape.name()), Some(shape));
        }
        for bad in [
            "",
            "[]",
            r#"{"wire":[],"shape":"AnthropicBase64","as_data_url":false}"#,
            r#"{"wire":{},"shape":"Nope","as_data_url":false}"#,
            r#"{"wire":{},"shape":"AiSdkData"}"#,
        ] {
            assert_eq!(ImageTemplate::from_json_text(bad), None, "{bad}");
        }
    }
}
