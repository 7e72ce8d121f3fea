//! Text-only models in every format: images become markdown references or
//! descriptions, each message stays valid in its format, and only what the
//! stash committed is referenced.

use crate::common;

use common::*;
use ctxpack_core::messages::decode_messages;
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashBackend, StashConfig};
use ctxpack_core::tool_results::message_to_text_only;
use ctxpack_core::JsonPath;
use serde_json::json;

const T0: f64 = 1_700_000_000_000.0;

#[test]
fn text_only_conversion_keeps_each_format_valid() {
    let png = b64(PNG);
    let id = placeholder(PNG);
    let cases = [
        (
            json!({"id":"1","role":"user","parts":[{"type":"text","text":"q"},{"type":"file","mediaType":"image/png","url": data_url("image/png", PNG)}]}),
            json!({"id":"1","role":"user","parts":[{"type":"text","text": format!("q\n\n{id}")}]}),
        ),
        (
            json!({"role":"user","content":[{"type":"input_text","text":"q"},{"type":"input_image","image_url": data_url("image/png", PNG),"detail":"auto"}]}),
            json!({"role":"user","content": format!("q\n\n{id}")}),
        ),
        (
            json!({"role":"user","parts":[{"text":"q"},{"inlineData":{"mimeType":"image/png","data": png}}]}),
            json!({"role":"user","parts":[{"text":"q"},{"text": id}]}),
        ),
        (
            json!({"role":"user","content":{"type":"image","data": png,"mimeType":"image/png"}}),
            json!({"role":"user","content":{"type":"text","text": id}}),
        ),
        (
            json!({"role":"user","content":"q","images":[png]}),
            json!({"role":"user","content": format!("q\n\n{id}"),"images":[]}),
        ),
    ];
    for (input, expected) in cases {
        let (format, mut msgs) = decode_messages(vec![input], None, &JsonPath::root("m")).unwrap();
        assert!(message_to_text_only(
            &mut msgs[0],
            format,
            &|_| true,
            &ctxpack_core::media::InMemory
        ));
        assert_eq!(msgs.remove(0).into_wire(), expected, "{format:?}");
    }
}

#[test]
fn text_only_references_what_the_stash_committed_and_describes_the_rest() {
    use ctxpack_core::tool_results::{stash_inline_images, to_text_only};
    let msgs = vec![
        json!({"role":"user","content":[
            {"type":"text","text":"what is it?"},
            {"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}
        ]}),
        json!({"role":"assistant","content":"plain"}),
    ];
    let id = ctxpack_core::md5_hex(b"AAAA");

    let described = to_text_only(
        msgs.clone(),
        None,
        &|_| false,
        &ctxpack_core::media::InMemory,
    )
    .unwrap();
    assert_eq!(
        described,
        vec![
            Some(
                json!({"role":"user","content":"what is it?\n\n[图片1: image/png 3 B, not stored]"})
            ),
            None
        ]
    );

    let stash = MemoryBackend::new();
    let stored = block_on(stash_inline_images(
        StashAccess {
            backend: &stash,
            config: &StashConfig::default(),
            now: T0,
        },
        msgs.clone(),
        None,
        &ctxpack_core::media::InMemory,
    ))
    .unwrap();
    let stashed = to_text_only(
        msgs,
        None,
        &|id| stored.contains(id),
        &ctxpack_core::media::InMemory,
    )
    .unwrap();
    assert_eq!(
        stashed,
        vec![
            Some(json!({"role":"user","content":format!("what is it?\n\n[Picture:history_{id}]")})),
            None
        ]
    );
    let ids: Vec<String> = block_on(stash.list_meta())
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(ids, vec![id]);
}
