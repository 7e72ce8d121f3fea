//! Property tests over generated conversations in every format: round-trip,
//! idempotency, the newest user message untouched, no base64 left in history.
#![cfg(not(target_arch = "wasm32"))]

use crate::common;
use crate::common::calls::*;

use common::*;
use ctxpack_core::history::CompactCall;
use ctxpack_core::history::CompactOptions;
use ctxpack_core::messages::Format;
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashConfig};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::json;
use serde_json::Value;

pub(crate) const IMAGES: [(&[u8], &str); 4] = [
    (PNG, "image/png"),
    (JPEG, "image/jpeg"),
    (GIF, "image/gif"),
    (WEBP, "image/webp"),
];

#[derive(Debug, Clone)]
pub(crate) enum GenPart {
    Text(String),
    Image(usize, bool),
}

#[derive(Debug, Clone)]
pub(crate) struct GenMessage {
    pub(crate) role: usize,
    pub(crate) parts: Option<Vec<GenPart>>,
    pub(crate) text: String,
}

fn part_strategy() -> impl Strategy<Value = GenPart> {
    prop_oneof![
        "[a-z 这是图？]{0,12}".prop_map(GenPart::Text),
        // Extra fields depend on the image: the placeholder carries only the
        // md5, so copies of one image written in different shapes restore in
        // the shape of the copy stashed first (a documented limit).
        (0..IMAGES.len()).prop_map(|i| GenPart::Image(i, i % 2 == 0)),
    ]
}

pub(crate) fn message_strategy() -> impl Strategy<Value = GenMessage> {
    (
        0..3usize,
        prop::option::of(prop::collection::vec(part_strategy(), 1..4)),
        "[a-z ]{0,10}",
    )
        .prop_map(|(role, parts, text)| GenMessage { role, parts, text })
}

fn image_part(format: Format, i: usize, extra: bool) -> Value {
    let (bytes, mime) = IMAGES[i];
    let mut v = match format {
        Format::OpenAi | Format::LangChain => {
            json!({"type":"image_url","image_url":{"url": data_url(mime, bytes)}})
        }
        Format::Anthropic => {
            json!({"type":"image","source":{"type":"base64","media_type":mime,"data":b64(bytes)}})
        }
        Format::AiSdk => json!({"type":"image","image":b64(bytes),"mediaType":mime}),
        Format::UiMessage => json!({"type":"file","mediaType":mime,"url":data_url(mime, bytes)}),
        Format::OpenAiResponses => {
            json!({"type":"input_image","image_url":data_url(mime, bytes),"detail":"auto"})
        }
        Format::Gemini => json!({"inlineData":{"mimeType":mime,"data":b64(bytes)}}),
        Format::Mcp => json!({"type":"image","data":b64(bytes),"mimeType":mime}),
        Format::GeminiInteractions => json!({"type":"image","data":b64(bytes),"mime_type":mime}),
        // An entry of `images` (see `render`).
        Format::Ollama => return json!(b64(bytes)),
    };
    if let (true, Some(obj)) = (extra, v.as_object_mut()) {
        obj.insert("x_extra".into(), json!({"keep": [1, 2]}));
    }
    v
}

pub(crate) fn render(format: Format, msgs: &[GenMessage]) -> Vec<Value> {
    msgs.iter()
        .enumerate()
        .map(|(i, m)| {
            let content = match &m.parts {
                None if !format.has_string_content() => json!([text_part(format, &m.text)]),
                None => Value::String(m.text.clone()),
                Some(parts) => Value::Array(
                    parts
                        .iter()
                        .map(|p| match p {
                            GenPart::Text(t) => text_part(format, t),
                            GenPart::Image(i, extra) => image_part(format, *i, *extra),
                        })
                        .collect(),
                ),
            };
            if format == Format::Ollama {
                return ollama_message(m);
            }
            if format == Format::LangChain {
                let role = ["system", "human", "ai"][m.role];
                json!([role, content])
            } else if format == Format::UiMessage {
                let role = ["system", "user", "assistant"][m.role];
                json!({"id": i.to_string(), "role": role, "parts": content, "meta": m.role})
            } else if format == Format::Mcp {
                // One block is written as itself, several as an array.
                let content = match content {
                    Value::Array(mut blocks) if blocks.len() == 1 => blocks.remove(0),
                    other => other,
                };
                let role = ["assistant", "user", "assistant"][m.role];
                json!({"role": role, "content": content, "_meta": {"n": m.role}})
            } else if format == Format::GeminiInteractions {
                // Steps: a step's content is a list.
                let step = ["model_output", "user_input", "model_output"][m.role];
                let content = match content {
                    Value::String(text) => json!([text_part(format, &text)]),
                    other => other,
                };
                json!({"type": step, "content": content})
            } else if format == Format::Gemini {
                let role = ["function", "user", "model"][m.role];
                json!({"role": role, "parts": content})
            } else {
                let role = ["system", "user", "assistant"][m.role];
                json!({"role": role, "content": content, "meta": m.role})
            }
        })
        .collect()
}

/// An Ollama message: the texts as `content`, the images as `images`.
fn ollama_message(m: &GenMessage) -> Value {
    let role = ["system", "user", "assistant"][m.role];
    let Some(parts) = &m.parts else {
        return json!({"role": role, "content": m.text});
    };
    let mut text = String::new();
    let mut images = Vec::new();
    for p in parts {
        match p {
            GenPart::Text(t) => text.push_str(t),
            GenPart::Image(i, _) => images.push(image_part(Format::Ollama, *i, false)),
        }
    }
    json!({"role": role, "content": text, "images": images, "meta": m.role})
}

fn text_part(format: Format, text: &str) -> Value {
    Format::text_part(format, text.to_owned())
}

/// Every format of the list: a new one is covered as soon as it is listed.
pub(crate) fn format_strategy() -> impl Strategy<Value = Format> {
    prop::sample::select(Format::ALL.to_vec())
}

fn run(values: Vec<Value>, format: Format, stash: &MemoryBackend) -> (Vec<Value>, Option<usize>) {
    let out = block_on(
        CompactCall::new(
            StashAccess {
                backend: stash,
                config: &StashConfig::default(),
                now: 1.0,
            },
            CompactOptions::default(),
            &ctxpack_core::media::InMemory,
        )
        .run_values(values, Some(format)),
    )
    .unwrap();
    (out.messages, out.report.newest_user_index)
}

proptest! {
    // Failures are saved beside this file (properties.proptest-regressions)
    // and their seeds run again first on every run.
    #![proptest_config(ProptestConfig {
        cases: 96,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn compaction_properties(format in format_strategy(), msgs in prop::collection::vec(message_strategy(), 1..7)) {
        let input = render(format, &msgs);
        let stash = MemoryBackend::new();
        let (compacted, newest) = run(input.clone(), format, &stash);

        // The newest user message and everything after it: byte-identical.
        let cut = newest.unwrap_or(0);
        if newest.is_some() {
            prop_assert_eq!(Value::Array(compacted[cut..].to_vec()).to_string(), Value::Array(input[cut..].to_vec()).to_string());
        } else {
            prop_assert_eq!(&compacted, &input);
        }

        // No base64 payload left in any history message.
        let history = Value::Array(compacted[..cut].to_vec()).to_string();
        for (bytes, _) in IMAGES {
            prop_assert!(!history.contains(&b64(bytes)[..48]));
        }

        // Idempotent.
        let (again, _) = run(compacted.clone(), format, &stash);
        prop_assert_eq!(&again, &compacted);

        // Round trip.
        let back = block_on(expand_values(StashAccess { backend: &stash, config: &StashConfig::default(), now: 2.0 }, compacted, Some(format),&ctxpack_core::media::InMemory)).unwrap();
        prop_assert_eq!(back.messages, input);
    }
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        prop_oneof![
            Just("user".to_owned()),
            Just("assistant".to_owned()),
            Just("human".to_owned()),
            Just("text".to_owned()),
            Just("image_url".to_owned()),
            Just("image".to_owned()),
            Just("tool_result".to_owned()),
            Just("function_call_output".to_owned()),
            Just("input_image".to_owned()),
            Just("data:image/png;base64,iVBORw0KGgo=".to_owned()),
            Just("data:image/png;base64,@@".to_owned()),
            Just("[Picture:history_0123456789abcdef0123456789abcdef]".to_owned()),
            ".{0,12}",
        ]
        .prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        let keys = prop_oneof![
            Just("role".to_owned()),
            Just("content".to_owned()),
            Just("type".to_owned()),
            Just("text".to_owned()),
            Just("image_url".to_owned()),
            Just("url".to_owned()),
            Just("source".to_owned()),
            Just("data".to_owned()),
            Just("media_type".to_owned()),
            Just("image".to_owned()),
            Just("mediaType".to_owned()),
            Just("output".to_owned()),
            Just("value".to_owned()),
            Just("parts".to_owned()),
            Just("mimeType".to_owned()),
            Just("inlineData".to_owned()),
            Just("blob".to_owned()),
            Just("resource".to_owned()),
            Just("images".to_owned()),
            Just("functionResponse".to_owned()),
            "[a-z]{1,4}",
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((keys, inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    // Failures are saved beside this file (properties.proptest-regressions)
    // and their seeds run again first on every run.
    #![proptest_config(ProptestConfig {
        cases: 300,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    /// Any JSON at all, in any format: an error or a result, never a panic;
    /// and when it compacts, the newest user message is untouched and expansion
    /// gives the input back.
    #[test]
    fn arbitrary_shapes_never_panic(values in prop::collection::vec(arbitrary_json(), 0..6), format in prop::option::of(format_strategy())) {
        let stash = MemoryBackend::new();
        let compacted = block_on(CompactCall::new(StashAccess { backend: &stash, config: &StashConfig::default(), now: 1.0 }, CompactOptions { sanitize_tool_results: true, ..Default::default() }, &ctxpack_core::media::InMemory).run_values(values.clone(), format));
        if let Ok(out) = compacted {
            if let Some(n) = out.report.newest_user_index {
                prop_assert_eq!(&out.messages[n..], &values[n..]);
            }
            let back = block_on(expand_values(StashAccess { backend: &stash, config: &StashConfig::default(), now: 2.0 }, out.messages.clone(), format, &ctxpack_core::media::InMemory));
            prop_assert!(back.is_ok());
        }
    }
}
