//! The JSON reader and writer against `serde_json` (with `preserve_order`),
//! the reference they replace: any text `serde_json` writes, ctxpack reads
//! to the same value and writes back byte for byte; and on arbitrary text
//! both accept and refuse alike.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;

/// Arbitrary JSON, as `serde_json` values: every escape-worthy character,
/// 64-bit integers at both ends, floats that read back exactly.
fn value() -> impl Strategy<Value = serde_json::Value> {
    let text = prop_oneof![
        "[a-z]{0,6}",
        any::<String>(),
        proptest::collection::vec(
            prop_oneof![
                Just('"'),
                Just('\\'),
                Just('/'),
                (0u32..0x20).prop_map(|c| char::from_u32(c).unwrap_or(' ')),
                Just('é'),
                Just('😀')
            ],
            0..8
        )
        .prop_map(|c| c.into_iter().collect::<String>()),
    ];
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<u64>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        (-1_000_000i64..1_000_000, 0u32..6)
            .prop_map(|(n, d)| serde_json::Value::from(n as f64 / 10f64.powi(d as i32))),
        text.clone().prop_map(serde_json::Value::String),
    ];
    leaf.prop_recursive(6, 64, 8, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
            proptest::collection::vec((text.clone(), inner), 0..6)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn reads_and_writes_what_serde_json_writes(v in value(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&v).unwrap()
        } else {
            serde_json::to_string(&v).unwrap()
        };
        let ours = ctxpack_core::json::from_str(&text).unwrap();
        prop_assert_eq!(ours.to_string(), serde_json::to_string(&v).unwrap());
        prop_assert_eq!(ctxpack_core::json::text_len(&ours), serde_json::to_string(&v).unwrap().len() as u64);
    }

    #[test]
    fn accepts_and_refuses_what_serde_json_does(
        text in prop_oneof![
            "[\\[\\]{}\",:0-9.eE+\\-a-z \\\\]{0,24}",
            any::<String>(),
        ]
    ) {
        let theirs = serde_json::from_str::<serde_json::Value>(&text);
        let ours = ctxpack_core::json::from_str(&text);
        prop_assert_eq!(ours.is_ok(), theirs.is_ok(), "{:?}", text);
        if let (Ok(ours), Ok(theirs)) = (ours, theirs) {
            prop_assert_eq!(ours.to_string(), serde_json::to_string(&theirs).unwrap());
        }
    }
}
