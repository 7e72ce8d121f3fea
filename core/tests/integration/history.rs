//! History compaction, expansion and the tool answer, over the memory backend
//! and a backend whose writes fail.

use crate::common;

use common::history::*;
use common::*;
use ctxpack_core::history::CompactOptions;
use ctxpack_core::history::{history_image, Lang, PartDialect};
use ctxpack_core::messages::Format;
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashConfig};
use serde_json::json;
use serde_json::Value;

#[test]
fn dootask_example_compacts_to_the_expected_output_and_back() {
    let (img1, img2) = (data_url("image/jpeg", JPEG), data_url("image/png", PNG));
    let input = dootask(&img1, &img2);
    let stash = MemoryBackend::new();
    let out = compact(
        &stash,
        &input,
        CompactOptions {
            collapse_text: true,
            ..Default::default()
        },
    );
    let id = md5(&b64(JPEG));
    let expected = json!([
        ["human", format!("[Picture:history_{id}] 这是什么？")],
        ["assistant", "这是一只猫..."],
        ["human", "右上角那个东西是什么？"],
        ["assistant", "右上角是一个花瓶..."],
        ["human", [{"type":"image_url", "image_url":{"url": img2}}, {"type":"text", "text":"这张新图呢？"}]]
    ]);
    assert_eq!(Value::Array(out.messages.clone()), expected);
    assert_eq!(out.changed, vec![true, false, false, false, false]);
    assert_eq!(
        (out.report.stashed, out.report.kept, out.report.failed),
        (1, 1, 0)
    );
    assert_eq!(out.report.format, "langchain");
    assert!(out.report.bytes_after < out.report.bytes_before);

    let back = expand(&stash, &out.messages);
    assert_eq!(Value::Array(back.messages), input);
    assert_eq!(back.report.restored, 1);
    assert!(back.report.missing.is_empty());

    // The tool answers with the dootask shape.
    let parts = block_on(history_image(
        StashAccess {
            backend: &stash,
            config: &StashConfig::default(),
            now: T0,
        },
        &id,
        PartDialect::LangChainPython,
        Lang::Zh,
        &ctxpack_core::media::InMemory,
    ));
    assert_eq!(
        parts,
        vec![json!({"type":"image", "mime_type":"image/jpeg", "base64": b64(JPEG)})]
    );
    // LangChain JS gets an image_url block with a data URL: the block each of
    // ChatOpenAI, ChatAnthropic and ChatGoogleGenerativeAI sends as an image.
    let parts = block_on(history_image(
        StashAccess {
            backend: &stash,
            config: &StashConfig::default(),
            now: T0,
        },
        &id,
        Format::LangChain.into(),
        Lang::Zh,
        &ctxpack_core::media::InMemory,
    ));
    assert_eq!(
        parts,
        vec![
            json!({"type":"image_url", "image_url": {"url": format!("data:image/jpeg;base64,{}", b64(JPEG))}})
        ]
    );
}

#[test]
fn every_object_format_round_trips_exactly() {
    for format in [Format::OpenAi, Format::Anthropic, Format::AiSdk] {
        let input = in_format(format, JPEG, PNG);
        let stash = MemoryBackend::new();
        let out = compact(&stash, &input, CompactOptions::default());
        assert_eq!(out.report.format, format.name());
        assert_eq!(out.report.stashed, 1, "{format:?}");
        let id = md5(&b64(JPEG));
        // The placeholder keeps the image part's cache breakpoint and provider options.
        let mut placeholder = json!({"type":"text","text": format!("[Picture:history_{id}]")});
        for key in ["cache_control", "providerOptions"] {
            if let Some(v) = input[1]["content"][0].get(key) {
                placeholder[key] = v.clone();
            }
        }
        assert_eq!(out.messages[1]["content"][0], placeholder, "{format:?}");
        assert_eq!(out.messages[1]["name"], "ann");
        assert_eq!(out.messages[5], input[5], "newest user message untouched");
        let text = Value::Array(out.messages[..5].to_vec()).to_string();
        assert!(
            !text.contains(&b64(JPEG)[..64]),
            "no base64 left in history"
        );
        let back = expand(&stash, &out.messages);
        assert_eq!(Value::Array(back.messages), input, "{format:?}");
    }
}

#[test]
fn compaction_is_idempotent_and_stores_each_image_once() {
    let img = data_url("image/gif", GIF);
    let input = json!([
        {"role":"user","content":[{"type":"image_url","image_url":{"url": img}}]},
        {"role":"assistant","content":"a gif"},
        {"role":"user","content":[{"type":"text","text":"again"},{"type":"image_url","image_url":{"url": img}}]},
        {"role":"assistant","content":"same gif"},
        {"role":"user","content":"thanks"}
    ]);
    let stash = FlakyBackend::default();
    let once = compact(&stash, &input, CompactOptions::default());
    assert_eq!(
        (
            once.report.stashed,
            once.report.deduplicated,
            once.report.written
        ),
        (2, 1, 1)
    );
    assert_eq!(stash.puts.get(), 1, "one write for two copies");
    let twice = compact(
        &stash,
        &Value::Array(once.messages.clone()),
        CompactOptions::default(),
    );
    assert_eq!(twice.messages, once.messages);
    assert_eq!(twice.changed, vec![false; 5]);
    // Nothing to write: the record was written moments ago, its expiry is fresh.
    assert_eq!(
        (
            twice.report.stashed,
            twice.report.refreshed,
            twice.report.missing
        ),
        (0, 0, 0)
    );
}

#[test]
fn keep_recent_images_keeps_the_newest_history_images() {
    let imgs = [PNG, JPEG, GIF, WEBP].map(|b| data_url("image/png", b));
    let mut msgs: Vec<Value> = imgs
        .iter()
        .map(|u| json!({"role":"user","content":[{"type":"image_url","image_url":{"url": u}}]}))
        .collect();
    msgs.push(json!({"role":"user","content":"now"}));
    let out = compact(
        &MemoryBackend::new(),
        &Value::Array(msgs.clone()),
        CompactOptions {
            keep_recent_images: 2,
            ..Default::default()
        },
    );
    assert_eq!(out.changed, vec![true, true, false, false, false]);
    assert_eq!((out.report.stashed, out.report.kept), (2, 2));
    assert_eq!(out.messages[2], msgs[2]);
}

#[test]
fn images_in_tool_results_and_ai_sdk_files_are_covered_urls_are_not() {
    let anthropic = json!([
        {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"shot"},{"type":"image","source":{"type":"base64","media_type":"image/webp","data": b64(WEBP)}}]}]},
        {"role":"assistant","content":[{"type":"text","text":"I see"}]},
        {"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://x.test/a.png"}},{"type":"text","text":"and this?"}]}
    ]);
    let stash = MemoryBackend::new();
    let out = compact(&stash, &anthropic, CompactOptions::default());
    assert_eq!(
        out.messages[0]["content"][0]["content"][1]["text"],
        format!("[Picture:history_{}]", md5(&b64(WEBP)))
    );
    assert_eq!(out.messages[0]["content"][0]["tool_use_id"], "t1");
    assert_eq!(out.report.urls, 1);
    assert_eq!(
        Value::Array(expand(&stash, &out.messages).messages),
        anthropic
    );

    let ai = json!([
        {"role":"user","content":[{"type":"file","data": b64(PNG),"mediaType":"image/png","filename":"a.png"},{"type":"file","data":"JVBERi0=","mediaType":"application/pdf"}]},
        {"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"shot","output":{"type":"content","value":[{"type":"media","data": b64(GIF),"mediaType":"image/gif"}]}}]},
        {"role":"user","content":[{"type":"image","image":"https://x.test/b.png"}]}
    ]);
    let out = compact(&stash, &ai, CompactOptions::default());
    assert_eq!(out.report.stashed, 2);
    assert_eq!(
        out.messages[0]["content"][1], ai[0]["content"][1],
        "a PDF file part is not an image"
    );
    assert_eq!(Value::Array(expand(&stash, &out.messages).messages), ai);
}

#[test]
fn the_tool_answers_in_every_dialect_and_reads_every_id_spelling() {
    let stash = MemoryBackend::new();
    compact(
        &stash,
        &in_format(Format::OpenAi, JPEG, PNG),
        CompactOptions::default(),
    );
    let id = md5(&b64(JPEG));
    let ask = |id: &str, f: Format, lang: Lang| {
        block_on(history_image(
            StashAccess {
                backend: &stash,
                config: &StashConfig::default(),
                now: T0,
            },
            id,
            f.into(),
            lang,
            &ctxpack_core::media::InMemory,
        ))
    };
    assert_eq!(
        ask(
            &format!("history_{}", id.to_uppercase()),
            Format::OpenAi,
            Lang::En
        ),
        vec![json!({"type":"image_url","image_url":{"url": data_url("image/jpeg", JPEG)}})]
    );
    assert_eq!(
        ask(&id, Format::Anthropic, Lang::En),
        vec![
            json!({"type":"image","source":{"type":"base64","media_type":"image/jpeg","data": b64(JPEG)}})
        ]
    );
    assert_eq!(
        ask(&id, Format::AiSdk, Lang::En),
        // AI SDK 7's file part (its image part is deprecated).
        vec![json!({"type":"file","mediaType":"image/jpeg","data": b64(JPEG)})]
    );
    assert_eq!(
        ask("abc", Format::OpenAi, Lang::Zh),
        vec![json!({"type":"text","text":"无效的图片标识符"})]
    );
    assert_eq!(
        ask(&"0".repeat(32), Format::OpenAi, Lang::Zh),
        vec![json!({"type":"text","text":"图片不存在或已过期"})]
    );
    assert_eq!(
        ask("history_../../x", Format::OpenAi, Lang::En),
        vec![json!({"type":"text","text":"Invalid image id"})]
    );
}

#[test]
fn a_typed_placeholder_for_an_unknown_image_is_reported_missing() {
    let msgs = json!([{"role":"user","content":"see [Picture:history_0123456789abcdef0123456789abcdef] please"},{"role":"user","content":"?"}]);
    let stash = MemoryBackend::new();
    let out = compact(&stash, &msgs, CompactOptions::default());
    assert_eq!(out.report.missing, 1);
    let back = expand(&stash, &out.messages);
    assert_eq!(Value::Array(back.messages), msgs);
    assert_eq!(back.report.missing[0].path, "messages[0].content");
}

#[test]
fn broken_base64_stays_inline_with_a_reason() {
    let msgs = json!([{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBOR!!"}}]},{"role":"user","content":"?"}]);
    let out = compact(&MemoryBackend::new(), &msgs, CompactOptions::default());
    assert_eq!(Value::Array(out.messages), msgs);
    assert_eq!(out.report.failures[0].code.as_str(), "INVALID_DATA_URL");
    assert_eq!(out.report.failures[0].path, "messages[0].content[0]");
}

#[test]
fn no_user_message_means_nothing_is_compacted() {
    let msgs = json!([{"role":"assistant","content":[{"type":"image_url","image_url":{"url": data_url("image/png", PNG)}}]}]);
    let out = compact(&MemoryBackend::new(), &msgs, CompactOptions::default());
    assert_eq!(Value::Array(out.messages), msgs);
    assert_eq!(out.report.newest_user_index, None);
}

#[test]
fn dootask_example_collapses_exactly_in_every_format() {
    for format in [Format::OpenAi, Format::Anthropic, Format::AiSdk] {
        let input = in_format(format, JPEG, PNG);
        let stash = MemoryBackend::new();
        let out = compact(
            &stash,
            &input,
            CompactOptions {
                collapse_text: true,
                ..Default::default()
            },
        );
        let mut expected = input.clone();
        let id = md5(&b64(JPEG));
        // A part holding a cache breakpoint or provider options is not
        // folded into a string: that would drop them.
        let image = &input[1]["content"][0];
        let carried = ["cache_control", "providerOptions"]
            .iter()
            .find(|k| image.get(**k).is_some());
        *expected
            .get_mut(1)
            .and_then(|m| m.get_mut("content"))
            .unwrap() = match carried {
            None => json!(format!("[Picture:history_{id}] 这是什么？")),
            Some(key) => {
                json!([{"type":"text","text":format!("[Picture:history_{id}]"), *key: image[*key]}, {"type":"text","text":"这是什么？"}])
            }
        };
        assert_eq!(Value::Array(out.messages.clone()), expected, "{format:?}");
        assert_eq!(
            Value::Array(expand(&stash, &out.messages).messages),
            input,
            "{format:?}"
        );
    }
}

#[test]
fn model_limits_stash_more_images_oldest_first_or_say_why_not() {
    use ctxpack_core::budget::RequestLimits;
    let imgs = [PNG, JPEG, GIF, WEBP];
    let mut msgs: Vec<Value> = imgs
        .iter()
        .map(|b| json!({"role":"user","content":[{"type":"image_url","image_url":{"url": data_url("image/png", b)}}]}))
        .collect();
    msgs.push(json!({"role":"user","content":[{"type":"text","text":"compare"},{"type":"image_url","image_url":{"url": data_url("image/png", PNG)}}]}));
    let limits = RequestLimits {
        max_images: Some(3),
        max_image_bytes: None,
        max_request_bytes: None,
    };
    let opts = CompactOptions {
        keep_recent_images: 4,
        limits: Some(limits),
        ..Default::default()
    };
    let out = compact(&MemoryBackend::new(), &Value::Array(msgs.clone()), opts);
    // 4 history images kept by keepRecentImages + 1 newest = 5 > 3: the two oldest go.
    assert_eq!(out.changed, vec![true, true, false, false, false]);
    assert_eq!((out.report.limit_stashed, out.report.fits), (2, true));

    let tiny = RequestLimits {
        max_images: Some(0),
        max_image_bytes: None,
        max_request_bytes: None,
    };
    let out = compact(
        &MemoryBackend::new(),
        &Value::Array(msgs.clone()),
        CompactOptions {
            limits: Some(tiny),
            ..Default::default()
        },
    );
    assert!(!out.report.fits);
    assert!(out
        .report
        .limit_problem
        .as_deref()
        .unwrap()
        .contains("newest turn"));
    assert_eq!(out.messages[4], msgs[4], "the newest turn is never touched");

    let bytes = RequestLimits {
        max_images: None,
        max_image_bytes: None,
        max_request_bytes: Some(b64(PNG).len() as u64 + 2000),
    };
    let out = compact(
        &MemoryBackend::new(),
        &Value::Array(msgs.clone()),
        CompactOptions {
            keep_recent_images: 4,
            limits: Some(bytes),
            ..Default::default()
        },
    );
    assert!(out.report.fits, "{:?}", out.report.limit_problem);
    assert!(out.report.bytes_after <= b64(PNG).len() as u64 + 2000);
}
