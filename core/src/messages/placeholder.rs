//! The history image placeholder `[Picture:history_<md5>]`: writing it,
//! finding it in text, and reading the ids the model hands back.

/// The text that stands in for a stashed image.
pub fn placeholder(md5: &str) -> String {
    format!("[Picture:history_{md5}]")
}

const PREFIX: &str = "[Picture:history_";

/// A piece of text split around placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment<'a> {
    /// Text between placeholders.
    Text(&'a str),
    /// A placeholder, with its md5 in lowercase.
    Placeholder(String),
}

/// Each placeholder in `text`, in order: where it starts and its md5 as
/// written (32 hex digits, in either case). A `[` is looked for byte by
/// byte (most texts hold none), and the prefix checked where one is found.
fn placeholders_in(text: &str) -> impl Iterator<Item = (usize, &str)> + '_ {
    let mut scan = 0;
    std::iter::from_fn(move || {
        while let Some(found) = text.get(scan..)?.find('[') {
            let at = scan + found;
            scan = at + 1;
            let Some(rest) = text[at..].strip_prefix(PREFIX) else {
                continue;
            };
            let id = rest.get(..32).filter(|id| crate::hash::is_md5_hex(id));
            if let (Some(id), Some(b']')) = (id, rest.as_bytes().get(32)) {
                scan = at + PREFIX.len() + 33;
                return Some((at, id));
            }
        }
        None
    })
}

/// Splits `text` into text and placeholders, in order. Text with no
/// placeholder is one `Text` segment (or none when empty).
pub fn split_placeholders(text: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    let mut text_start = 0;
    for (at, id) in placeholders_in(text) {
        if at > text_start {
            out.push(Segment::Text(&text[text_start..at]));
        }
        out.push(Segment::Placeholder(id.to_ascii_lowercase()));
        text_start = at + PREFIX.len() + 33;
    }
    if text_start < text.len() {
        out.push(Segment::Text(&text[text_start..]));
    }
    out
}

/// The ids of the placeholders in `text`, in order (lowercase), as
/// [`split_placeholders`] finds them; nothing is allocated for a text
/// without one.
pub fn placeholder_ids(text: &str) -> Vec<String> {
    let mut ids = Vec::new();
    for_each_placeholder_id(text, &mut |id| ids.push(id.to_owned()));
    ids
}

/// Calls `f` with the id of each placeholder in `text`, in order
/// (lowercase), as [`split_placeholders`] finds them; an id already in
/// lowercase (as ctxpack writes them) is not copied.
pub fn for_each_placeholder_id(text: &str, f: &mut dyn FnMut(&str)) {
    for (_, id) in placeholders_in(text) {
        if id.bytes().any(|b| b.is_ascii_uppercase()) {
            f(&id.to_ascii_lowercase());
        } else {
            f(id);
        }
    }
}

/// Whether `text` names a placeholder.
pub fn names_placeholder(text: &str) -> bool {
    placeholders_in(text).next().is_some()
}

/// The md5 ids of `[Binary:history_<md5> …]` markers anywhere in `value`.
pub fn binary_marker_ids(value: &serde_json::Value) -> Vec<String> {
    const MARK: &str = "[Binary:history_";
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::String(s) => {
                let mut rest = s.as_str();
                while let Some(at) = rest.find(MARK) {
                    let id = rest[at + MARK.len()..].get(..32).unwrap_or("");
                    if crate::hash::is_md5_hex(id) {
                        out.push(id.to_ascii_lowercase());
                    }
                    rest = &rest[at + MARK.len()..];
                }
            }
            serde_json::Value::Array(items) => stack.extend(items),
            serde_json::Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    out
}

/// True when `text` holds at least one placeholder.
pub fn has_placeholder(text: &str) -> bool {
    split_placeholders(text)
        .iter()
        .any(|s| matches!(s, Segment::Placeholder(_)))
}

/// Reads an image id as the model or the app gives it: `history_<md5>`, a
/// bare md5, or a whole `[Picture:history_<md5>]`; 32 hex digits in any case.
/// Returns the lowercase md5, or `None` when the id is not valid.
pub fn parse_image_id(id: &str) -> Option<String> {
    let id = id.trim();
    let id = id
        .strip_prefix("[Picture:")
        .and_then(|s| s.strip_suffix(']'))
        .unwrap_or(id);
    let id = id.strip_prefix("history_").unwrap_or(id);
    crate::hash::is_md5_hex(id).then(|| id.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MD5: &str = "0733351879b2fa9bd05c7ca3061529c0";

    #[test]
    fn writes_the_dootask_format() {
        assert_eq!(placeholder(MD5), format!("[Picture:history_{MD5}]"));
    }

    #[test]
    fn lists_the_ids_split_placeholders_finds() {
        let upper = MD5.to_ascii_uppercase();
        let text = format!(
            "a [Picture:history_{upper}] b [Picture:history_{MD5}] [Picture:history_nothex] [x]"
        );
        assert_eq!(placeholder_ids(&text), vec![MD5.to_owned(), MD5.to_owned()]);
        let split: Vec<String> = split_placeholders(&text)
            .into_iter()
            .filter_map(|s| match s {
                Segment::Placeholder(id) => Some(id),
                Segment::Text(_) => None,
            })
            .collect();
        assert_eq!(placeholder_ids(&text), split);
        assert!(placeholder_ids("no brackets at all").is_empty());
        assert!(placeholder_ids("[Picture:history_0733]").is_empty());
        assert!(placeholder_ids("").is_empty());
        // A placeholder right after a bracket, or after a broken one.
        let nested = format!("[[Picture:history_[Picture:history_{MD5}]]");
        assert_eq!(placeholder_ids(&nested), vec![MD5.to_owned()]);
        assert!(names_placeholder(&nested));
        assert!(!names_placeholder("[x] [Picture:history_nothex]"));
        // An id written in lowercase is handed over as it lies in the text.
        let text = format!("see [Picture:history_{MD5}]");
        let mut seen = Vec::new();
        for_each_placeholder_id(&text, &mut |id| seen.push(id.as_ptr()));
        assert_eq!(seen, vec![text[4 + PREFIX.len()..].as_ptr()]);
    }

    #[test]
    fn splits_text_around_placeholders() {
        let text = format!(
            "[Picture:history_{MD5}] 这是什么？ [Picture:history_nothex] [Picture:history_{}]",
            MD5.to_uppercase()
        );
        let segs = split_placeholders(&text);
        let placeholders: Vec<_> = segs
            .iter()
            .filter_map(|s| match s {
                Segment::Placeholder(id) => Some(id.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(placeholders, vec![MD5.to_owned(), MD5.to_owned()]);
        let text_back: String = segs
            .iter()
            .map(|s| match s {
                Segment::Text(t) => t.to_string(),
                Segment::Placeholder(id) => placeholder(id),
            })
            .collect();
        assert_eq!(text_back.to_lowercase(), text.to_lowercase());
        assert!(!has_placeholder("[Picture:history_abc]"));
        // False starts stay inside one text segment.
        assert_eq!(
            segs[1],
            Segment::Text(" 这是什么？ [Picture:history_nothex] ")
        );
        assert!(split_placeholders("").is_empty());
    }

    #[test]
    fn reads_ids_in_every_spelling() {
        assert_eq!(parse_image_id(MD5).as_deref(), Some(MD5));
        assert_eq!(
            parse_image_id(&format!("history_{}", MD5.to_uppercase())).as_deref(),
            Some(MD5)
        );
        assert_eq!(parse_image_id(&placeholder(MD5)).as_deref(), Some(MD5));
        assert_eq!(parse_image_id("history_abc"), None);
        assert_eq!(parse_image_id(""), None);
        assert_eq!(parse_image_id("../../etc/passwd"), None);
    }
}
