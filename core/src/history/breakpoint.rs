//! The prompt-cache breakpoint compaction puts where a format marks them
//! (Anthropic's `cache_control`): at the end of what the next request will
//! keep as it is, so the next turn reads it from the cache. Formats whose
//! APIs cache by themselves need none.

use super::compact::{CompactOptions, Plan};
use crate::budget::json_len_with;
use crate::media::payload::Payloads;
use crate::messages::Format;
use serde_json::Value;

/// The most breakpoints a request may hold (Anthropic's limit).
const MAX_BREAKPOINTS: usize = 4;

/// The last message the next request keeps as it is, when the app appends
/// one turn like the newest: the last message, unless the next turn's
/// window or image limit (as `plan` and `options` will decide it) stashes
/// an image, then the message before the first such image's. `None` when
/// nothing stays (the first message changes). A byte limit is not
/// foreseen.
pub(super) fn stable_end(plan: &Plan<'_>, options: CompactOptions, count: usize) -> Option<usize> {
    // The images the next turn holds inline. In a loop the untouched
    // images of its newest step come after the person's message, between
    // history images: the first in document order is the smallest index.
    let inline = plan.kept_history.len() + plan.newest_inline.len();
    let first = (plan.kept_history.iter())
        .chain(&plan.newest_inline)
        .min()
        .copied();
    let slack = options.slack;
    let mut keep = slack.window(inline, options.keep_recent_images);
    if let Some(max) = options.limits.and_then(|l| l.max_images) {
        // The next turn brings as many images as this one.
        let fixed = plan.newest_inline.len() + plan.urls;
        while keep > 0 && fixed + keep > max {
            keep = keep.saturating_sub(slack.batch(Some(max)));
        }
    }
    match first {
        Some(first) if keep < inline => first.checked_sub(1),
        _ => count.checked_sub(1),
    }
}

/// Marks message `at` of `values` (the messages written, each by its
/// index in the request, in `format`) with a breakpoint unless the messages
/// hold [`MAX_BREAKPOINTS`] already; returns whether it did, and by how
/// many bytes the message grew.
pub(super) fn place(
    values: &mut [(usize, Value)],
    at: usize,
    format: Format,
    payloads: &dyn Payloads,
) -> Option<i64> {
    if values.iter().map(|(_, v)| breakpoints_in(v)).sum::<usize>() >= MAX_BREAKPOINTS {
        return None;
    }
    let k = values.binary_search_by_key(&at, |(i, _)| *i).ok()?;
    let message = &mut values.get_mut(k)?.1;
    let before = json_len_with(message, payloads) as i64;
    match format.mark_cache_breakpoint(message) {
        Some(true) => Some(json_len_with(message, payloads) as i64 - before),
        _ => None,
    }
}

/// The breakpoints a raw message holds: `cache_control` and `cacheControl`
/// keys anywhere in it.
fn breakpoints_in(value: &Value) -> usize {
    match value {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| {
                usize::from(k == "cache_control" || k == "cacheControl") + breakpoints_in(v)
            })
            .sum(),
        Value::Array(items) => items.iter().map(breakpoints_in).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Slack;
    use crate::media::InMemory;
    use serde_json::json;

    fn plan(kept_history: Vec<usize>, newest_inline: Vec<usize>) -> Plan<'static> {
        Plan {
            kept_history,
            newest_inline,
            ..Plan::default()
        }
    }

    #[test]
    fn the_breakpoint_ends_what_the_next_turn_keeps() {
        let options = CompactOptions {
            keep_recent_images: 3,
            slack: Slack {
                images: 4,
                headroom_permille: 0,
            },
            ..CompactOptions::default()
        };
        // 5 history images inline, one new: the next turn has 6 ≤ 3 + 3
        // inline, nothing leaves: the whole request stays.
        let p = plan(vec![1, 3, 5, 7, 9], vec![11]);
        assert_eq!(stable_end(&p, options, 12), Some(11));
        // 6 inline and one new: 7 = 3 + 4 drops a batch from message 1's.
        let p = plan(vec![1, 3, 5, 7, 9, 11], vec![13]);
        assert_eq!(stable_end(&p, options, 14), Some(0));
        // No window: the newest turn's image leaves next turn.
        let none = CompactOptions {
            keep_recent_images: 0,
            ..options
        };
        assert_eq!(stable_end(&plan(vec![], vec![5]), none, 6), Some(4));
        assert_eq!(stable_end(&plan(vec![], vec![]), none, 6), Some(5));
    }

    #[test]
    fn anthropic_and_ai_sdk_messages_take_a_breakpoint_within_four() {
        let mut values = indexed(vec![
            json!({"role":"user","content":"hello"}),
            json!({"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"thinking","thinking":"…","signature":"s"}]}),
        ]);
        assert!(place(&mut values, 0, Format::Anthropic, &InMemory).is_some());
        assert_eq!(
            values[0].1["content"],
            json!([{"type":"text","text":"hello","cache_control":{"type":"ephemeral"}}])
        );
        // Not on a thinking block: on the last block that can take one.
        assert!(place(&mut values, 1, Format::Anthropic, &InMemory).is_some());
        assert_eq!(
            values[1].1["content"][0]["cache_control"],
            json!({"type":"ephemeral"})
        );
        assert!(values[1].1["content"][1].get("cache_control").is_none());

        let mut ai = indexed(vec![
            json!({"role":"user","content":"hello","providerOptions":{"openai":{"x":1}}}),
        ]);
        assert!(place(&mut ai, 0, Format::AiSdk, &InMemory).is_some());
        assert_eq!(
            ai[0].1["providerOptions"],
            json!({"openai":{"x":1},"anthropic":{"cacheControl":{"type":"ephemeral"}}})
        );
        // Formats that cache by themselves take none.
        let mut openai = indexed(vec![json!({"role":"user","content":"hello"})]);
        assert!(place(&mut openai, 0, Format::OpenAi, &InMemory).is_none());
        assert_eq!(openai[0].1, json!({"role":"user","content":"hello"}));
        // Four already: none more.
        let marked = json!({"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]});
        let mut full = indexed(vec![
            marked.clone(),
            marked.clone(),
            marked.clone(),
            marked,
            json!({"role":"user","content":"b"}),
        ]);
        assert!(place(&mut full, 4, Format::Anthropic, &InMemory).is_none());
        assert_eq!(full[4].1, json!({"role":"user","content":"b"}));
        // A message not written (the caller's own) takes none.
        let mut some = vec![(2, json!({"role":"user","content":"c"}))];
        assert!(place(&mut some, 1, Format::Anthropic, &InMemory).is_none());
        assert!(place(&mut some, 2, Format::Anthropic, &InMemory).is_some());
    }

    /// `values`, each by its index.
    fn indexed(values: Vec<Value>) -> Vec<(usize, Value)> {
        values.into_iter().enumerate().collect()
    }
}
