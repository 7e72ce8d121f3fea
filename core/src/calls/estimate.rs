//! `estimate`'s flow: the request's bytes, its messages read, and the
//! account of both against the target.

use crate::budget::{estimate, request_bytes, EstimateReport, ModelProfile};
use crate::json_path::JsonPath;
use crate::media::payload::Payloads;
use crate::messages::{decode_messages, Format, MessageError};
use serde_json::Value;

/// The account of the request `values` (in `format`, else detected) for
/// `target`, whose limits are the call's.
pub fn estimate_request(
    values: Vec<Value>,
    format: Option<Format>,
    target: &ModelProfile,
    payloads: &dyn Payloads,
) -> Result<EstimateReport, MessageError> {
    let bytes = request_bytes(&values, payloads);
    let (_, decoded) = decode_messages(values, format, &JsonPath::root("messages"))?;
    Ok(estimate(
        &decoded,
        target,
        bytes,
        Some(target.limits()),
        payloads,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::{model_profile, RequestLimits};
    use crate::media::payload::InMemory;
    use serde_json::json;

    #[test]
    fn the_target_s_limits_are_the_ones_checked() {
        let messages = vec![json!({"role": "user", "content": "hello"})];
        let bytes = request_bytes(&messages, &InMemory);
        let tight = model_profile("gpt-4o").with_limits(RequestLimits {
            max_images: Some(0),
            max_image_bytes: None,
            max_request_bytes: Some(bytes - 1),
        });
        let r = estimate_request(messages.clone(), None, &tight, &InMemory).unwrap();
        assert_eq!(r.request_bytes, bytes);
        assert_eq!(r.limits, tight.limits());
        assert_eq!(r.exceeded.len(), 1, "{:?}", r.exceeded);
        let roomy = model_profile("gpt-4o");
        let r = estimate_request(messages, None, &roomy, &InMemory).unwrap();
        assert!(r.exceeded.is_empty() && r.text_tokens > 0);
    }

    #[test]
    fn messages_in_no_known_shape_are_refused_at_their_path() {
        let e = estimate_request(vec![json!(7)], None, &model_profile("gpt-4o"), &InMemory)
            .unwrap_err();
        assert!(e.to_string().starts_with("messages[0]"), "{e}");
    }
}
