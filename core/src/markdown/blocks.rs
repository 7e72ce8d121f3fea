//! Block structure: container block quotes and list items, fenced and
//! indented code, HTML blocks, headings, thematic breaks, reference
//! definitions and paragraphs. The result is the inline content of every
//! paragraph and heading, mapped back to source offsets, plus the document's
//! reference definitions. The line rules follow pulldown-cmark's first pass.

use super::inlines::scan_html_tag;
use super::links::{count_spaces, is_whitespace, run_of, scan_definition, Definitions};

/// Inline content of one paragraph or heading: its lines joined by `\n`
/// (each line after its container prefixes) and where each line came from.
pub(super) struct InlineBlock {
    /// The joined lines.
    pub(super) text: String,
    /// `(offset in text, offset in source)` at the start of each line.
    pub(super) lines: Vec<(usize, usize)>,
    /// `(offset in text, columns)` for lazy continuation lines: the
    /// indentation the list items they did not continue would take. A code
    /// span ending in a line's leading whitespace loses up to that much
    /// of it in pulldown-cmark, whose container matching stops at the end
    /// of the span as at the end of a line.
    pub(super) lazy_indents: Vec<(usize, usize)>,
}

impl InlineBlock {
    /// The source offset of `text` offset `at`.
    pub(super) fn source_offset(&self, at: usize) -> usize {
        let i = self.lines.partition_point(|&(start, _)| start <= at);
        match i.checked_sub(1).and_then(|i| self.lines.get(i)) {
            Some(&(start, source)) => source + (at - start),
            None => 0,
        }
    }
}

/// Every inline block of `text` in document order, and its definitions.
pub(super) fn parse_blocks(text: &str) -> (Vec<InlineBlock>, Definitions) {
    let mut parser = BlockParser {
        bytes: text.as_bytes(),
        text,
        spine: Vec::new(),
        quote_ends: Vec::new(),
        last_line_blank: false,
        begin_list_item: false,
        blocks: Vec::new(),
        definitions: Definitions::default(),
    };
    let mut ix = 0;
    while ix < text.len() {
        let next = parser.parse_block(ix);
        ix = if next > ix {
            next
        } else {
            next_line(parser.bytes, ix)
        };
    }
    parser.definitions.seal();
    (parser.blocks, parser.definitions)
}

/// An open container block.
#[derive(Clone, Copy, PartialEq)]
enum Container {
    BlockQuote,
    /// A list, by its marker character (`-`, `+`, `*`, `.` or `)`).
    List(u8),
    /// A list item, by the columns its content is indented.
    Item(usize),
}

struct BlockParser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    /// Open containers, outermost first.
    spine: Vec<Container>,
    /// `quote_ends[i]` is one past the position of the last block quote in
    /// `spine[..=i]` (0 when there is none).
    quote_ends: Vec<usize>,
    last_line_blank: bool,
    begin_list_item: bool,
    blocks: Vec<InlineBlock>,
    definitions: Definitions,
}

/// Position just past the line ending of the line holding `ix`.
fn next_line(bytes: &[u8], ix: usize) -> usize {
    match bytes
        .get(ix..)
        .and_then(|b| b.iter().position(|&c| c == b'\n'))
    {
        Some(n) => ix + n + 1,
        None => bytes.len(),
    }
}

/// End of the line from `ix` whose next line starts at `next`, before its
/// `\n` (a `\r` before it stays, as pulldown-cmark keeps it in code spans,
/// raw HTML and titles).
fn strip_lf(bytes: &[u8], ix: usize, next: usize) -> usize {
    if next > ix && bytes.get(next - 1) == Some(&b'\n') {
        next - 1
    } else {
        next
    }
}

/// End of the content of the line holding `ix` (before `\r\n` or `\n`).
fn line_end(bytes: &[u8], ix: usize) -> usize {
    let next = next_line(bytes, ix);
    let mut end = next;
    if end > ix && bytes.get(end - 1) == Some(&b'\n') {
        end -= 1;
        if end > ix && bytes.get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
    }
    end
}

/// Length of the line ending at the start of `bytes`; `Some(0)` at the end.
fn scan_eol(bytes: &[u8]) -> Option<usize> {
    match bytes {
        [] => Some(0),
        [b'\n', ..] => Some(1),
        [b'\r', b'\n', ..] => Some(2),
        [b'\r', ..] => Some(1),
        _ => None,
    }
}

/// Length of the blank line at the start of `bytes`, line ending included.
fn scan_blank_line(bytes: &[u8]) -> Option<usize> {
    let i = count_spaces(bytes);
    scan_eol(bytes.get(i..)?).map(|n| i + n)
}

/// A thematic break: `Ok(length of the line)` or `Err(offset before which
/// none can start)`.
fn scan_thematic_break(bytes: &[u8]) -> Result<usize, usize> {
    let Some(&c) = bytes.first() else {
        return Err(0);
    };
    if bytes.len() < 3 || !matches!(c, b'*' | b'-' | b'_') {
        return Err(0);
    }
    let mut n = 0;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\n' | b'\r' => {
                i += scan_eol(&bytes[i..]).unwrap_or(0);
                break;
            }
            _ if b == c => n += 1,
            b' ' | b'\t' => {}
            _ => return Err(i),
        }
        i += 1;
    }
    if n >= 3 {
        Ok(i)
    } else {
        Err(i)
    }
}

/// The level of the ATX heading opening at the start of `bytes`.
fn scan_atx_heading(bytes: &[u8]) -> Option<usize> {
    let level = run_of(bytes, b'#');
    let ok = bytes.get(level).is_none_or(|&b| is_whitespace(b));
    ((1..=6).contains(&level) && ok).then_some(level)
}

/// A setext underline: the length of its line.
fn scan_setext_underline(bytes: &[u8]) -> Option<usize> {
    let c = *bytes.first()?;
    if c != b'=' && c != b'-' {
        return None;
    }
    let i = run_of(bytes, c);
    Some(i + scan_blank_line(bytes.get(i..)?)?)
}

/// An opening code fence: its length and character.
fn scan_code_fence(bytes: &[u8]) -> Option<(usize, u8)> {
    let c = *bytes.first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = run_of(bytes, c);
    if n < 3 {
        return None;
    }
    if c == b'`' {
        let rest = bytes.get(n..)?;
        let line = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest, |e| &rest[..e]);
        if line.contains(&b'`') {
            return None;
        }
    }
    Some((n, c))
}

/// A closing code fence: its length before the line ending.
fn scan_closing_fence(bytes: &[u8], c: u8, min: usize) -> Option<usize> {
    if bytes.is_empty() {
        return Some(0);
    }
    let n = run_of(bytes, c);
    if n < min {
        return None;
    }
    let i = n + run_of(bytes.get(n..)?, b' ');
    scan_eol(bytes.get(i..)?).map(|_| i)
}

/// A list marker as a paragraph interruption sees it: bytes scanned,
/// marker character, start number.
fn scan_list_item(bytes: &[u8]) -> Option<(usize, u8, u64)> {
    let c = *bytes.first()?;
    let (w, delim, start) = match c {
        b'-' | b'+' | b'*' => (1, c, 0),
        b'0'..=b'9' => {
            let digits = bytes
                .iter()
                .take(9)
                .take_while(|b| b.is_ascii_digit())
                .count();
            let start = bytes[..digits]
                .iter()
                .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
            let d = *bytes.get(digits)?;
            if d != b'.' && d != b')' {
                return None;
            }
            (digits + 1, d, start)
        }
        _ => return None,
    };
    let rest = bytes.get(w..)?;
    let (mut n, indent) = indent_of(rest, 5);
    if indent == 0 {
        scan_eol(rest)?;
    } else if indent > 4 {
        n = 1;
    }
    if scan_blank_line(rest).is_some() {
        n = 0;
    }
    Some((w + n, delim, start))
}

/// Bytes and columns of leading spaces and tabs, up to `max` columns.
fn indent_of(bytes: &[u8], max: usize) -> (usize, usize) {
    let mut spaces = 0;
    let mut offset = 0;
    for (i, &b) in bytes.iter().enumerate() {
        offset = i;
        match b {
            b' ' => {
                spaces += 1;
                if spaces == max {
                    break;
                }
            }
            b'\t' => {
                let next = spaces + 4 - (spaces & 3);
                if next > max {
                    break;
                }
                spaces = next;
            }
            _ => break,
        }
    }
    (offset, spaces)
}

/// Tags that start an HTML block of type 6.
const BLOCK_TAGS: &str = "address article aside base basefont blockquote body caption center col \
    colgroup dd details dialog dir div dl dt fieldset figcaption figure footer form frame frameset \
    h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu menuitem nav noframes \
    ol optgroup option p param search section summary table tbody td tfoot th thead title tr \
    track ul";

/// For `bytes` just after a `<`: the end marker of an HTML block of types
/// 1 to 5 that starts here.
fn html_block_end_marker(bytes: &[u8]) -> Option<&'static str> {
    for end in ["</pre>", "</style>", "</script>", "</textarea>"] {
        let tag = end.as_bytes().get(2..end.len() - 1).unwrap_or_default();
        let Some(head) = bytes.get(..tag.len()) else {
            break;
        };
        if head.eq_ignore_ascii_case(tag) {
            match bytes.get(tag.len()) {
                None => return Some(end),
                Some(&b) if is_whitespace(b) || b == b'>' => return Some(end),
                _ => {}
            }
        }
    }
    for (start, end) in [("!--", "-->"), ("?", "?>"), ("![CDATA[", "]]>")] {
        if bytes.starts_with(start.as_bytes()) {
            return Some(end);
        }
    }
    (bytes.first() == Some(&b'!') && bytes.get(1).is_some_and(u8::is_ascii_alphabetic))
        .then_some(">")
}

/// For `bytes` just after a `<`: whether an HTML block of type 6 starts.
fn starts_html_block_6(bytes: &[u8]) -> bool {
    let rest = bytes.strip_prefix(b"/").unwrap_or(bytes);
    let n = rest
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    let name = &rest[..n];
    if n == 0
        || !BLOCK_TAGS
            .as_bytes()
            .split(|&b| b == b' ')
            .any(|t| t.eq_ignore_ascii_case(name))
    {
        return false;
    }
    matches!(
        rest.get(n..).unwrap_or_default(),
        [] | [b' ' | b'\t' | b'\r' | b'\n' | b'>', ..] | [b'/', b'>', ..]
    )
}

/// Reading position at the start of a line, counting columns with tabs.
#[derive(Clone)]
struct LineStart<'a> {
    bytes: &'a [u8],
    ix: usize,
    tab_start: usize,
    spaces_remaining: usize,
    min_thematic_break: usize,
}

impl<'a> LineStart<'a> {
    fn new(bytes: &'a [u8], ix: usize) -> Self {
        LineStart {
            bytes,
            ix,
            tab_start: ix,
            spaces_remaining: 0,
            min_thematic_break: ix,
        }
    }

    fn rest(&self) -> &'a [u8] {
        self.bytes.get(self.ix..).unwrap_or_default()
    }

    /// Consumes up to `n` columns of indentation; the columns missing.
    fn scan_space_inner(&mut self, mut n: usize) -> usize {
        let from_remaining = self.spaces_remaining.min(n);
        self.spaces_remaining -= from_remaining;
        n -= from_remaining;
        while n > 0 {
            match self.bytes.get(self.ix) {
                Some(b' ') => {
                    self.ix += 1;
                    n -= 1;
                }
                Some(b'\t') => {
                    let spaces = 4 - (self.ix - self.tab_start) % 4;
                    self.ix += 1;
                    self.tab_start = self.ix;
                    let used = spaces.min(n);
                    n -= used;
                    self.spaces_remaining = spaces - used;
                }
                _ => break,
            }
        }
        n
    }

    fn scan_space(&mut self, n: usize) -> bool {
        self.scan_space_inner(n) == 0
    }

    fn scan_space_upto(&mut self, n: usize) -> usize {
        n - self.scan_space_inner(n)
    }

    fn scan_all_space(&mut self) {
        self.spaces_remaining = 0;
        self.ix += self
            .rest()
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
    }

    fn is_at_eol(&self) -> bool {
        matches!(self.rest().first(), None | Some(b'\r' | b'\n'))
    }

    fn scan_ch(&mut self, c: u8) -> bool {
        if self.rest().first() == Some(&c) {
            self.ix += 1;
            true
        } else {
            false
        }
    }

    fn scan_block_quote_marker(&mut self) -> bool {
        if self.scan_ch(b'>') {
            let _ = self.scan_space(1);
            true
        } else {
            false
        }
    }

    /// A list marker: its character, start number and content indent.
    fn scan_list_marker(&mut self, indent: usize) -> Option<(u8, u64, usize)> {
        let save = self.clone();
        let c = *self.rest().first()?;
        if matches!(c, b'-' | b'+' | b'*') {
            if self.ix >= self.min_thematic_break {
                match scan_thematic_break(self.rest()) {
                    Err(offset) => self.min_thematic_break = self.ix + offset,
                    Ok(_) => {
                        *self = save;
                        return None;
                    }
                }
            }
            self.ix += 1;
            if self.scan_space(1) || self.is_at_eol() {
                return Some(self.finish_list_marker(c, 0, indent + 2));
            }
        } else if c.is_ascii_digit() {
            let start = self.ix;
            let mut ix = start + 1;
            let mut value = u64::from(c - b'0');
            while let Some(&d) = self.bytes.get(ix) {
                if ix - start >= 10 {
                    break;
                }
                ix += 1;
                if d.is_ascii_digit() {
                    value = value * 10 + u64::from(d - b'0');
                } else if d == b')' || d == b'.' {
                    self.ix = ix;
                    if self.scan_space(1) || self.is_at_eol() {
                        return Some(self.finish_list_marker(d, value, indent + 1 + ix - start));
                    }
                    break;
                } else {
                    break;
                }
            }
        }
        *self = save;
        None
    }

    fn finish_list_marker(&mut self, c: u8, start: u64, mut indent: usize) -> (u8, u64, usize) {
        if scan_blank_line(self.rest()).is_some() {
            return (c, start, indent);
        }
        let save = self.clone();
        let post = self.scan_space_upto(4);
        if post < 4 {
            indent += post;
        } else {
            *self = save;
        }
        (c, start, indent)
    }
}

impl BlockParser<'_> {
    /// Matches the open containers against the line; how many matched.
    /// A blank line matches every list and list item, so once it is past
    /// the last block quote the rest need not be walked: deeply nested
    /// lists stay linear over runs of blank lines.
    fn scan_containers(&self, line: &mut LineStart) -> usize {
        let blank = scan_blank_line(line.rest()).is_some();
        let quotes_end = self.quote_ends.last().copied().unwrap_or(0);
        let mut matched = 0;
        for container in &self.spine {
            if blank && matched >= quotes_end {
                return self.spine.len();
            }
            match *container {
                Container::BlockQuote => {
                    let save = line.clone();
                    let _ = line.scan_space(3);
                    if !line.scan_block_quote_marker() {
                        *line = save;
                        break;
                    }
                }
                Container::Item(indent) => {
                    let save = line.clone();
                    if !line.scan_space(indent) && !line.is_at_eol() {
                        *line = save;
                        break;
                    }
                }
                Container::List(_) => {}
            }
            matched += 1;
        }
        matched
    }

    fn push_container(&mut self, container: Container) {
        let quotes_end = match container {
            Container::BlockQuote => self.spine.len() + 1,
            _ => self.quote_ends.last().copied().unwrap_or(0),
        };
        self.spine.push(container);
        self.quote_ends.push(quotes_end);
    }

    fn pop_containers(&mut self, keep: usize) {
        if keep < self.spine.len() {
            // The list item just begun, if any, is among those closed.
            self.begin_list_item = false;
        }
        self.spine.truncate(keep);
        self.quote_ends.truncate(keep);
    }

    fn finish_empty_list_item(&mut self) {
        if self.begin_list_item
            && self.last_line_blank
            && matches!(self.spine.last(), Some(Container::Item(_)))
        {
            self.pop_containers(self.spine.len() - 1);
        }
        self.begin_list_item = false;
    }

    fn finish_list(&mut self) {
        self.finish_empty_list_item();
        if matches!(self.spine.last(), Some(Container::List(_))) {
            self.pop_containers(self.spine.len() - 1);
        }
        self.last_line_blank = false;
    }

    fn continue_list(&mut self, ch: u8) {
        self.finish_empty_list_item();
        if let Some(&top) = self.spine.last() {
            if top == Container::List(ch) {
                self.last_line_blank = false;
                return;
            }
            self.finish_list();
        }
        self.push_container(Container::List(ch));
        self.last_line_blank = false;
    }

    /// Parses the block starting on the line at `start`; returns where the
    /// next block's line starts.
    fn parse_block(&mut self, mut start: usize) -> usize {
        let bytes = self.bytes;
        let mut line = LineStart::new(bytes, start);
        let matched = self.scan_containers(&mut line);
        self.pop_containers(matched);

        loop {
            let save = line.clone();
            let outer_indent = line.scan_space_upto(4);
            if outer_indent >= 4 {
                line = save;
                break;
            }
            if let Some((ch, _, indent)) = line.scan_list_marker(outer_indent) {
                let after_marker = line.ix;
                self.continue_list(ch);
                self.push_container(Container::Item(indent));
                if let Some(n) = scan_blank_line(line.rest()) {
                    self.begin_list_item = true;
                    return after_marker + n;
                }
            } else if line.scan_block_quote_marker() {
                self.finish_list();
                self.push_container(Container::BlockQuote);
            } else {
                line = save;
                break;
            }
        }
        start = line.ix;

        if let Some(n) = scan_blank_line(line.rest()) {
            match self.spine.last_mut() {
                Some(Container::BlockQuote) => {}
                Some(Container::Item(indent)) if self.begin_list_item => {
                    self.last_line_blank = true;
                    *indent = 0;
                }
                _ => self.last_line_blank = true,
            }
            return start + n;
        }

        let indent = line.scan_space_upto(4);
        if indent == 4 {
            self.finish_list();
            return self.skip_indented_code(line.ix);
        }
        let ix = line.ix;
        let rest = line.rest();

        if rest.first() == Some(&b'<') {
            let after = rest.get(1..).unwrap_or_default();
            if let Some(end_marker) = html_block_end_marker(after) {
                self.finish_list();
                return self.skip_html_block(ix, Some(end_marker));
            }
            if starts_html_block_6(after)
                || scan_html_tag(rest, false)
                    .is_some_and(|n| scan_blank_line(rest.get(n..).unwrap_or_default()).is_some())
            {
                self.finish_list();
                return self.skip_html_block(ix, None);
            }
        }
        if let Ok(n) = scan_thematic_break(rest) {
            self.finish_list();
            return ix + n;
        }
        if let Some(level) = scan_atx_heading(rest) {
            self.finish_list();
            return self.parse_atx_heading(ix, level);
        }
        if let Some((n, c)) = scan_code_fence(rest) {
            self.finish_list();
            return self.skip_fenced_code(ix, indent, c, n);
        }
        self.parse_paragraph(ix)
    }

    fn skip_indented_code(&mut self, mut ix: usize) -> usize {
        self.last_line_blank = false;
        loop {
            ix = next_line(self.bytes, ix);
            let mut line = LineStart::new(self.bytes, ix);
            if self.scan_containers(&mut line) < self.spine.len()
                || !(line.scan_space(4) || line.is_at_eol())
                || line.ix >= self.bytes.len()
            {
                return ix;
            }
            ix = line.ix;
            self.last_line_blank = scan_blank_line(line.rest()).is_some();
        }
    }

    fn skip_fenced_code(&mut self, start: usize, indent: usize, c: u8, n: usize) -> usize {
        let mut ix = next_line(self.bytes, start + n);
        loop {
            if ix >= self.bytes.len() {
                return self.bytes.len();
            }
            let mut line = LineStart::new(self.bytes, ix);
            if self.scan_containers(&mut line) < self.spine.len() {
                return ix;
            }
            line.scan_space(indent);
            let mut close = line.clone();
            if !close.scan_space(4 - indent.min(4)) {
                if let Some(len) = scan_closing_fence(close.rest(), c, n) {
                    let end = close.ix + len;
                    let rest = self.bytes.get(end..).unwrap_or_default();
                    return end + scan_blank_line(rest).unwrap_or(0);
                }
            }
            ix = next_line(self.bytes, line.ix);
        }
    }

    fn skip_html_block(&mut self, mut ix: usize, end_marker: Option<&str>) -> usize {
        loop {
            let line_start = ix;
            ix = next_line(self.bytes, ix);
            let mut line = LineStart::new(self.bytes, ix);
            let matched = self.scan_containers(&mut line) == self.spine.len();
            match end_marker {
                Some(marker) => {
                    let this_line = self.text.get(line_start..ix).unwrap_or_default();
                    if !matched || crate::substring::contains(this_line, marker) {
                        return ix;
                    }
                }
                None => {
                    if !matched || line.is_at_eol() {
                        return ix;
                    }
                }
            }
            let next = line.ix;
            if next >= self.bytes.len()
                || (end_marker.is_none() && scan_blank_line(line.rest()).is_some())
            {
                return ix;
            }
            ix = next;
        }
    }

    fn parse_atx_heading(&mut self, start: usize, level: usize) -> usize {
        let bytes = self.bytes;
        let mut ix = start + level;
        let next = next_line(bytes, ix);
        ix += count_spaces(bytes.get(ix..).unwrap_or_default());
        let end = line_end(bytes, ix).max(ix);
        let content = bytes.get(ix..end).unwrap_or_default();
        let mut limit = content
            .iter()
            .rposition(|&b| !(b == b'\n' || b == b'\r' || b == b' '))
            .map_or(0, |i| i + 1);
        let closer = content[..limit]
            .iter()
            .rposition(|&b| b != b'#')
            .map_or(0, |i| i + 1);
        if closer == 0 {
            limit = 0;
        } else {
            let spaces = content[..closer]
                .iter()
                .rev()
                .take_while(|&&b| b == b' ')
                .count();
            if spaces > 0 {
                limit = closer - spaces;
            }
        }
        if limit > 0 {
            self.push_block(&[(ix, ix + limit, 0)]);
        }
        next
    }

    fn parse_paragraph(&mut self, start: usize) -> usize {
        self.finish_list();
        let bytes = self.bytes;
        let mut next = next_line(bytes, start);
        let mut lines = vec![(start, strip_lf(bytes, start, next), 0)];
        loop {
            if next >= bytes.len() {
                self.finish_paragraph(&lines);
                return bytes.len();
            }
            let mut line = LineStart::new(bytes, next);
            let matched = self.scan_containers(&mut line);
            let prefix_end = line.ix;
            let current = matched == self.spine.len();
            if !line.scan_space(4) {
                let rest = line.rest();
                if current {
                    if let Some(n) = scan_setext_underline(rest) {
                        if self.finish_paragraph(&lines) {
                            return line.ix + n;
                        }
                        return next;
                    }
                }
                if self.interrupts(rest, current) {
                    self.finish_paragraph(&lines);
                    return next;
                }
            }
            line.scan_all_space();
            if line.is_at_eol() {
                self.finish_paragraph(&lines);
                return next;
            }
            let line_next = next_line(bytes, line.ix);
            let mut lazy_indent = 0;
            for container in self.spine.get(matched..).unwrap_or_default() {
                match container {
                    Container::Item(indent) => lazy_indent += indent,
                    Container::List(_) => {}
                    Container::BlockQuote => break,
                }
            }
            lines.push((prefix_end, strip_lf(bytes, line.ix, line_next), lazy_indent));
            next = line_next;
        }
    }

    /// Whether a line starting with `rest` ends a paragraph.
    fn interrupts(&self, rest: &[u8], current: bool) -> bool {
        scan_eol(rest).is_some()
            || scan_thematic_break(rest).is_ok()
            || scan_atx_heading(rest).is_some()
            || scan_code_fence(rest).is_some()
            || rest.first() == Some(&b'>')
            || scan_list_item(rest).is_some_and(|(n, delim, start)| {
                !current
                    || (matches!(delim, b'*' | b'-' | b'+') || start == 1)
                        && scan_blank_line(rest.get(n..).unwrap_or_default()).is_none()
            })
            || rest.first() == Some(&b'<') && {
                let after = rest.get(1..).unwrap_or_default();
                html_block_end_marker(after).is_some() || starts_html_block_6(after)
            }
    }

    /// Takes reference definitions off the start of a paragraph and keeps
    /// the rest as an inline block; false when nothing was left.
    fn finish_paragraph(&mut self, lines: &[(usize, usize, usize)]) -> bool {
        let first = lines.first().map(|l| l.0);
        if first.and_then(|s| self.bytes.get(s)) != Some(&b'[') {
            self.push_block(lines);
            return true;
        }
        let block = join_lines(self.text, lines);
        let text = block.text.as_str();
        let mut pos = 0;
        while let Some((len, label, target)) = text.get(pos..).and_then(scan_definition) {
            self.definitions.insert(&label, target);
            pos += len;
            let rest = text.as_bytes().get(pos..).unwrap_or_default();
            pos += count_spaces(rest);
            if text.as_bytes().get(pos) == Some(&b'\r') {
                pos += 1;
            }
            match text.as_bytes().get(pos) {
                Some(b'\n') => {
                    pos += 1;
                    pos += text
                        .as_bytes()
                        .get(pos..)
                        .unwrap_or_default()
                        .iter()
                        .take_while(|&&b| b == b' ' || b == b'\t')
                        .count();
                }
                _ => return false,
            }
        }
        if pos == 0 {
            if crate::substring::contains(text, "![") {
                self.blocks.push(block);
            }
            return true;
        }
        if pos >= text.len() {
            return false;
        }
        // The rest starts inside one of the paragraph's lines, after the
        // leading whitespace the definitions left: join it again from there.
        let k = block
            .lines
            .partition_point(|l| l.0 <= pos)
            .saturating_sub(1);
        let Some((&(at, _), rest)) = block.lines.get(k).zip(lines.get(k..)) else {
            return false;
        };
        let mut rest = rest.to_vec();
        if let Some(first) = rest.first_mut() {
            first.0 += pos - at;
        }
        self.push_block(&rest);
        true
    }

    fn push_block(&mut self, lines: &[(usize, usize, usize)]) {
        let has_image = lines.iter().any(|&(start, end, _)| {
            self.bytes
                .get(start..end)
                .is_some_and(|line| line.windows(2).any(|w| w == b"!["))
        });
        if has_image {
            self.blocks.push(join_lines(self.text, lines));
        }
    }
}

/// Joins source line ranges with `\n`.
fn join_lines(text: &str, lines: &[(usize, usize, usize)]) -> InlineBlock {
    let mut out = String::new();
    let mut map = Vec::with_capacity(lines.len());
    let mut lazy_indents = Vec::new();
    for (i, &(start, end, lazy_indent)) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if lazy_indent > 0 {
            lazy_indents.push((out.len(), lazy_indent));
        }
        map.push((out.len(), start));
        out.push_str(text.get(start..end).unwrap_or_default());
    }
    InlineBlock {
        text: out,
        lines: map,
        lazy_indents,
    }
}
