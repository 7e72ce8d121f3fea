//! A provider's refusal, read: what it is about, whose wording it was, and
//! the figures it names (see `provider_error` for the wordings).

use super::context_error::find;

/// What a refusal is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RefusalKind {
    /// The request has more tokens than the model's context window.
    ContextLength,
    /// One image has more bytes than the model takes.
    ImageTooLarge,
    /// One image is larger, in pixels, than the model takes.
    ImageDimensions,
    /// The request has more images than the model takes.
    TooManyImages,
    /// The request body has more bytes than the API takes.
    RequestTooLarge,
    /// A file the request references (by an id of the provider's Files
    /// API) is gone: deleted, expired, or never of this key's project.
    FileMissing,
}

/// A refusal, read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderRefusal {
    /// What it is about.
    pub kind: RefusalKind,
    /// Whose wording it was: `openai`, `anthropic`, `bedrock`, `gemini`,
    /// `deepseek`, `vllm`, or `gateway`.
    pub provider: &'static str,
    /// The limit the refusal names (tokens, bytes, pixels or images).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::number::opt_u64_as_number"
    )]
    pub limit: Option<u64>,
    /// What the request had, when the refusal says.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::number::opt_u64_as_number"
    )]
    pub actual: Option<u64>,
    /// The message the refused image is in, when the refusal names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_index: Option<usize>,
    /// The provider's path of the refused value (`messages.3.content.0.image.source.base64`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Context length: the output tokens the request asked for (`max_tokens`),
    /// counted in `actual`; the input must come down to `limit` minus these.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::number::opt_u64_as_number"
    )]
    pub output_tokens: Option<u64>,
    /// Too many images: the documents (or document pages) counted with the
    /// images in `actual`; the images must come down to `limit` minus these.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::number::opt_u64_as_number"
    )]
    pub documents: Option<u64>,
    /// A missing file: its id as the refusal names it (`file-abc123`,
    /// `file_011C…`, or a Gemini file's name without `files/`), when it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_id: Option<String>,
}

impl RefusalKind {
    /// The kind a refusal's written `kind` names (`context-length`, …);
    /// `None` for any other text.
    pub fn from_name(name: &str) -> Option<RefusalKind> {
        use RefusalKind::*;
        [
            ContextLength,
            ImageTooLarge,
            ImageDimensions,
            TooManyImages,
            RequestTooLarge,
            FileMissing,
        ]
        .into_iter()
        .find(|k| k.name() == name)
    }

    /// The kind's written name, as JavaScript sees it.
    pub fn name(self) -> &'static str {
        match self {
            RefusalKind::ContextLength => "context-length",
            RefusalKind::ImageTooLarge => "image-too-large",
            RefusalKind::ImageDimensions => "image-dimensions",
            RefusalKind::TooManyImages => "too-many-images",
            RefusalKind::RequestTooLarge => "request-too-large",
            RefusalKind::FileMissing => "file-missing",
        }
    }

    /// Whether the refusal is about size or images, which a request fitted
    /// to tighter limits meets (not a missing file).
    pub fn is_about_size(self) -> bool {
        self != RefusalKind::FileMissing
    }
}

/// Every wording [`ProviderRefusal::provider`] names.
const PROVIDERS: [&str; 7] = [
    "openai",
    "anthropic",
    "bedrock",
    "gemini",
    "deepseek",
    "vllm",
    "gateway",
];

impl ProviderRefusal {
    /// A refusal of the `kind` and `provider` written as
    /// [`parse_provider_error`]'s result is (its figures, path and index
    /// left for the caller to set); `None` for a kind or provider it never
    /// writes. It reads a refusal back after it crossed to JavaScript.
    pub fn named(kind: &str, provider: &str) -> Option<ProviderRefusal> {
        let provider = PROVIDERS.into_iter().find(|p| *p == provider)?;
        Some(ProviderRefusal::new(
            RefusalKind::from_name(kind)?,
            provider,
        ))
    }

    pub(super) fn new(kind: RefusalKind, provider: &'static str) -> Self {
        ProviderRefusal {
            kind,
            provider,
            limit: None,
            actual: None,
            message_index: None,
            path: None,
            output_tokens: None,
            documents: None,
            file_id: None,
        }
    }
}

/// Whose wording a text is in, beyond the phrase itself: Bedrock wraps
/// Anthropic's messages; DeepSeek and vLLM speak OpenAI's.
pub(super) fn provider_of(text: &str, wording: &'static str) -> &'static str {
    if find(text, "ValidationException").is_some()
        || find(text, "model returned the following errors").is_some()
    {
        "bedrock"
    } else if find(text, "deepseek").is_some() {
        "deepseek"
    } else if find(text, "'object': 'error'").is_some()
        || find(text, "\"object\":\"error\"").is_some()
    {
        "vllm"
    } else {
        wording
    }
}
