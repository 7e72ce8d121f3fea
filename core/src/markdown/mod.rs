//! CommonMark image extraction: finds `![alt](url "title")` and
//! reference-style images in user text, so code spans, fenced and indented
//! code, HTML, escapes and entities follow the spec rather than a regex.
//!
//! This is a small scanner written for this one job (a full CommonMark
//! parser costs far more in the WebAssembly build). It reproduces what
//! pulldown-cmark 0.13 reports for images, which a differential property
//! test checks on generated documents:
//!
//! - `blocks` splits the text into blocks and keeps the inline content of
//!   paragraphs and headings, with each line's source offset, and collects
//!   reference definitions;
//! - `inlines` runs the bracket algorithm over each block with code spans,
//!   raw HTML, autolinks, escapes and character references (`entities`)
//!   taking precedence as the spec says, and flattens each image's
//!   description to plain text the way pulldown-cmark's events spell it.
//!
//! Known differences from pulldown-cmark, all outside everyday chat text:
//!
//! - a lone carriage return (not followed by a line feed) does not end a
//!   line for block structure, so a code fence or a reference definition
//!   ended by one is read differently (pulldown-cmark itself is not
//!   consistent about lone carriage returns);
//! - reference labels are case-folded for ASCII, Latin-1, Greek and
//!   Cyrillic letters and the sharp s only (full Unicode case folding needs
//!   tables larger than this scanner), so `[ǅ]` and `[ǆ]`, for example, do
//!   not match each other as they do in pulldown-cmark;
//! - named character references are the 253 of HTML 4 (and `&apos;`), not
//!   all 2,125 of HTML5, so `&check;` stays literal text (see `entities`).
//!
//! The generated documents in the differential test avoid all three. Where
//! pulldown-cmark departs from the spec, this scanner follows the spec: raw
//! inline HTML (`<!a`, `<b`) left open at the end of a line inside a block
//! quote is not closed by the next line's `>` marker, which belongs to the
//! container and not to the paragraph's text. Work is
//! linear in the input apart from logarithmic lookups: code span closers,
//! raw HTML terminators, link openers, emphasis delimiters and blank lines
//! under deep nesting each have a guard against rescanning, and the test
//! runs a few hundred kilobytes of each pathological pattern.

mod blocks;
mod entities;
mod inlines;
mod links;
pub(crate) mod multimodal;
mod punctuation;

pub use multimodal::{
    build_parts, resolve_bytes, resolve_data_url, shorten, source_kind, ImageInfo, MimeCorrection,
    MissingImage, MultimodalContent, PartOptions, ResolveError, ResolvedImage, SourceKind,
};

/// One image found in markdown text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MarkdownImage {
    /// The image description as plain text (nested markup flattened).
    pub alt: String,
    /// The destination with escapes and entities decoded.
    pub url: String,
    /// The title, when the image has one.
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

/// Every top-level image in `text`, in document order. An image inside
/// another image's description is part of that description, not its own entry.
pub fn parse_markdown_images(text: &str) -> Vec<MarkdownImage> {
    if !crate::substring::contains(text, "![") {
        return Vec::new();
    }
    let (blocks, definitions) = blocks::parse_blocks(text);
    let mut images = Vec::new();
    let mut offsets = Utf16Cursor::new(text);
    let mut last_end = 0;
    for block in &blocks {
        for found in inlines::find_images(block, text, &definitions) {
            let byte_start = block.source_offset(found.start);
            let byte_end = block.source_offset(found.end.saturating_sub(1)) + 1;
            let in_order = last_end <= byte_start
                && byte_start < byte_end
                && byte_end <= text.len()
                && text.is_char_boundary(byte_start)
                && text.is_char_boundary(byte_end);
            if !in_order {
                continue;
            }
            last_end = byte_end;
            images.push(MarkdownImage {
                alt: found.alt,
                url: found.target.url,
                title: (!found.target.title.is_empty()).then_some(found.target.title),
                start: offsets.utf16_at(byte_start),
                end: offsets.utf16_at(byte_end),
                byte_start,
                byte_end,
            });
        }
    }
    images
}

/// Converts byte offsets into UTF-16 offsets, walking forward from the last
/// position asked for so a document is walked once.
struct Utf16Cursor<'a> {
    text: &'a str,
    byte: usize,
    utf16: usize,
}

impl<'a> Utf16Cursor<'a> {
    fn new(text: &'a str) -> Self {
        Utf16Cursor {
            text,
            byte: 0,
            utf16: 0,
        }
    }

    fn utf16_at(&mut self, byte: usize) -> usize {
        let byte = byte.min(self.text.len());
        if byte < self.byte {
            self.byte = 0;
            self.utf16 = 0;
        }
        let slice = self
            .text
            .as_bytes()
            .get(self.byte..byte)
            .unwrap_or_default();
        // One unit per character, two for the four-byte ones.
        self.utf16 += slice
            .iter()
            .map(|&b| usize::from(b & 0xc0 != 0x80) + usize::from(b >= 0xf0))
            .sum::<usize>();
        self.byte = byte;
        self.utf16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(text: &str) -> Vec<String> {
        parse_markdown_images(text)
            .into_iter()
            .map(|i| i.url)
            .collect()
    }

    #[test]
    fn finds_inline_image_with_offsets() {
        let text = "请分析这张图：![图表](file:///workspace/chart.png)";
        let imgs = parse_markdown_images(text);
        assert_eq!(imgs.len(), 1);
        assert_eq!(imgs[0].alt, "图表");
        assert_eq!(imgs[0].url, "file:///workspace/chart.png");
        assert_eq!(imgs[0].start, 7);
        assert_eq!(imgs[0].end, text.encode_utf16().count());
        assert_eq!(
            &text[imgs[0].byte_start..imgs[0].byte_end],
            "![图表](file:///workspace/chart.png)"
        );
    }

    #[test]
    fn emoji_counts_as_two_utf16_units() {
        let text = "😀 ![a](b.png)";
        let imgs = parse_markdown_images(text);
        assert_eq!(imgs[0].start, 3);
        assert_eq!(imgs[0].end, 3 + "![a](b.png)".len());
    }

    #[test]
    fn ignores_code_spans_and_code_blocks() {
        assert!(urls("`![a](b.png)`").is_empty());
        assert!(urls("```\n![a](b.png)\n```\n").is_empty());
        assert!(urls("    ![a](b.png)\n").is_empty());
        assert!(urls("\\![a](b.png)").is_empty());
    }

    #[test]
    fn decodes_escapes_entities_and_angle_destinations() {
        assert_eq!(urls("![a](<my file.png>)"), vec!["my file.png"]);
        assert_eq!(urls("![a](a\\_b.png)"), vec!["a_b.png"]);
        assert_eq!(urls("![a](a&amp;b.png)"), vec!["a&b.png"]);
        assert_eq!(urls("![a](foo(bar).png)"), vec!["foo(bar).png"]);
    }

    #[test]
    fn reads_titles_nested_alt_and_references() {
        let imgs = parse_markdown_images("![a [b] *c*](x.png \"T\")");
        assert_eq!(imgs[0].alt, "a [b] c");
        assert_eq!(imgs[0].title.as_deref(), Some("T"));
        let imgs =
            parse_markdown_images("see ![logo][ref] here\n\n[ref]: https://x.test/l.png 'L'\n");
        assert_eq!(imgs.len(), 1);
        assert_eq!(imgs[0].url, "https://x.test/l.png");
        assert_eq!(imgs[0].title.as_deref(), Some("L"));
        assert_eq!(imgs[0].start, 4);
        assert_eq!(imgs[0].end, 4 + "![logo][ref]".len());
    }

    #[test]
    fn image_inside_image_alt_is_one_image() {
        let imgs = parse_markdown_images("![outer ![inner](i.png)](o.png)");
        assert_eq!(imgs.len(), 1);
        assert_eq!(imgs[0].url, "o.png");
        assert_eq!(imgs[0].alt, "outer inner");
    }

    #[test]
    fn finds_several_images_in_order() {
        assert_eq!(
            urls("![1](a.png) and [![2](b.png)](link) ![3](c.png)"),
            vec!["a.png", "b.png", "c.png"]
        );
    }
}
