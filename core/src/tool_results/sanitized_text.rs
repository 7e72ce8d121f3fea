//! A tool result's JSON text as sanitizing left it, remembered by the host
//! for the caller's very string (its [`SanitizeMemo`]): a history sent
//! again with the same tool result is not parsed, hashed or written again
//! while the stash still holds the records its markers name.

use crate::budget::json_len;
use crate::stash::{NewRecord, RecordMeta};

/// The host's memory of what sanitizing its tool texts made of them: the
/// sanitize memo, apart from the payload source (`Payloads`). By default it
/// remembers nothing.
pub trait SanitizeMemo {
    /// When `s` is a string the host held because it may be a tool
    /// result's JSON text (long, opening `{` or `[`): what sanitizing the very
    /// same string made of it before, else its text, read now. `None` for
    /// anything else.
    fn held_json(&self, s: &str) -> Option<HeldJson> {
        let _ = s;
        None
    }

    /// Remembers `outcome`, what sanitizing the held JSON text `s` made of
    /// it, for the next [`SanitizeMemo::held_json`] of the same string.
    fn remember_sanitized(&self, s: &str, outcome: SanitizedText) {
        let _ = (s, outcome);
    }
}

/// Payloads in wasm memory remember nothing.
impl SanitizeMemo for crate::media::payload::InMemory {}

/// What sanitizing a tool result's JSON text made of it. With every binary
/// in it stashed, this depends on the text alone: the same text gives the
/// same markers in the same places.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SanitizedText {
    /// The JSON text, each binary replaced by its stashed marker.
    pub text: String,
    /// The ids of the records its markers name, each once.
    pub ids: Vec<String>,
    /// How many binaries were replaced.
    pub stashed: usize,
    /// The length in bytes of the original text written inside a JSON
    /// string (escaped, without the quotes): what the size before counts.
    pub escaped_len: u64,
}

/// A string the host held because it may be a tool result's JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeldJson {
    /// What sanitizing the very same text made of it before.
    Remembered(SanitizedText),
    /// Its text, read now: nothing is remembered of it.
    Text(String),
}

/// The length in bytes of `text` written inside a JSON string, without the
/// quotes.
pub fn escaped_len(text: &str) -> u64 {
    json_len(text).saturating_sub(2)
}

impl SanitizedText {
    /// The records to confirm before this outcome is used: each id the
    /// stash lists (`listed`) live at `now`, as it is listed. `None`
    /// when one is not listed live: the text is read again instead.
    pub fn confirmations<'l>(
        &self,
        listed: &dyn Fn(&str) -> Option<&'l RecordMeta>,
        now: f64,
    ) -> Option<Vec<NewRecord<'static>>> {
        self.ids
            .iter()
            .map(|id| {
                let meta = listed(id).filter(|m| m.expires_at > now)?;
                Some(NewRecord {
                    id: id.clone(),
                    mime: meta.mime.clone(),
                    payload: "",
                    meta: meta.clone(),
                    part: meta.part.clone(),
                    stored: true,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(id: &str, expires_at: f64) -> RecordMeta {
        RecordMeta {
            id: id.into(),
            size: 10,
            stored_bytes: 16,
            mime: "image/png".into(),
            created_at: 1.0,
            expires_at,
            last_used_at: 1.0,
            part: None,
            files: Vec::new(),
        }
    }

    #[test]
    fn counts_the_escapes_json_writes() {
        assert_eq!(escaped_len("{\"a\":\"é\\n\"}\u{1}"), 23);
        assert_eq!(escaped_len(""), 0);
    }

    #[test]
    fn is_confirmed_only_when_every_record_is_listed_live() {
        let outcome = SanitizedText {
            text: "{}".into(),
            ids: vec!["a".into(), "b".into()],
            stashed: 2,
            escaped_len: 2,
        };
        let listed: std::collections::BTreeMap<_, _> = [
            ("a".to_owned(), meta("a", 50.0)),
            ("b".to_owned(), meta("b", 50.0)),
        ]
        .into();
        let confirm = outcome.confirmations(&|id| listed.get(id), 10.0).unwrap();
        assert_eq!(confirm.len(), 2);
        assert!(confirm.iter().all(|r| r.stored && r.meta == listed[&r.id]));
        assert_eq!(outcome.confirmations(&|id| listed.get(id), 50.0), None);
        let one = meta("a", 50.0);
        let only_a = |id: &str| (id == "a").then_some(&one);
        assert_eq!(outcome.confirmations(&only_a, 10.0), None);
    }
}
