//! Tests of sanitizing tool results: what is found, what replaces it, and
//! what is left as it was.

use super::*;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::json;

fn binary_b64(n: usize) -> String {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    let mut s: u32 = 7;
    while bytes.len() < n {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        bytes.push((s >> 24) as u8);
    }
    STANDARD.encode(&bytes)
}

#[test]
fn filters_the_seed_example_and_keeps_small_metadata() {
    let img = binary_b64(512 * 1024);
    let result = json!({
        "success": true,
        "output": "图片生成成功。",
        "metadata": {"imagePath": "/path/to/image.png", "imageBase64": format!("data:image/png;base64,{img}"), "model": "flux", "durationMs": 1234}
    });
    let (out, n) = filter_value(result.clone(), &SanitizeOptions::default());
    assert_eq!(n, 1);
    assert_eq!(
        out["metadata"]["imageBase64"],
        "[BINARY_DATA_FILTERED: 512.0KB]"
    );
    assert_eq!(
        out["metadata"]["imagePath"],
        result["metadata"]["imagePath"]
    );
    assert_eq!(out["metadata"]["durationMs"], 1234);
}

#[test]
fn finds_nested_binaries_with_paths_and_types() {
    let img = binary_b64(20_000);
    let v = json!({"pages": [{"raw": img}], "pdfImages": [binary_b64(100), "short"], "audioData": "tiny"});
    let found = find_binaries(
        &v,
        &SanitizeOptions::default(),
        &JsonPath::root("result"),
        &InMemory,
    );
    let paths: Vec<&str> = found.iter().map(|b| b.path.as_str()).collect();
    assert_eq!(paths, vec!["result.pages[0].raw", "result.pdfImages[0]"]);
    assert_eq!(found[0].mime, "image/png");
    assert_eq!(found[0].size, 20_000);
}

#[test]
fn no_false_positives() {
    let prose = "The quick brown fox jumps over the lazy dog. ".repeat(400);
    let code = "fn main() { let x = vec![1, 2, 3]; println!(\"{:?}\", x); }\n".repeat(300);
    let json_text = ToString::to_string(&json!({"a": [1, 2, {"b": "c".repeat(50)}]})).repeat(200);
    let hex = "0123456789abcdef".repeat(1000);
    let jwt = format!(
        "eyJhbGciOiJIUzI1NiJ9.{}.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "eyJzdWIiOiIxMjM0NTY3ODkwIn0".repeat(500)
    );
    let minified = "!function(e,t){\"object\"==typeof exports?module.exports=t():e.x=t()}(this,function(){return 1});".repeat(200);
    let letters = "a".repeat(20_000);
    let upper_hex = "0123456789ABCDEF".repeat(1000);
    for s in [
        prose, code, json_text, hex, jwt, minified, letters, upper_hex,
    ] {
        assert!(s.len() > DEFAULT_THRESHOLD_BYTES);
        let v = json!({"text": s});
        let (out, n) = filter_value(v.clone(), &SanitizeOptions::default());
        assert_eq!(n, 0, "{}", &s[..40]);
        assert_eq!(out, v);
    }
}

#[test]
fn extra_fields_and_threshold_are_honoured() {
    let small = binary_b64(300);
    let v = json!({"thumb": small, "other": small});
    let opts = SanitizeOptions {
        threshold_bytes: 10_240,
        extra_fields: vec!["thumb".into()],
    };
    let (out, n) = filter_value(v.clone(), &opts);
    assert_eq!(n, 1);
    assert_eq!(out["other"], v["other"]);
    let (_, n) = filter_value(
        v,
        &SanitizeOptions {
            threshold_bytes: 100,
            extra_fields: vec![],
        },
    );
    assert_eq!(n, 2);
}

#[test]
fn deep_nesting_does_not_overflow() {
    let mut v = json!(binary_b64(20_000));
    for _ in 0..10_000 {
        v = Value::Array(vec![v]);
    }
    let found = find_binaries(
        &v,
        &SanitizeOptions::default(),
        &JsonPath::root("r"),
        &InMemory,
    );
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].path.len(), "r".len() + 3 * 10_000);
    // Values drop recursively; unwind the nesting by hand.
    while let Value::Array(mut items) = v {
        v = items.pop().unwrap_or(Value::Null);
    }
}

#[test]
fn mcp_blocks_become_valid_text_blocks() {
    let img = binary_b64(16384);
    let result = json!({"content":[
        {"type":"text","text":"shot"},
        {"type":"image","data":img,"mimeType":"image/png","annotations":{"priority":1}},
        {"type":"audio","data":img,"mimeType":"audio/wav"},
        {"type":"resource","resource":{"uri":"file:///a.png","mimeType":"image/png","blob":img}}
    ],"isError":false});
    let (out, n) = filter_value(result, &SanitizeOptions::default());
    assert_eq!(n, 3);
    let marker = filtered_marker(16384);
    assert_eq!(
        out,
        json!({"content":[
            {"type":"text","text":"shot"},
            {"type":"text","text":marker,"annotations":{"priority":1}},
            {"type":"text","text":marker},
            {"type":"resource","resource":{"uri":"file:///a.png","mimeType":"image/png","text":marker}}
        ],"isError":false})
    );
}

#[test]
fn markers() {
    assert_eq!(
        stashed_marker("abc", "image/png", 524_288),
        "[Binary:history_abc image/png 512.0KB]"
    );
    assert_eq!(filtered_marker(1536), "[BINARY_DATA_FILTERED: 1.5KB]");
}

/// Texts held outside "wasm memory": reference `i` of table 0 stands for
/// `texts[i]`.
struct Held(Vec<String>);

impl Payloads for Held {
    fn with_full(&self, s: &str, f: &mut dyn FnMut(&str)) {
        match crate::media::payload::find_external_ref(s) {
            Some((_, 0, i)) => f(&self.0[i as usize]),
            _ => f(s),
        }
    }
}

/// `n` bytes starting with `magic`, the rest noise.
fn bytes_after(magic: &[u8], n: usize) -> Vec<u8> {
    let mut out = magic.to_vec();
    let mut s: u32 = 11;
    while out.len() < n {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        out.push((s >> 24) as u8);
    }
    out
}

/// Held texts, each with whether its facts alone must decide.
fn held_texts() -> Vec<(String, bool)> {
    let png_head = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0";
    let png = STANDARD.encode(bytes_after(png_head, 20_000));
    vec![
        (png.clone(), true),
        (STANDARD.encode(bytes_after(b"", 30_001)), true),
        (STANDARD.encode(bytes_after(png_head, 20_002)), true),
        (STANDARD.encode(bytes_after(b"\xff\xd8\xff\xe0", 100)), true),
        (STANDARD.encode(bytes_after(png_head, 40)), true),
        ("A".repeat(40_000), false),
        ("0123456789abcdef".repeat(2_000), false),
        (format!("{}{png}", "A".repeat(8_192)), false),
        (format!("{}!{}", &png[..100], &png[101..]), false),
        (format!("{png}A"), false),
        (format!("data:image/png;base64,{png}"), false),
        (format!("data:text/plain;base64,{png}"), false),
        (String::new(), false),
    ]
}

#[test]
fn a_held_text_gets_the_verdict_it_gets_in_memory_by_its_facts_or_read_whole() {
    use crate::tool_results::held_payload::{classify_held, held_reference};
    let texts = held_texts();
    let payloads = Held(texts.iter().map(|(t, _)| t.clone()).collect());
    for (i, (text, must_decide)) in texts.iter().enumerate() {
        let reference = crate::media::payload::external_ref(0, i as u32);
        for header in [
            "",
            "data:image/png;base64,",
            "DATA:Audio/X-Odd;BASE64,",
            "data:;base64,",
            "data:image/png,",
        ] {
            let s = format!("{header}{reference}");
            let full = format!("{header}{text}");
            assert_eq!(held_reference(&s), Some((header.len(), reference.as_str())));
            for known in [false, true] {
                for threshold in [10, 100, 10 * 1024, 1 << 20] {
                    let what =
                        format!("text {i} under {header:?}, known {known}, threshold {threshold}");
                    // The same string in memory, placed where the held one is.
                    let expected = classify_text(&full, known, threshold).map(|b| Binary {
                        md5: Some(crate::hash::md5_hex(
                            &full.as_bytes()[b.payload.0..b.payload.1],
                        )),
                        ..blank(header.len(), s.len(), b.mime, b.size)
                    });
                    let whole = classify_read_whole(&s, header.len(), known, threshold, &payloads);
                    assert_eq!(whole, expected, "read whole: {what}");
                    assert_eq!(
                        classify(&s, known, threshold, &payloads),
                        expected,
                        "{what}"
                    );
                    match classify_held(header, &reference, known, threshold, &payloads) {
                        Some(verdict) => assert_eq!(
                            verdict.map(|b| (b.mime, b.size, Some(b.md5))),
                            expected.clone().map(|b| (b.mime, b.size, b.md5)),
                            "by its facts: {what}"
                        ),
                        None => assert!(!must_decide, "not decided by its facts: {what}"),
                    }
                }
            }
        }
    }
}
