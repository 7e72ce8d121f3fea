//! Compaction and expansion in the formats beyond the first four: each is
//! detected, the newest user message and what follows pass untouched, ids
//! are the md5 of the base64 text, `expand(compact(x)) == x` exactly (key
//! order and unknown fields included), and compacting twice changes nothing.

use crate::common;
use crate::common::calls::*;

use common::*;
use ctxpack_core::history::{CompactCall, CompactOptions, Outcome};
use ctxpack_core::history::{CompactReport, ExpandReport};
use ctxpack_core::messages::{detect_format, picture_of, Format};
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashBackend, StashConfig};
use serde_json::{json, Value};

const T0: f64 = 1_700_000_000_000.0;

fn compact_opts<B: StashBackend>(
    b: &B,
    msgs: &[Value],
    opts: CompactOptions,
) -> Outcome<CompactReport> {
    block_on(
        CompactCall::new(
            StashAccess {
                backend: b,
                config: &StashConfig::default(),
                now: T0,
            },
            opts,
            &ctxpack_core::media::InMemory,
        )
        .run_values(msgs.to_vec(), None),
    )
    .unwrap()
}

fn compact<B: StashBackend>(b: &B, msgs: &[Value]) -> Outcome<CompactReport> {
    compact_opts(b, msgs, CompactOptions::default())
}

fn expand<B: StashBackend>(b: &B, msgs: &[Value]) -> Outcome<ExpandReport> {
    expand_as(b, msgs, None)
}

fn expand_as<B: StashBackend>(
    b: &B,
    msgs: &[Value],
    format: Option<Format>,
) -> Outcome<ExpandReport> {
    block_on(expand_values(
        StashAccess {
            backend: b,
            config: &StashConfig::default(),
            now: T0 + 1.0,
        },
        msgs.to_vec(),
        format,
        &ctxpack_core::media::InMemory,
    ))
    .unwrap()
}

/// Every guarantee at once, for a conversation in `format` whose newest user
/// message is at `newest` and whose history holds `stashed` inline images,
/// the payloads of which are `gone` after compaction. Returns the compacted messages.
fn round_trip(
    format: Format,
    input: &[Value],
    newest: usize,
    stashed: usize,
    gone: &[&[u8]],
) -> Vec<Value> {
    assert_eq!(detect_format(input), format);
    let stash = MemoryBackend::new();
    let out = compact(&stash, input);
    assert_eq!(out.report.format, format.name());
    assert_eq!(out.report.newest_user_index, Some(newest));
    assert_eq!(out.report.stashed, stashed, "{:?}", out.report.failures);
    assert!(out.report.failures.is_empty(), "{:?}", out.report.failures);
    assert_eq!(
        &out.messages[newest..],
        &input[newest..],
        "the newest turn is untouched"
    );
    let history = Value::Array(out.messages[..newest].to_vec()).to_string();
    for bytes in gone {
        assert!(
            !history.contains(&b64(bytes)[..64]),
            "no base64 left in history"
        );
        assert!(
            history.contains(&placeholder(bytes)),
            "its placeholder is there"
        );
    }
    assert_eq!(
        detect_format(&out.messages),
        format,
        "compacted messages read the same"
    );

    let twice = compact(&stash, &out.messages);
    assert_eq!(twice.messages, out.messages, "compaction is idempotent");
    assert!(twice.changed.iter().all(|c| !c));
    assert_eq!(twice.report.stashed, 0);

    let back = expand(&stash, &out.messages);
    assert!(back.report.missing.is_empty(), "{:?}", back.report.missing);
    assert_eq!(back.messages, input);
    assert_eq!(
        Value::Array(back.messages).to_string(),
        Value::Array(input.to_vec()).to_string(),
        "key order is kept"
    );
    out.messages
}

#[test]
fn ui_message_files_become_text_parts_and_come_back() {
    let input = vec![
        json!({"id":"s","role":"system","parts":[{"type":"text","text":"You are helpful."}]}),
        json!({"id":"u1","role":"user","parts":[
            {"type":"file","mediaType":"image/jpeg","filename":"photo.jpg","url": data_url("image/jpeg", JPEG),
             "providerMetadata":{"anthropic":{"cacheControl":{"type":"ephemeral"}}}},
            {"type":"text","text":"这是什么？"}
        ],"metadata":{"createdAt":1}}),
        json!({"id":"a1","role":"assistant","parts":[
            {"type":"step-start"},
            {"type":"tool-screenshot","toolCallId":"c1","state":"output-available","input":{"full":true},
             "output":{"type":"image","url": data_url("image/gif", GIF)}},
            {"type":"dynamic-tool","toolName":"shot","toolCallId":"c2","state":"output-available","input":{},"output":[data_url("image/gif", GIF)]},
            {"type":"text","text":"一只猫","state":"done"},
            {"type":"file","mediaType":"image","url": data_url("image/webp", WEBP)},
            {"type":"file","mediaType":"image/png","url":"https://x.test/a.png"},
            {"type":"file","mediaType":"application/pdf","url":"data:application/pdf;base64,JVBERi0xLjQK"}
        ]}),
        json!({"id":"u2","role":"user","parts":[
            {"type":"file","mediaType":"image/png","url": data_url("image/png", PNG)},
            {"type":"text","text":"这张新图呢？"}
        ]}),
    ];
    let out = round_trip(Format::UiMessage, &input, 3, 2, &[JPEG, WEBP]);
    assert_eq!(
        out[1]["parts"][0],
        json!({"type":"text","text": placeholder(JPEG),
               "providerMetadata":{"anthropic":{"cacheControl":{"type":"ephemeral"}}}}),
        "the placeholder keeps the part's provider metadata"
    );
    assert_eq!(out[1]["metadata"], json!({"createdAt":1}));
    assert_eq!(
        out[2]["parts"][4],
        json!({"type":"text","text": placeholder(WEBP)})
    );
    assert_eq!(
        out[2]["parts"][1], input[2]["parts"][1],
        "tool outputs are not gone into"
    );
    assert_eq!(out[2]["parts"][2], input[2]["parts"][2]);
}

#[test]
fn ui_message_without_a_template_is_restored_as_a_file_part() {
    // A placeholder typed into a UIMessage, for an image stashed from
    // another format, comes back as the UIMessage file part.
    let stash = MemoryBackend::new();
    let openai = vec![
        json!({"role":"user","content":[{"type":"image_url","image_url":{"url": data_url("image/png", PNG)}}]}),
        json!({"role":"user","content":"?"}),
    ];
    compact(&stash, &openai);
    let ui =
        vec![json!({"id":"1","role":"user","parts":[{"type":"text","text": placeholder(PNG)}]})];
    let back = expand(&stash, &ui);
    assert_eq!(back.report.restored, 1);
    let part = &back.messages[0]["parts"][0];
    assert!(
        part["type"] == "file" || part["type"] == "image_url",
        "{part}"
    );
}

#[test]
fn ui_message_collapse_keeps_parts_an_array() {
    let input = vec![
        json!({"id":"u1","role":"user","parts":[
            {"type":"file","mediaType":"image/png","url": data_url("image/png", PNG)},
            {"type":"text","text":"这是什么？"}
        ]}),
        json!({"id":"u2","role":"user","parts":[{"type":"text","text":"?"}]}),
    ];
    let out = compact_opts(
        &MemoryBackend::new(),
        &input,
        CompactOptions {
            collapse_text: true,
            ..Default::default()
        },
    );
    assert_eq!(
        out.messages[0]["parts"],
        json!([{"type":"text","text": format!("{} 这是什么？", placeholder(PNG))}])
    );
}

#[test]
fn openai_responses_items_with_images_in_messages_and_tool_outputs() {
    let input = vec![
        json!({"role":"developer","content":"You are helpful."}),
        json!({"role":"user","content":[
            {"type":"input_text","text":"这是什么？"},
            {"type":"input_image","image_url": data_url("image/jpeg", JPEG),"detail":"high",
             "prompt_cache_breakpoint":{"mode":"explicit"}},
            {"type":"input_image","file_id":"file-abc","detail":"auto"},
            {"type":"input_image","image_url":"https://x.test/cat.png","detail":"auto"}
        ],"type":"message"}),
        json!({"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA"}),
        json!({"type":"function_call","call_id":"c1","name":"screenshot","arguments":"{}","id":"fc_1","status":"completed"}),
        json!({"type":"function_call_output","call_id":"c1","output":[
            {"type":"input_text","text":"the screen"},
            {"type":"input_image","image_url": data_url("image/gif", GIF),"detail":"low"}
        ]}),
        json!({"type":"message","role":"assistant","id":"msg_1","status":"completed",
               "content":[{"type":"output_text","text":"一只猫","annotations":[]}]}),
        json!({"role":"user","content":[
            {"type":"input_image","image_url": data_url("image/png", PNG),"detail":"auto"},
            {"type":"input_text","text":"这张新图呢？"}
        ]}),
        json!({"type":"function_call_output","call_id":"c2","output":[
            {"type":"input_image","image_url": data_url("image/webp", WEBP),"detail":"auto"}
        ]}),
    ];
    let out = round_trip(Format::OpenAiResponses, &input, 6, 2, &[JPEG, GIF]);
    assert_eq!(
        out[1]["content"][1],
        json!({"type":"input_text","text": placeholder(JPEG),"prompt_cache_breakpoint":{"mode":"explicit"}}),
        "the placeholder keeps the cache breakpoint"
    );
    assert_eq!(
        out[4]["output"][1],
        json!({"type":"input_text","text": placeholder(GIF)})
    );
    assert_eq!(out[2], input[2]);
    assert_eq!(out[3], input[3]);
}

#[test]
fn openai_responses_collapsed_text_expands_into_input_parts() {
    let input = vec![
        json!({"role":"user","content":[
            {"type":"input_image","image_url": data_url("image/png", PNG),"detail":"auto"},
            {"type":"input_text","text":"这是什么？"}
        ]}),
        json!({"role":"user","content":"?"}),
    ];
    let stash = MemoryBackend::new();
    let out = compact_opts(
        &stash,
        &input,
        CompactOptions {
            collapse_text: true,
            ..Default::default()
        },
    );
    assert_eq!(
        out.messages[0]["content"],
        json!(format!("{} 这是什么？", placeholder(PNG)))
    );
    // Folded into strings, the messages no longer say their format: it is given.
    let back = expand_as(&stash, &out.messages, Some(Format::OpenAiResponses));
    assert_eq!(back.messages, input);
}

#[test]
fn gemini_contents_with_inline_images_function_calls_and_responses() {
    let input = vec![
        json!({"role":"user","parts":[
            {"text":"这是什么？"},
            {"inlineData":{"mimeType":"image/jpeg","data": b64(JPEG)},"mediaResolution":{"level":"MEDIA_RESOLUTION_HIGH"}},
            {"inlineData":{"mimeType":"audio/wav","data":"UklGRiQAAABXQVZF"}},
            {"fileData":{"mimeType":"image/png","fileUri":"gs://bucket/cat.png"}}
        ]}),
        json!({"role":"model","parts":[{"functionCall":{"name":"screenshot","args":{"region":"top-right"}}}]}),
        json!({"role":"user","parts":[{"functionResponse":{"name":"screenshot","response":{"output":"ok"},
            "parts":[{"inlineData":{"mimeType":"image/gif","data": b64(GIF)}}]}}]}),
        json!({"role":"model","parts":[{"text":"一只猫","thoughtSignature":"c2ln"},{"inlineData":{"mimeType":"image/webp","data": b64(WEBP)}}]}),
        json!({"role":"user","parts":[
            {"inlineData":{"mimeType":"image/png","data": b64(PNG)}},
            {"text":"这张新图呢？"}
        ]}),
    ];
    // A FunctionResponsePart takes media only: there the placeholder goes as
    // a picture of its text.
    let out = round_trip(Format::Gemini, &input, 4, 3, &[JPEG, WEBP]);
    assert_eq!(out[0]["parts"][1], json!({"text": placeholder(JPEG)}));
    assert_eq!(
        out[0]["parts"][2], input[0]["parts"][2],
        "audio is not an image"
    );
    assert_eq!(
        out[2]["parts"][0]["functionResponse"]["parts"],
        json!([{"inlineData":{"mimeType":"image/png","data": picture_of(&placeholder(GIF)).unwrap()}}])
    );
    assert_eq!(
        out[2]["parts"][0]["functionResponse"]["response"],
        input[2]["parts"][0]["functionResponse"]["response"]
    );
    assert_eq!(out[3]["parts"][1], json!({"text": placeholder(WEBP)}));
    let report = compact(&MemoryBackend::new(), &input).report;
    assert_eq!((report.kept, report.urls), (1, 0));
}

#[test]
fn gemini_text_around_a_typed_placeholder_stays_gemini_text() {
    let stash = MemoryBackend::new();
    let input = vec![
        json!({"role":"user","parts":[{"inlineData":{"mimeType":"image/png","data": b64(PNG)}}]}),
        json!({"role":"user","parts":[{"text":"?"}]}),
    ];
    compact(&stash, &input);
    let typed =
        vec![json!({"role":"user","parts":[{"text": format!("see {} here", placeholder(PNG))}]})];
    let back = expand(&stash, &typed);
    assert_eq!(
        back.messages[0]["parts"],
        json!([{"text":"see "},{"inlineData":{"mimeType":"image/png","data": b64(PNG)}},{"text":" here"}])
    );
}

#[test]
fn mcp_sampling_messages_with_single_blocks_resources_and_tool_results() {
    let input = vec![
        json!({"role":"user","content":{"type":"image","data": b64(JPEG),"mimeType":"image/jpeg",
               "annotations":{"audience":["user"],"priority":0.5}}}),
        json!({"role":"assistant","content":{"type":"text","text":"一只猫"}}),
        json!({"role":"user","content":[
            {"type":"audio","data":"UklGRiQAAABXQVZF","mimeType":"audio/wav"},
            {"type":"text","text":"and this sound?"}
        ],"_meta":{"turn":2}}),
        json!({"role":"assistant","content":{"type":"tool_use","id":"t1","name":"screenshot","input":{"region":"top-right"}}}),
        json!({"role":"user","content":[{"type":"tool_result","toolUseId":"t1","content":[
            {"type":"text","text":"captured"},
            {"type":"image","data": b64(GIF),"mimeType":"image/gif"},
            {"type":"resource","resource":{"uri":"file:///shot.webp","mimeType":"image/webp","blob": b64(WEBP)}},
            {"type":"resource","resource":{"uri":"file:///notes.txt","mimeType":"text/plain","text":"notes"}}
        ],"isError":false}]}),
        json!({"role":"assistant","content":{"type":"text","text":"右上角是一个花瓶。"}}),
        json!({"role":"user","content":{"type":"image","data": b64(PNG),"mimeType":"image/png"}}),
    ];
    let out = round_trip(Format::Mcp, &input, 6, 3, &[JPEG, GIF, WEBP]);
    assert_eq!(
        out[0]["content"],
        json!({"type":"text","text": placeholder(JPEG)}),
        "one block stays one block"
    );
    assert_eq!(out[2], input[2], "audio is not an image");
    assert_eq!(
        out[4]["content"][0]["content"][2],
        json!({"type":"text","text": placeholder(WEBP)})
    );
    assert_eq!(
        out[4]["content"][0]["content"][3],
        input[4]["content"][0]["content"][3]
    );
}

#[test]
fn ollama_images_become_placeholder_lines_and_go_back_in_order() {
    let input = vec![
        json!({"role":"system","content":"You are helpful."}),
        json!({"role":"user","content":"这两张图是什么？","images":[b64(JPEG), b64(GIF)]}),
        json!({"role":"assistant","content":"","thinking":"look first","tool_calls":[{"function":{"name":"screenshot","arguments":{"region":"top-right"}}}]}),
        json!({"role":"tool","tool_name":"screenshot","content":"","images":[b64(WEBP)]}),
        json!({"role":"assistant","content":"一只猫和一个花瓶。"}),
        json!({"role":"user","content":"这张新图呢？","images":[b64(PNG)]}),
    ];
    let out = round_trip(Format::Ollama, &input, 5, 3, &[JPEG, GIF, WEBP]);
    assert_eq!(
        out[1],
        json!({"role":"user","content": format!("这两张图是什么？\n{}\n{}", placeholder(JPEG), placeholder(GIF)),"images":[]})
    );
    assert_eq!(
        out[3],
        json!({"role":"tool","tool_name":"screenshot","content": format!("\n{}", placeholder(WEBP)),"images":[]}),
        "an image that was the whole message"
    );
}

#[test]
fn ollama_images_kept_inline_keep_their_place_among_restored_ones() {
    let input = vec![
        json!({"role":"user","content":"three","images":[b64(JPEG), "not base64!", b64(GIF), b64(WEBP)]}),
        json!({"role":"user","content":"next"}),
    ];
    let stash = MemoryBackend::new();
    // The broken image stays, the newest history image is kept on request.
    let out = compact_opts(
        &stash,
        &input,
        CompactOptions {
            keep_recent_images: 1,
            ..Default::default()
        },
    );
    assert_eq!(
        (out.report.stashed, out.report.failed, out.report.kept),
        (2, 1, 1)
    );
    assert_eq!(
        out.messages[0],
        json!({"role":"user","content": format!("three\n{}\n{}", placeholder(JPEG), placeholder(GIF)),
               "images":["not base64!", b64(WEBP)]})
    );
    assert_eq!(out.report.failures[0].path, "messages[0].images[1]");
    assert_eq!(expand(&stash, &out.messages).messages, input);
    // Compacting again stashes the rest; expansion still restores the order.
    let again = compact(&stash, &out.messages);
    assert_eq!(again.report.stashed, 1);
    assert_eq!(
        again.messages[0]["content"],
        json!(format!(
            "three\n{}\n{}\n{}",
            placeholder(JPEG),
            placeholder(GIF),
            placeholder(WEBP)
        ))
    );
    assert_eq!(again.messages[0]["images"], json!(["not base64!"]));
    assert_eq!(expand(&stash, &again.messages).messages, input);
}

#[test]
fn ollama_placeholder_typed_in_text_brings_its_image_into_images() {
    let stash = MemoryBackend::new();
    compact(
        &stash,
        &[
            json!({"role":"user","content":"","images":[b64(PNG)]}),
            json!({"role":"user","content":"?"}),
        ],
    );
    // A message without `images` does not say it is Ollama's: the format is given.
    let typed = vec![json!({"role":"user","content": format!("see {} here", placeholder(PNG))})];
    let back = expand_as(&stash, &typed, Some(Format::Ollama));
    assert_eq!(
        back.messages[0],
        json!({"role":"user","content":"see  here","images":[b64(PNG)]})
    );
}

#[test]
fn ollama_images_and_parts_of_other_formats_do_not_mix() {
    let stash = MemoryBackend::new();
    // Stashed from OpenAI, restored into Ollama: an entry of `images`.
    compact(
        &stash,
        &[
            json!({"role":"user","content":[{"type":"image_url","image_url":{"url": data_url("image/png", PNG)}}]}),
            json!({"role":"user","content":"?"}),
        ],
    );
    let ollama =
        vec![json!({"role":"user","content": format!("hi\n{}", placeholder(PNG)),"images":[]})];
    assert_eq!(
        expand(&stash, &ollama).messages[0],
        json!({"role":"user","content":"hi","images":[b64(PNG)]})
    );
    // Stashed from Ollama, restored into OpenAI: the canonical part.
    compact(
        &stash,
        &[
            json!({"role":"user","content":"","images":[b64(GIF)]}),
            json!({"role":"user","content":"?"}),
        ],
    );
    let openai = vec![json!({"role":"user","content":[{"type":"text","text": placeholder(GIF)}]})];
    assert_eq!(
        expand(&stash, &openai).messages[0]["content"][0],
        json!({"type":"image_url","image_url":{"url": data_url("image/gif", GIF)}})
    );
}
