//! One markdown image, wherever its span was found.

/// One image found in markdown text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MarkdownImage {
    /// The image description as plain text: the text of nested markup
    /// (emphasis, links, code spans, images) with line breaks as `\n`.
    pub alt: String,
    /// The destination with escapes and entities decoded.
    pub url: String,
    /// The title, when the image has a non-empty one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// UTF-16 offset of the `!` that starts the image.
    pub start: usize,
    /// UTF-16 offset just past the image's last character.
    pub end: usize,
    /// Byte offset of the start, for slicing the Rust string.
    #[serde(skip)]
    pub byte_start: usize,
    /// Byte offset of the end, for slicing the Rust string.
    #[serde(skip)]
    pub byte_end: usize,
}

/// `images` (UTF-16 offsets, as JavaScript gives them) with their byte
/// offsets into `text` filled in. Images whose offsets are out of order, out
/// of range or inside a surrogate pair are left out, so slicing by them can
/// never panic.
pub fn with_byte_offsets(text: &str, images: Vec<MarkdownImage>) -> Vec<MarkdownImage> {
    let mut out: Vec<MarkdownImage> = Vec::with_capacity(images.len());
    let mut chars = text.char_indices();
    let (mut byte, mut utf16) = (0usize, 0usize);
    // The byte offset of UTF-16 offset `at`, walking forward only.
    let mut seek = |at: usize| -> Option<usize> {
        while utf16 < at {
            let (_, c) = chars.next()?;
            byte += c.len_utf8();
            utf16 += c.len_utf16();
        }
        (utf16 == at).then_some(byte)
    };
    for mut image in images {
        let last_end = out.last().map_or(0, |i| i.end);
        if image.start < last_end || image.end <= image.start {
            continue;
        }
        let (Some(start), Some(end)) = (seek(image.start), seek(image.end)) else {
            continue;
        };
        image.byte_start = start;
        image.byte_end = end;
        out.push(image);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(start: usize, end: usize) -> MarkdownImage {
        MarkdownImage {
            alt: String::new(),
            url: "u".into(),
            title: None,
            start,
            end,
            byte_start: 0,
            byte_end: 0,
        }
    }

    #[test]
    fn utf16_offsets_become_byte_offsets_and_bad_spans_are_dropped() {
        let text = "😀 ![a](b) é ![c](d)";
        let out = with_byte_offsets(
            text,
            vec![image(3, 10), image(2, 4), image(13, 20), image(1, 2)],
        );
        let spans: Vec<&str> = out
            .iter()
            .map(|i| &text[i.byte_start..i.byte_end])
            .collect();
        assert_eq!(spans, ["![a](b)", "![c](d)"]);
        // Inside the surrogate pair, past the end, reversed: left out.
        assert!(with_byte_offsets(text, vec![image(1, 4)]).is_empty());
        assert!(with_byte_offsets(text, vec![image(3, 99)]).is_empty());
        assert!(with_byte_offsets(text, vec![image(5, 3)]).is_empty());
    }
}
