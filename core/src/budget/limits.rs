//! Per-provider request limits, in one table: how many images a request may
//! carry and how many bytes per image and per request. Figures are the
//! providers' documented limits for their public APIs; a caller can override
//! any of them.

/// A provider whose limits and image-token rules ctxpack knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI Chat Completions / Responses.
    OpenAi,
    /// Anthropic Messages API.
    Anthropic,
    /// Google Gemini API.
    Gemini,
    /// Amazon Bedrock Converse (Claude on Bedrock).
    Bedrock,
}

impl Provider {
    /// Reads a provider name.
    pub fn from_name(name: &str) -> Option<Provider> {
        match name.to_ascii_lowercase().as_str() {
            "openai" | "azure" | "azure-openai" => Some(Provider::OpenAi),
            "anthropic" | "claude" => Some(Provider::Anthropic),
            "gemini" | "google" => Some(Provider::Gemini),
            "bedrock" | "aws" => Some(Provider::Bedrock),
            _ => None,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Bedrock => "bedrock",
        }
    }
}

/// What one request may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestLimits {
    /// Images per request.
    pub max_images: Option<usize>,
    /// Bytes per image (decoded).
    #[serde(serialize_with = "crate::number::opt_u64_as_number")]
    pub max_image_bytes: Option<u64>,
    /// Bytes per request body.
    #[serde(serialize_with = "crate::number::opt_u64_as_number")]
    pub max_request_bytes: Option<u64>,
}

const MB: u64 = 1024 * 1024;

/// The limits table: (provider, images per request, bytes per image, bytes per request).
pub const LIMITS: &[(Provider, usize, u64, u64)] = &[
    (Provider::OpenAi, 500, 20 * MB, 50 * MB),
    (Provider::Anthropic, 100, 5 * MB, 32 * MB),
    (Provider::Gemini, 3000, 7 * MB, 20 * MB),
    (Provider::Bedrock, 20, 3_750_000, 20 * MB),
];

/// The documented limits of `provider`.
pub fn limits_of(provider: Provider) -> RequestLimits {
    LIMITS
        .iter()
        .find(|(p, ..)| *p == provider)
        .map(|&(_, images, image, request)| RequestLimits {
            max_images: Some(images),
            max_image_bytes: Some(image),
            max_request_bytes: Some(request),
        })
        .unwrap_or(RequestLimits {
            max_images: None,
            max_image_bytes: None,
            max_request_bytes: None,
        })
}
