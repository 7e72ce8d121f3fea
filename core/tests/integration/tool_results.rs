//! Binary payloads in tool results: stashed and replaced by markers during
//! compaction, in every format, and never before the stash committed.

use crate::common;
use crate::common::calls::*;

use common::*;
use ctxpack_core::history::CompactOptions;
use ctxpack_core::history::{history_image, CompactCall, Lang};
use ctxpack_core::messages::Format;
use ctxpack_core::stash::{MemoryBackend, StashAccess, StashBackend, StashConfig};
use ctxpack_core::ErrorCode;
use serde_json::json;
use serde_json::Value;

fn big_png_b64() -> String {
    // A real PNG padded with a tEXt-free tail: the bytes start with the PNG magic.
    let mut bytes = PNG.to_vec();
    while bytes.len() < 40_000 {
        bytes.extend_from_slice(PNG);
    }
    b64(&bytes)
}

fn tool_result_json(payload: &str) -> Value {
    json!({"success": true, "output": "图片生成成功。", "metadata": {"imagePath": "/tmp/a.png", "imageBase64": format!("data:image/png;base64,{payload}"), "model": "flux"}})
}

fn run<B: StashBackend>(
    stash: &B,
    msgs: &Value,
    sanitize: bool,
) -> ctxpack_core::history::Outcome<ctxpack_core::history::CompactReport> {
    let opts = CompactOptions {
        sanitize_tool_results: sanitize,
        ..Default::default()
    };
    block_on(
        CompactCall::new(
            StashAccess {
                backend: stash,
                config: &StashConfig::default(),
                now: 1e12,
            },
            opts,
            &ctxpack_core::media::InMemory,
        )
        .run_values(msgs.as_array().unwrap().clone(), None),
    )
    .unwrap()
}

fn marker(payload: &str) -> String {
    let size = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, payload)
        .unwrap()
        .len();
    format!(
        "[Binary:history_{} image/png {:.1}KB]",
        md5(payload),
        size as f64 / 1024.0
    )
}

#[test]
fn openai_tool_message_json_string_is_sanitized_and_the_binary_is_fetchable() {
    let payload = big_png_b64();
    let msgs = json!([
        {"role":"user","content":"draw a cat"},
        {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"image_generate","arguments":"{}"}}]},
        {"role":"tool","tool_call_id":"c1","content": tool_result_json(&payload).to_string()},
        {"role":"assistant","content":"Done."},
        {"role":"user","content":"now a dog"}
    ]);
    let stash = MemoryBackend::new();
    let out = run(&stash, &msgs, true);
    let content: Value =
        serde_json::from_str(out.messages[2]["content"].as_str().unwrap()).unwrap();
    assert_eq!(content["metadata"]["imageBase64"], marker(&payload));
    assert_eq!(content["metadata"]["imagePath"], "/tmp/a.png");
    assert_eq!(out.messages[2]["tool_call_id"], "c1");
    assert_eq!(out.report.binaries_stashed, 1);
    assert!(out.report.bytes_after < out.report.bytes_before / 10);
    let parts = block_on(history_image(
        StashAccess {
            backend: &stash,
            config: &StashConfig::default(),
            now: 1e12,
        },
        &md5(&payload),
        Format::OpenAi.into(),
        Lang::En,
        &ctxpack_core::media::InMemory,
    ));
    assert_eq!(
        parts[0]["image_url"]["url"],
        format!("data:image/png;base64,{payload}")
    );
    // Off by default.
    let out = run(&MemoryBackend::new(), &msgs, false);
    assert_eq!(Value::Array(out.messages), msgs);
}

#[test]
fn every_format_is_covered_and_the_newest_turn_is_not() {
    let payload = big_png_b64();
    let json_text = tool_result_json(&payload).to_string();
    let cases = [
        json!([
            ["human", "go"],
            ["tool", json_text],
            ["human", "next"],
            ["tool", json_text]
        ]),
        json!([
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content": json_text}]},
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"u","content":[{"type":"text","text": json_text}]}]},
            {"role":"user","content":"next"}
        ]),
        json!([
            {"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"gen","output":{"type":"json","value": tool_result_json(&payload)}}]},
            {"role":"tool","content":[{"type":"tool-result","toolCallId":"d","toolName":"gen","output":{"type":"text","value": payload}}]},
            {"role":"user","content":"next"}
        ]),
        json!([
            {"role":"user","content":"go"},
            {"type":"function_call","call_id":"c","name":"gen","arguments":"{}"},
            {"type":"function_call_output","call_id":"c","output": json_text},
            {"type":"function_call_output","call_id":"d","output":[{"type":"input_text","text": json_text}]},
            {"role":"user","content":"next"}
        ]),
        json!([
            {"role":"user","parts":[{"text":"go"}]},
            {"role":"model","parts":[{"functionCall":{"name":"gen","args":{}}}]},
            {"role":"user","parts":[{"functionResponse":{"name":"gen","response": tool_result_json(&payload)}}]},
            {"role":"model","parts":[{"text":"done"}]},
            {"role":"user","parts":[{"text":"next"}]}
        ]),
        json!([
            {"role":"user","content":{"type":"text","text":"go"}},
            {"role":"assistant","content":{"type":"tool_use","id":"t","name":"gen","input":{}}},
            {"role":"user","content":[{"type":"tool_result","toolUseId":"t","content":[{"type":"text","text": json_text}],"structuredContent": tool_result_json(&payload)}]},
            {"role":"user","content":{"type":"text","text":"next"}}
        ]),
        json!([
            {"role":"user","content":"go","images":[]},
            {"role":"assistant","content":"","tool_calls":[{"function":{"name":"gen","arguments":{}}}]},
            {"role":"tool","tool_name":"gen","content": json_text},
            {"role":"user","content":"next"}
        ]),
    ];
    for msgs in cases {
        let out = run(&MemoryBackend::new(), &msgs, true);
        let n = msgs.as_array().unwrap().len();
        let newest = out.report.newest_user_index.unwrap();
        let history = Value::Array(out.messages[..newest].to_vec()).to_string();
        assert!(!history.contains(&payload[..64]), "{}", out.report.format);
        assert!(history.contains(&format!("[Binary:history_{}", md5(&payload))));
        assert_eq!(
            out.messages[newest..],
            msgs.as_array().unwrap()[newest..n],
            "newest turn untouched"
        );
        assert!(out.report.binaries_stashed >= 1);
    }
}

#[test]
fn a_failed_write_keeps_the_payload_and_reports_it() {
    let payload = big_png_b64();
    let msgs = json!([{"role":"tool","tool_call_id":"c","content": tool_result_json(&payload).to_string()},{"role":"user","content":"x"}]);
    let stash = FlakyBackend::default();
    stash.fail_ids.borrow_mut().push("*".into());
    let out = run(&stash, &msgs, true);
    assert_eq!(Value::Array(out.messages), msgs);
    assert_eq!(out.report.failures[0].code, ErrorCode::QuotaExceeded);
    assert_eq!(
        out.report.failures[0].path,
        "messages[0].content.metadata.imageBase64"
    );
}

/// Numbers in a tool result's JSON text come back exactly as they were read:
/// subnormals, 17-digit decimals, the extremes of 64-bit integers and -0.
#[test]
fn numbers_in_a_sanitized_tool_result_text_survive_exactly() {
    use ctxpack_core::tool_results::{
        sanitize_targets, text_target, OnWriteFailure, SanitizeOptions,
    };
    let numbers = [
        "5e-324",
        "2.2250738585072014e-308",
        "0.30000000000000004",
        "1.7976931348623157e308",
        "9007199254740993",
        "18446744073709551615",
        "-9223372036854775808",
        "-0.0",
        "123456789.12345679",
    ];
    let text = format!(
        r#"{{"n":[{}],"image":"data:image/png;base64,{}"}}"#,
        numbers.join(","),
        big_png_b64()
    );
    let (target, was_json) = text_target(&text, ctxpack_core::JsonPath::root("result"));
    let mut targets = [target];
    let stash = MemoryBackend::default();
    let (report, _) = block_on(sanitize_targets(
        Some(&stash),
        &StashConfig::default(),
        1e12,
        &mut targets,
        &SanitizeOptions::default(),
        OnWriteFailure::Filter,
        &ctxpack_core::media::InMemory,
    ));
    assert_eq!(report.stashed, 1);
    let [target] = targets;
    let out = ctxpack_core::tool_results::target_text(target, was_json);
    let parsed: Value = serde_json::from_str(&out).unwrap();
    let back = parsed["n"].as_array().unwrap();
    for (text, value) in numbers.iter().zip(back) {
        // Integers exactly; floats bit for bit against the correctly
        // rounded reading of the original text.
        if let Ok(u) = text.parse::<u64>() {
            assert_eq!(value.as_u64(), Some(u), "{text}");
        } else if let Ok(i) = text.parse::<i64>() {
            assert_eq!(value.as_i64(), Some(i), "{text}");
        } else {
            let expected: f64 = text.parse().unwrap();
            assert_eq!(
                value.as_f64().unwrap().to_bits(),
                expected.to_bits(),
                "{text}"
            );
        }
    }
}

#[test]
fn a_text_may_be_json_only_when_it_opens_an_object_or_array_and_every_such_text_is_parsed() {
    use ctxpack_core::tool_results::{text_may_be_json, text_target};
    let path = || ctxpack_core::JsonPath::root("result");
    for head in ["{", "[1", " \n\t{\"a\"", "   ", ""] {
        assert!(text_may_be_json(head), "{head:?}");
    }
    for head in [
        "iVBORw0KGgo",
        "data:image/png;base64,",
        "ok",
        " x{",
        "\"{\"",
    ] {
        assert!(!text_may_be_json(head), "{head:?}");
        // What cannot be JSON is kept as the string it is.
        let (target, was_json) = text_target(head, path());
        assert!(!was_json);
        assert_eq!(target.value, Value::String(head.to_owned()));
    }
    // Every text that parses is judged as maybe JSON from its start.
    let (target, was_json) = text_target("\n  {\"imageBase64\": \"AAAA\"}", path());
    assert!(was_json);
    assert_eq!(target.value, json!({"imageBase64": "AAAA"}));
}

#[test]
fn in_a_loop_the_tool_results_the_model_has_answered_are_sanitized_and_the_newest_is_not() {
    let payload = big_png_b64();
    let json_text = tool_result_json(&payload).to_string();
    // One prompt, then three tool steps: the first two answered by the
    // model's next call, the third not yet.
    let cases = [
        json!([
            {"role":"user","content":"draw three cats"},
            {"type":"function_call","call_id":"c0","name":"gen","arguments":"{}"},
            {"type":"function_call_output","call_id":"c0","output": json_text},
            {"type":"function_call","call_id":"c1","name":"gen","arguments":"{}"},
            {"type":"function_call_output","call_id":"c1","output": json_text},
            {"type":"function_call","call_id":"c2","name":"gen","arguments":"{}"},
            {"type":"function_call_output","call_id":"c2","output": json_text}
        ]),
        json!([
            {"role":"user","content":"draw three cats"},
            {"role":"assistant","content":[{"type":"tool_use","id":"t0","name":"gen","input":{}}]},
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"t0","content": json_text}]},
            {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"gen","input":{}}]},
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content": json_text}]},
            {"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"gen","input":{}}]},
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content": json_text}]}
        ]),
    ];
    for msgs in cases {
        let input = msgs.as_array().unwrap();
        let out = run(&MemoryBackend::new(), &msgs, true);
        let format = out.report.format;
        assert_eq!(out.report.newest_user_index, Some(0), "{format}");
        assert_eq!(out.messages[0], input[0], "{format}: the prompt");
        for answered in [2, 4] {
            let text = out.messages[answered].to_string();
            assert!(!text.contains(&payload[..64]), "{format} {answered}");
            assert!(text.contains(&format!("[Binary:history_{}", md5(&payload))));
        }
        assert_eq!(out.messages[6], input[6], "{format}: not answered yet");
        assert_eq!(out.report.binaries_stashed, 2, "{format}");
    }
}
