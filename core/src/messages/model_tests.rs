//! Tests of the neutral model: round trips, images in tool results,
//! refused shapes with their paths.

use super::*;
use crate::messages::decode_messages;
use serde_json::json;

fn round_trip(format: Format, v: Value) {
    let (_, msgs) =
        decode_messages(vec![v.clone()], Some(format), &JsonPath::root("messages")).unwrap();
    let back: Vec<Value> = msgs.into_iter().map(Message::into_wire).collect();
    assert_eq!(back, vec![v.clone()]);
    assert_eq!(ToString::to_string(&back[0]), ToString::to_string(&v));
}

#[test]
fn every_format_round_trips_with_unknown_fields_in_order() {
    round_trip(
        Format::OpenAi,
        json!({"role":"user","name":"ann","content":[{"type":"text","text":"hi","x":1},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA","detail":"low"}}],"z":true}),
    );
    round_trip(
        Format::OpenAi,
        json!({"role":"assistant","content":null,"tool_calls":[{"id":"c1"}]}),
    );
    round_trip(
        Format::OpenAi,
        json!({"role":"tool","tool_call_id":"c1","content":"{\"a\":1}"}),
    );
    round_trip(
        Format::LangChain,
        json!(["human", [{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},{"type":"text","text":"这是什么？"}]]),
    );
    round_trip(Format::LangChain, json!(["ai", "这是一只猫..."]));
    round_trip(
        Format::Anthropic,
        json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}],"is_error":false,"cache_control":{"type":"ephemeral"}}]}),
    );
    round_trip(
        Format::AiSdk,
        json!({"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"shot","output":{"type":"content","value":[{"type":"media","data":"AAAA","mediaType":"image/png"}]}}]}),
    );
    round_trip(
        Format::AiSdk,
        json!({"role":"user","content":[{"type":"file","data":"AAAA","mediaType":"image/png","providerOptions":{"x":{}}}]}),
    );
}

#[test]
fn finds_images_in_tool_results() {
    let v = json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}]});
    let m = Message::decode(Format::Anthropic, v, &JsonPath::root("m")).unwrap();
    let mut n = 0;
    crate::messages::walk::for_each_image(&m, &JsonPath::root("m"), &mut |_, _, i| {
        assert_eq!(i.source().inline(), Some((Some("image/png"), "AAAA")));
        n += 1;
    });
    assert_eq!(n, 1);
}

#[test]
fn rejects_unknown_shapes_with_paths() {
    let p = JsonPath::root("messages");
    let err = |f, v| {
        decode_messages(vec![json!({"role":"user","content":"ok"}), v], Some(f), &p).unwrap_err()
    };
    assert!(
        matches!(err(Format::OpenAi, json!(42)), MessageError::InvalidMessage { path, .. } if path == "messages[1]")
    );
    assert!(
        matches!(err(Format::OpenAi, json!({"content":"x"})), MessageError::InvalidMessage { path, .. } if path == "messages[1]")
    );
    assert!(
        matches!(err(Format::OpenAi, json!({"role":1})), MessageError::InvalidMessage { path, .. } if path == "messages[1].role")
    );
    assert!(
        matches!(err(Format::OpenAi, json!({"role":"user","content":5})), MessageError::InvalidMessage { path, .. } if path == "messages[1].content")
    );
    assert!(
        matches!(err(Format::OpenAi, json!({"role":"user","content":[{"type":"image_url","image_url":{"url":3}}]})), MessageError::InvalidMessage { path, .. } if path == "messages[1].content[0].image_url.url")
    );
    assert!(
        matches!(err(Format::OpenAi, json!({"role":"user","content":[null]})), MessageError::InvalidMessage { path, .. } if path == "messages[1].content[0]")
    );
    assert!(
        matches!(err(Format::OpenAi, json!({"role":"user","content":[{"type":"text","text":null}]})), MessageError::InvalidMessage { path, .. } if path == "messages[1].content[0].text")
    );
    assert!(
        matches!(err(Format::LangChain, json!(["human"])), MessageError::InvalidMessage { path, .. } if path == "messages[1]")
    );
    assert!(
        matches!(err(Format::Anthropic, json!({"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png"}}]})), MessageError::InvalidMessage { path, .. } if path == "messages[1].content[0].source.data")
    );
}

#[test]
fn a_stand_in_keeps_its_texts_as_one_unless_it_keeps_an_image() {
    let md5 = "0733351879b2fa9bd05c7ca3061529c0";
    let keep = |t: &str| t.contains("[Picture:");
    let decode = |v: Value| {
        let (_, mut msgs) =
            decode_messages(vec![v], Some(Format::Anthropic), &JsonPath::root("m")).unwrap();
        msgs.remove(0)
    };
    let texts = decode(json!({"role":"user","content":[
        {"type":"text","text":format!("a [Picture:history_{md5}]"),"cache_control":{"type":"ephemeral"}},
        {"type":"text","text":"no placeholder"},
        {"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":format!("[Picture:history_{}]", md5.to_uppercase())}]}
    ]}));
    let stand_in = texts.stand_in(&keep);
    let mut seen = Vec::new();
    crate::messages::walk::for_each_text_without_paths(&stand_in, &mut |t| seen.push(t.to_owned()));
    assert_eq!(
        seen,
        vec![format!(
            "a [Picture:history_{md5}]\n[Picture:history_{}]",
            md5.to_uppercase()
        )]
    );
    assert!(matches!(stand_in.content, Content::Text(_)));
    assert_eq!(stand_in.role, Role::User);
    // With an image (by URL) it keeps parts, in order.
    let image = decode(json!({"role":"user","content":[
        {"type":"text","text":format!("[Picture:history_{md5}]")},
        {"type":"image","source":{"type":"url","url":"https://example.invalid/a.png"}}
    ]}));
    let stand_in = image.stand_in(&keep);
    assert!(matches!(&stand_in.content, Content::Parts(p) if p.len() == 2));
    // Nothing kept: no content.
    let plain = decode(json!({"role":"assistant","content":"hi"}));
    assert!(matches!(plain.stand_in(&keep).content, Content::Absent));
}
