//! Markdown images → ordered multimodal content parts: the pure half of
//! `toMultimodal`. Fetching and resolving sources happens at the boundary;
//! this module validates what came back, decides MIME types and builds the
//! parts.

use crate::markdown::MarkdownImage;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::Value;

use crate::media::base64_payload::{check_base64, decode_prefix, decoded_len};
use crate::media::data_url::DataUrl;
use crate::media::mime::is_image_mime;
use crate::media::{image_dimensions, mime_from_extension, sniff_mime, Dimensions};
use crate::messages::new_image_part;
use crate::messages::Format;

/// How many leading bytes are decoded to sniff the type and read dimensions.
const SNIFF_BYTES: usize = 64 * 1024;

/// Where an image's source is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// `data:` — validated in place.
    Data,
    /// `http:`, `https:`, `blob:` — fetched.
    Fetch,
    /// Anything else — handed to the host's resolver callback.
    Resolver,
}

/// How a source URL is resolved.
pub fn source_kind(url: &str) -> SourceKind {
    let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
    if !url.contains(':') {
        return SourceKind::Resolver;
    }
    match scheme.as_str() {
        "data" => SourceKind::Data,
        "http" | "https" | "blob" => SourceKind::Fetch,
        _ => SourceKind::Resolver,
    }
}

/// An image ready to become a content part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedImage {
    /// The MIME type from the bytes (or, failing that, the extension).
    pub mime: String,
    /// The base64 payload.
    pub payload: String,
    /// Width and height, when the header tells them.
    pub dimensions: Option<Dimensions>,
    /// Size of the decoded image in bytes.
    pub bytes: usize,
    /// The MIME type the source declared, when it differed from the bytes.
    pub declared_mime: Option<String>,
}

/// Why an image could not be turned into a part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// The data URL is broken.
    #[error("{0}")]
    DataUrl(#[from] crate::media::DataUrlError),
    /// The bytes are not an image ctxpack recognises.
    #[error("not an image (type {0})")]
    NotAnImage(String),
    /// Fetching or resolving failed; the message says how.
    #[error("{0}")]
    Unavailable(String),
}

impl ResolveError {
    /// A short stable reason code for the `missing` list.
    pub fn reason_code(&self) -> &'static str {
        match self {
            ResolveError::DataUrl(_) => "INVALID_DATA_URL",
            ResolveError::NotAnImage(_) => "NOT_AN_IMAGE",
            ResolveError::Unavailable(_) => "UNRESOLVED",
        }
    }
}

/// Checks a data URL and decides its type from its bytes.
pub fn resolve_data_url(url: &str) -> Result<ResolvedImage, ResolveError> {
    let d = DataUrl::parse(url)?;
    let head = decode_prefix(d.payload, SNIFF_BYTES);
    finish(
        &head,
        decoded_len(d.payload),
        d.payload.to_owned(),
        Some(d.mime),
        None,
    )
}

/// As [`resolve_data_url_in`], a large payload read in pieces with the host
/// running between them (see [`crate::media::Payloads::prepare_facts`]).
pub async fn resolve_data_url_sliced(
    url: &str,
    payloads: &dyn crate::media::Payloads,
    slicer: &crate::event_loop::Slicer<'_>,
) -> Result<ResolvedImage, ResolveError> {
    if let Ok(d) = DataUrl::parse_unchecked(url) {
        payloads.prepare_facts(d.payload, SNIFF_BYTES, slicer).await;
    }
    resolve_data_url_in(url, payloads)
}

/// As [`resolve_data_url`], reading the payload through `payloads` (a
/// payload held outside wasm memory stays there; the part carries it as
/// the same reference).
pub fn resolve_data_url_in(
    url: &str,
    payloads: &dyn crate::media::Payloads,
) -> Result<ResolvedImage, ResolveError> {
    let d = DataUrl::parse_unchecked(url)?;
    let facts = payloads.facts(d.payload, SNIFF_BYTES);
    if facts.valid.is_err() {
        // Read the text to say exactly what is wrong with it.
        let mut problem = facts.valid;
        payloads.with_full(d.payload, &mut |text| problem = check_base64(text));
        problem.map_err(|p| crate::media::DataUrlError::InvalidBase64(p.to_string()))?;
    }
    finish(
        &facts.head,
        facts.decoded_len,
        d.payload.to_owned(),
        Some(d.mime),
        None,
    )
}

/// Encodes bytes a resolver or `fetch` returned. `url` gives the extension
/// fallback; `declared` is a `Content-Type` when there was one.
pub fn resolve_bytes(
    bytes: &[u8],
    url: &str,
    declared: Option<&str>,
) -> Result<ResolvedImage, ResolveError> {
    finish(
        bytes,
        bytes.len(),
        STANDARD.encode(bytes),
        declared,
        Some(url),
    )
}

fn finish(
    head: &[u8],
    size: usize,
    payload: String,
    declared: Option<&str>,
    url: Option<&str>,
) -> Result<ResolvedImage, ResolveError> {
    let declared = declared.and_then(crate::media::mime::mime_essence);
    let sniffed = sniff_mime(head);
    let mime = match (sniffed, url.and_then(mime_from_extension), &declared) {
        (Some(m), _, _) => m.to_owned(),
        (None, Some(m), _) => m.to_owned(),
        // Bytes in a format ctxpack does not sniff: trust an image type the
        // source declared, unless the bytes are plainly text.
        (None, None, Some(d)) if is_image_mime(d) && !head.is_empty() && !looks_like_text(head) => {
            d.clone()
        }
        (None, None, Some(d)) if !is_image_mime(d) => {
            return Err(ResolveError::NotAnImage(d.clone()))
        }
        _ => return Err(ResolveError::NotAnImage("unknown".into())),
    };
    if !is_image_mime(&mime) {
        return Err(ResolveError::NotAnImage(mime));
    }
    let declared_mime = declared.filter(|d| *d != mime && sniffed.is_some());
    Ok(ResolvedImage {
        dimensions: image_dimensions(head),
        mime,
        payload,
        bytes: size,
        declared_mime,
    })
}

/// True when the bytes read as text (UTF-8 without control characters
/// other than whitespace), which no raster image does.
fn looks_like_text(head: &[u8]) -> bool {
    let sample = &head[..head.len().min(512)];
    let text = match std::str::from_utf8(sample) {
        Ok(t) => t,
        Err(e) if e.valid_up_to() + 4 > sample.len() => {
            match std::str::from_utf8(&sample[..e.valid_up_to()]) {
                Ok(t) => t,
                Err(_) => return false,
            }
        }
        Err(_) => return false,
    };
    !text.chars().any(|c| c.is_control() && !c.is_whitespace())
}

/// One image of the text that could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingImage {
    /// The image's destination.
    pub url: String,
    /// Stable reason code: `INVALID_DATA_URL`, `NOT_AN_IMAGE`, `UNRESOLVED`.
    pub code: &'static str,
    /// What went wrong.
    pub reason: String,
    /// UTF-16 offset of the image in the text.
    pub start: usize,
    /// UTF-16 offset just past the image.
    pub end: usize,
}

/// A MIME type that was declared one way and turned out another.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MimeCorrection {
    /// The image's destination (data URLs are shortened).
    pub url: String,
    /// What the source said.
    pub declared: String,
    /// What the bytes are.
    pub actual: String,
}

/// What one resolved image turned out to be.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageInfo {
    /// The image's destination (data URLs are shortened).
    pub url: String,
    /// Its MIME type.
    pub mime: String,
    /// Width in pixels, when the header tells it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// Height in pixels, when the header tells it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// Size in bytes.
    pub bytes: usize,
}

/// The result of `toMultimodal`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MultimodalContent {
    /// The ordered parts.
    pub content: Vec<Value>,
    /// Each image that became a part, in order: type, dimensions, size.
    pub images: Vec<ImageInfo>,
    /// Images left in the text as markdown, with why.
    pub missing: Vec<MissingImage>,
    /// Declared MIME types corrected from the bytes.
    pub corrected: Vec<MimeCorrection>,
}

/// Options of [`build_parts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartOptions<'a> {
    /// Output format.
    pub format: Format,
    /// OpenAI `detail` for image parts.
    pub detail: Option<&'a str>,
    /// Keep the alt text in the text as `[alt]` before the image.
    pub keep_alt: bool,
}

/// Builds ordered parts from `text`, its `images` and what each resolved to
/// (same order). Text around images becomes text parts (empty ones dropped);
/// an image that did not resolve stays in the text as its markdown.
pub fn build_parts(
    text: &str,
    images: &[MarkdownImage],
    resolved: Vec<Result<ResolvedImage, ResolveError>>,
    options: PartOptions<'_>,
) -> MultimodalContent {
    let mut content = Vec::new();
    let mut missing = Vec::new();
    let mut corrected = Vec::new();
    let mut infos = Vec::new();
    let mut pending = String::new();
    let mut cursor = 0usize;
    for (img, result) in images.iter().zip(resolved) {
        pending.push_str(text.get(cursor..img.byte_start).unwrap_or(""));
        cursor = img.byte_end;
        match result {
            Ok(r) => {
                if options.keep_alt && !img.alt.trim().is_empty() {
                    pending.push('[');
                    pending.push_str(img.alt.trim());
                    pending.push(']');
                }
                if !pending.is_empty() {
                    content.push(options.format.text_part(std::mem::take(&mut pending)));
                }
                if let Some(declared) = &r.declared_mime {
                    corrected.push(MimeCorrection {
                        url: shorten(&img.url),
                        declared: declared.clone(),
                        actual: r.mime.clone(),
                    });
                }
                infos.push(ImageInfo {
                    url: shorten(&img.url),
                    mime: r.mime.clone(),
                    width: r.dimensions.map(|d| d.width),
                    height: r.dimensions.map(|d| d.height),
                    bytes: r.bytes,
                });
                content.push(new_image_part(
                    options.format,
                    &r.mime,
                    &r.payload,
                    options.detail,
                ));
            }
            Err(e) => {
                pending.push_str(text.get(img.byte_start..img.byte_end).unwrap_or(""));
                missing.push(MissingImage {
                    url: shorten(&img.url),
                    code: e.reason_code(),
                    reason: e.to_string(),
                    start: img.start,
                    end: img.end,
                });
            }
        }
    }
    pending.push_str(text.get(cursor..).unwrap_or(""));
    if !pending.is_empty() {
        content.push(options.format.text_part(pending));
    }
    MultimodalContent {
        content,
        images: infos,
        missing,
        corrected,
    }
}

/// A URL fit for a report: data URLs lose their payload.
pub fn shorten(url: &str) -> String {
    if crate::media::data_url::is_data_url(url) {
        let header = url.split(',').next().unwrap_or("data:");
        format!("{header},…")
    } else {
        url.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::parse_markdown_images;
    use serde_json::json;

    const PNG_1X1: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

    fn opts(format: Format) -> PartOptions<'static> {
        PartOptions {
            format,
            detail: None,
            keep_alt: true,
        }
    }

    #[test]
    fn splits_text_around_images_in_order() {
        let url = format!("data:image/png;base64,{PNG_1X1}");
        let text = format!("请分析这张图：![图表]({url}) 然后 ![](missing.png) 完");
        let imgs = parse_markdown_images(&text);
        let resolved = vec![
            resolve_data_url(&url),
            Err(ResolveError::Unavailable("no resolver".into())),
        ];
        let out = build_parts(&text, &imgs, resolved, opts(Format::OpenAi));
        assert_eq!(
            out.content,
            vec![
                json!({"type":"text","text":"请分析这张图：[图表]"}),
                json!({"type":"image_url","image_url":{"url":url}}),
                json!({"type":"text","text":" 然后 ![](missing.png) 完"}),
            ]
        );
        assert_eq!(out.missing.len(), 1);
        assert_eq!(out.missing[0].url, "missing.png");
        assert_eq!(out.missing[0].code, "UNRESOLVED");
    }

    #[test]
    fn drops_alt_when_asked_and_empty_text_parts() {
        let url = format!("data:image/png;base64,{PNG_1X1}");
        let text = format!("![a]({url})");
        let imgs = parse_markdown_images(&text);
        let out = build_parts(
            &text,
            &imgs,
            vec![resolve_data_url(&url)],
            PartOptions {
                keep_alt: false,
                ..opts(Format::Anthropic)
            },
        );
        assert_eq!(
            out.content,
            vec![
                json!({"type":"image","source":{"type":"base64","media_type":"image/png","data":PNG_1X1}})
            ]
        );
    }

    #[test]
    fn corrects_a_lying_mime_type() {
        let url = format!("data:image/jpeg;base64,{PNG_1X1}");
        let r = resolve_data_url(&url).unwrap();
        assert_eq!(r.mime, "image/png");
        assert_eq!(r.declared_mime.as_deref(), Some("image/jpeg"));
        assert_eq!(
            r.dimensions,
            Some(Dimensions {
                width: 1,
                height: 1
            })
        );
    }

    #[test]
    fn refuses_non_images() {
        let html = STANDARD.encode(b"<html><script>alert(1)</script></html>");
        let err = resolve_data_url(&format!("data:text/html;base64,{html}")).unwrap_err();
        assert_eq!(err.reason_code(), "NOT_AN_IMAGE");
        let err = resolve_data_url("data:image/png;base64,@@@@").unwrap_err();
        assert_eq!(err.reason_code(), "INVALID_DATA_URL");
        assert!(resolve_bytes(b"%PDF-1.4", "a.pdf", None).is_err());
        let lie = STANDARD.encode(b"<html>not a png</html>");
        assert_eq!(
            resolve_data_url(&format!("data:image/png;base64,{lie}"))
                .unwrap_err()
                .reason_code(),
            "NOT_AN_IMAGE"
        );
        // A format ctxpack does not sniff keeps the type its source declared.
        let jxl = STANDARD.encode(b"\xff\x0a\xfa\x7f\x01\x02");
        assert_eq!(
            resolve_data_url(&format!("data:image/jxl;base64,{jxl}"))
                .unwrap()
                .mime,
            "image/jxl"
        );
    }

    #[test]
    fn falls_back_to_the_extension() {
        let r = resolve_bytes(b"\x00\x01unknown", "file:///x/photo.webp", None).unwrap();
        assert_eq!(r.mime, "image/webp");
        assert!(resolve_bytes(b"\x00\x01unknown", "file:///x/photo", None).is_err());
    }

    #[test]
    fn classifies_sources() {
        assert_eq!(source_kind("data:image/png;base64,AAAA"), SourceKind::Data);
        assert_eq!(source_kind("HTTPS://x.test/a.png"), SourceKind::Fetch);
        assert_eq!(source_kind("blob:https://x.test/uuid"), SourceKind::Fetch);
        assert_eq!(source_kind("file:///a.png"), SourceKind::Resolver);
        assert_eq!(source_kind("vscode-resource:/a.png"), SourceKind::Resolver);
        assert_eq!(source_kind("images/a.png"), SourceKind::Resolver);
    }
}
