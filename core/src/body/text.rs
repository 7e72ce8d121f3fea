//! The body's text, kept for the length of one call, and the payloads that
//! messages' values reference in it.

use super::error::BodyError;
use super::value_seed::{Entry, Refs, ValueSeed};
use crate::event_loop::EventLoop;
use crate::media::{find_external_ref, Payloads};
use crate::tool_results::SanitizeMemo;
use serde::de::DeserializeSeed;
use serde_json::Value;

/// The table number of references into a body: tables of kept host values
/// count from 1, so no reference of theirs can stand for a body's text.
pub const BODY_TABLE: u32 = 0;

/// A request body's text and the strings its messages' values reference.
pub struct BodyText {
    text: String,
    entries: Vec<Entry>,
    event_loop: Option<&'static dyn EventLoop>,
    /// The host's drawing of placeholders' pictures, when it has one.
    draw_picture: Option<fn(&str) -> Option<String>>,
}

impl BodyText {
    /// `text`, no reference made into it yet.
    pub(super) fn new(text: String) -> BodyText {
        BodyText {
            text,
            entries: Vec::new(),
            event_loop: None,
            draw_picture: None,
        }
    }

    /// Reads the JSON value at bytes `span` of the text (which the body's
    /// reading found to be one), referencing its long payloads; `path`
    /// names it in an error.
    pub(super) fn read_value(
        &mut self,
        (start, end): (usize, usize),
        path: impl FnOnce() -> String,
    ) -> Result<Value, BodyError> {
        let mut refs = Refs::new(&self.text, &mut self.entries);
        let raw = self.text.get(start..end).unwrap_or_default();
        let mut de = serde_json::Deserializer::from_str(raw);
        let seed = ValueSeed {
            refs: &mut refs,
            key: None,
        };
        seed.deserialize(&mut de)
            .and_then(|v| de.end().map(|()| v))
            .map_err(|e| BodyError::NotJson {
                path: path(),
                reason: e.to_string(),
            })
    }

    /// The body's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Has the flows reading its payloads stop between images to let
    /// `event_loop` run.
    pub fn set_event_loop(&mut self, event_loop: &'static dyn EventLoop) {
        self.event_loop = Some(event_loop);
    }

    /// Has placeholders' pictures drawn by `draw` (see
    /// [`Payloads::placeholder_picture`]), for a build without the core's
    /// own drawing.
    pub fn set_picture_drawer(&mut self, draw: fn(&str) -> Option<String>) {
        self.draw_picture = Some(draw);
    }

    /// When `s` ends in a reference into this body: the text before the
    /// reference, and the text the reference stands for.
    pub fn resolve<'s>(&'s self, s: &'s str) -> Option<(&'s str, &'s str)> {
        let (before, table, index) = find_external_ref(s)?;
        if table != BODY_TABLE {
            return None;
        }
        let text = match self.entries.get(index as usize)? {
            Entry::Span(start, end) => self.text.get(*start..*end)?,
            Entry::Owned(s) => s.as_str(),
        };
        Some((before, text))
    }
}

impl Payloads for BodyText {
    /// The payload a reference stands for, read where it lies in the body.
    fn with_full(&self, s: &str, f: &mut dyn FnMut(&str)) {
        match self.resolve(s) {
            Some((_, text)) => f(text),
            None => f(s),
        }
    }

    fn in_memory<'s>(&'s self, s: &'s str) -> Option<&'s str> {
        self.resolve(s).map(|(_, text)| text)
    }

    fn text_len(&self, s: &str) -> usize {
        self.resolve(s).map_or(s.len(), |(_, text)| text.len())
    }

    fn event_loop(&self) -> Option<&dyn EventLoop> {
        self.event_loop
    }

    fn placeholder_picture(&self, text: &str) -> Option<String> {
        match self.draw_picture {
            Some(draw) => draw(text),
            None => crate::media::text_png::picture_of(text),
        }
    }
}

/// A body remembers no sanitized text between calls.
impl SanitizeMemo for BodyText {}
