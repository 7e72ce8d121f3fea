//! Every refusal wording `parse_provider_error` reads, quoted exactly as the
//! providers send it, each with where it was found; and the limits
//! `repair_profile` turns each kind into.

use ctxpack_core::budget::{
    model_profile, parse_context_length_error, parse_provider_error, EstimateReport,
    RefusalKind::{self, *},
};
use ctxpack_core::fit::repair_profile;

/// Kind, provider, limit and actual, as read.
type Read = (RefusalKind, &'static str, Option<u64>, Option<u64>);

fn read(text: &str) -> Read {
    let r = parse_provider_error(text).unwrap_or_else(|| panic!("not read: {text}"));
    (r.kind, r.provider, r.limit, r.actual)
}

#[test]
fn reads_every_providers_wording() {
    let cases: &[(&str, Read)] = &[
        // Anthropic, one image over 5 MB of base64: anthropics/claude-code#14887.
        (r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.2.image.source.base64: image exceeds 5 MB maximum: 15908784 bytes > 5242880 bytes"},"request_id":"req_011CUcqvXBc6AskCDuW4mM1q"}"#,
         (ImageTooLarge, "anthropic", Some(5_242_880), Some(15_908_784))),
        // Bedrock wrapping Anthropic's: the same refusal through InvokeModel.
        ("ValidationException: The model returned the following errors:\nmessages.0.content.2.image.source.bytes: image exceeds 5 MB maximum:\n7167852 bytes > 5242880 bytes",
         (ImageTooLarge, "bedrock", Some(5_242_880), Some(7_167_852))),
        // Anthropic's many-image rule: anthropics/claude-code#10360, #13480, #16173.
        (r#"{"type":"error","error":{"type":"invalid_request_error","message":"messages.135.content.6.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels"}}"#,
         (ImageDimensions, "anthropic", Some(2000), None)),
        // Anthropic's single-image limit (vision docs: 8000×8000 px).
        ("messages.1.content.0.image.source.base64: image dimensions exceed max allowed size: 8000 pixels",
         (ImageDimensions, "anthropic", Some(8000), None)),
        // Bedrock's many-image rule: aws-solutions-library-samples/accelerated-intelligent-document-processing-on-aws#998.
        ("ValidationException: image exceed max allowed size for many-image requests: 2000 pixels",
         (ImageDimensions, "bedrock", Some(2000), None)),
        ("ValidationException: 400 Bad Request: Image exceeds max pixels allowed.", (ImageDimensions, "bedrock", None, None)),
        // Anthropic, images + documents: anthropics/claude-code#23392, openclaw/openclaw#13202.
        (r#"{"type":"error","error":{"type":"invalid_request_error","message":"too many images and documents: 104 + 1 > 100"},"request_id":"req_011CXqJXwaFpHuYrnwkakp1F"}"#,
         (TooManyImages, "anthropic", Some(100), Some(105))),
        // Anthropic, document pages + images: anthropics/claude-code#19822, #3397, #24541.
        (r#"{"type":"error","error":{"type":"invalid_request_error","message":"Too much media: 0 document pages + 102 images > 100"},"request_id":"req_011CXLuUBKMffgQcCA9wfKbV"}"#,
         (TooManyImages, "anthropic", Some(100), Some(102))),
        // Bedrock, Claude 4.x's 20 images: RooCodeInc/Roo-Code#8800.
        ("API Request Failed\nUnknown Error: The model returned the following errors: too many images and documents: 21 + 0 > 20",
         (TooManyImages, "bedrock", Some(20), Some(21))),
        ("error, status code: 400, message: Too many images in request. Max is 10.", (TooManyImages, "openai", Some(10), None)),
        ("Too many images in request: 11 images provided, but the model supports a maximum of 10 images.",
         (TooManyImages, "gateway", Some(10), Some(11))),
        ("{'object': 'error', 'message': 'At most 5 image(s) may be provided in one request.', 'type': 'BadRequestError', 'param': None, 'code': 400}",
         (TooManyImages, "vllm", Some(5), None)),
        ("[invalid_request_error] request contains 52 images, exceeding the maximum of 50 allowed per request",
         (TooManyImages, "gateway", Some(50), Some(52))),
        (r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 213610 tokens > 199999 maximum"}}"#,
         (ContextLength, "anthropic", Some(199_999), Some(213_610))),
        // Anthropic, input + max_tokens over the window: continuedev/continue#6080.
        (r#"{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, decrease input length or `max_tokens` and try again"}}"#,
         (ContextLength, "anthropic", Some(200_000), Some(207_951))),
        // The same without backticks, as quoted in stackblitz/bolt.new#7414.
        ("input length and max_tokens exceed context limit: 90402 + 116650 > 204648, decrease input length or max_tokens and try again",
         (ContextLength, "anthropic", Some(204_648), Some(207_052))),
        // OpenAI: crewAIInc/crewAI-examples#121.
        ("This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens. Please reduce the length of the messages.",
         (ContextLength, "openai", Some(8192), Some(8227))),
        // OpenAI with the completion counted: mckaywrigley/chatbot-ui#102.
        ("This model's maximum context length is 4097 tokens. However, you requested 4120 tokens (3120 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
         (ContextLength, "openai", Some(4097), Some(4120))),
        // OpenRouter's OpenAI-style text: OpenRouterTeam/openrouter-examples#10.
        ("openai.BadRequestError: Error code: 400 - {'error': {'message': \"This model's maximum context length is 8192 tokens, however you requested 8977 tokens (8977 in your prompt; 0 for the completion). Please reduce your prompt; or completion length.\", 'type': 'invalid_request_error', 'param': None, 'code': None}}",
         (ContextLength, "openai", Some(8192), Some(8977))),
        // DeepSeek: evalstate/fast-agent#621.
        ("deepseek request failed for model 'deepseek-chat': {'error': {'message': \"This model's maximum context length is 131072 tokens. However, you requested 131134 tokens (122942 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.\"}}",
         (ContextLength, "deepseek", Some(131_072), Some(131_134))),
        // vLLM's newer wording: AIDotNet/OpenCowork#82.
        ("This model's maximum context length is 262144 tokens. However, you requested 128000 output tokens and your prompt contains at least 134145 input tokens, for a total of at least 262145 tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=134145)",
         (ContextLength, "openai", Some(262_144), Some(262_145))),
        ("{'object': 'error', 'message': \"This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (39000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.\", 'type': 'BadRequestError', 'code': 400}",
         (ContextLength, "vllm", Some(32_768), Some(40_000))),
        (r#"{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
         (ContextLength, "openai", None, None)),
        (r#"{"error":{"code":400,"message":"The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}"#,
         (ContextLength, "gemini", Some(1_048_576), Some(1_200_293))),
        ("ValidationException: Input is too long for requested model.", (ContextLength, "bedrock", None, None)),
        // Gemini 2.5, without the count: BerriAI/litellm#18282.
        ("The input token count exceeds the maximum number of tokens allowed (1048576).",
         (ContextLength, "gemini", Some(1_048_576), None)),
        // LiteLLM around Anthropic's text: OpenHands/OpenHands#4894.
        (r#"litellm.BadRequestError: litellm.ContextWindowExceededError: AnthropicError - {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210543 tokens > 200000 maximum"}}"#,
         (ContextLength, "anthropic", Some(200_000), Some(210_543))),
        // LiteLLM around Anthropic's input + max_tokens text: BrokkAi/brokk-app#540.
        (r#"{"error":{"message":"litellm.BadRequestError: AnthropicException - b'{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 179413 + 32768 > 200000, decrease input length or `max_tokens` and try again"}}'. Received Model Group=anthropic/claude-sonnet-4-20250514
Available Model Group Fallbacks=None","type":null,"param":null,"code":"400"}}"#,
         (ContextLength, "anthropic", Some(200_000), Some(212_181))),
        // Azure OpenAI's configured limit: BerriAI/litellm#15968.
        ("AzureException BadRequestError - Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 509178 tokens. Please reduce the length of the messages.",
         (ContextLength, "openai", Some(272_000), Some(509_178))),
        // LiteLLM's own name for it: BerriAI/litellm#18927.
        ("ContextWindowExceededError: OpenAIException - Input tokens exceed the configured limit of 272000 tokens.",
         (ContextLength, "openai", Some(272_000), None)),
        (r#"{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}"#,
         (RequestTooLarge, "anthropic", None, None)),
        (r#"ValidationException: The model returned the following errors: {"code":"validation_error","message":"Failed to buffer the request body: length limit exceeded"}"#,
         (RequestTooLarge, "bedrock", None, None)),
        // Google's front end: google-gemini/gemini-cli#13776.
        (r#"[API Error: {"error":{"message":"Maximum request body size 1048576 exceeded, actual body size 1056562","code":413,"status":"Request Entity Too Large"}}]"#,
         (RequestTooLarge, "gemini", Some(1_048_576), Some(1_056_562))),
    ];
    for (text, want) in cases {
        assert_eq!(read(text), *want, "{text}");
    }
}

#[test]
fn reads_what_the_count_includes_besides_images_and_input() {
    let media =
        parse_provider_error("Too much media: 30 document pages + 75 images > 100").unwrap();
    assert_eq!((media.documents, media.actual), (Some(30), Some(105)));
    let docs = parse_provider_error("too many images and documents: 104 + 1 > 100").unwrap();
    assert_eq!(docs.documents, Some(1));
    let anthropic = parse_provider_error(
        "input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000, decrease input length or `max_tokens` and try again",
    )
    .unwrap();
    assert_eq!(anthropic.output_tokens, Some(64_000));
    for (text, output) in [
        ("This model's maximum context length is 4097 tokens. However, you requested 4120 tokens (3120 in the messages, 1000 in the completion).", 1000),
        ("This model's maximum context length is 8192 tokens, however you requested 8977 tokens (8977 in your prompt; 0 for the completion).", 0),
        ("This model's maximum context length is 262144 tokens. However, you requested 128000 output tokens and your prompt contains at least 134145 input tokens, for a total of at least 262145 tokens.", 128_000),
    ] {
        assert_eq!(parse_provider_error(text).unwrap().output_tokens, Some(output), "{text}");
    }
    let plain = parse_provider_error("This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens.").unwrap();
    assert_eq!(plain.output_tokens, None);
    // parseContextLengthError keeps its shape: the total the provider counted.
    let total = parse_context_length_error("This model's maximum context length is 262144 tokens. However, you requested 128000 output tokens and your prompt contains at least 134145 input tokens, for a total of at least 262145 tokens.").unwrap();
    assert_eq!((total.requested, total.max), (262_145, 262_144));
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
        "messages.4.content.0.pdf.source.base64.data: A maximum of 100 PDF pages may be provided.",
    ] {
        assert_eq!(parse_provider_error(text), None, "{text}");
    }
}

/// An estimate of `tokens` tokens and `images` images.
fn current(tokens: u64, images: usize) -> EstimateReport {
    let mut r = ctxpack_core::budget::estimate(
        &[],
        &model_profile("claude-sonnet-4-5"),
        0,
        None,
        &ctxpack_core::media::InMemory,
    );
    r.total_tokens = tokens;
    r.image_count = images;
    r
}

#[test]
fn input_plus_max_tokens_over_the_window_brings_the_input_to_the_window_minus_max_tokens() {
    let profile = model_profile("claude-sonnet-4-5");
    let r = parse_provider_error("input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000, decrease input length or `max_tokens` and try again").unwrap();
    // Our estimate agrees with the provider's count of the input.
    let fix = repair_profile(&r, &profile, &current(178_959, 0), None);
    let target = fix.max_tokens.unwrap();
    assert!(target <= 200_000 - 64_000, "{target}");
    assert!(target >= (200_000 - 64_000) * 9 / 10, "{target}");
    // Our estimate counts 10 % more than the provider: the target scales.
    let fix = repair_profile(&r, &profile, &current(196_855, 0), None);
    let scaled = fix.max_tokens.unwrap();
    assert!(scaled > target && scaled <= 136_000 * 11 / 10, "{scaled}");
    // max_tokens alone fills the window: nothing the input can do.
    let all = parse_provider_error(
        "input length and `max_tokens` exceed context limit: 10 + 200000 > 200000",
    )
    .unwrap();
    assert_eq!(
        repair_profile(&all, &profile, &current(10, 0), None).max_tokens,
        Some(0)
    );
}

#[test]
fn too_much_media_leaves_room_for_the_document_pages() {
    let profile = model_profile("claude-sonnet-4-5");
    let r = parse_provider_error("Too much media: 30 document pages + 75 images > 100").unwrap();
    assert_eq!(
        repair_profile(&r, &profile, &current(1000, 75), None)
            .profile
            .max_images,
        Some(70)
    );
    let r = parse_provider_error("too many images and documents: 104 + 1 > 100").unwrap();
    assert_eq!(
        repair_profile(&r, &profile, &current(1000, 104), None)
            .profile
            .max_images,
        Some(99)
    );
    let r = parse_provider_error("Too much media: 0 document pages + 102 images > 100").unwrap();
    assert_eq!(
        repair_profile(&r, &profile, &current(1000, 102), None)
            .profile
            .max_images,
        Some(100)
    );
}

#[test]
fn a_request_body_limit_named_is_met_with_a_margin() {
    let profile = model_profile("gemini-2.5-pro");
    let r = parse_provider_error(
        "Maximum request body size 1048576 exceeded, actual body size 1056562",
    )
    .unwrap();
    let mut now = current(1000, 1);
    now.request_bytes = 1_056_562;
    let limit = repair_profile(&r, &profile, &now, None)
        .profile
        .max_request_bytes
        .unwrap();
    assert!(limit < 1_048_576 && limit > 1_000_000, "{limit}");
}

#[test]
fn a_refusal_reads_back_from_its_written_form() {
    use ctxpack_core::budget::ProviderRefusal;
    use serde_json::Value;
    // What `repairContext` does with the refusal the extras module wrote:
    // kind and provider by name, the figures as JavaScript numbers.
    for text in [
        "messages.3.content.0.image.source.base64: image exceeds 5 MB maximum: 15908784 bytes > 5242880 bytes",
        "Too much media: 30 document pages + 75 images > 100",
        "input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000",
        "deepseek: This model's maximum context length is 131072 tokens. However, you requested 131134 tokens (122942 in the messages, 8192 in the completion).",
        "{'object': 'error', 'message': 'At most 5 image(s) may be provided in one request.'}",
        "Too many images in request: 11 images provided, but the model supports a maximum of 10 images.",
        "ValidationException: Input is too long for requested model.",
        "Maximum request body size 1048576 exceeded, actual body size 1056562",
    ] {
        let refusal = parse_provider_error(text).unwrap();
        let written = serde_json::to_value(&refusal).unwrap();
        let name = |key: &str| written[key].as_str().unwrap().to_owned();
        let count = |key: &str| written.get(key).and_then(Value::as_f64);
        let mut back = ProviderRefusal::named(&name("kind"), &name("provider")).unwrap();
        back.limit = count("limit").map(|n| n as u64);
        back.actual = count("actual").map(|n| n as u64);
        back.output_tokens = count("outputTokens").map(|n| n as u64);
        back.documents = count("documents").map(|n| n as u64);
        back.message_index = count("messageIndex").map(|n| n as usize);
        back.path = written.get("path").and_then(Value::as_str).map(str::to_owned);
        assert_eq!(back, refusal, "{text}");
    }
    for kind in [
        ContextLength,
        ImageTooLarge,
        ImageDimensions,
        TooManyImages,
        RequestTooLarge,
        FileMissing,
    ] {
        assert_eq!(serde_json::to_value(kind).unwrap(), kind.name());
        assert_eq!(RefusalKind::from_name(kind.name()), Some(kind));
    }
    assert_eq!(ProviderRefusal::named("context-length", "mistral"), None);
    assert_eq!(ProviderRefusal::named("too-long", "openai"), None);
}

/// A file the request references is gone: each provider's wording, with
/// where it was found, and the id it names.
#[test]
fn reads_a_missing_file_and_its_id() {
    let cases: &[(&str, &str, Option<&str>)] = &[
        // OpenAI's: the wording its own .NET SDK's file examples assert
        // ("HTTP 404 (invalid_request_error: ) Parameter: id No such File
        // object: file-abc123"), as a whole error body.
        (r#"{"error":{"message":"No such File object: file-abc123","type":"invalid_request_error","param":"id","code":null}}"#, "openai", Some("file-abc123")),
        ("404 No such File object: file-9GUj8cAXGBmwvdHSJXNxfH.", "openai", Some("file-9GUj8cAXGBmwvdHSJXNxfH")),
        // Gemini's 403, as a user's Go client logged it (googleapi).
        ("googleapi: Error 403: You do not have permission to access the File xfr2ktwx3cb5 or it may not exist.", "gemini", Some("xfr2ktwx3cb5")),
        (r#"{"error":{"code":403,"message":"You do not have permission to access the File files/abc-123 or it may not exist.","status":"PERMISSION_DENIED"}}"#, "gemini", Some("abc-123")),
        // Anthropic's 404: its Files API guide lists "File not found (404):
        // The specified file_id doesn't exist or you don't have access to
        // it", sent as a `not_found_error`; with and without the id.
        (r#"404 {"type":"error","error":{"type":"not_found_error","message":"File not found: file_011CNha8iCJcU1wXNR6q4V8w"},"request_id":"req_011CXqJXwaFpHuYrnwkakp1F"}"#, "anthropic", Some("file_011CNha8iCJcU1wXNR6q4V8w")),
        (r#"{"type":"error","error":{"type":"not_found_error","message":"File not found"}}"#, "anthropic", None),
        (r#"{"type":"error","error":{"type":"not_found_error","message":"The specified file_id doesn't exist or you don't have access to it"}}"#, "anthropic", None),
        (r#"{"type":"error","error":{"type":"not_found_error","message":"file_id file_abc not found"}}"#, "anthropic", Some("file_abc")),
    ];
    for (text, provider, id) in cases {
        let r = parse_provider_error(text).unwrap_or_else(|| panic!("not read: {text}"));
        assert_eq!(
            (r.kind, r.provider, r.file_id.as_deref()),
            (FileMissing, *provider, *id),
            "{text}"
        );
        assert!(!r.kind.is_about_size());
    }
    // Not a file: a model Anthropic does not serve, a profile not found.
    for text in [
        r#"{"type":"error","error":{"type":"not_found_error","message":"model: claude-nonexistent-9"}}"#,
        r#"{"type":"error","error":{"type":"not_found_error","message":"inference profile not found"}}"#,
    ] {
        assert_eq!(parse_provider_error(text), None, "{text}");
    }
}
