//! Inline syntax of one paragraph or heading: code spans, backslash
//! escapes, character references, autolinks, raw HTML, and the CommonMark
//! bracket algorithm for links and images (inline, full, collapsed and
//! shortcut references), with enough emphasis handling to know which `*`
//! and `_` an image description keeps as text. The order of precedence and
//! the quirks follow pulldown-cmark.

use super::blocks::InlineBlock;
use super::entities::{scan_entity, Decoded};
use super::links::{
    count_spaces, run_of, scan_destination, scan_label, scan_title, unescape, Definitions,
    LinkTarget,
};
use super::punctuation::is_punctuation;

/// An image found in an inline block, with offsets into the block's text.
pub(super) struct FoundImage {
    /// The description as plain text.
    pub(super) alt: String,
    /// Destination and title.
    pub(super) target: LinkTarget,
    /// Offset of the `!`.
    pub(super) start: usize,
    /// Offset just past the image.
    pub(super) end: usize,
}

/// The top-level images of one block (of the document `source`), in order.
pub(super) fn find_images(
    block: &InlineBlock,
    source: &str,
    definitions: &Definitions,
) -> Vec<FoundImage> {
    let text = block.text.as_str();
    let mut inlines = Inlines {
        block,
        source,
        text,
        bytes: text.as_bytes(),
        definitions,
        pieces: Vec::new(),
        brackets: Vec::new(),
        links_disabled_below: 0,
        delimiters: Vec::new(),
        code_runs: None,
        guards: HtmlGuards::default(),
        label_close_not_reference: None,
        text_start: 0,
    };
    inlines.parse();
    inlines.images()
}

/// A piece of a block's inline content, in document order.
enum Piece {
    /// Text of the block, taken as is.
    Text(usize, usize),
    /// A comment, processing instruction, declaration or CDATA section,
    /// which pulldown-cmark reports as it stands in the source, container
    /// prefixes of later lines included.
    SourceText(usize, usize),
    /// Code span content.
    Code(String),
    /// A character reference.
    Entity(Decoded),
    /// A soft or hard line break; `true` for a backslash before the line
    /// ending, which pulldown-cmark spells as `\\` when it ends a link's
    /// or image's content.
    Break(bool),
    /// A run of `*` or `_`: its offset and how many of its characters
    /// remain text.
    Delimiter(usize, usize),
    /// `[` or `![` not (yet) part of a link or image.
    Open(bool),
    /// The start of a link or image (`image` true).
    Start {
        image: bool,
        target: LinkTarget,
        start: usize,
        end: usize,
        end_piece: usize,
    },
    /// The end of a link or image.
    End,
}

/// An open `[` or `![`.
struct Bracket {
    piece: usize,
    image: bool,
    disabled: bool,
    delimiter_bottom: usize,
    start: usize,
    label_start: usize,
}

/// A `*` or `_` run that can open or close emphasis.
struct Delimiter {
    piece: usize,
    ch: u8,
    run: usize,
    can_open: bool,
    can_close: bool,
}

/// Positions before which a raw HTML construct is known not to close, so
/// repeated openers are not rescanned (pulldown-cmark's scan guard).
#[derive(Default)]
struct HtmlGuards {
    comment: usize,
    processing: usize,
    cdata: usize,
    declaration: usize,
}

struct Inlines<'a> {
    block: &'a InlineBlock,
    source: &'a str,
    text: &'a str,
    bytes: &'a [u8],
    definitions: &'a Definitions,
    pieces: Vec<Piece>,
    brackets: Vec<Bracket>,
    links_disabled_below: usize,
    delimiters: Vec<Delimiter>,
    /// Every backtick run by length; built on first use.
    code_runs: Option<BacktickRuns>,
    guards: HtmlGuards,
    /// The `]` of a reference label that may no longer close a link of its own.
    label_close_not_reference: Option<usize>,
    text_start: usize,
}

impl Inlines<'_> {
    fn parse(&mut self) {
        let mut i = 0;
        while let Some(&b) = self.bytes.get(i) {
            i = match b {
                b'\n' | b'\r' => self.line_break(i),
                b'\\' => self.backslash(i),
                b'`' => self.code_span(i, false),
                b'*' | b'_' => self.delimiter_run(i, b),
                b'<' => self.angle_bracket(i),
                b'!' if self.bytes.get(i + 1) == Some(&b'[') => self.open_bracket(i, true),
                b'[' => self.open_bracket(i, false),
                b']' => self.close_bracket(i),
                b'&' => self.entity(i),
                _ => i + 1,
            };
        }
        self.flush(self.bytes.len());
    }

    /// Ends the pending text at `end`.
    fn flush(&mut self, end: usize) {
        if self.text_start < end {
            self.pieces.push(Piece::Text(self.text_start, end));
        }
        self.text_start = end;
    }

    fn line_break(&mut self, i: usize) -> usize {
        let before = self.bytes.get(..i).unwrap_or_default();
        let backslashes = before.iter().rev().take_while(|&&b| b == b'\\').count();
        let backslash = backslashes % 2 == 1;
        if backslash {
            self.flush((i - 1).max(self.text_start));
        } else {
            let spaces = before
                .iter()
                .rev()
                .take_while(|&&b| super::links::is_space(b))
                .count();
            self.flush((i - spaces).max(self.text_start));
        }
        self.pieces.push(Piece::Break(backslash));
        let mut next = i + 1;
        if self.bytes.get(i) == Some(&b'\r') && self.bytes.get(next) == Some(&b'\n') {
            next += 1;
        }
        next += self
            .bytes
            .get(next..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        self.text_start = next;
        next
    }

    fn backslash(&mut self, i: usize) -> usize {
        match self.bytes.get(i + 1) {
            Some(&c) if c.is_ascii_punctuation() => {
                self.flush(i);
                self.text_start = i + 1;
                if c == b'`' {
                    return self.code_span(i + 1, true);
                }
                i + 2
            }
            _ => i + 1,
        }
    }

    /// A backtick run at `run`; `escaped` when its first backtick follows
    /// a backslash and so is literal.
    fn code_span(&mut self, run: usize, escaped: bool) -> usize {
        let n = self.bytes.get(run..).map_or(0, |rest| run_of(rest, b'`'));
        let wanted = if escaped { n - 1 } else { n };
        let after = run + n;
        let close = if wanted == 0 {
            None
        } else {
            self.code_closer(after, wanted)
        };
        let Some(close) = close else {
            return after;
        };
        if escaped {
            self.flush(run + 1);
        } else {
            self.flush(run);
        }
        let mut raw = self.text.get(after..close).unwrap_or_default();
        let mut tail = "";
        if let Some(nl) = raw.bytes().rposition(|b| b == b'\n') {
            let (head, last) = raw.split_at(nl + 1);
            let line = after + nl + 1;
            let lazy = self
                .block
                .lazy_indents
                .get(self.block.lazy_indents.partition_point(|l| l.0 < line));
            let lazy = lazy.filter(|l| l.0 == line);
            if let Some(&(_, mut columns)) =
                lazy.filter(|_| last.bytes().all(|b| b == b' ' || b == b'\t'))
            {
                let skip = last
                    .bytes()
                    .take_while(|&b| {
                        let width = if b == b'\t' { 4 } else { 1 };
                        let fits = columns > 0;
                        columns = columns.saturating_sub(width);
                        fits
                    })
                    .count();
                raw = head;
                tail = last.get(skip..).unwrap_or_default();
            }
        }
        // Line endings become spaces; one space comes off each end when
        // both ends have one and the content is not all spaces.
        let mut trimmed = String::with_capacity(raw.len() + tail.len());
        for part in [raw, tail] {
            let mut mark = 0;
            for (i, b) in part.bytes().enumerate() {
                if b == b'\n' || b == b'\r' {
                    trimmed.push_str(part.get(mark..i).unwrap_or_default());
                    trimmed.push(' ');
                    mark = i + 1;
                }
            }
            trimmed.push_str(part.get(mark..).unwrap_or_default());
        }
        if trimmed.len() > 1
            && trimmed.starts_with(' ')
            && trimmed.ends_with(' ')
            && trimmed.bytes().any(|b| b != b' ')
        {
            trimmed.pop();
            trimmed.remove(0);
        }
        self.pieces.push(Piece::Code(trimmed));
        self.text_start = close + wanted;
        close + wanted
    }

    /// The first backtick run of exactly `len` at or after `from`.
    fn code_closer(&mut self, from: usize, len: usize) -> Option<usize> {
        let runs = self
            .code_runs
            .get_or_insert_with(|| BacktickRuns::new(self.bytes));
        let positions = runs.of_length(len);
        positions
            .get(positions.partition_point(|&p| p < from))
            .copied()
    }

    fn delimiter_run(&mut self, i: usize, ch: u8) -> usize {
        let n = self.bytes.get(i..).map_or(0, |rest| run_of(rest, ch));
        let prev = self.text.get(..i).and_then(|s| s.chars().next_back());
        let next = self.text.get(i + n..).and_then(|s| s.chars().next());
        let prev_space = prev.is_none_or(char::is_whitespace);
        let can_open = match next {
            None => false,
            Some(c) if c.is_whitespace() => false,
            Some(_) if prev.is_none() => true,
            Some(c) if ch == b'*' && !is_punctuation(c) => true,
            Some(_) => prev_space || prev.is_some_and(is_punctuation),
        };
        let can_close = match (prev, next) {
            (None, _) => false,
            (Some(p), _) if p.is_whitespace() => false,
            (_, None) => true,
            (Some(p), _) if ch == b'*' && !is_punctuation(p) => true,
            (_, Some(c)) => c.is_whitespace() || is_punctuation(c),
        };
        if can_open || can_close {
            self.flush(i);
            self.delimiters.push(Delimiter {
                piece: self.pieces.len(),
                ch,
                run: n,
                can_open,
                can_close,
            });
            self.pieces.push(Piece::Delimiter(i, n));
            self.text_start = i + n;
        }
        i + n
    }

    fn angle_bracket(&mut self, i: usize) -> usize {
        if self.bytes.get(i + 1) == Some(&b'\\') {
            return i + 1;
        }
        if let Some(end) = scan_autolink(self.bytes, i + 1) {
            self.flush(i);
            self.pieces.push(Piece::Text(i + 1, end - 1));
            self.text_start = end;
            return end;
        }
        let html = match self.bytes.get(i + 1) {
            Some(b'!') => self.scan_html_declaration(i + 2).map(|end| (end, true)),
            Some(b'?') => self
                .scan_processing_instruction(i + 2)
                .map(|end| (end, true)),
            _ => {
                scan_html_tag(self.bytes.get(i..).unwrap_or_default(), true).map(|n| (i + n, false))
            }
        };
        if let Some((end, from_source)) = html {
            self.flush(i);
            self.pieces.push(if from_source {
                Piece::SourceText(i, end)
            } else {
                Piece::Text(i, end)
            });
            self.text_start = end;
            return end;
        }
        i + 1
    }

    /// A comment, CDATA section or declaration after `<!`.
    fn scan_html_declaration(&mut self, mut ix: usize) -> Option<usize> {
        let bytes = self.bytes;
        let c = *bytes.get(ix)?;
        ix += 1;
        match c {
            b'-' if ix > self.guards.comment => {
                if *bytes.get(ix)? != b'-' {
                    return None;
                }
                ix -= 1;
                while let Some(x) = bytes.get(ix..)?.iter().position(|&b| b == b'-') {
                    ix += x + 1;
                    self.guards.comment = ix;
                    if bytes.get(ix) == Some(&b'-') && bytes.get(ix + 1) == Some(&b'>') {
                        return Some(ix + 2);
                    }
                }
                None
            }
            b'[' if bytes.get(ix..)?.starts_with(b"CDATA[") && ix > self.guards.cdata => {
                ix += 6;
                ix = bytes
                    .get(ix..)?
                    .iter()
                    .position(|&b| b == b']')
                    .map_or(bytes.len(), |x| ix + x);
                let closing = run_of(bytes.get(ix..)?, b']');
                ix += closing;
                if closing == 0 || bytes.get(ix) != Some(&b'>') {
                    self.guards.cdata = ix;
                    None
                } else {
                    Some(ix + 1)
                }
            }
            _ if c.is_ascii_alphabetic() && ix > self.guards.declaration => {
                ix = bytes
                    .get(ix..)?
                    .iter()
                    .position(|&b| b == b'>')
                    .map_or(bytes.len(), |x| ix + x);
                if bytes.get(ix) == Some(&b'>') {
                    Some(ix + 1)
                } else {
                    self.guards.declaration = ix;
                    None
                }
            }
            _ => None,
        }
    }

    /// A processing instruction after `<?`.
    fn scan_processing_instruction(&mut self, mut ix: usize) -> Option<usize> {
        if ix <= self.guards.processing {
            return None;
        }
        while let Some(x) = self.bytes.get(ix..)?.iter().position(|&b| b == b'?') {
            ix += x + 1;
            if self.bytes.get(ix) == Some(&b'>') {
                return Some(ix + 1);
            }
        }
        self.guards.processing = ix;
        None
    }

    fn entity(&mut self, i: usize) -> usize {
        match scan_entity(self.bytes.get(i..).unwrap_or_default()) {
            Some((n, value)) => {
                self.flush(i);
                self.pieces.push(Piece::Entity(value));
                self.text_start = i + n;
                i + n
            }
            None => i + 1,
        }
    }

    fn open_bracket(&mut self, i: usize, image: bool) -> usize {
        self.flush(i);
        let label_start = i + if image { 2 } else { 1 };
        self.brackets.push(Bracket {
            piece: self.pieces.len(),
            image,
            disabled: false,
            delimiter_bottom: self.delimiters.len(),
            start: i,
            label_start,
        });
        self.pieces.push(Piece::Open(image));
        self.text_start = label_start;
        label_start
    }

    fn close_bracket(&mut self, i: usize) -> usize {
        self.flush(i);
        let could_be_reference = self.label_close_not_reference != Some(i);
        let Some(bracket) = self.brackets.pop() else {
            return i + 1;
        };
        self.links_disabled_below = self.links_disabled_below.min(self.brackets.len());
        if bracket.disabled {
            return i + 1;
        }
        if let Some((end, target)) = self.scan_inline_link(i + 1) {
            self.resolve(bracket, target, end);
            return end;
        }
        let after = i + 1;
        let rest = self.bytes.get(after..).unwrap_or_default();
        let full = if rest.starts_with(b"[]") {
            None
        } else if rest.first() == Some(&b'[') {
            self.text.get(after + 1..).and_then(scan_label)
        } else {
            None
        };
        let (label, end, resume) = match full {
            Some((len, label)) => {
                self.label_close_not_reference = Some(after + len);
                (label, after + 1 + len, after + 1 + len)
            }
            None => {
                if !could_be_reference {
                    return i + 1;
                }
                // A collapsed reference's span ends at its first `]`, as
                // pulldown-cmark reports it; the `[]` is skipped all the same.
                let resume = if rest.starts_with(b"[]") {
                    after + 2
                } else {
                    after
                };
                match self.text.get(bracket.label_start..).and_then(scan_label) {
                    Some((len, label)) if bracket.label_start + len == after => {
                        (label, after, resume)
                    }
                    _ => return i + 1,
                }
            }
        };
        match self.definitions.get(&label) {
            Some(target) => {
                let target = target.clone();
                self.resolve(bracket, target, end);
                self.text_start = resume;
                resume
            }
            None => i + 1,
        }
    }

    /// Whitespace with at most one line ending inside an inline link.
    fn skip_link_space(&self, mut ix: usize) -> usize {
        let spaces = |ix: usize| count_spaces(self.bytes.get(ix..).unwrap_or_default());
        ix += spaces(ix);
        if self.bytes.get(ix) == Some(&b'\r') {
            ix += 1;
        }
        if self.bytes.get(ix) == Some(&b'\n') {
            ix += 1;
        }
        ix + spaces(ix)
    }

    /// `(destination "title")` at `start`: where it ends and the target.
    fn scan_inline_link(&self, start: usize) -> Option<(usize, LinkTarget)> {
        if self.bytes.get(start) != Some(&b'(') {
            return None;
        }
        let mut ix = self.skip_link_space(start + 1);
        let (len, dest) = scan_destination(self.text, ix)?;
        ix = self.skip_link_space(ix + len);
        let mut title = String::new();
        if let Some((len, value)) = scan_title(self.text, ix, false) {
            title = value;
            ix = self.skip_link_space(ix + len);
        }
        if self.bytes.get(ix) != Some(&b')') {
            return None;
        }
        let url = unescape(dest);
        Some((ix + 1, LinkTarget { url, title }))
    }

    /// Makes `bracket` a link or image ending at `end`, resolving the
    /// emphasis inside it.
    fn resolve(&mut self, bracket: Bracket, target: LinkTarget, end: usize) {
        let end_piece = self.pieces.len();
        self.pieces.push(Piece::End);
        if let Some(piece) = self.pieces.get_mut(bracket.piece) {
            *piece = Piece::Start {
                image: bracket.image,
                target,
                start: bracket.start,
                end,
                end_piece,
            };
        }
        let bottom = bracket.delimiter_bottom.min(self.delimiters.len());
        resolve_emphasis(
            &mut self.pieces,
            self.delimiters.get(bottom..).unwrap_or_default(),
        );
        self.delimiters.truncate(bottom);
        if !bracket.image {
            for open in self.brackets.iter_mut().skip(self.links_disabled_below) {
                if !open.image {
                    open.disabled = true;
                }
            }
            self.links_disabled_below = self.brackets.len();
        }
        self.text_start = end;
    }

    fn push_text(&self, piece: &Piece, out: &mut String) {
        match piece {
            Piece::Text(start, end) => {
                out.push_str(self.text.get(*start..*end).unwrap_or_default())
            }
            Piece::SourceText(start, end) => {
                let start = self.block.source_offset(*start);
                let end = self.block.source_offset(end.saturating_sub(1)) + 1;
                out.push_str(self.source.get(start..end).unwrap_or_default());
            }
            Piece::Code(code) => out.push_str(code),
            Piece::Entity(value) => value.push_to(out),
            Piece::Break(_) => out.push('\n'),
            Piece::Delimiter(start, count) => {
                out.push_str(self.text.get(*start..start + count).unwrap_or_default())
            }
            Piece::Open(image) => out.push_str(if *image { "![" } else { "[" }),
            Piece::Start { .. } | Piece::End => {}
        }
    }

    fn images(mut self) -> Vec<FoundImage> {
        let mut images = Vec::new();
        let mut k = 0;
        while k < self.pieces.len() {
            let Some(Piece::Start {
                image: true,
                end_piece,
                start,
                end,
                ..
            }) = self.pieces.get(k)
            else {
                k += 1;
                continue;
            };
            let (end_piece, start, end) = (*end_piece, *start, *end);
            let mut alt = String::new();
            // pulldown-cmark resolves a link's content lazily, from its first
            // emphasis delimiter on; only then does a backslash break that
            // ends the content turn back into a backslash. One flag per
            // open link or image: whether its content has a delimiter.
            let mut has_delimiter = vec![false];
            for j in k + 1..end_piece {
                let Some(piece) = self.pieces.get(j) else {
                    break;
                };
                match piece {
                    Piece::Start { .. } => has_delimiter.push(false),
                    Piece::End => {
                        has_delimiter.pop();
                    }
                    Piece::Delimiter(..) => {
                        if let Some(flag) = has_delimiter.last_mut() {
                            *flag = true;
                        }
                    }
                    _ => {}
                }
                let last = matches!(self.pieces.get(j + 1), Some(Piece::End) | None);
                match piece {
                    Piece::Break(true) if last && has_delimiter.last() == Some(&true) => {
                        alt.push('\\')
                    }
                    _ => self.push_text(piece, &mut alt),
                }
            }
            if let Some(Piece::Start { target, .. }) = self.pieces.get_mut(k) {
                let target = std::mem::take(target);
                images.push(FoundImage {
                    alt,
                    target,
                    start,
                    end,
                });
            }
            k = end_piece.max(k) + 1;
        }
        images
    }
}

/// The offsets of a block's backtick runs grouped by run length, so finding
/// a code span's closer is a binary search.
struct BacktickRuns(
    /// `.0[n]` are the offsets of the runs of length `n`, in order.
    Vec<Vec<usize>>,
);

impl BacktickRuns {
    fn new(bytes: &[u8]) -> Self {
        let mut by_length: Vec<Vec<usize>> = Vec::new();
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            if b == b'`' {
                let n = run_of(&bytes[i..], b'`');
                if by_length.len() <= n {
                    by_length.resize_with(n + 1, Vec::new);
                }
                if let Some(runs) = by_length.get_mut(n) {
                    runs.push(i);
                }
                i += n;
            } else {
                i += 1;
            }
        }
        BacktickRuns(by_length)
    }

    fn of_length(&self, n: usize) -> &[usize] {
        self.0.get(n).map_or(&[], Vec::as_slice)
    }
}

/// An opener waiting for a closer while resolving emphasis.
#[derive(Clone, Copy)]
struct OpenRun {
    piece: usize,
    count: usize,
    run: usize,
    ch: u8,
    both: bool,
}

/// Matches `*`/`_` runs inside one link or image (pulldown-cmark's inline
/// stack), leaving in each run's piece how many characters stay text.
fn resolve_emphasis(pieces: &mut [Piece], delimiters: &[Delimiter]) {
    let mut stack: Vec<OpenRun> = Vec::new();
    // Lower bounds per (character, both, run length mod 3), as pulldown-cmark.
    let mut bounds = [0usize; 8];
    let bound_index = |ch: u8, run: usize, both: bool| -> (usize, Option<usize>) {
        let base = if ch == b'_' { 0 } else { 4 };
        (base + 1 + run % 3, (!both).then_some(base))
    };
    for d in delimiters {
        let mut count = d.run;
        let both = d.can_open && d.can_close;
        if d.can_close {
            loop {
                let (mod_index, not_both_index) = bound_index(d.ch, d.run, both);
                let mut lower = bounds[mod_index];
                if let Some(nb) = not_both_index {
                    lower = lower.min(bounds[nb]);
                }
                let lower = lower.min(stack.len());
                let found = stack[lower..].iter().rposition(|el| {
                    el.ch == d.ch
                        && (!both && !el.both || (d.run + el.run) % 3 != 0 || d.run % 3 == 0)
                });
                let Some(offset) = found else {
                    bounds[mod_index] = stack.len();
                    if let Some(nb) = not_both_index {
                        bounds[nb] = stack.len();
                    }
                    break;
                };
                let at = lower + offset;
                let opener = stack[at];
                stack.truncate(at);
                for bound in &mut bounds {
                    *bound = (*bound).min(at);
                }
                let matched = count.min(opener.count);
                if let Some(Piece::Delimiter(_, left)) = pieces.get_mut(opener.piece) {
                    *left = opener.count - matched;
                }
                if opener.count > matched {
                    stack.push(OpenRun {
                        count: opener.count - matched,
                        ..opener
                    });
                }
                count -= matched;
                if let Some(Piece::Delimiter(_, left)) = pieces.get_mut(d.piece) {
                    *left = count;
                }
                if count == 0 {
                    break;
                }
            }
        }
        if count > 0 && d.can_open {
            stack.push(OpenRun {
                piece: d.piece,
                count,
                run: d.run,
                ch: d.ch,
                both,
            });
        }
    }
}

/// An autolink after a `<` at `start`: the offset past its `>`.
fn scan_autolink(bytes: &[u8], start: usize) -> Option<usize> {
    let rest = bytes.get(start..)?;
    scan_uri(rest)
        .or_else(|| scan_email(rest))
        .map(|n| start + n)
}

fn scan_uri(bytes: &[u8]) -> Option<usize> {
    if !bytes.first()?.is_ascii_alphabetic() {
        return None;
    }
    let mut i = 1;
    while let Some(&c) = bytes.get(i) {
        i += 1;
        match c {
            b'.' | b'-' | b'+' => {}
            b':' => break,
            _ if c.is_ascii_alphanumeric() => {}
            _ => return None,
        }
    }
    if !(3..=33).contains(&i) {
        return None;
    }
    while let Some(&c) = bytes.get(i) {
        match c {
            b'>' => return Some(i + 1),
            0..=b' ' | b'<' => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

fn scan_email(bytes: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some(&c) = bytes.get(i) {
        i += 1;
        match c {
            b'.' | b'!' | b'#' | b'$' | b'%' | b'&' | b'\'' | b'*' | b'+' | b'/' | b'=' | b'?'
            | b'^' | b'_' | b'`' | b'{' | b'|' | b'}' | b'~' | b'-' => {}
            b'@' if i > 1 => break,
            _ if c.is_ascii_alphanumeric() => {}
            _ => return None,
        }
    }
    loop {
        let label_start = i;
        let mut fresh = true;
        while let Some(&c) = bytes.get(i) {
            match c {
                b'-' if fresh => return None,
                b'-' => {}
                _ if c.is_ascii_alphanumeric() => {}
                _ => break,
            }
            fresh = false;
            i += 1;
        }
        if i == label_start || i - label_start > 63 || bytes.get(i - 1) == Some(&b'-') {
            return None;
        }
        if bytes.get(i) != Some(&b'.') {
            break;
        }
        i += 1;
    }
    (bytes.get(i) == Some(&b'>')).then_some(i + 1)
}

/// An open or closing HTML tag at the start of `bytes` (which begins with
/// `<`): its length. `newlines` allows line endings inside, as inline HTML
/// does and HTML block starts do not.
pub(super) fn scan_html_tag(bytes: &[u8], newlines: bool) -> Option<usize> {
    let closing = usize::from(bytes.get(1) == Some(&b'/'));
    let name = bytes
        .get(1 + closing..)?
        .iter()
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    if name == 0 {
        return None;
    }
    let mut i = 1 + closing + name;
    i += bytes
        .get(i..)?
        .iter()
        .take_while(|&&b| b == b'-' || b.is_ascii_alphanumeric())
        .count();
    if closing == 0 {
        loop {
            let before = i;
            loop {
                i += count_spaces(bytes.get(i..)?);
                match bytes.get(i) {
                    None => return None,
                    Some(b'\n' | b'\r') if newlines => i += 1,
                    Some(b'\n' | b'\r') => return None,
                    _ => break,
                }
            }
            if matches!(bytes.get(i), Some(b'/' | b'>')) {
                break;
            }
            if before == i {
                return None;
            }
            i = scan_attribute(bytes, i, newlines)?;
        }
    }
    i += count_spaces(bytes.get(i..)?);
    if closing == 0 && bytes.get(i) == Some(&b'/') {
        i += 1;
    }
    (bytes.get(i) == Some(&b'>')).then_some(i + 1)
}

/// Whitespace, line endings included when `newlines`.
fn skip_html_space(bytes: &[u8], mut i: usize, newlines: bool) -> Option<usize> {
    while let Some(&b) = bytes.get(i) {
        if !super::links::is_whitespace(b) {
            break;
        }
        if (b == b'\n' || b == b'\r') && !newlines {
            return None;
        }
        i += 1;
    }
    Some(i)
}

fn scan_attribute(bytes: &[u8], mut i: usize, newlines: bool) -> Option<usize> {
    let first = *bytes.get(i)?;
    if !(first.is_ascii_alphabetic() || first == b'_' || first == b':') {
        return None;
    }
    i += 1;
    i += bytes
        .get(i..)?
        .iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'-'))
        .count();
    let after_name = i;
    i = skip_html_space(bytes, i, newlines)?;
    if bytes.get(i) != Some(&b'=') {
        return Some(after_name);
    }
    i = skip_html_space(bytes, i + 1, newlines)?;
    match *bytes.get(i)? {
        q @ (b'"' | b'\'') => {
            i += 1;
            while let Some(&c) = bytes.get(i) {
                if c == q {
                    return Some(i + 1);
                }
                if (c == b'\n' || c == b'\r') && !newlines {
                    return None;
                }
                i += 1;
            }
            None
        }
        b' ' | b'=' | b'>' | b'<' | b'`' | b'\n' | b'\r' => None,
        _ => Some(
            i + bytes
                .get(i..)?
                .iter()
                .take_while(|&&c| {
                    !matches!(
                        c,
                        b'\'' | b'"' | b' ' | b'=' | b'>' | b'<' | b'`' | b'\n' | b'\r'
                    )
                })
                .count(),
        ),
    }
}
