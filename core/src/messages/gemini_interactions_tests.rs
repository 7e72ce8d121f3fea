//! Unit tests of the `gemini_interactions` module.

use super::*;
use crate::messages::decode_messages;
use crate::messages::test_support::{assert_round_trips, inline_images};
use serde_json::json;

fn read(values: Vec<Value>) -> Result<Vec<Message>, MessageError> {
    decode_messages(
        values,
        Some(Format::GeminiInteractions),
        &JsonPath::root("input"),
    )
    .map(|(_, m)| m)
}

#[test]
fn reads_steps_and_passes_the_rest_untouched() {
    let steps = vec![
        json!({"type":"user_input","content":[{"type":"text","text":"这是什么？"},{"type":"image","data":"AAAA","mime_type":"image/png","resolution":"high"},{"type":"image","uri":"https://x.test/a.png","mime_type":"image/png"}]}),
        json!({"type":"thought","signature":"c2ln","summary":[{"type":"text","text":"…"}]}),
        json!({"type":"function_call","id":"c1","name":"shot","arguments":{"x":1}}),
        json!({"type":"function_result","call_id":"c1","name":"shot","result":[{"type":"text","text":"done"},{"type":"image","data":"R0lG","mime_type":"image/gif"}]}),
        json!({"type":"function_result","call_id":"c2","result":"{\"ok\":true}","is_error":false}),
        json!({"type":"function_result","call_id":"c3","result":{"ok":true}}),
        json!({"type":"google_search_call","id":"g1","arguments":{"queries":["q"]}}),
        json!({"type":"model_output","content":[{"type":"text","text":"一只猫"}]}),
        json!({"type":"user_input","content":[{"type":"function_result","call_id":"c4","name":"shot","result":[{"type":"text","text":"again"},{"type":"image","data":"UklG","mime_type":"image/webp"}]}]}),
    ];
    let msgs = read(steps.clone()).unwrap();
    assert_eq!(
        msgs.iter().map(|m| m.role).collect::<Vec<_>>(),
        [
            Role::User,
            Role::Assistant,
            Role::Assistant,
            Role::Tool,
            Role::Tool,
            Role::Tool,
            Role::Other,
            Role::Assistant,
            Role::User
        ]
    );
    assert_eq!(
        inline_images(&msgs, "input"),
        vec![
            (
                "input[0].content[1]".into(),
                Some((Some("image/png".into()), "AAAA".into()))
            ),
            (
                "input[3].result[1]".into(),
                Some((Some("image/gif".into()), "R0lG".into()))
            ),
            (
                "input[8].content[0].result[1]".into(),
                Some((Some("image/webp".into()), "UklG".into()))
            ),
        ]
    );
    assert_round_trips(msgs, &steps);
}

#[test]
fn reads_a_content_list_as_one_turn_and_older_turns() {
    let contents = vec![
        json!({"type":"image","data":"AAAA","mime_type":"image/png"}),
        json!({"type":"text","text":"和这张比呢？"}),
    ];
    let msgs = read(contents.clone()).unwrap();
    assert!(msgs.iter().all(|m| m.role == Role::User));
    let crate::messages::Content::Parts(parts) = &msgs[0].content else {
        panic!("{:?}", msgs[0].content)
    };
    let crate::messages::Part::Image(image) = &parts[0] else {
        panic!("{parts:?}")
    };
    assert!(!image.shape.replaceable_by_text());
    assert_eq!(inline_images(&msgs, "input")[0].0, "input[0]");
    assert_round_trips(msgs, &contents);

    let turns = vec![
        json!({"role":"user","content":[{"type":"image","data":"AAAA","mime_type":"image/png"}]}),
        json!({"role":"model","content":"一只猫"}),
        json!({"role":"user","content":"再看看"}),
    ];
    let msgs = read(turns.clone()).unwrap();
    assert_eq!(
        msgs.iter().map(|m| m.role).collect::<Vec<_>>(),
        [Role::User, Role::Assistant, Role::User]
    );
    assert_eq!(inline_images(&msgs, "input")[0].0, "input[0].content[0]");
    assert_round_trips(msgs, &turns);
}

#[test]
fn refuses_wrong_shapes_with_their_paths() {
    let err = |v| match read(vec![v]) {
        Err(MessageError::InvalidMessage { path, .. }) => path,
        other => format!("{other:?}"),
    };
    assert_eq!(err(json!("hi")), "input[0]");
    assert_eq!(err(json!({"content":[]})), "input[0]");
    assert_eq!(err(json!({"role":3,"content":"x"})), "input[0].role");
    assert_eq!(
        err(json!({"type":"user_input","content":{"type":"text"}})),
        "input[0].content"
    );
    assert_eq!(
        err(
            json!({"type":"user_input","content":[{"type":"image","data":7,"mime_type":"image/png"}]})
        ),
        "input[0].content[0].data"
    );
    assert_eq!(
        err(json!({"type":"function_result","call_id":"c","result":[{"type":"text"}]})),
        "input[0].result[0].text"
    );
    assert_eq!(err(json!({"type":"text","text":5})), "input[0].text");
}

#[test]
fn finds_tool_results_in_steps_and_in_blocks() {
    let slots = |v: Value| tool_slots(&v);
    assert_eq!(
        slots(json!({"type":"function_result","call_id":"c","result":"{}"})),
        vec![ToolSlot::new(vec![key("result")], SlotKind::Text)]
    );
    assert_eq!(
        slots(json!({"type":"function_result","call_id":"c","result":{"a":1}})),
        vec![ToolSlot::new(vec![key("result")], SlotKind::Structured)]
    );
    assert_eq!(
        slots(
            json!({"type":"user_input","content":[{"type":"text","text":"x"},{"type":"function_result","call_id":"c","result":[{"type":"text","text":"{}"}]}]})
        ),
        vec![ToolSlot::new(
            vec![
                key("content"),
                Seg::Index(1),
                key("result"),
                Seg::Index(0),
                key("text")
            ],
            SlotKind::Text
        )]
    );
    assert!(
        slots(json!({"type":"model_output","content":[{"type":"text","text":"{}"}]})).is_empty()
    );
}

#[test]
fn answers_with_a_function_result_holding_the_image() {
    let a = ToolAnswer {
        id: Some("c1"),
        name: "get_history_image",
        text: "Here it is.",
        image: Some(("image/png", "AAAA")),
        result_takes_images: false,
    };
    assert_eq!(
        answer(&a),
        vec![
            json!({"type":"function_result","call_id":"c1","name":"get_history_image","result":[{"type":"text","text":"Here it is."},{"type":"image","data":"AAAA","mime_type":"image/png"}]})
        ]
    );
}
