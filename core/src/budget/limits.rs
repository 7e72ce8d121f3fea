//! The providers ctxpack knows, and what one request may carry. The figures
//! themselves live in the model profiles ([`super::provider_profile`]).

/// A provider whose limits and image-token rules ctxpack knows. Read from
/// a profile given as data by its name ([`Provider::from_name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Deserialize)]
#[serde(try_from = "String")]
pub enum Provider {
    /// OpenAI Chat Completions / Responses (also Azure OpenAI).
    OpenAi,
    /// Anthropic Messages API.
    Anthropic,
    /// Google Gemini API.
    Gemini,
    /// Amazon Bedrock (Claude on Bedrock).
    Bedrock,
    /// Google Vertex AI (Claude on Vertex AI).
    Vertex,
}

impl TryFrom<String> for Provider {
    type Error = String;

    /// The provider `name` names ([`Provider::from_name`]), or why none.
    fn try_from(name: String) -> Result<Provider, String> {
        Provider::from_name(&name).ok_or_else(|| {
            format!(
                "unknown provider {name:?}; expected 'openai', 'anthropic', 'gemini', 'bedrock' or 'vertex'"
            )
        })
    }
}

impl Provider {
    /// Reads a provider name, as apps and gateways spell it.
    pub fn from_name(name: &str) -> Option<Provider> {
        match name.to_ascii_lowercase().as_str() {
            "openai" | "azure" | "azure-openai" | "azure_openai" => Some(Provider::OpenAi),
            "anthropic" | "claude" => Some(Provider::Anthropic),
            "gemini" | "google" => Some(Provider::Gemini),
            "bedrock" | "aws" | "amazon-bedrock" => Some(Provider::Bedrock),
            "vertex" | "vertex_ai" | "vertex-ai" | "google-vertex" => Some(Provider::Vertex),
            _ => None,
        }
    }

    /// The name reports and options use for it (the first that
    /// [`Provider::from_name`] takes).
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Bedrock => "bedrock",
            Provider::Vertex => "vertex",
        }
    }
}

/// What one request may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestLimits {
    /// Images per request.
    pub max_images: Option<usize>,
    /// Bytes per image (measured as the profile's `imageBytesOn` says).
    #[serde(serialize_with = "crate::number::opt_u64_as_number")]
    pub max_image_bytes: Option<u64>,
    /// Bytes per request body.
    #[serde(serialize_with = "crate::number::opt_u64_as_number")]
    pub max_request_bytes: Option<u64>,
}

/// The documented limits of `provider`'s models in general.
pub fn limits_of(provider: Provider) -> RequestLimits {
    super::provider_profile(provider).limits()
}
