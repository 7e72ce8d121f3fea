//! How many bytes a JSON value takes as compact JSON text, as serde_json
//! writes it.

use crate::media::payload::{find_external_ref, Payloads};
use serde::Serialize;
use serde_json::Value;

/// Bytes of `value` as compact JSON text (what `serde_json::to_string` gives).
pub fn json_len<T: Serialize + ?Sized>(value: &T) -> u64 {
    // Serializing a value with string keys cannot fail; a failure would
    // only make the count short.
    serde_json::to_vec(value).map_or(0, |text| text.len() as u64)
}

/// Bytes of `value` as compact JSON text, counting each payload kept outside
/// wasm memory at its real length instead of its reference's.
pub fn json_len_with(value: &Value, payloads: &dyn Payloads) -> u64 {
    let mut len = json_len(value);
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => {
                if let Some((before, _, _)) = find_external_ref(s) {
                    let reference = json_len(&s[before.len()..]) - 2;
                    len = len - reference + payloads.text_len(s) as u64;
                }
            }
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::payload::InMemory;
    use serde_json::json;

    #[test]
    fn counts_what_serde_json_writes() {
        for v in [
            json!(null),
            json!({"a": [1, 2.5, -0.0, "é\u{0}\"\\"], "b": {"c": 18446744073709551615u64}}),
            json!("\u{1f600}\n"),
        ] {
            assert_eq!(
                json_len(&v),
                serde_json::to_string(&v).unwrap().len() as u64
            );
        }
    }

    #[test]
    fn a_payload_reference_counts_as_its_text() {
        struct Long;
        impl Payloads for Long {
            fn with_full(&self, s: &str, f: &mut dyn FnMut(&str)) {
                f(s)
            }
            fn text_len(&self, _: &str) -> usize {
                1000
            }
        }
        let r = crate::media::payload::external_ref(1, 2);
        let v = json!({ "url": format!("data:image/png;base64,{r}") });
        let inline = json_len(&json!({ "url": "data:image/png;base64," }));
        assert_eq!(json_len_with(&v, &Long), inline + 1000);
        let plain = json!({ "url": "data:image/png;base64,aGk=" });
        assert_eq!(json_len_with(&plain, &InMemory), json_len(&plain));
    }
}
