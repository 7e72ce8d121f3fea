//! Where each format keeps an image in its part: one [`ImageShape`] per wire
//! shape, with the keys of its value and MIME type.

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
pub(super) const SHAPE_NAMES: [(ImageShape, &str); 17] = [
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
    pub(super) fn keys(self) -> Keys {
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
    pub(super) fn always_base64(self) -> bool {
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
pub(super) struct Keys {
    /// The object holding the value, when it is not the part itself.
    pub(super) container: Option<&'static str>,
    /// The key of the value.
    pub(super) value: &'static str,
    /// The key of the MIME type.
    pub(super) mime: Option<&'static str>,
    /// True when the MIME type is on the part, not in the container.
    pub(super) mime_outside: bool,
}
