//! Property tests of artifact routing: binary never reaches a text field,
//! text is never encoded, the same (type, capability) pair always routes the
//! same way, results are complete, no capability means text.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use ctxpack_core::media::kind_of_mime;
use ctxpack_core::messages::Format;
use ctxpack_core::tool_results::{
    decide, route_artifact, Artifact, ArtifactBody, Capabilities, Routing,
};
use proptest::prelude::*;

const MAGIC: &[&[u8]] = &[
    b"",
    b"\x89PNG\r\n\x1a\n",
    b"\xff\xd8\xff\xe0",
    b"%PDF-1.7",
    b"ID3\x04",
    b"GIF89a",
    b"PK\x03\x04",
    b"OggS",
];
const MIMES: &[Option<&str>] = &[
    None,
    Some("image/png"),
    Some("application/pdf"),
    Some("audio/mpeg"),
    Some("video/mp4"),
    Some("application/zip"),
    Some("application/octet-stream"),
];
const NAMES: &[Option<&str>] = &[
    None,
    Some("a.png"),
    Some("report.pdf"),
    Some("song.mp3"),
    Some("clip.mov"),
    Some("data.bin"),
    Some("notes.txt"),
];

fn artifact_strategy() -> impl Strategy<Value = Artifact> {
    let binary = (
        0..MAGIC.len(),
        prop::collection::vec(any::<u8>(), 18..400),
        0..MIMES.len(),
        0..NAMES.len(),
        any::<bool>(),
    )
        .prop_map(|(m, tail, mi, ni, as_b64)| {
            let mut bytes = MAGIC[m].to_vec();
            bytes.extend(tail);
            Artifact {
                id: "art1".into(),
                filename: NAMES[ni].map(str::to_owned),
                mime_type: MIMES[mi].map(str::to_owned),
                body: if as_b64 {
                    ArtifactBody::Base64(common::b64(&bytes))
                } else {
                    ArtifactBody::Bytes(bytes)
                },
            }
        });
    let text = ".{0,200}".prop_map(|t| Artifact {
        id: "t1".into(),
        filename: None,
        mime_type: None,
        body: ArtifactBody::Text(t),
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn routing_invariants(a in artifact_strategy(), caps in caps_strategy(), format in format_strategy(), zh in any::<bool>()) {
        let r = route_artifact(&a, caps, format, zh);
        // Complete.
        prop_assert!(!r.content_type.is_empty());
        prop_assert!(r.part.get("type").and_then(|t| t.as_str()).is_some());
        prop_assert_eq!(&r.metadata.id, &a.id);
        // Deterministic.
        prop_assert_eq!(&route_artifact(&a, caps, format, zh), &r);
        match &a.body {
            ArtifactBody::Text(t) => {
                // Text is never encoded.
                prop_assert_eq!(r.routing, Routing::Text);
                prop_assert_eq!(r.part["text"].as_str(), Some(t.as_str()));
            }
            body => {
                let payload = match body {
                    ArtifactBody::Bytes(b) => common::b64(b),
                    ArtifactBody::Base64(s) => s.clone(),
                    ArtifactBody::Text(_) => unreachable!(),
                };
                if r.content_type != "text" {
                    // The same (type, capability) pair routes the same way.
                    prop_assert_eq!(r.routing, decide(kind_of_mime(&r.metadata.mime_type), caps));
                    // No capability at all: a description.
                    prop_assert_eq!(route_artifact(&a, Capabilities::default(), format, zh).routing, Routing::Text);
                }
                if r.routing == Routing::Text && r.content_type != "text" {
                    // Binary never reaches a text field.
                    let text = r.part["text"].as_str().unwrap_or("");
                    prop_assert!(!text.contains(&payload[..24]));
                    prop_assert!(!text.contains("base64"));
                    prop_assert_eq!(text.lines().count(), 3);
                }
            }
        }
    }
}
