//! Compaction and expansion over a backend at a given time, and the
//! conversations the history tests share.

use super::{b64, block_on, data_url};
use crate::common::calls::*;
use ctxpack_core::history::{CompactCall, CompactOptions, Outcome};
use ctxpack_core::messages::Format;
use ctxpack_core::stash::{StashAccess, StashBackend, StashConfig};
use serde_json::{json, Value};

/// The clock of the history tests.
pub const T0: f64 = 1_700_000_000_000.0;

pub fn compact<B: StashBackend>(
    b: &B,
    msgs: &Value,
    opts: CompactOptions,
) -> Outcome<ctxpack_core::history::CompactReport> {
    compact_at(b, msgs, opts, T0, &StashConfig::default())
}

pub fn compact_at<B: StashBackend>(
    b: &B,
    msgs: &Value,
    opts: CompactOptions,
    now: f64,
    cfg: &StashConfig,
) -> Outcome<ctxpack_core::history::CompactReport> {
    let values = msgs.as_array().unwrap().clone();
    block_on(
        CompactCall::new(
            StashAccess {
                backend: b,
                config: cfg,
                now,
            },
            opts,
            &ctxpack_core::media::InMemory,
        )
        .run_values(values, None),
    )
    .unwrap()
}

pub fn expand<B: StashBackend>(
    b: &B,
    msgs: &[Value],
) -> Outcome<ctxpack_core::history::ExpandReport> {
    block_on(expand_values(
        StashAccess {
            backend: b,
            config: &StashConfig::default(),
            now: T0 + 1.0,
        },
        msgs.to_vec(),
        None,
        &ctxpack_core::media::InMemory,
    ))
    .unwrap()
}

/// The data-flow example of the dootask design: five messages, two images.
pub fn dootask(img1: &str, img2: &str) -> Value {
    json!([
        ["human", [{"type":"image_url", "image_url":{"url": img1}}, {"type":"text", "text":"这是什么？"}]],
        ["assistant", "这是一只猫..."],
        ["human", "右上角那个东西是什么？"],
        ["assistant", "右上角是一个花瓶..."],
        ["human", [{"type":"image_url", "image_url":{"url": img2}}, {"type":"text", "text":"这张新图呢？"}]]
    ])
}

/// The same conversation in the three object formats, with the image parts
/// each format writes (and fields ctxpack does not know).
pub fn in_format(format: Format, img1: &[u8], img2: &[u8]) -> Value {
    let part = |bytes: &[u8], mime: &str| match format {
        Format::OpenAi => {
            json!({"type":"image_url","image_url":{"url": data_url(mime, bytes), "detail":"high"}})
        }
        Format::Anthropic => {
            json!({"type":"image","source":{"type":"base64","media_type":mime,"data":b64(bytes)},"cache_control":{"type":"ephemeral"}})
        }
        Format::AiSdk => {
            json!({"type":"image","image":b64(bytes),"mediaType":mime,"providerOptions":{"x":{"y":1}}})
        }
        Format::LangChain => json!({"type":"image_url","image_url":{"url": data_url(mime, bytes)}}),
        other => unreachable!("{other:?} is covered by the formats module"),
    };
    json!([
        {"role":"system","content":"You are helpful."},
        {"role":"user","content":[part(img1, "image/jpeg"), {"type":"text","text":"这是什么？"}], "name":"ann"},
        {"role":"assistant","content":"这是一只猫..."},
        {"role":"user","content":"右上角那个东西是什么？"},
        {"role":"assistant","content":"右上角是一个花瓶..."},
        {"role":"user","content":[part(img2, "image/png"), {"type":"text","text":"这张新图呢？"}]}
    ])
}
