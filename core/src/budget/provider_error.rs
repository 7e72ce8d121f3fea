//! Reading the refusals model APIs send about a request's size and images
//! (and about a file it references)
//! — context length, image bytes, image dimensions (the many-image rule
//! included), image count, request bytes — from the exact wording each
//! provider uses, so an app (and `repairContext`) knows what to fix.
//!
//! The wordings, as the APIs send them:
//! - Anthropic: `messages.0.content.2.image.source.base64: image exceeds 5 MB
//!   maximum: 15908784 bytes > 5242880 bytes`; `…: At least one of the image
//!   dimensions exceed max allowed size for many-image requests: 2000 pixels`;
//!   `image dimensions exceed max allowed size: 8000 pixels`; `too many images
//!   and documents: 101 + 0 > 100`; `Too much media: 0 document pages + 102
//!   images > 100`; `prompt is too long: 213610 tokens > 199999 maximum`;
//!   ``input length and `max_tokens` exceed context limit: 199759 + 8192 >
//!   200000``; `request_too_large` (HTTP 413).
//! - Amazon Bedrock wraps Anthropic's in `ValidationException: The model
//!   returned the following errors: …` (the image path ends in
//!   `source.bytes`); its own: `Input is too long for requested model.`,
//!   `Failed to buffer the request body: length limit exceeded`, `Image
//!   exceeds max pixels allowed.`
//! - OpenAI (and Azure OpenAI, DeepSeek, vLLM, OpenRouter): `This model's
//!   maximum context length is 128000 tokens. However, your messages resulted
//!   in 130000 tokens.` (or `… you requested 4120 tokens (3120 in the
//!   messages, 1000 in the completion)`, `… you requested 128000 output
//!   tokens and your prompt contains at least 134145 input tokens, for a
//!   total of at least 262145 tokens`); Responses: `Your input exceeds the
//!   context window of this model.`; `Too many images in request. Max is 10.`
//! - vLLM: `At most 5 image(s) may be provided in one request.`
//! - Gemini: `The input token count (1200293) exceeds the maximum number of
//!   tokens allowed (1048576).` (2.5: without the count).
//! - Google's front end: `Maximum request body size 1048576 exceeded, actual
//!   body size 1056562` (HTTP 413).
//! - Gateways: `request contains 52 images, exceeding the maximum of 50
//!   allowed per request`; `Too many images in request: 11 images provided,
//!   but the model supports a maximum of 10 images.`; LiteLLM's
//!   `ContextWindowExceededError` around the provider's own text.
//! - A file the request references that the provider no longer has
//!   (`file-missing`, not about size: no limit fixes it): OpenAI's `No such
//!   File object: file-…`; Gemini's 403 `You do not have permission to
//!   access the File … or it may not exist.`; Anthropic's 404
//!   `not_found_error` about a file (its Files API guide: "File not found
//!   (404): The specified file_id doesn't exist or you don't have access to
//!   it").
//!
//! The tests quoting each wording, with where it was found, are in
//! `core/tests/integration/refusals.rs`.

use super::context_error::{find, number_after, parse_context_length_error};
use super::file_missing::file_missing_refusal;
use super::refusal::{provider_of, ProviderRefusal, RefusalKind};

/// The output tokens an OpenAI-style context refusal says were asked for:
/// `(3120 in the messages, 1000 in the completion)`, `(8977 in your prompt;
/// 0 for the completion)`, `you requested 128000 output tokens`.
fn output_tokens_of(text: &str) -> Option<u64> {
    let after = |needle| numbers_after(text, needle).first().copied();
    if find(text, "output tokens").is_some() {
        return after("you requested");
    }
    after("in the messages,").or_else(|| after("in your prompt;"))
}

/// `a + b`, when both are given.
fn sum(a: Option<&u64>, b: Option<&u64>) -> Option<u64> {
    a?.checked_add(*b?)
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

/// Reads `text` (an error message or a whole error body) as a refusal
/// about size or images, or of a missing file; `None` when it is neither.
/// The wordings are tried from the most specific to the most general: a
/// missing file, one image's bytes, one image's pixels, the image count,
/// the context length, the request's bytes.
pub fn parse_provider_error(text: &str) -> Option<ProviderRefusal> {
    file_missing_refusal(text)
        .or_else(|| image_bytes_refusal(text))
        .or_else(|| image_dimensions_refusal(text))
        .or_else(|| image_count_refusal(text))
        .or_else(|| context_length_refusal(text))
        .or_else(|| request_size_refusal(text))
}

/// `refusal` with the provider path in front of `needle` in `text` and the
/// message index that path names, when there is one.
fn with_path(mut refusal: ProviderRefusal, text: &str, needle: &str) -> ProviderRefusal {
    refusal.path = path_before(text, needle);
    refusal.message_index = refusal.path.as_deref().and_then(message_index);
    refusal
}

/// Anthropic's (and Bedrock's Anthropic models') refusal of one image's
/// bytes: `image exceeds 5 MB maximum: 15908784 bytes > 5242880 bytes`.
fn image_bytes_refusal(text: &str) -> Option<ProviderRefusal> {
    if find(text, "image exceeds").is_none()
        || find(text, "maximum").is_none()
        || find(text, "bytes >").is_none()
    {
        return None;
    }
    let n = numbers_after(text, "maximum:");
    let mut r = ProviderRefusal::new(RefusalKind::ImageTooLarge, provider_of(text, "anthropic"));
    r.actual = n.first().copied();
    r.limit = n.get(1).copied();
    Some(with_path(r, text, "image exceeds"))
}

/// A refusal of one image's pixels: Anthropic's many-image rule and its
/// single-image limit, and Bedrock's `Image exceeds max pixels allowed.`
fn image_dimensions_refusal(text: &str) -> Option<ProviderRefusal> {
    for needle in [
        "At least one of the image dimensions exceed",
        "image dimensions exceed",
        "image exceed max allowed size",
    ] {
        if find(text, needle).is_some() {
            let mut r =
                ProviderRefusal::new(RefusalKind::ImageDimensions, provider_of(text, "anthropic"));
            r.limit = numbers_after(text, "max allowed size").first().copied();
            return Some(with_path(r, text, needle));
        }
    }
    if find(text, "Image exceeds max pixels allowed").is_some() {
        return Some(ProviderRefusal::new(
            RefusalKind::ImageDimensions,
            "bedrock",
        ));
    }
    None
}

/// A refusal of the request's image count, in Anthropic's, OpenAI's,
/// vLLM's or a gateway's wording.
fn image_count_refusal(text: &str) -> Option<ProviderRefusal> {
    let refusal = |provider| ProviderRefusal::new(RefusalKind::TooManyImages, provider);
    // "too many images and documents: 104 + 1 > 100" (images + documents).
    if find(text, "too many images and documents").is_some() {
        let n = numbers_after(text, "too many images and documents");
        let mut r = refusal(provider_of(text, "anthropic"));
        r.actual = sum(n.first(), n.get(1));
        r.documents = n.get(1).copied();
        r.limit = n.get(2).copied();
        return Some(r);
    }
    // "Too much media: 0 document pages + 102 images > 100" (pages + images).
    if find(text, "too much media").is_some() {
        let n = numbers_after(text, "too much media");
        let mut r = refusal(provider_of(text, "anthropic"));
        r.actual = sum(n.first(), n.get(1));
        r.documents = n.first().copied();
        r.limit = n.get(2).copied();
        return Some(r);
    }
    if find(text, "Too many images in request").is_some() {
        let mut r = refusal(provider_of(text, "openai"));
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
        let mut r = refusal("vllm");
        r.limit = numbers_after(text, "At most").first().copied();
        return Some(r);
    }
    if find(text, "images, exceeding the maximum of").is_some() {
        let mut r = refusal("gateway");
        r.actual = numbers_after(text, "request contains").first().copied();
        r.limit = numbers_after(text, "exceeding the maximum of")
            .first()
            .copied();
        return Some(r);
    }
    None
}

/// A refusal of the request's tokens, with its numbers where the wording
/// gives them: Anthropic's, OpenAI's (Azure's configured limit among them),
/// Gemini's and Bedrock's.
fn context_length_refusal(text: &str) -> Option<ProviderRefusal> {
    let refusal = |provider| ProviderRefusal::new(RefusalKind::ContextLength, provider);
    // "input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000"
    if find(text, "exceed context limit").is_some() {
        let n = numbers_after(text, "exceed context limit");
        let mut r = refusal(provider_of(text, "anthropic"));
        r.actual = sum(n.first(), n.get(1));
        r.output_tokens = n.get(1).copied();
        r.limit = n.get(2).copied();
        return Some(r);
    }
    if let Some(c) = parse_context_length_error(text) {
        let mut r = refusal(provider_of(text, c.provider));
        r.limit = Some(c.max);
        r.actual = Some(c.requested);
        r.output_tokens = output_tokens_of(text).filter(|n| *n <= c.requested);
        return Some(r);
    }
    if find(text, "exceeds the context window").is_some()
        || find(text, "context_length_exceeded").is_some()
    {
        return Some(refusal("openai"));
    }
    // Azure OpenAI and OpenAI's configured limit: "Input tokens exceed the
    // configured limit of 272000 tokens. Your messages resulted in 509178 tokens."
    if find(text, "exceed the configured limit of").is_some() {
        let mut r = refusal(provider_of(text, "openai"));
        r.limit = numbers_after(text, "exceed the configured limit of")
            .first()
            .copied();
        r.actual = numbers_after(text, "resulted in").first().copied();
        return Some(r);
    }
    // Gemini 2.5: "The input token count exceeds the maximum number of tokens allowed (1048576)."
    if find(text, "maximum number of tokens allowed").is_some() {
        let mut r = refusal("gemini");
        r.limit = numbers_after(text, "maximum number of tokens allowed")
            .first()
            .copied();
        return Some(r);
    }
    if find(text, "Input is too long").is_some() {
        return Some(refusal("bedrock"));
    }
    None
}

/// A refusal of the request body's bytes: Anthropic's `request_too_large`,
/// Google's front end's, Bedrock's and a gateway's.
fn request_size_refusal(text: &str) -> Option<ProviderRefusal> {
    let refusal = |provider| ProviderRefusal::new(RefusalKind::RequestTooLarge, provider);
    if find(text, "request_too_large").is_some()
        || find(text, "Request exceeds the maximum allowed number of bytes").is_some()
    {
        return Some(refusal(provider_of(text, "anthropic")));
    }
    // "Maximum request body size 1048576 exceeded, actual body size 1056562"
    if find(text, "Maximum request body size").is_some() {
        let mut r = refusal("gemini");
        r.limit = numbers_after(text, "Maximum request body size")
            .first()
            .copied();
        r.actual = numbers_after(text, "actual body size").first().copied();
        return Some(r);
    }
    if find(text, "length limit exceeded").is_some()
        || find(text, "413 Request Entity Too Large").is_some()
    {
        return Some(refusal(provider_of(text, "gateway")));
    }
    None
}
