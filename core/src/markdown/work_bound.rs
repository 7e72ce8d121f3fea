//! A bound on the CommonMark parser's work, checked before it runs.
//!
//! pulldown-cmark's block pass visits every open container (block quote,
//! list, list item) for each line it reads, so a text that opens thousands
//! of containers (`- - - - …` on one line takes two bytes a level) and then
//! has thousands of lines that keep them open (blank lines in a fenced or
//! indented code block or an HTML comment, lazy lines of a paragraph) costs
//! depth × lines: seconds for 100 KB, four times that for 200 KB.
//! commonmark.js has the same shape of cost on these texts.
//!
//! [`parsed_len`] estimates that cost from the text alone, line by line,
//! with an upper bound on how many containers can be open on each line (see
//! [`ContainerPrefix`]). When the estimate is within [`WORK_PER_BYTE`] per
//! byte plus [`BASE_WORK`] — every text but such shapes — the whole text is
//! parsed. Otherwise the parser reads the text only up to the last blank
//! line before the estimate reaches that budget; the rest stays text: its
//! images are not found, and reference definitions in it are not seen.
//! A blank line ends every paragraph, so each image before it is the same
//! image it is in the whole text, unless it uses a reference definition
//! from the rest.

/// Work allowed per byte of text, in container visits: ordinary markdown
/// (the CommonMark spec, about a thousand READMEs and changelogs of over a
/// kilobyte) estimates under half a visit per byte.
pub const WORK_PER_BYTE: usize = 8;

/// Work allowed on top of [`WORK_PER_BYTE`], in container visits.
pub const BASE_WORK: usize = 1 << 19;

/// How many leading bytes of `text` the parser reads: all of them, or the
/// text up to the end of the last blank line within the work budget (see
/// the module docs). Lines end at `\n`; a blank line is spaces and tabs,
/// optionally followed by `\r`.
pub fn parsed_len(text: &str) -> usize {
    let budget = text
        .len()
        .saturating_mul(WORK_PER_BYTE)
        .saturating_add(BASE_WORK);
    let mut cut = 0usize;
    for line in Lines::new(text) {
        if line.work > budget {
            return cut;
        }
        if line.blank {
            cut = line.next;
        }
    }
    text.len()
}

/// The estimated work of parsing all of `text`, in container visits.
pub fn estimated_work(text: &str) -> usize {
    Lines::new(text).last().map_or(0, |line| line.work)
}

/// One line of the estimate.
struct Line {
    /// Offset just past the line and its line ending.
    next: usize,
    /// Whether the line is blank and ends with `\n`.
    blank: bool,
    /// The estimated work up to and including this line.
    work: usize,
}

/// The lines of a text with the work of parsing them.
struct Lines<'a> {
    bytes: &'a [u8],
    start: usize,
    /// At least as many containers as can be open after the previous line.
    depth: usize,
    after_blank: bool,
    work: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        Lines {
            bytes: text.as_bytes(),
            start: 0,
            depth: 0,
            after_blank: false,
            work: 0,
        }
    }
}

impl Iterator for Lines<'_> {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        let rest = self.bytes.get(self.start..).filter(|r| !r.is_empty())?;
        let (line, next, ended) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => (rest.get(..i).unwrap_or_default(), self.start + i + 1, true),
            None => (rest, self.bytes.len(), false),
        };
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let blank = line.iter().all(|&b| b == b' ' || b == b'\t');
        // pulldown-cmark also ends lines at a lone `\r` (outside code
        // blocks): each piece is charged as a line and may open containers.
        let (pieces, prefix) = line
            .split(|&b| b == b'\r')
            .map(ContainerPrefix::of)
            .fold((0usize, ContainerPrefix::default()), |(n, all), p| {
                (n + 1, all.and(p))
            });
        // A blank line keeps every container open. Another line opens one
        // container per marker and continues at most as many as its prefix
        // has columns — or, as a lazy line of a paragraph, keeps them all
        // open; after a blank line there is no paragraph to continue.
        let depth = self.depth;
        let after = if blank {
            depth
        } else {
            let kept = if self.after_blank { 0 } else { depth };
            let reachable = depth.saturating_add(prefix.markers);
            kept.max(reachable.min(prefix.columns.saturating_add(1)))
        };
        // The parser visits each open container, a list counting twice
        // (the list and its item), once per line.
        let visits = depth.max(after).saturating_mul(2).saturating_add(1);
        self.work = self.work.saturating_add(visits.saturating_mul(pieces));
        self.depth = after;
        self.after_blank = blank;
        self.start = next;
        Some(Line {
            next,
            blank: blank && ended,
            work: self.work,
        })
    }
}

/// A line's leading run of indentation, block quote markers (`>`) and list
/// markers (`-`, `+`, `*`, or one to nine digits and `.` or `)`, each
/// followed by whitespace or the end of the line): the containers the line
/// can continue (each takes at least one column) and open (one a marker).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ContainerPrefix {
    /// Columns of the run, tabs to the next multiple of four.
    pub columns: usize,
    /// Block quote and list markers in it.
    pub markers: usize,
}

impl ContainerPrefix {
    /// The prefix of `line` (without its line ending).
    pub fn of(line: &[u8]) -> ContainerPrefix {
        let ends_marker = |b: Option<&u8>| matches!(b, None | Some(b' ' | b'\t' | 0x0b | 0x0c));
        let mut p = ContainerPrefix::default();
        let mut i = 0usize;
        loop {
            let width = match line.get(i) {
                Some(b' ') => 1,
                Some(b'\t') => 4 - p.columns % 4,
                Some(b'>') => {
                    p.markers += 1;
                    1
                }
                Some(b'-' | b'+' | b'*') if ends_marker(line.get(i + 1)) => {
                    p.markers += 1;
                    1
                }
                Some(b'0'..=b'9') => {
                    let digits = line
                        .get(i..)
                        .unwrap_or_default()
                        .iter()
                        .take(10)
                        .take_while(|b| b.is_ascii_digit())
                        .count();
                    let delimiter = matches!(line.get(i + digits), Some(b'.' | b')'));
                    if digits > 9 || !delimiter || !ends_marker(line.get(i + digits + 1)) {
                        return p;
                    }
                    p.markers += 1;
                    i += digits;
                    digits + 1
                }
                _ => return p,
            };
            i += 1;
            p.columns += width;
        }
    }

    /// The deeper columns and the sum of the markers of two pieces of one
    /// line.
    fn and(self, other: ContainerPrefix) -> ContainerPrefix {
        ContainerPrefix {
            columns: self.columns.max(other.columns),
            markers: self.markers.saturating_add(other.markers),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_prefixes_count_indentation_quotes_and_list_markers() {
        let of = |line: &str| {
            let p = ContainerPrefix::of(line.as_bytes());
            (p.columns, p.markers)
        };
        assert_eq!(of("plain text"), (0, 0));
        assert_eq!(of("- item"), (2, 1));
        assert_eq!(of("  > - 12. x"), (10, 3));
        assert_eq!(of("\t- x"), (6, 1));
        assert_eq!(of(" \t>x"), (5, 1));
        assert_eq!(of("- - -"), (5, 3));
        assert_eq!(of("-"), (1, 1));
        assert_eq!(of("-\x0c"), (1, 1));
        assert_eq!(of("        {"), (8, 0));
        // Not list markers: no space after, too many digits, no delimiter.
        assert_eq!(of("----"), (0, 0));
        assert_eq!(of("**bold**"), (0, 0));
        assert_eq!(of("3.14159"), (0, 0));
        assert_eq!(of("1234567890. x"), (0, 0));
        assert_eq!(of("2024 was"), (0, 0));
    }

    /// Pretty-printed JSON nested `depth` levels deep.
    fn json_nested(depth: usize) -> String {
        let open: Vec<String> = (0..depth)
            .map(|i| format!("{}\"k{i}\": {{", "  ".repeat(i)))
            .collect();
        let close: Vec<String> = (0..depth)
            .rev()
            .map(|i| format!("{}}}", "  ".repeat(i)))
            .collect();
        format!("{}\n{}", open.join("\n"), close.join("\n"))
    }

    #[test]
    fn ordinary_texts_are_parsed_whole() {
        let texts = [
            String::new(),
            "![a](b.png)".to_owned(),
            "- a\n  - b\n    - c\n\n      ![x](y.png)\n".repeat(2_000),
            format!("{}\n{}", "- ".repeat(50), "\n\n\n\nx\n".repeat(2_000)),
            format!("    {}\n{}", " ".repeat(400), "x\n".repeat(2_000)),
            "\n".repeat(100_000),
            // JSON 300 levels deep: indentation opens no container.
            format!("```json\n{}\n```\n\n![b](c.png)\n", json_nested(300)).repeat(3),
        ];
        for text in &texts {
            assert_eq!(parsed_len(text), text.len());
        }
    }

    #[test]
    fn ordinary_markdown_needs_under_one_visit_per_byte() {
        let readme = include_str!("../../../README.md");
        let work = estimated_work(readme);
        assert!(
            work > 0 && work < readme.len(),
            "{work} for {}",
            readme.len()
        );
    }

    #[test]
    fn deep_containers_over_many_lines_are_cut_at_a_blank_line() {
        let head = "![a](a.png)\n\n";
        let deep = "- ".repeat(50_000);
        // Blank lines in a fenced code block (LF, CRLF, lone CR): each costs
        // the depth, so only the first few are read.
        for (fence, blank) in [("```\n", "\n"), ("```\r\n", "\r\n"), ("```\n", "\r")] {
            let text = format!("{head}{deep}{fence}{}\n", blank.repeat(50_000));
            let cut = parsed_len(&text);
            let budget = text.len() * WORK_PER_BYTE + BASE_WORK;
            let read = head.len() + deep.len() + fence.len();
            assert!(cut >= head.len(), "{fence:?} {blank:?}: cut at {cut}");
            assert!(
                cut <= read + blank.len() * (budget / deep.len()),
                "{fence:?} {blank:?}: cut at {cut}"
            );
        }
        // Lazy lines of a paragraph: no blank line after the head.
        let text = format!("{head}{}a\n{}", "> ".repeat(50_000), "b\n".repeat(50_000));
        assert_eq!(parsed_len(&text), head.len());
        // No blank line at all before the budget runs out: nothing is read.
        let text = format!("{deep}a\n{}", "b\n".repeat(50_000));
        assert_eq!(parsed_len(&text), 0);
    }

    #[test]
    fn the_cut_is_the_last_blank_line_within_the_budget() {
        let deep = "- ".repeat(10_000);
        let text = format!("{deep}```\n{}", "\n".repeat(10_000));
        let cut = parsed_len(&text);
        assert!(cut > deep.len() && cut < text.len(), "cut at {cut}");
        assert_eq!(text.as_bytes()[cut - 1], b'\n');
        // The fence's line and each blank line after it cost the depth,
        // 20,000 columns, and one.
        let lines = cut - deep.len() - 4;
        let budget = text.len() * WORK_PER_BYTE + BASE_WORK;
        assert!((lines + 1) * 20_001 <= budget && (lines + 2) * 20_001 > budget);
    }
}
