//! Image parts, read in place: where each format keeps the image and its
//! MIME type, and how to write a new one.

use crate::media::data_url::{format_data_url, is_data_url, DataUrl};
use crate::media::payload::{bytes_value, kept_kind, BytesKind, KeptKind};
use serde_json::{Map, Value};

/// Where an image part keeps its image, one variant per wire shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageShape {
    /// `{type:'image_url', image_url:{url, detail?}}` — OpenAI, LangChain.
    ImageUrlObject,
    /// `{type:'image_url', image_url:'url'}` — LangChain.
    ImageUrlString,
    /// `{type:'image', source:{type:'base64', media_type, data}}` — Anthropic.
    AnthropicBase64,
    /// `{type:'image', source:{type:'url', url}}` — Anthropic.
    AnthropicUrl,
    /// `{type:'image', image, mediaType?}` — AI SDK; `image` is a URL, a data URL or base64.
    AiSdkImage,
    /// `{type:'file' | 'media' | 'image-data' | 'file-data', data, mediaType:'image/…'}` — AI SDK;
    /// `data` is base64, a data URL or bytes.
    AiSdkData,
    /// `{type:'file', mediaType:'image…', data:{type:'data', data}}` — AI SDK 7 tagged file data.
    AiSdkTaggedData,
    /// `{type:'image', data, mimeType}` — LangChain JS standard block, MCP image content.
    DataMimeType,
    /// `{type:'image', source_type:'base64', data, mime_type}` — LangChain.
    LangChainData,
    /// `{type:'image', base64, mime_type}` — LangChain standard block, the dootask tool result.
    LangChainBase64,
    /// `{type:'image', source_type:'url', url}` — LangChain.
    LangChainUrl,
    /// `{type:'file', mediaType:'image/…', url}` — AI SDK UIMessage; `url` is a data URL or a URL.
    UiFileUrl,
    /// `{type:'input_image', image_url, detail}` — OpenAI Responses; `image_url` is a data URL or a URL.
    ResponsesInputImage,
    /// `{inlineData:{mimeType, data}}` — Gemini.
    GeminiInlineData,
    /// `{inlineData:{mimeType, data}}` inside a Gemini `functionResponse.parts`,
    /// where no text can take its place: it stays inline.
    GeminiFunctionResponseBlob,
    /// `{type:'resource', resource:{uri, mimeType:'image/…', blob}}` — MCP embedded resource.
    McpResourceBlob,
    /// One entry of an Ollama message's `images`, as the part `{image, index}`
    /// (`index`: its place in `images`); see the `ollama` module.
    OllamaImage,
}

/// Every shape with the name it is stored under.
const SHAPE_NAMES: [(ImageShape, &str); 17] = [
    (ImageShape::ImageUrlObject, "ImageUrlObject"),
    (ImageShape::ImageUrlString, "ImageUrlString"),
    (ImageShape::AnthropicBase64, "AnthropicBase64"),
    (ImageShape::AnthropicUrl, "AnthropicUrl"),
    (ImageShape::AiSdkImage, "AiSdkImage"),
    (ImageShape::AiSdkData, "AiSdkData"),
    (ImageShape::AiSdkTaggedData, "AiSdkTaggedData"),
    (ImageShape::DataMimeType, "DataMimeType"),
    (ImageShape::LangChainData, "LangChainData"),
    (ImageShape::LangChainBase64, "LangChainBase64"),
    (ImageShape::LangChainUrl, "LangChainUrl"),
    (ImageShape::UiFileUrl, "UiFileUrl"),
    (ImageShape::ResponsesInputImage, "ResponsesInputImage"),
    (ImageShape::GeminiInlineData, "GeminiInlineData"),
    (
        ImageShape::GeminiFunctionResponseBlob,
        "GeminiFunctionResponseBlob",
    ),
    (ImageShape::McpResourceBlob, "McpResourceBlob"),
    (ImageShape::OllamaImage, "OllamaImage"),
];

impl ImageShape {
    /// The name this shape is stored under.
    pub fn name(self) -> &'static str {
        SHAPE_NAMES
            .iter()
            .find(|(shape, _)| *shape == self)
            .map_or("", |(_, name)| name)
    }

    /// The shape stored under `name`.
    pub fn from_name(name: &str) -> Option<ImageShape> {
        SHAPE_NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(shape, _)| *shape)
    }

    /// Where the value and its MIME type are.
    fn keys(self) -> Keys {
        let (container, value, mime) = match self {
            ImageShape::ImageUrlObject => (Some("image_url"), "url", None),
            ImageShape::ImageUrlString => (None, "image_url", None),
            ImageShape::AnthropicBase64 => (Some("source"), "data", Some("media_type")),
            ImageShape::AnthropicUrl => (Some("source"), "url", None),
            ImageShape::AiSdkImage => (None, "image", Some("mediaType")),
            ImageShape::AiSdkData => (None, "data", Some("mediaType")),
            ImageShape::AiSdkTaggedData => (Some("data"), "data", Some("mediaType")),
            ImageShape::DataMimeType => (None, "data", Some("mimeType")),
            ImageShape::LangChainData => (None, "data", Some("mime_type")),
            ImageShape::LangChainBase64 => (None, "base64", Some("mime_type")),
            ImageShape::LangChainUrl => (None, "url", None),
            ImageShape::UiFileUrl => (None, "url", Some("mediaType")),
            ImageShape::ResponsesInputImage => (None, "image_url", None),
            ImageShape::GeminiInlineData | ImageShape::GeminiFunctionResponseBlob => {
                (Some("inlineData"), "data", Some("mimeType"))
            }
            ImageShape::McpResourceBlob => (Some("resource"), "blob", Some("mimeType")),
            ImageShape::OllamaImage => (None, "image", None),
        };
        Keys {
            container,
            value,
            mime,
            mime_outside: self == ImageShape::AiSdkTaggedData,
        }
    }

    /// True for shapes whose value is always base64, never a URL.
    fn always_base64(self) -> bool {
        matches!(
            self,
            ImageShape::AnthropicBase64
                | ImageShape::AiSdkData
                | ImageShape::AiSdkTaggedData
                | ImageShape::DataMimeType
                | ImageShape::LangChainData
                | ImageShape::LangChainBase64
                | ImageShape::GeminiInlineData
                | ImageShape::GeminiFunctionResponseBlob
                | ImageShape::McpResourceBlob
                | ImageShape::OllamaImage
        )
    }

    /// False for shapes in a place where a text placeholder cannot stand
    /// (a Gemini `functionResponse.parts` entry): such images stay inline.
    pub fn replaceable_by_text(self) -> bool {
        self != ImageShape::GeminiFunctionResponseBlob
    }
}

/// Where a shape keeps its value and MIME type.
struct Keys {
    /// The object holding the value, when it is not the part itself.
    container: Option<&'static str>,
    /// The key of the value.
    value: &'static str,
    /// The key of the MIME type.
    mime: Option<&'static str>,
    /// True when the MIME type is on the part, not in the container.
    mime_outside: bool,
}

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

/// A copy of an image part without its payload (see [`ImagePart::template`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ImageTemplate {
    /// The part with its payload value set to an empty string.
    pub wire: Map<String, Value>,
    /// Where the payload goes.
    pub shape: ImageShape,
    /// True when the payload was a whole data URL, false for bare base64.
    pub as_data_url: bool,
    /// The MIME type the part declared, when it had one (restored as
    /// written, even where the bytes say otherwise).
    pub declared_mime: Option<String>,
    /// The JavaScript type of the payload when it was binary data rather
    /// than base64 text; restored as that type.
    pub bytes: Option<BytesKind>,
}

impl ImageTemplate {
    /// The template as the JSON text a stash record keeps:
    /// `{"wire":{…},"shape":"ImageUrlObject","as_data_url":true,"declared_mime":"image/png"}`
    /// (`declared_mime` only when there is one).
    pub fn to_json_text(&self) -> String {
        let mut obj = Map::new();
        obj.insert("wire".into(), Value::Object(self.wire.clone()));
        obj.insert("shape".into(), self.shape.name().into());
        obj.insert("as_data_url".into(), self.as_data_url.into());
        if let Some(mime) = &self.declared_mime {
            obj.insert("declared_mime".into(), mime.as_str().into());
        }
        if let Some(kind) = self.bytes {
            obj.insert("bytes".into(), kind.name().into());
        }
        ToString::to_string(&Value::Object(obj))
    }

    /// The templates of every occurrence of one image, as the JSON text a
    /// stash record keeps: one template's text alone, or an array of them.
    pub fn list_to_json_text(templates: &[ImageTemplate]) -> Option<String> {
        match templates {
            [] => None,
            [one] => Some(one.to_json_text()),
            many => Some(format!(
                "[{}]",
                many.iter()
                    .map(ImageTemplate::to_json_text)
                    .collect::<Vec<_>>()
                    .join(",")
            )),
        }
    }

    /// Reads what [`ImageTemplate::list_to_json_text`] wrote; templates that
    /// do not read are left out.
    pub fn list_from_json_text(text: &str) -> Vec<ImageTemplate> {
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Array(items)) => items.into_iter().filter_map(Self::from_value).collect(),
            Ok(one) => Self::from_value(one).into_iter().collect(),
            Err(_) => Vec::new(),
        }
    }

    /// Reads what [`ImageTemplate::to_json_text`] wrote; `None` for anything else.
    pub fn from_json_text(text: &str) -> Option<ImageTemplate> {
        Self::from_value(serde_json::from_str::<Value>(text).ok()?)
    }

    fn from_value(value: Value) -> Option<ImageTemplate> {
        let Value::Object(mut obj) = value else {
            return None;
        };
        let Value::Object(wire) = obj.remove("wire")? else {
            return None;
        };
        let declared_mime = match obj.remove("declared_mime") {
            None | Some(Value::Null) => None,
            Some(Value::String(mime)) => Some(mime),
            Some(_) => return None,
        };
        let bytes = match obj.remove("bytes") {
            None | Some(Value::Null) => None,
            Some(Value::String(name)) => Some(BytesKind::from_name(&name)?),
            Some(_) => return None,
        };
        Some(ImageTemplate {
            wire,
            shape: ImageShape::from_name(obj.get("shape")?.as_str()?)?,
            as_data_url: obj.get("as_data_url")?.as_bool()?,
            declared_mime,
            bytes,
        })
    }

    /// The original part again, with `payload` put back (as a data URL of
    /// `mime` when the part held one, as binary data when it held bytes).
    /// The part's own MIME field is in the template already.
    pub fn fill(&self, mime: &str, payload: &str) -> Map<String, Value> {
        let mime = self.declared_mime.as_deref().unwrap_or(mime);
        let mut wire = self.wire.clone();
        let keys = self.shape.keys();
        let target = match keys.container {
            Some(key) => match wire.get_mut(key).and_then(Value::as_object_mut) {
                Some(obj) => obj,
                None => return wire,
            },
            None => &mut wire,
        };
        let value = if self.as_data_url {
            format_data_url(mime, payload)
        } else if let Some(kind) = self.bytes {
            bytes_value(kind, payload)
        } else {
            payload.to_owned()
        };
        target.insert(keys.value.into(), value.into());
        wire
    }
}

impl ImageTemplate {
    /// The part holding another image: `payload` of type `mime`. Unlike
    /// [`ImageTemplate::fill`], the part's own MIME field (when it has one)
    /// and a data URL's type become `mime`: the image was re-encoded.
    pub fn refill(&self, mime: &str, payload: &str) -> Map<String, Value> {
        let fresh = ImageTemplate {
            declared_mime: None,
            ..self.clone()
        };
        let mut wire = fresh.fill(mime, payload);
        let keys = self.shape.keys();
        let Some(key) = keys.mime else {
            return wire;
        };
        let target = match (keys.mime_outside, keys.container) {
            (false, Some(c)) => wire.get_mut(c).and_then(Value::as_object_mut),
            _ => Some(&mut wire),
        };
        if let Some(map) = target {
            for k in [key, "mimeType"] {
                if map.contains_key(k) {
                    map.insert(k.into(), mime.into());
                }
            }
        }
        wire
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

/// Builds a new image part holding `payload` (base64) of type `mime`, in the
/// canonical shape of `format`.
pub fn new_image_part(
    format: super::Format,
    mime: &str,
    payload: &str,
    detail: Option<&str>,
) -> Value {
    use super::Format;
    let mut m = Map::new();
    match format {
        Format::OpenAi | Format::LangChain => {
            m.insert("type".into(), "image_url".into());
            let mut inner = Map::new();
            inner.insert("url".into(), format_data_url(mime, payload).into());
            if let Some(d) = detail {
                inner.insert("detail".into(), d.into());
            }
            m.insert("image_url".into(), Value::Object(inner));
        }
        Format::Anthropic => {
            m.insert("type".into(), "image".into());
            let mut source = Map::new();
            source.insert("type".into(), "base64".into());
            source.insert("media_type".into(), mime.into());
            source.insert("data".into(), payload.into());
            m.insert("source".into(), Value::Object(source));
        }
        Format::AiSdk => {
            m.insert("type".into(), "image".into());
            m.insert("image".into(), payload.into());
            m.insert("mediaType".into(), mime.into());
        }
        Format::UiMessage
        | Format::OpenAiResponses
        | Format::Gemini
        | Format::Mcp
        | Format::Ollama => return super::canonical::image_part(format, mime, payload, detail),
    }
    Value::Object(m)
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
            ImageShape::ImageUrlObject,
        );
        assert_eq!(p.source().inline(), Some((Some("image/png"), "AAAA")));
        let p = part(
            json!({"type":"image","source":{"type":"base64","media_type":"image/gif","data":"R0lG"}}),
            ImageShape::AnthropicBase64,
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
            ImageShape::AiSdkImage,
        );
        assert_eq!(p.source(), ImageSource::Url("https://x.test/a.png"));
        let p = part(
            json!({"type":"image","image":"AAAA","mediaType":"image/png"}),
            ImageShape::AiSdkImage,
        );
        assert_eq!(p.source().inline(), Some((Some("image/png"), "AAAA")));
        let p = part(
            json!({"type":"image","image":{"0":1}}),
            ImageShape::AiSdkImage,
        );
        assert_eq!(p.source(), ImageSource::Opaque);
    }

    #[test]
    fn template_round_trips_every_inline_shape() {
        let cases = [
            (
                json!({"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA","detail":"high"},"x":1}),
                ImageShape::ImageUrlObject,
            ),
            (
                json!({"type":"image_url","image_url":"data:image/png;base64,AAAA"}),
                ImageShape::ImageUrlString,
            ),
            (
                json!({"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"},"cache_control":{"type":"ephemeral"}}),
                ImageShape::AnthropicBase64,
            ),
            (
                json!({"type":"image","image":"AAAA","mediaType":"image/png"}),
                ImageShape::AiSdkImage,
            ),
            (
                json!({"type":"file","data":"AAAA","mediaType":"image/png","filename":"a.png"}),
                ImageShape::AiSdkData,
            ),
            (
                json!({"type":"image","source_type":"base64","data":"AAAA","mime_type":"image/png"}),
                ImageShape::LangChainData,
            ),
            (
                json!({"type":"image","base64":"AAAA","mime_type":"image/png"}),
                ImageShape::LangChainBase64,
            ),
            (
                json!({"type":"file","mediaType":"image","data":{"type":"data","data":"AAAA"},"filename":"a.png"}),
                ImageShape::AiSdkTaggedData,
            ),
            (
                json!({"type":"image","data":"AAAA","mimeType":"image/png"}),
                ImageShape::DataMimeType,
            ),
            (
                json!({"type":"image","image":"AAAA"}),
                ImageShape::AiSdkImage,
            ),
            (
                json!({"type":"file","mediaType":"image/png","filename":"a.png","url":"data:image/png;base64,AAAA","providerMetadata":{"p":{}}}),
                ImageShape::UiFileUrl,
            ),
            (
                json!({"type":"input_image","image_url":"data:image/png;base64,AAAA","detail":"low","prompt_cache_breakpoint":{"mode":"explicit"}}),
                ImageShape::ResponsesInputImage,
            ),
            (
                json!({"inlineData":{"mimeType":"image/png","data":"AAAA","displayName":"a.png"},"mediaResolution":{"level":"MEDIA_RESOLUTION_LOW"}}),
                ImageShape::GeminiInlineData,
            ),
            (
                json!({"type":"resource","resource":{"uri":"file:///a.png","mimeType":"image/png","blob":"AAAA"},"annotations":{"priority":1}}),
                ImageShape::McpResourceBlob,
            ),
            (json!({"image":"AAAA","index":2}), ImageShape::OllamaImage),
            (
                json!({"inlineData":{"mimeType":"image/png","data":"AAAA"}}),
                ImageShape::GeminiFunctionResponseBlob,
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
            shape: ImageShape::AnthropicBase64,
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
        for shape in SHAPE_NAMES.map(|(s, _)| s) {
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
