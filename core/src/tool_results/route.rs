//! Routing an artifact by the model's capabilities: text stays text (never
//! encoded); an image goes to a model with vision as an image part; a
//! document, audio or video goes to a model with the matching capability as a
//! file part; everything else becomes a three-line description that carries
//! no payload.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

use crate::media::base64_payload::{decode_prefix, decoded_len};
use crate::media::mime::{mime_from_extension, sniff_mime};
use crate::media::type_names::{friendly_type_name, human_size, kind_of_mime, BinaryKind};
use crate::messages::Format;
use crate::messages::{new_file_part, new_image_part};
use serde_json::Value;

/// What an artifact holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArtifactBody {
    /// Raw bytes.
    Bytes(Vec<u8>),
    /// Base64 text (a data URL is accepted too).
    Base64(String),
    /// Text, passed through as it is.
    Text(String),
}

/// A file produced by a tool or the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    /// Its id (`artifact:<id>` in descriptions).
    pub id: String,
    /// Its file name, if known.
    pub filename: Option<String>,
    /// Its declared MIME type, if known.
    pub mime_type: Option<String>,
    /// Its content.
    pub body: ArtifactBody,
}

/// What the model can read. A capability that could not be looked up is `false`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Capabilities {
    /// Images (`image/*`), as parts of a message.
    pub vision: bool,
    /// Documents and other files.
    pub file: bool,
    /// Audio files (`audio/*`).
    pub audio: bool,
    /// Video files (`video/*`).
    pub video: bool,
}

/// Where an artifact went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Routing {
    /// A text part: the text itself, or a description.
    Text,
    /// An image part.
    Image,
    /// A file part (a `document` block for PDFs in the Anthropic format).
    File,
}

/// The routing decision and the part to send.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteResult {
    /// `text`, or the binary kind: `image`, `audio`, `video`, `document`, `other`.
    pub content_type: &'static str,
    /// Where it went.
    pub routing: Routing,
    /// The content part, in the chosen format.
    pub part: Value,
    /// What is known about the artifact.
    pub metadata: RouteMetadata,
}

/// Facts about a routed artifact (never its payload).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteMetadata {
    /// The artifact id.
    pub id: String,
    /// The file name used.
    pub filename: String,
    /// The MIME type decided.
    pub mime_type: String,
    /// Size in bytes.
    pub size: u64,
}

/// The decision alone: which routing a binary of `kind` gets with `caps`.
pub fn decide(kind: BinaryKind, caps: Capabilities) -> Routing {
    match kind {
        BinaryKind::Image if caps.vision => Routing::Image,
        BinaryKind::Audio if caps.audio => Routing::File,
        BinaryKind::Video if caps.video => Routing::File,
        BinaryKind::Document | BinaryKind::Other if caps.file => Routing::File,
        _ => Routing::Text,
    }
}

fn kind_name(kind: BinaryKind) -> &'static str {
    match kind {
        BinaryKind::Image => "image",
        BinaryKind::Audio => "audio",
        BinaryKind::Video => "video",
        BinaryKind::Document => "document",
        BinaryKind::Other => "other",
    }
}

fn is_text_mime(mime: &str) -> bool {
    let m = mime.to_ascii_lowercase();
    m.starts_with("text/")
        || m == "application/json"
        || m == "application/xml"
        || m.ends_with("+json")
}

/// Routes `artifact` for a model with `caps`, writing parts in `format`;
/// descriptions in Chinese when `zh`.
pub fn route_artifact(
    artifact: &Artifact,
    caps: Capabilities,
    format: Format,
    zh: bool,
) -> RouteResult {
    let filename = artifact
        .filename
        .clone()
        .unwrap_or_else(|| artifact.id.clone());
    // Payload as base64 and its leading bytes, whatever form it came in.
    let (payload, head) = match &artifact.body {
        ArtifactBody::Text(text) => {
            let mime = artifact
                .mime_type
                .clone()
                .unwrap_or_else(|| "text/plain".into());
            return routed_as_text(artifact, filename, format, text.clone(), mime);
        }
        ArtifactBody::Bytes(b) => (STANDARD.encode(b), b.iter().take(4096).copied().collect()),
        ArtifactBody::Base64(s) => payload_and_head_of_base64(s),
    };
    let mime = artifact_mime(artifact, &head);
    // Text sent as bytes: decode it and pass it through, never encoded.
    if is_text_mime(&mime) {
        if let Some(text) = text_of_binary(&artifact.body, &payload) {
            return routed_as_text(artifact, filename, format, text, mime);
        }
    }
    let metadata = RouteMetadata {
        id: artifact.id.clone(),
        filename,
        mime_type: mime,
        size: decoded_len(&payload) as u64,
    };
    routed_as_binary(metadata, &payload, caps, format, zh)
}

/// The result for a text passed through as it is, as a text part.
fn routed_as_text(
    artifact: &Artifact,
    filename: String,
    format: Format,
    text: String,
    mime: String,
) -> RouteResult {
    RouteResult {
        content_type: "text",
        routing: Routing::Text,
        metadata: RouteMetadata {
            id: artifact.id.clone(),
            filename,
            mime_type: mime,
            size: text.len() as u64,
        },
        part: format.text_part(text),
    }
}

/// The base64 payload of a base64 text (a data URL's without its head)
/// and its leading bytes, decoded.
fn payload_and_head_of_base64(text: &str) -> (String, Vec<u8>) {
    let payload = match crate::media::DataUrl::parse_unchecked(text) {
        Ok(d) => d.payload.to_owned(),
        Err(_) => text.trim().to_owned(),
    };
    let head = decode_prefix(&payload, 4096);
    (payload, head)
}

/// An artifact's MIME type: the declared one, then the file name's
/// extension's, then the one its leading bytes `head` show, else
/// `application/octet-stream`.
fn artifact_mime(artifact: &Artifact, head: &[u8]) -> String {
    let declared = artifact
        .mime_type
        .as_deref()
        .and_then(crate::media::mime::mime_essence);
    declared
        .or_else(|| {
            artifact
                .filename
                .as_deref()
                .and_then(mime_from_extension)
                .map(str::to_owned)
        })
        .or_else(|| sniff_mime(head).map(str::to_owned))
        .unwrap_or_else(|| "application/octet-stream".to_owned())
}

/// The text a binary body of a text type holds: its bytes, or its base64
/// `payload` decoded, when they are UTF-8.
fn text_of_binary(body: &ArtifactBody, payload: &str) -> Option<String> {
    if let ArtifactBody::Bytes(b) = body {
        if let Ok(t) = std::str::from_utf8(b) {
            return Some(t.to_owned());
        }
    }
    let bytes = STANDARD.decode(payload).ok()?;
    String::from_utf8(bytes).ok()
}

/// The result for a binary artifact (described by `metadata`, its base64
/// `payload`): an image or file part when the model can read its kind and
/// `format` has such parts, else its description as a text part.
fn routed_as_binary(
    metadata: RouteMetadata,
    payload: &str,
    caps: Capabilities,
    format: Format,
    zh: bool,
) -> RouteResult {
    let RouteMetadata {
        id,
        filename,
        mime_type: mime,
        size,
    } = &metadata;
    let kind = kind_of_mime(mime);
    let routing = match decide(kind, caps) {
        // A format without file parts gets the description.
        Routing::File if !format.has_file_parts() => Routing::Text,
        routing => routing,
    };
    let part = match routing {
        Routing::Image => new_image_part(format, mime, payload, None),
        Routing::File => new_file_part(format, filename, mime, payload),
        Routing::Text => format.text_part(describe(filename, id, mime, *size, zh)),
    };
    RouteResult {
        content_type: kind_name(kind),
        routing,
        part,
        metadata,
    }
}

/// The three-line description of an artifact the model cannot read.
pub fn describe(filename: &str, id: &str, mime: &str, size: u64, zh: bool) -> String {
    let name = friendly_type_name(mime, zh);
    if zh {
        format!(
            "[无法读取] {filename} (artifact:{id})\n类型: {name}，大小: {}\n当前模型不支持读取此类文件。建议创建具备相应能力的智能体协助处理。",
            human_size(size)
        )
    } else {
        format!(
            "[Cannot read] {filename} (artifact:{id})\nType: {name}, size: {}\nThe current model cannot read this kind of file. Consider creating an agent with the matching capability to handle it.",
            human_size(size)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn artifact(filename: &str, mime: Option<&str>, bytes: &[u8]) -> Artifact {
        Artifact {
            id: "def456".into(),
            filename: Some(filename.into()),
            mime_type: mime.map(str::to_owned),
            body: ArtifactBody::Bytes(bytes.to_vec()),
        }
    }

    #[test]
    fn describes_what_the_model_cannot_read_in_both_languages() {
        let a = artifact("report.pdf", None, b"%PDF-1.7 ....");
        let r = route_artifact(&a, Capabilities::default(), Format::OpenAi, true);
        assert_eq!(r.routing, Routing::Text);
        assert_eq!(r.content_type, "document");
        let text = r.part["text"].as_str().unwrap();
        assert_eq!(
            text.lines().next(),
            Some("[无法读取] report.pdf (artifact:def456)")
        );
        assert!(text.lines().nth(1).unwrap().starts_with("类型: PDF 文档"));
        assert_eq!(
            text.lines().nth(2),
            Some("当前模型不支持读取此类文件。建议创建具备相应能力的智能体协助处理。")
        );
        let r = route_artifact(&a, Capabilities::default(), Format::OpenAi, false);
        assert!(r.part["text"]
            .as_str()
            .unwrap()
            .starts_with("[Cannot read] report.pdf (artifact:def456)\nType: PDF document"));
    }

    #[test]
    fn routes_by_capability_and_format() {
        let pdf = artifact("report.pdf", Some("application/pdf"), b"%PDF-1.7");
        let caps = Capabilities {
            file: true,
            ..Default::default()
        };
        let r = route_artifact(&pdf, caps, Format::Anthropic, false);
        assert_eq!(r.routing, Routing::File);
        assert_eq!(r.part["type"], "document");
        assert_eq!(r.part["source"]["media_type"], "application/pdf");
        let r = route_artifact(&pdf, caps, Format::OpenAi, false);
        assert_eq!(
            r.part["file"]["file_data"],
            "data:application/pdf;base64,JVBERi0xLjc="
        );
        let png = artifact(
            "shot",
            None,
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01",
        );
        let r = route_artifact(
            &png,
            Capabilities {
                vision: true,
                ..Default::default()
            },
            Format::OpenAi,
            false,
        );
        assert_eq!(r.routing, Routing::Image);
        assert_eq!(r.metadata.mime_type, "image/png");
        let mp3 = artifact("a.mp3", None, b"ID3\x04\0\0\0\0");
        assert_eq!(
            route_artifact(
                &mp3,
                Capabilities {
                    audio: true,
                    ..Default::default()
                },
                Format::AiSdk,
                false
            )
            .routing,
            Routing::File
        );
        assert_eq!(
            route_artifact(
                &mp3,
                Capabilities {
                    file: true,
                    ..Default::default()
                },
                Format::AiSdk,
                false
            )
            .routing,
            Routing::Text
        );
    }

    #[test]
    fn text_is_never_encoded() {
        let a = Artifact {
            id: "t".into(),
            filename: None,
            mime_type: None,
            body: ArtifactBody::Text("hello 世界".into()),
        };
        let r = route_artifact(&a, Capabilities::default(), Format::OpenAi, false);
        assert_eq!(r.part, json!({"type":"text","text":"hello 世界"}));
        let b = artifact("notes.md", None, "# 标题".as_bytes());
        assert_eq!(
            route_artifact(&b, Capabilities::default(), Format::OpenAi, false).part["text"],
            "# 标题"
        );
    }
}
