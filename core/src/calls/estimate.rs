//! `estimate`'s call: the request's bytes, its messages read, and the
//! account of both against the target.

use crate::budget::{EstimateReport, ModelProfile, Tally};
use crate::history::known::{decode_inputs, Decoded};
use crate::history::{Digest, Input, Settled};
use crate::media::payload::Payloads;
use crate::messages::MessageError;

/// One estimate: the account of a request for `target`, whose limits are
/// the call's; [`EstimateCall::run`] accounts for a request.
pub struct EstimateCall<'a> {
    target: &'a ModelProfile,
    payloads: &'a dyn Payloads,
}

impl<'a> EstimateCall<'a> {
    /// An estimate for `target`, reading payloads through `payloads`.
    pub fn new(target: &'a ModelProfile, payloads: &'a dyn Payloads) -> Self {
        EstimateCall { target, payloads }
    }

    /// The account of `inputs`, settled as
    /// [`crate::history::settle_inputs`] settles them with default
    /// compaction options (a digest of the same format serves): a known
    /// message is counted from its digest (its size, its text's tokens, its
    /// images by URL) and not read; of each message sent again unchanged a
    /// digest is made. Also returns those digests, one per message (`None`
    /// where none was made).
    pub fn run(
        &self,
        inputs: Vec<Input>,
        settled: &Settled,
    ) -> Result<(EstimateReport, Vec<Option<Digest>>), MessageError> {
        let (target, payloads) = (self.target, self.payloads);
        let count = inputs.len() as u64;
        let (decoded, digests) = decode_inputs(inputs, settled, payloads)?;
        let mut tally = Tally::new(target, payloads);
        let mut items = 0u64;
        for (i, (message, size)) in decoded.iter().enumerate() {
            items += size;
            match message {
                Decoded::Known(d) => d.tally(&mut tally, i),
                Decoded::Read(m) => tally.message(i, m),
            }
        }
        let bytes = items + count.saturating_sub(1) + 2;
        Ok((tally.finish(bytes, Some(target.limits())), digests))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::{model_profile, request_bytes, RequestLimits};
    use crate::history::{settle_inputs, CompactOptions};
    use crate::media::payload::InMemory;
    use crate::messages::MessageError;
    use serde_json::{json, Value};

    fn estimate_request(
        values: Vec<Value>,
        target: &ModelProfile,
    ) -> Result<EstimateReport, MessageError> {
        let mut inputs: Vec<Input> = values.into_iter().map(Input::Read).collect();
        let defaults = CompactOptions::default();
        let settled = settle_inputs(&mut inputs, None, &defaults, &mut |_| Ok(Value::Null))?;
        Ok(EstimateCall::new(target, &InMemory)
            .run(inputs, &settled)?
            .0)
    }

    #[test]
    fn the_target_s_limits_are_the_ones_checked() {
        let messages = vec![json!({"role": "user", "content": "hello"})];
        let bytes = request_bytes(&messages, &InMemory);
        let tight = model_profile("gpt-4o").with_limits(RequestLimits {
            max_images: Some(0),
            max_image_bytes: None,
            max_request_bytes: Some(bytes - 1),
        });
        let r = estimate_request(messages.clone(), &tight).unwrap();
        assert_eq!(r.request_bytes, bytes);
        assert_eq!(r.limits, tight.limits());
        assert_eq!(r.exceeded.len(), 1, "{:?}", r.exceeded);
        let roomy = model_profile("gpt-4o");
        let r = estimate_request(messages, &roomy).unwrap();
        assert!(r.exceeded.is_empty() && r.text_tokens > 0);
    }

    #[test]
    fn messages_in_no_known_shape_are_refused_at_their_path() {
        let e = estimate_request(vec![json!(7)], &model_profile("gpt-4o")).unwrap_err();
        assert!(e.to_string().starts_with("messages[0]"), "{e}");
    }
}
