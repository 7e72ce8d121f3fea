//! CommonMark image extraction with pulldown-cmark: finds `![alt](url
//! "title")` and reference-style images in user text.

use super::work_bound::parsed_len;
use super::MarkdownImage;
use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};

/// Every top-level image in `text`, in document order, images inside links
/// included. An image inside another image's description is part of that
/// description, not its own entry. The parser reads the whole text unless
/// its work would grow faster than the text (thousands of nested
/// containers kept open over thousands of lines): then it reads only up to
/// a blank line and the rest stays text (see [`super::work_bound`]).
pub fn parse_markdown_images(text: &str) -> Vec<MarkdownImage> {
    if !text.contains("![") {
        return Vec::new();
    }
    images_in(text.get(..parsed_len(text)).unwrap_or_default())
}

/// Every top-level image in the whole of `text`, however long it takes.
pub(super) fn images_in(text: &str) -> Vec<MarkdownImage> {
    let mut images = Vec::new();
    let mut offsets = Utf16Cursor::new(text);
    // The outermost image being read, and how many images deep the parser is.
    let mut open: Option<MarkdownImage> = None;
    let mut depth = 0usize;
    for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                ..
            }) => {
                depth += 1;
                if depth == 1 {
                    open = Some(MarkdownImage {
                        alt: String::new(),
                        url: dest_url.into_string(),
                        title: (!title.is_empty()).then(|| title.into_string()),
                        start: 0,
                        end: 0,
                        byte_start: range.start,
                        byte_end: image_end(text, link_type, range.start, range.end),
                    });
                }
            }
            Event::End(TagEnd::Image) => {
                depth = depth.saturating_sub(1);
                if depth > 0 {
                    continue;
                }
                let Some(mut image) = open.take() else {
                    continue;
                };
                // Slicing the text by these offsets must not panic, whatever
                // the parser reported.
                let last_end = images.last().map_or(0, |i: &MarkdownImage| i.byte_end);
                let (byte_start, byte_end) = (image.byte_start, image.byte_end);
                let in_order = last_end <= byte_start
                    && byte_start < byte_end
                    && byte_end <= text.len()
                    && text.is_char_boundary(byte_start)
                    && text.is_char_boundary(byte_end);
                if in_order {
                    image.start = offsets.utf16_at(byte_start);
                    image.end = offsets.utf16_at(byte_end);
                    images.push(image);
                }
            }
            Event::Text(t) | Event::Code(t) | Event::InlineHtml(t) => {
                if let Some(image) = open.as_mut() {
                    image.alt.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(image) = open.as_mut() {
                    image.alt.push('\n');
                }
            }
            _ => {}
        }
    }
    images
}

/// The byte offset just past an image whose source range pulldown-cmark
/// reports as `start..end`. For a collapsed reference (`![label][]`)
/// pulldown-cmark 0.13 ends the range after the label, leaving out the `[]`
/// (pulldown-cmark issue 1077); it is added back here. A label cannot end
/// with an unescaped `[`, so a range already ending with `][]` is whole.
fn image_end(text: &str, link_type: LinkType, start: usize, end: usize) -> usize {
    let source = text.get(start..end).unwrap_or_default();
    let after = text.get(end..).unwrap_or_default();
    if link_type == LinkType::Collapsed && !source.ends_with("][]") && after.starts_with("[]") {
        end + 2
    } else {
        end
    }
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

    #[test]
    fn a_collapsed_reference_image_spans_its_empty_brackets() {
        let text = "see ![a][] here\n\n[a]: x.png";
        let imgs = parse_markdown_images(text);
        assert_eq!(imgs.len(), 1);
        assert_eq!(&text[imgs[0].byte_start..imgs[0].byte_end], "![a][]");
        assert_eq!((imgs[0].start, imgs[0].end), (4, 10));
        assert_eq!(imgs[0].url, "x.png");
    }
}
