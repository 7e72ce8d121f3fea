//! The image parts each format writes when ctxpack makes a new one (a
//! restored image without its stashed shape, a tool answer, markdown turned
//! into parts), and the image shapes each format holds.

use super::{Format, ImageShape};
use crate::media::data_url::format_data_url;
use serde_json::{Map, Value};

/// A new image part of `format` holding `payload` (base64) of type `mime`,
/// for the formats whose module lives beside this one: UIMessage
/// `{type:'file', mediaType, url:'data:…'}`, Responses `{type:'input_image',
/// image_url:'data:…', detail}` (`detail` defaults to `auto`), Gemini
/// `{inlineData:{mimeType, data}}`, MCP `{type:'image', data, mimeType}`,
/// and Ollama `{image}`, whose `image` is an entry of the message's `images`.
/// The formats of [`super::image::new_image_part`]'s own arms give an
/// OpenAI `image_url` part here.
pub fn image_part(format: Format, mime: &str, payload: &str, detail: Option<&str>) -> Value {
    let mut m = Map::new();
    match format {
        Format::UiMessage => {
            m.insert("type".into(), "file".into());
            m.insert("mediaType".into(), mime.into());
            m.insert("url".into(), format_data_url(mime, payload).into());
        }
        Format::OpenAiResponses => {
            m.insert("type".into(), "input_image".into());
            m.insert("image_url".into(), format_data_url(mime, payload).into());
            m.insert("detail".into(), detail.unwrap_or("auto").into());
        }
        Format::Gemini => {
            let mut blob = Map::new();
            blob.insert("mimeType".into(), mime.into());
            blob.insert("data".into(), payload.into());
            m.insert("inlineData".into(), Value::Object(blob));
        }
        Format::Mcp => {
            m.insert("type".into(), "image".into());
            m.insert("data".into(), payload.into());
            m.insert("mimeType".into(), mime.into());
        }
        Format::Ollama => {
            m.insert("image".into(), payload.into());
        }
        Format::OpenAi | Format::LangChain | Format::Anthropic | Format::AiSdk => {
            m.insert("type".into(), "image_url".into());
            let mut inner = Map::new();
            inner.insert("url".into(), format_data_url(mime, payload).into());
            if let Some(d) = detail {
                inner.insert("detail".into(), d.into());
            }
            m.insert("image_url".into(), Value::Object(inner));
        }
    }
    Value::Object(m)
}

/// The shape of the image parts [`super::image::new_image_part`] writes in `format`.
pub fn canonical_shape(format: Format) -> ImageShape {
    match format {
        Format::OpenAi | Format::LangChain => ImageShape::ImageUrlObject,
        Format::Anthropic => ImageShape::AnthropicBase64,
        Format::AiSdk => ImageShape::AiSdkImage,
        Format::UiMessage => ImageShape::UiFileUrl,
        Format::OpenAiResponses => ImageShape::ResponsesInputImage,
        Format::Gemini => ImageShape::GeminiInlineData,
        Format::Mcp => ImageShape::DataMimeType,
        Format::Ollama => ImageShape::OllamaImage,
    }
}

/// The image shapes a message of `format` can hold, so a stashed part can
/// be told to fit the messages it is restored into.
pub fn native_shapes(format: Format) -> &'static [ImageShape] {
    use ImageShape::*;
    match format {
        Format::OpenAi => &[ImageUrlObject],
        Format::LangChain => &[
            ImageUrlObject,
            ImageUrlString,
            LangChainData,
            LangChainBase64,
            LangChainUrl,
            DataMimeType,
        ],
        Format::Anthropic => &[AnthropicBase64, AnthropicUrl],
        Format::AiSdk => &[AiSdkImage, AiSdkData, AiSdkTaggedData],
        Format::UiMessage => &[UiFileUrl],
        Format::OpenAiResponses => &[ResponsesInputImage],
        Format::Gemini => &[GeminiInlineData, GeminiFunctionResponseBlob],
        Format::Mcp => &[DataMimeType, McpResourceBlob],
        Format::Ollama => &[OllamaImage],
    }
}

/// Whether a part stashed in `shape` can be written back as it was into a
/// message of `format`. An Ollama image is an entry of `images`, not a part:
/// it goes back only into an Ollama message, and an Ollama message takes no
/// other shape (it gets the canonical `{image}` instead).
pub fn restores_as_stashed(shape: ImageShape, format: Format) -> bool {
    (shape == ImageShape::OllamaImage) == (format == Format::Ollama)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::ImagePart;

    #[test]
    fn ollama_images_and_parts_do_not_mix() {
        assert!(restores_as_stashed(ImageShape::OllamaImage, Format::Ollama));
        assert!(!restores_as_stashed(
            ImageShape::OllamaImage,
            Format::OpenAi
        ));
        assert!(!restores_as_stashed(
            ImageShape::ImageUrlObject,
            Format::Ollama
        ));
        assert!(restores_as_stashed(
            ImageShape::ImageUrlObject,
            Format::Anthropic
        ));
    }

    #[test]
    fn every_canonical_part_reads_back_in_its_shape() {
        for format in Format::ALL {
            let Value::Object(wire) =
                super::super::image::new_image_part(format, "image/png", "AAAA", None)
            else {
                panic!("{format:?}");
            };
            let shape = canonical_shape(format);
            assert!(native_shapes(format).contains(&shape), "{format:?}");
            let part = ImagePart { wire, shape };
            assert_eq!(
                part.source().inline(),
                Some(((format != Format::Ollama).then_some("image/png"), "AAAA")),
                "{format:?}"
            );
        }
    }
}
