//! What a stash record keeps of an image part besides its payload: the
//! part without it, to put the image back in the exact shape it was in.

use super::shape::ImageShape;
use crate::media::data_url::format_data_url;
use crate::media::payload::{bytes_value, BytesKind};
use serde_json::{Map, Value};

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
