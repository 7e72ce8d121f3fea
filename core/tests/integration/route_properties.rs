//! Property tests of artifact routing against an oracle written from the
//! documented rules, not from the router: the type comes from the declared
//! MIME type, then the extension, then the magic bytes; text stays text,
//! never encoded; an image goes to a model with vision as an image part; audio
//! and video go to a model with the matching capability, documents and other
//! files to one that reads files, as a file part; everything else becomes a
//! three-line description (name and id, type and size, why) that carries no
//! payload. The same input always routes the same way, and no capability at
//! all means text.
#![cfg(not(target_arch = "wasm32"))]

use crate::common;

use ctxpack_core::messages::Format;
use ctxpack_core::tool_results::{
    route_artifact, Artifact, ArtifactBody, Capabilities, RouteResult, Routing,
};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::{json, Value};

/// Leading bytes and the type they announce. The first has no signature
/// of any kind, and it is long enough that the random bytes after it cannot
/// complete one (several signatures sit at offsets up to 12).
const MAGIC: &[(&[u8], Option<&str>)] = &[
    (b"\x00ctxpack-raw\x00", None),
    (b"\x89PNG\r\n\x1a\n", Some("image/png")),
    (b"\xff\xd8\xff\xe0", Some("image/jpeg")),
    (b"%PDF-1.7", Some("application/pdf")),
    (b"ID3\x04", Some("audio/mpeg")),
    (b"GIF89a", Some("image/gif")),
    (b"PK\x03\x04", Some("application/zip")),
    (b"OggS", Some("audio/ogg")),
];
/// Declared types and their essence (lowercase, parameters dropped).
const MIMES: &[(Option<&str>, Option<&str>)] = &[
    (None, None),
    (Some("image/png"), Some("image/png")),
    (Some("IMAGE/PNG; q=1"), Some("image/png")),
    (Some("application/pdf"), Some("application/pdf")),
    (Some("audio/mpeg"), Some("audio/mpeg")),
    (Some("video/mp4"), Some("video/mp4")),
    (Some("application/zip"), Some("application/zip")),
    (
        Some("application/octet-stream"),
        Some("application/octet-stream"),
    ),
    (Some("text/plain"), Some("text/plain")),
];
/// File names and the type their extension names.
const NAMES: &[(Option<&str>, Option<&str>)] = &[
    (None, None),
    (Some("a.png"), Some("image/png")),
    (Some("report.pdf"), Some("application/pdf")),
    (Some("song.mp3"), Some("audio/mpeg")),
    (Some("clip.mov"), Some("video/quicktime")),
    (Some("data.bin"), None),
    (Some("notes.txt"), Some("text/plain")),
];
/// The names a description gives the types above, in English and Chinese.
const TYPE_NAMES: &[(&str, &str, &str)] = &[
    ("image/png", "PNG image", "PNG 图片"),
    ("image/jpeg", "JPEG image", "JPEG 图片"),
    ("image/gif", "GIF image", "GIF 图片"),
    ("application/pdf", "PDF document", "PDF 文档"),
    ("audio/mpeg", "MP3 audio", "MP3 音频"),
    ("audio/ogg", "OGG audio", "OGG 音频"),
    ("video/mp4", "MP4 video", "MP4 视频"),
    ("video/quicktime", "QuickTime video", "QuickTime 视频"),
    ("application/zip", "ZIP archive", "ZIP 压缩包"),
    ("application/octet-stream", "binary file", "二进制文件"),
];

/// An artifact with the facts the oracle needs about how it was made.
#[derive(Debug, Clone)]
struct Case {
    artifact: Artifact,
    /// The raw bytes of a binary body.
    bytes: Option<Vec<u8>>,
    /// The essence of the declared type, the extension's type, the magic's.
    declared: Option<&'static str>,
    by_name: Option<&'static str>,
    by_magic: Option<&'static str>,
}

fn case_strategy() -> impl Strategy<Value = Case> {
    let tail = prop_oneof![
        prop::collection::vec(any::<u8>(), 18..400),
        "[a-z \n]{18,400}".prop_map(String::into_bytes),
    ];
    let binary = (
        0..MAGIC.len(),
        tail,
        0..MIMES.len(),
        0..NAMES.len(),
        any::<bool>(),
    )
        .prop_map(|(m, tail, mi, ni, as_b64)| {
            let mut bytes = MAGIC[m].0.to_vec();
            bytes.extend(tail);
            Case {
                artifact: Artifact {
                    id: "art1".into(),
                    filename: NAMES[ni].0.map(str::to_owned),
                    mime_type: MIMES[mi].0.map(str::to_owned),
                    body: if as_b64 {
                        ArtifactBody::Base64(common::b64(&bytes))
                    } else {
                        ArtifactBody::Bytes(bytes.clone())
                    },
                },
                bytes: Some(bytes),
                declared: MIMES[mi].1,
                by_name: NAMES[ni].1,
                by_magic: MAGIC[m].1,
            }
        });
    let text = (".{0,200}", 0..MIMES.len()).prop_map(|(t, mi)| Case {
        artifact: Artifact {
            id: "t1".into(),
            filename: None,
            mime_type: MIMES[mi].0.map(str::to_owned),
            body: ArtifactBody::Text(t),
        },
        bytes: None,
        declared: MIMES[mi].1,
        by_name: None,
        by_magic: None,
    });
    prop_oneof![3 => binary, 1 => text]
}

fn caps_strategy() -> impl Strategy<Value = Capabilities> {
    (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
        |(vision, file, audio, video)| Capabilities {
            vision,
            file,
            audio,
            video,
        },
    )
}

fn format_strategy() -> impl Strategy<Value = Format> {
    prop_oneof![
        Just(Format::OpenAi),
        Just(Format::Anthropic),
        Just(Format::AiSdk),
        Just(Format::LangChain)
    ]
}

/// What routing `case` for `caps` in `format` must give.
struct Expected {
    content_type: &'static str,
    routing: Routing,
    filename: String,
    mime: String,
    size: u64,
    part: Value,
}

fn text_part(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

fn oracle(case: &Case, caps: Capabilities, format: Format, zh: bool) -> Expected {
    let a = &case.artifact;
    let filename = a.filename.clone().unwrap_or_else(|| a.id.clone());
    let text = |t: &str, mime: &str| Expected {
        content_type: "text",
        routing: Routing::Text,
        filename: filename.clone(),
        mime: mime.to_owned(),
        size: t.len() as u64,
        part: text_part(t),
    };
    if let ArtifactBody::Text(t) = &a.body {
        return text(t, a.mime_type.as_deref().unwrap_or("text/plain"));
    }
    let bytes = case.bytes.as_deref().unwrap();
    let mime = case
        .declared
        .or(case.by_name)
        .or(case.by_magic)
        .unwrap_or("application/octet-stream");
    // Text sent as bytes is passed through as text.
    if mime.starts_with("text/") {
        if let Ok(t) = std::str::from_utf8(bytes) {
            return text(t, mime);
        }
    }
    let content_type = if mime.starts_with("image/") {
        "image"
    } else if mime.starts_with("audio/") {
        "audio"
    } else if mime.starts_with("video/") {
        "video"
    } else if mime == "application/pdf" {
        "document"
    } else {
        "other"
    };
    let routing = match content_type {
        "image" if caps.vision => Routing::Image,
        "audio" if caps.audio => Routing::File,
        "video" if caps.video => Routing::File,
        "document" | "other" if caps.file => Routing::File,
        _ => Routing::Text,
    };
    let payload = common::b64(bytes);
    let data_url = format!("data:{mime};base64,{payload}");
    let part = match (routing, format) {
        (Routing::Image, Format::OpenAi | Format::LangChain) => {
            json!({"type": "image_url", "image_url": {"url": data_url}})
        }
        (Routing::Image, Format::Anthropic) => {
            json!({"type": "image", "source": {"type": "base64", "media_type": mime, "data": payload}})
        }
        (Routing::Image, Format::AiSdk) => {
            // AI SDK 7's file part (its image part is deprecated).
            json!({"type": "file", "mediaType": mime, "data": payload})
        }
        (Routing::File, Format::OpenAi | Format::LangChain) => {
            json!({"type": "file", "file": {"filename": filename, "file_data": data_url}})
        }
        (Routing::File, Format::Anthropic) => json!({
            "type": "document",
            "source": {"type": "base64", "media_type": mime, "data": payload},
            "title": filename
        }),
        (Routing::File, Format::AiSdk) => {
            json!({"type": "file", "data": payload, "mediaType": mime, "filename": filename})
        }
        (Routing::Text, _) => {
            let name = TYPE_NAMES
                .iter()
                .find(|(m, _, _)| *m == mime)
                .map_or(mime, |(_, en, cn)| if zh { cn } else { en });
            // Every body here is under a kilobyte.
            let size = format!("{} B", bytes.len());
            let description = if zh {
                format!(
                    "[无法读取] {filename} (artifact:{})\n类型: {name}，大小: {size}\n当前模型不支持读取此类文件。建议创建具备相应能力的智能体协助处理。",
                    a.id
                )
            } else {
                format!(
                    "[Cannot read] {filename} (artifact:{})\nType: {name}, size: {size}\nThe current model cannot read this kind of file. Consider creating an agent with the matching capability to handle it.",
                    a.id
                )
            };
            text_part(&description)
        }
        (routing, format) => unreachable!("{routing:?} in {format:?}"),
    };
    Expected {
        content_type,
        routing,
        filename,
        mime: mime.to_owned(),
        size: bytes.len() as u64,
        part,
    }
}

fn check(r: &RouteResult, want: &Expected) -> Result<(), TestCaseError> {
    prop_assert_eq!(r.content_type, want.content_type);
    prop_assert_eq!(r.routing, want.routing);
    prop_assert_eq!(&r.metadata.filename, &want.filename);
    prop_assert_eq!(&r.metadata.mime_type, &want.mime);
    prop_assert_eq!(r.metadata.size, want.size);
    prop_assert_eq!(&r.part, &want.part);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 400,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn routing_follows_the_documented_rules(case in case_strategy(), caps in caps_strategy(), format in format_strategy(), zh in any::<bool>()) {
        let a = &case.artifact;
        let r = route_artifact(a, caps, format, zh);
        // Complete.
        prop_assert!(!r.content_type.is_empty());
        prop_assert!(r.part.get("type").and_then(|t| t.as_str()).is_some());
        prop_assert_eq!(&r.metadata.id, &a.id);
        // Deterministic.
        prop_assert_eq!(&route_artifact(a, caps, format, zh), &r);
        // As the rules say.
        check(&r, &oracle(&case, caps, format, zh))?;
        match &a.body {
            ArtifactBody::Text(t) => {
                // Text is never encoded.
                prop_assert_eq!(r.routing, Routing::Text);
                prop_assert_eq!(r.part["text"].as_str(), Some(t.as_str()));
            }
            _ => {
                let payload = common::b64(case.bytes.as_deref().unwrap());
                if r.content_type != "text" {
                    // No capability at all: a description.
                    let none = route_artifact(a, Capabilities::default(), format, zh);
                    prop_assert_eq!(none.routing, Routing::Text);
                    check(&none, &oracle(&case, Capabilities::default(), format, zh))?;
                }
                if r.routing == Routing::Text && r.content_type != "text" {
                    // Binary never reaches a text field.
                    let text = r.part["text"].as_str().unwrap_or("");
                    prop_assert!(!text.contains(&payload[..24]));
                    prop_assert!(!text.contains("base64"));
                    prop_assert_eq!(text.lines().count(), 3);
                } else if r.routing != Routing::Text {
                    // A part the model reads carries the whole payload.
                    prop_assert!(r.part.to_string().contains(&payload));
                }
            }
        }
    }
}
