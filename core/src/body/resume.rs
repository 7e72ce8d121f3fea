//! Where the messages of a body lie, read from where they last lay: the
//! body before showed where each message lay, and the next body sends the
//! same bytes up to a point. Only what follows the last message within
//! those bytes is read: the new messages, and the rest of the body after
//! them (which must name no other key that may hold messages).

use super::locate::{Located, Slot, Top};
use serde::Deserialize;

/// The messages of `text`, found by reading from byte `from` on: `from` is
/// where message `kept.len() - 1` ends, and `kept` (the spans of the
/// messages up to it, under `key`) lay in the body before within the bytes
/// the two share. `None` when that cannot tell (the text after is no JSON
/// of that shape, or names a key that may hold messages): the caller reads
/// the whole text, which also says what is wrong.
pub(super) fn locate_after(
    text: &str,
    key: Option<&'static str>,
    kept: &[(usize, usize)],
    from: usize,
) -> Option<Located> {
    let tail = text.get(from..)?;
    // The messages after `from` as the items of an array whose first item
    // stands for those before.
    let items = prefixed("[0", tail);
    let mut de = serde_json::Deserializer::from_str(&items);
    let Slot::Array(found) = Slot::deserialize(&mut de).ok()? else {
        return None;
    };
    let base = items.as_ptr() as usize;
    let mut spans = kept.to_vec();
    let mut end = 2;
    for raw in found.iter().skip(1) {
        let start = raw.get().as_ptr() as usize - base;
        end = start + raw.get().len();
        spans.push((start - 2 + from, end - 2 + from));
    }
    // The array's `]`, after the last item and white space.
    let close = end + items.get(end..)?.find(|c: char| !c.is_ascii_whitespace())?;
    if items.as_bytes().get(close) != Some(&b']') {
        return None;
    }
    let rest = text.get(close + 1 - 2 + from..)?;
    match key {
        // A body that is the array: nothing but white space after it.
        None => rest.trim_ascii().is_empty().then_some((None, spans)),
        // The rest of the object: JSON, and no other key for messages.
        Some(key) => {
            let object = prefixed("{\"\":0", rest);
            let mut de = serde_json::Deserializer::from_str(&object);
            let Top::Object(slots) = Top::deserialize(&mut de).ok()? else {
                return None;
            };
            de.end().ok()?;
            slots.is_empty().then_some((Some(key), spans))
        }
    }
}

/// `rest` after `prefix`, in a string of its own.
fn prefixed(prefix: &str, rest: &str) -> String {
    let mut text = String::with_capacity(prefix.len() + rest.len());
    text.push_str(prefix);
    text.push_str(rest);
    text
}

#[cfg(test)]
mod tests {
    use super::super::locate::locate;
    use super::*;

    /// The spans of `before`'s first `keep` messages, and where the last ends.
    fn kept(before: &str, keep: usize) -> (Option<&'static str>, Vec<(usize, usize)>, usize) {
        let (key, spans) = locate(before, None).unwrap();
        let kept = spans[..keep].to_vec();
        let from = kept[keep - 1].1;
        (key, kept, from)
    }

    #[test]
    fn the_messages_after_those_kept_are_found_where_a_whole_read_finds_them() {
        let before = r#"{"model":"m","messages":[{"role":"user","content":"a"}, {"role":"assistant","content":"b"}],"tools":[{"name":"t"}],"stream":true}"#;
        let next = r#"{"model":"m","messages":[{"role":"user","content":"a"}, {"role":"assistant","content":"b"} ,
  {"role":"user","content":"c ✓ ]"},{"role":"assistant","content":[{"type":"text","text":"}"}]} ] , "tools":[{"name":"t","messages":[]}],"stream":true}"#;
        let (key, spans, from) = kept(before, 2);
        assert_eq!(
            locate_after(next, key, &spans, from),
            Some(locate(next, None).unwrap())
        );
        // None new, and a bare array.
        assert_eq!(
            locate_after(before, key, &spans, from),
            Some(locate(before, None).unwrap())
        );
        let array = r#"[{"role":"user","content":"a"},{"role":"user","content":"b"}]"#;
        let (key, spans, from) = kept(array, 1);
        assert_eq!(
            locate_after(array, key, &spans, from),
            Some(locate(array, None).unwrap())
        );
    }

    #[test]
    fn what_it_cannot_tell_is_left_to_a_whole_read() {
        let before = r#"{"messages":[{"role":"user","content":"a"}],"n":1}"#;
        let (key, spans, from) = kept(before, 1);
        // Another key for messages after them, even escaped.
        for next in [
            r#"{"messages":[{"role":"user","content":"a"}],"n":1,"messages":[]}"#,
            r#"{"messages":[{"role":"user","content":"a"}],"n":1,"contents":[]}"#,
            r#"{"messages":[{"role":"user","content":"a"}],"n":1,"\u0069nput":"x"}"#,
            // No JSON after them.
            r#"{"messages":[{"role":"user","content":"a"},],"n":1}"#,
            r#"{"messages":[{"role":"user","content":"a"}],"n":1"#,
            r#"{"messages":[{"role":"user","content":"a"}],"n":1} x"#,
        ] {
            assert_eq!(locate_after(next, key, &spans, from), None, "{next}");
        }
        let array = r#"[{"role":"user","content":"a"}]"#;
        let (key, spans, from) = kept(array, 1);
        assert_eq!(
            locate_after(r#"[{"role":"user","content":"a"}] 1"#, key, &spans, from),
            None
        );
    }
}
