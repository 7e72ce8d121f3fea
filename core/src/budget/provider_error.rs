//! Reading the refusals model APIs send about a request's size and images
//! — context length, image bytes, image dimensions (the many-image rule
//! included), image count, request bytes — from the exact wording each
//! provider uses, so an app (and `repairContext`) knows what to fix.
//!
//! The wordings, as the APIs send them:
//! - Anthropic: `messages.0.content.2.image.source.base64: image exceeds 5 MB
//!   maximum: 15908784 bytes > 5242880 bytes`; `…: At least one of the image
//!   dimensions exceed max allowed size for many-image requests: 2000 pixels`;
//!   `image dimensions exceed max allowed size: 8000 pixels`; `too many images
//!   and documents: 101 + 0 > 100`; `prompt is too long: 213610 tokens >
//!   199999 maximum`; `request_too_large` (HTTP 413).
//! - Amazon Bedrock wraps Anthropic's in `ValidationException: The model
//!   returned the following errors: …` (the image path ends in
//!   `source.bytes`); its own: `Input is too long for requested model.`,
//!   `Failed to buffer the request body: length limit exceeded`, `Image
//!   exceeds max pixels allowed.`
//! - OpenAI (and DeepSeek, vLLM, OpenRouter): `This model's maximum context
//!   length is 128000 tokens. However, your messages resulted in 130000
//!   tokens.`; Responses: `Your input exceeds the context window of this
//!   model.`; `Too many images in request. Max is 10.`
//! - vLLM: `At most 5 image(s) may be provided in one request.`
//! - Gemini: `The input token count (1200293) exceeds the maximum number of
//!   tokens allowed (1048576).`
//! - Gateways: `request contains 52 images, exceeding the maximum of 50
//!   allowed per request`; `Too many images in request: 11 images provided,
//!   but the model supports a maximum of 10 images.`

use super::context_error::{find, number_after, parse_context_length_error};

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
}

impl ProviderRefusal {
    fn new(kind: RefusalKind, provider: &'static str) -> Self {
        ProviderRefusal {
            kind,
            provider,
            limit: None,
            actual: None,
            message_index: None,
            path: None,
        }
    }
}

/// The numbers that follow `needle` in `text`, in order.
fn numbers_after(text: &str, needle: &str) -> Vec<u64> {
    let Some(at) = find(text, needle) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut from = at + needle.len();
    while let Some((n, end)) = number_after(text, from) {
        out.push(n);
        from = end;
        if out.len() == 3 {
            break;
        }
    }
    out
}

/// The provider path in front of `needle` (`messages.3.content.0.image.source.base64`).
fn path_before(text: &str, needle: &str) -> Option<String> {
    let at = find(text, needle)?;
    let head = text[..at].trim_end().strip_suffix(':')?;
    let start = head
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_'))
        .map_or(0, |i| i + 1);
    let path = &head[start..];
    path.starts_with("messages.").then(|| path.to_owned())
}

/// The message index a provider path names.
fn message_index(path: &str) -> Option<usize> {
    path.strip_prefix("messages.")?
        .split('.')
        .next()?
        .parse()
        .ok()
}

/// Whose wording a text is in, beyond the phrase itself: Bedrock wraps
/// Anthropic's messages; DeepSeek and vLLM speak OpenAI's.
fn provider_of(text: &str, wording: &'static str) -> &'static str {
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

/// Reads `text` (an error message or a whole error body) as a refusal
/// about size or images; `None` when it is not one.
pub fn parse_provider_error(text: &str) -> Option<ProviderRefusal> {
    use RefusalKind::*;
    let with_path = |mut r: ProviderRefusal, needle: &str| {
        r.path = path_before(text, needle);
        r.message_index = r.path.as_deref().and_then(message_index);
        r
    };
    // Anthropic (and Bedrock's Anthropic models): bytes of one image.
    if find(text, "image exceeds").is_some()
        && find(text, "maximum").is_some()
        && find(text, "bytes >").is_some()
    {
        let n = numbers_after(text, "maximum:");
        let mut r = ProviderRefusal::new(ImageTooLarge, provider_of(text, "anthropic"));
        r.actual = n.first().copied();
        r.limit = n.get(1).copied();
        return Some(with_path(r, "image exceeds"));
    }
    // Anthropic's many-image rule, and its single-image limit.
    for needle in [
        "At least one of the image dimensions exceed",
        "image dimensions exceed",
        "image exceed max allowed size",
    ] {
        if find(text, needle).is_some() {
            let mut r = ProviderRefusal::new(ImageDimensions, provider_of(text, "anthropic"));
            r.limit = numbers_after(text, "max allowed size").first().copied();
            return Some(with_path(r, needle));
        }
    }
    if find(text, "Image exceeds max pixels allowed").is_some() {
        return Some(ProviderRefusal::new(ImageDimensions, "bedrock"));
    }
    if find(text, "too many images and documents").is_some() {
        let n = numbers_after(text, "too many images and documents");
        let mut r = ProviderRefusal::new(TooManyImages, provider_of(text, "anthropic"));
        r.actual = match (n.first(), n.get(1)) {
            (Some(a), Some(b)) => a.checked_add(*b),
            _ => None,
        };
        r.limit = n.get(2).copied();
        return Some(r);
    }
    if find(text, "Too many images in request").is_some() {
        let mut r = ProviderRefusal::new(TooManyImages, provider_of(text, "openai"));
        if let Some(at) = find(text, "images provided") {
            // "11 images provided, but the model supports a maximum of 10 images"
            r.provider = "gateway";
            r.actual = numbers_after(text, "Too many images in request")
                .first()
                .copied()
                .filter(|_| at > 0);
            r.limit = numbers_after(text, "maximum of").first().copied();
        } else {
            r.limit = numbers_after(text, "Max is").first().copied();
        }
        return Some(r);
    }
    if find(text, "image(s) may be provided in one request").is_some() {
        let mut r = ProviderRefusal::new(TooManyImages, "vllm");
        r.limit = numbers_after(text, "At most").first().copied();
        return Some(r);
    }
    if find(text, "images, exceeding the maximum of").is_some() {
        let mut r = ProviderRefusal::new(TooManyImages, "gateway");
        r.actual = numbers_after(text, "request contains").first().copied();
        r.limit = numbers_after(text, "exceeding the maximum of")
            .first()
            .copied();
        return Some(r);
    }
    // Context length, with its numbers where the wording gives them.
    if let Some(c) = parse_context_length_error(text) {
        let mut r = ProviderRefusal::new(ContextLength, provider_of(text, c.provider));
        r.limit = Some(c.max);
        r.actual = Some(c.requested);
        return Some(r);
    }
    if find(text, "exceeds the context window").is_some()
        || find(text, "context_length_exceeded").is_some()
    {
        return Some(ProviderRefusal::new(ContextLength, "openai"));
    }
    if find(text, "Input is too long for requested model").is_some()
        || find(text, "Input is too long").is_some()
    {
        return Some(ProviderRefusal::new(ContextLength, "bedrock"));
    }
    // The request body itself.
    if find(text, "request_too_large").is_some()
        || find(text, "Request exceeds the maximum allowed number of bytes").is_some()
    {
        return Some(ProviderRefusal::new(
            RequestTooLarge,
            provider_of(text, "anthropic"),
        ));
    }
    if find(text, "length limit exceeded").is_some()
        || find(text, "413 Request Entity Too Large").is_some()
    {
        return Some(ProviderRefusal::new(
            RequestTooLarge,
            provider_of(text, "gateway"),
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use RefusalKind::*;

    /// Kind, provider, limit and actual, as read.
    type Read = (RefusalKind, &'static str, Option<u64>, Option<u64>);

    fn read(text: &str) -> Read {
        let r = parse_provider_error(text).unwrap_or_else(|| panic!("not read: {text}"));
        (r.kind, r.provider, r.limit, r.actual)
    }

    #[test]
    fn reads_every_providers_wording() {
        let cases: &[(&str, Read)] = &[
            (r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.2.image.source.base64: image exceeds 5 MB maximum: 15908784 bytes > 5242880 bytes"},"request_id":"req_011CUcqvXBc6AskCDuW4mM1q"}"#,
             (ImageTooLarge, "anthropic", Some(5_242_880), Some(15_908_784))),
            ("ValidationException: The model returned the following errors:\nmessages.0.content.2.image.source.bytes: image exceeds 5 MB maximum:\n7167852 bytes > 5242880 bytes",
             (ImageTooLarge, "bedrock", Some(5_242_880), Some(7_167_852))),
            (r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages.135.content.6.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels"}}"#,
             (ImageDimensions, "anthropic", Some(2000), None)),
            ("messages.1.content.0.image.source.base64: image dimensions exceed max allowed size: 8000 pixels",
             (ImageDimensions, "anthropic", Some(8000), None)),
            ("ValidationException: image exceed max allowed size for many-image requests: 2000 pixels",
             (ImageDimensions, "bedrock", Some(2000), None)),
            ("ValidationException: 400 Bad Request: Image exceeds max pixels allowed.", (ImageDimensions, "bedrock", None, None)),
            (r#"{"type":"error","error":{"type":"invalid_request_error","message":"too many images and documents: 101 + 0 > 100"}}"#,
             (TooManyImages, "anthropic", Some(100), Some(101))),
            ("error, status code: 400, message: Too many images in request. Max is 10.", (TooManyImages, "openai", Some(10), None)),
            ("Too many images in request: 11 images provided, but the model supports a maximum of 10 images.",
             (TooManyImages, "gateway", Some(10), Some(11))),
            ("{'object': 'error', 'message': 'At most 5 image(s) may be provided in one request.', 'type': 'BadRequestError', 'param': None, 'code': 400}",
             (TooManyImages, "vllm", Some(5), None)),
            ("[invalid_request_error] request contains 52 images, exceeding the maximum of 50 allowed per request",
             (TooManyImages, "gateway", Some(50), Some(52))),
            (r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 213610 tokens > 199999 maximum"}}"#,
             (ContextLength, "anthropic", Some(199_999), Some(213_610))),
            ("This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.",
             (ContextLength, "openai", Some(128_000), Some(130_000))),
            ("DeepSeek API error: This model's maximum context length is 131072 tokens. However, you requested 5472941 tokens (5468845 in the messages, 4096 in the completion).",
             (ContextLength, "deepseek", Some(131_072), Some(5_472_941))),
            ("{'object': 'error', 'message': \"This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (39000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.\", 'type': 'BadRequestError', 'code': 400}",
             (ContextLength, "vllm", Some(32_768), Some(40_000))),
            (r#"{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
             (ContextLength, "openai", None, None)),
            (r#"{"error":{"code":400,"message":"The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}"#,
             (ContextLength, "gemini", Some(1_048_576), Some(1_200_293))),
            ("ValidationException: Input is too long for requested model.", (ContextLength, "bedrock", None, None)),
            (r#"{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}"#,
             (RequestTooLarge, "anthropic", None, None)),
            (r#"ValidationException: The model returned the following errors: {"code":"validation_error","message":"Failed to buffer the request body: length limit exceeded"}"#,
             (RequestTooLarge, "bedrock", None, None)),
        ];
        for (text, want) in cases {
            assert_eq!(read(text), *want, "{text}");
        }
    }

    #[test]
    fn names_the_refused_image_where_the_provider_does() {
        let r = parse_provider_error("messages.34.content.2.tool_result.content.0.image.source.base64: image exceeds 5 MB maximum: 5404560 bytes > 5242880 bytes").unwrap();
        assert_eq!(
            r.path.as_deref(),
            Some("messages.34.content.2.tool_result.content.0.image.source.base64")
        );
        assert_eq!(r.message_index, Some(34));
    }

    #[test]
    fn other_errors_are_not_refusals() {
        for text in [
            "rate limit exceeded",
            "Incorrect API key provided",
            "",
            "Request too large for gpt-4o on tokens per min",
        ] {
            assert_eq!(parse_provider_error(text), None, "{text}");
        }
    }
}
