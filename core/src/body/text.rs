//! The body's text, kept for the length of one call, and the payloads that
//! messages' values reference in it.

use super::error::BodyError;
use super::value_seed::{Entry, Refs, ValueSeed};
use crate::event_loop::EventLoop;
use crate::media::{facts_of_text, find_external_ref, PayloadFacts, Payloads};
use crate::tool_results::SanitizeMemo;
use serde::de::DeserializeSeed;
use serde_json::Value;
use std::cell::{Cell, RefCell};

/// The table number of references into a body: tables of kept host values
/// count from 1, so no reference of theirs can stand for a body's text.
pub const BODY_TABLE: u32 = 0;

/// The facts of the payload an entry stands for, read with a head of
/// `head_bytes` bytes.
pub(super) struct KnownFacts {
    entry: usize,
    head_bytes: usize,
    facts: PayloadFacts,
}

/// A request body's text and the strings its messages' values reference.
pub struct BodyText {
    text: String,
    entries: Vec<Entry>,
    event_loop: Option<&'static dyn EventLoop>,
    /// The host's drawing of placeholders' pictures, when it has one.
    draw_picture: Option<fn(&str) -> Option<String>>,
    /// The facts of the payloads read so far, by entry and head size: a
    /// body read after the one before it keeps those of the bytes the two
    /// share (see [`super::PreviousBody`]).
    facts: RefCell<Vec<KnownFacts>>,
    /// How many payloads' facts were read from the text in this call.
    facts_read: Cell<usize>,
}

impl BodyText {
    /// `text`, no reference made into it yet.
    pub(super) fn new(text: String) -> BodyText {
        BodyText {
            text,
            entries: Vec::new(),
            event_loop: None,
            draw_picture: None,
            facts: RefCell::default(),
            facts_read: Cell::new(0),
        }
    }

    /// The text, with its references and the facts of the payloads that
    /// lie in its first `keep` bytes (those of a text that begins with
    /// them are the same).
    pub(super) fn into_parts(self, keep: usize) -> (String, Vec<Entry>, Vec<KnownFacts>) {
        let within =
            |entry: Option<&Entry>| matches!(entry, Some(Entry::Span(_, end)) if *end <= keep);
        let mut facts = self.facts.take();
        facts.retain(|known| within(self.entries.get(known.entry)));
        (self.text, self.entries, facts)
    }

    /// `text` with the references and facts [`BodyText::into_parts`] gave.
    pub(super) fn resumed(text: String, entries: Vec<Entry>, facts: Vec<KnownFacts>) -> BodyText {
        BodyText {
            text,
            entries,
            event_loop: None,
            draw_picture: None,
            facts: RefCell::new(facts),
            facts_read: Cell::new(0),
        }
    }

    /// How many payloads' facts are known.
    #[cfg(test)]
    pub(super) fn facts_known(&self) -> usize {
        self.facts.borrow().len()
    }

    /// How many references were made into the text.
    pub(super) fn entry_count(&self) -> usize {
        self.entries.len()
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

    /// How many payloads' facts (their MD5 among them) were read from the
    /// text since it was read; those of a body read before are not.
    pub fn facts_read(&self) -> usize {
        self.facts_read.get()
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

    /// The entry `s` ends in a reference to, when it references this body.
    fn entry_of(s: &str) -> Option<(&str, usize)> {
        let (before, table, index) = find_external_ref(s)?;
        (table == BODY_TABLE).then_some((before, index as usize))
    }

    /// When `s` ends in a reference into this body: the text before the
    /// reference, and the text the reference stands for.
    pub fn resolve<'s>(&'s self, s: &'s str) -> Option<(&'s str, &'s str)> {
        let (before, index) = Self::entry_of(s)?;
        let text = match self.entries.get(index)? {
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

    /// Read once per payload and head size, and kept for the body read
    /// after this one where the two share the payload's bytes.
    fn facts(&self, s: &str, head_bytes: usize) -> PayloadFacts {
        let Some((_, index)) = Self::entry_of(s) else {
            return facts_of_text(self, s, head_bytes);
        };
        let found = self
            .facts
            .borrow()
            .iter()
            .find(|k| k.entry == index && k.head_bytes == head_bytes)
            .map(|k| k.facts.clone());
        if let Some(facts) = found {
            return facts;
        }
        let facts = facts_of_text(self, s, head_bytes);
        self.facts_read.set(self.facts_read.get() + 1);
        self.facts.borrow_mut().push(KnownFacts {
            entry: index,
            head_bytes,
            facts: facts.clone(),
        });
        facts
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
