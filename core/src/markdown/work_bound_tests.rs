//! What the work bound does to `parse_markdown_images`: on texts whose
//! parse would grow faster than the text, the images before the cut are
//! exactly those of the whole text, and the rest stays text.

use super::parse::images_in;
use super::work_bound::parsed_len;
use super::{parse_markdown_images, MarkdownImage};
use proptest::prelude::*;

fn urls(images: &[MarkdownImage]) -> Vec<&str> {
    images.iter().map(|i| i.url.as_str()).collect()
}

/// `depth` nested list items, an open fence, and `lines` blank lines.
fn deep_fence(depth: usize, lines: usize) -> String {
    format!("{}```\n{}", "- ".repeat(depth), "\n".repeat(lines))
}

#[test]
fn an_image_after_the_cut_stays_text() {
    let text = format!(
        "![a](a.png)\n\n{}\n\n![b](b.png)\n",
        deep_fence(3_000, 3_000)
    );
    let cut = parsed_len(&text);
    assert!(cut > 13 && cut + 1_000 < text.len(), "cut at {cut}");
    // The whole text has both images (the list closes before `![b]`)...
    assert_eq!(urls(&images_in(&text)), ["a.png", "b.png"]);
    // ...but only the part before the cut is read.
    assert_eq!(urls(&parse_markdown_images(&text)), ["a.png"]);
    // Few enough lines, and the whole text is read.
    let text = format!("![a](a.png)\n\n{}\n\n![b](b.png)\n", deep_fence(3_000, 10));
    assert_eq!(parsed_len(&text), text.len());
    assert_eq!(urls(&parse_markdown_images(&text)), ["a.png", "b.png"]);
}

#[test]
fn reference_definitions_after_the_cut_are_not_seen() {
    let deep = deep_fence(3_000, 3_000);
    let text = format!("![a][r] and ![b](b.png)\n\n{deep}\n\n[r]: r.png\n");
    assert_eq!(urls(&images_in(&text)), ["r.png", "b.png"]);
    assert_eq!(urls(&parse_markdown_images(&text)), ["b.png"]);
    // A definition before the cut counts.
    let text = format!("[r]: r.png\n\n![a][r]\n\n{deep}");
    assert_eq!(urls(&parse_markdown_images(&text)), ["r.png"]);
}

#[test]
fn lazy_lines_with_no_blank_line_leave_nothing_to_read() {
    let text = format!(
        "![a](a.png)\n{}a\n{}",
        "> ".repeat(30_000),
        "b\n".repeat(30_000)
    );
    assert_eq!(parsed_len(&text), 0);
    assert!(parse_markdown_images(&text).is_empty());
}

fn pick(options: &'static [&'static str]) -> impl Strategy<Value = &'static str> {
    prop::sample::select(options)
}

/// Paragraphs and blocks with inline images (no references), and now and
/// then a deep section: many containers, a block that keeps them open, and
/// many lines.
fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (pick(&["![a](a.png)", "x ![b](<b c.png> \"t\")", "`![c](c.png)`", "[![d](d.png)](l)",
                     "*![e](e.png)*", "![f\ng](f.png)", "<!-- ![h](h.png) -->", "![i](i.png)\n==="]),
              pick(&["\n\n", "\n", "\n\n\n", "\r\n\r\n", "\n  \n"]))
            .prop_map(|(block, end)| format!("{block}{end}")),
        1 => pick(&["```\n![j](j.png)\n```\n\n", "    ![k](k.png)\n\n", "> ![l](l.png)\n\n",
                    "- ![m](m.png)\n\n  ![n](n.png)\n\n", "<div>\n![o](o.png)\n\n"])
            .prop_map(str::to_owned),
        2 => (pick(&["- ", "> ", "1. ", "- > ", "* "]), 50usize..800,
              pick(&["```\n", "    x\n", "<!--\n", "a\n", "<pre>\n", "~~~\r\n", "\n"]),
              prop::collection::vec(pick(&["\n", "b\n", "  \n", "\r\n", "![p](p.png)\n", "\t\n"]), 1..4),
              50usize..800)
            .prop_map(|(marker, depth, block, line, lines)| {
                format!("{}{block}{}\n", marker.repeat(depth), line.concat().repeat(lines / line.len()))
            }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(32)
    ))]

    #[test]
    fn the_images_before_the_cut_are_those_of_the_whole_text(
        segments in prop::collection::vec(segment(), 1..8)
    ) {
        let text = segments.concat();
        let cut = parsed_len(&text);
        prop_assert!(cut == 0 || cut == text.len() || text[..cut].ends_with('\n'));
        let whole: Vec<MarkdownImage> = images_in(&text)
            .into_iter()
            .filter(|i| i.byte_end <= cut)
            .collect();
        prop_assert_eq!(parse_markdown_images(&text), whole);
    }
}
