//! The size of a request's messages as they travel: the JSON array of the
//! messages, each payload kept outside wasm memory counted at its real
//! length.

use super::json_size::json_len_with;
use crate::media::payload::Payloads;
use serde_json::Value;

/// Bytes of `messages` serialized as one compact JSON array.
pub fn request_bytes(messages: &[Value], payloads: &dyn Payloads) -> u64 {
    let items: u64 = messages.iter().map(|m| json_len_with(m, payloads)).sum();
    let commas = messages.len().saturating_sub(1) as u64;
    items + commas + 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::payload::InMemory;

    #[test]
    fn counts_the_array_as_json_text() {
        let messages = vec![
            serde_json::json!({"role": "user", "content": "hi"}),
            serde_json::json!({"role": "assistant", "content": "héllo"}),
        ];
        let text = ToString::to_string(&Value::Array(messages.clone()));
        assert_eq!(request_bytes(&messages, &InMemory), text.len() as u64);
        assert_eq!(request_bytes(&[], &InMemory), 2);
    }
}
