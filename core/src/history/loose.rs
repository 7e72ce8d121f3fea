//! Loose strings in messages whose tool results are sanitized: long strings
//! that begin as base64 under no payload key, which the host may hold (see
//! [`Payloads::loose_text`]) so that the search for binary reads them in
//! pieces and remembers them, as it does payloads. Everywhere the search
//! does not look, and wherever it left them, they are put back as text
//! before anything else reads the messages: every later step sees exactly
//! what it would see had they never been held.

use crate::budget::json_len_with;
use crate::media::payload::Payloads;
use crate::tool_results::sanitize::pointer_get_mut;
use crate::tool_results::slots::Slot;
use serde_json::Value;

/// Puts back as text every loose string in `value`, except inside the tool
/// results at `skip`, which are taken out while the rest is walked. Returns
/// how many bytes longer the value's JSON became, counted as
/// [`json_len_with`] counts it (a held string is counted as payload text,
/// which needs no escaping), and whether any string was put back.
pub(super) fn put_back_loose(
    value: &mut Value,
    skip: &[Slot],
    payloads: &dyn Payloads,
) -> (i64, bool) {
    let taken: Vec<_> = skip
        .iter()
        .map(|slot| &slot.pointer)
        .filter_map(|p| Some((p, std::mem::take(pointer_get_mut(value, p)?))))
        .collect();
    let mut grown = 0i64;
    let mut any = false;
    walk(value, payloads, &mut grown, &mut any);
    // In reverse, so that a value taken from inside another goes back first.
    for (p, v) in taken.into_iter().rev() {
        if let Some(place) = pointer_get_mut(value, p) {
            *place = v;
        }
    }
    (grown, any)
}

fn walk(value: &mut Value, payloads: &dyn Payloads, grown: &mut i64, any: &mut bool) {
    match value {
        Value::String(s) => {
            if let Some(text) = payloads.loose_text(s) {
                let held = json_len_with(value, payloads) as i64;
                *value = Value::String(text);
                *grown += json_len_with(value, payloads) as i64 - held;
                *any = true;
            }
        }
        Value::Array(items) => {
            for item in items {
                walk(item, payloads, grown, any);
            }
        }
        Value::Object(map) => {
            for v in map.values_mut() {
                walk(v, payloads, grown, any);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::json_len;
    use crate::media::payload::{external_ref, find_external_ref};
    use crate::tool_results::sanitize::Seg;
    use crate::tool_results::slots::SlotKind;
    use serde_json::json;

    /// Loose strings by reference index; every other string is its own text.
    struct Held(Vec<&'static str>);

    impl Held {
        fn text(&self, s: &str) -> Option<&'static str> {
            let (before, _, i) = find_external_ref(s)?;
            before.is_empty().then(|| self.0.get(i as usize).copied())?
        }
    }

    impl Payloads for Held {
        fn with_full(&self, s: &str, f: &mut dyn FnMut(&str)) {
            f(self.text(s).unwrap_or(s))
        }
        fn loose_text(&self, s: &str) -> Option<String> {
            self.text(s).map(str::to_owned)
        }
        fn text_len(&self, s: &str) -> usize {
            self.text(s).map_or(s.len(), str::len)
        }
    }

    #[test]
    fn loose_strings_are_put_back_as_text_except_where_skipped_and_the_growth_is_exact() {
        let held = Held(vec!["QUJD\"é\n", "QUJDQUJD", "AAAA"]);
        let r = |i| Value::String(external_ref(1, i));
        let mut value = json!({
            "role": "tool",
            "content": [{"type": "text", "text": r(0)}, {"type": "text", "text": r(1)}],
            "note": r(2),
            "plain": "text",
        });
        let skip = vec![Slot {
            pointer: vec![
                Seg::Key("content".into()),
                Seg::Index(1),
                Seg::Key("text".into()),
            ],
            kind: SlotKind::Text,
        }];
        let before = json_len_with(&value, &held) as i64;
        let (grown, any) = put_back_loose(&mut value, &skip, &held);
        assert!(any);
        assert_eq!(value["content"][0]["text"], json!("QUJD\"é\n"));
        assert_eq!(value["note"], json!("AAAA"));
        assert_eq!(value["content"][1]["text"], r(1), "skipped");
        assert_eq!(json_len_with(&value, &held) as i64, before + grown);
        // Then the rest: the value is what reading it whole would give.
        let (_, any) = put_back_loose(&mut value, &[], &held);
        assert!(any);
        assert_eq!(value["content"][1]["text"], json!("QUJDQUJD"));
        assert_eq!(
            json_len(&value),
            json_len(&json!({
                "role": "tool",
                "content": [{"type": "text", "text": "QUJD\"é\n"}, {"type": "text", "text": "QUJDQUJD"}],
                "note": "AAAA",
                "plain": "text",
            }))
        );
        assert_eq!(put_back_loose(&mut value, &[], &held), (0, false));
    }
}
