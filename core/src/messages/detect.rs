//! Telling the wire format from the messages themselves: each message is
//! read once and every format's [`Evidence`] asked of it, in list order.

use super::evidence::{Evidence, MessageFields};
use super::Format;
use serde_json::Value;

/// What one message says of its format: the format its shape names, the
/// format of its first exclusive part, and its first decisive evidence.
/// Verdicts fold in order ([`Verdict::fold`]), so a message read once can
/// be remembered by its verdict and detection run again without it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Verdict {
    /// The format its shape is evidence of (a narrow shape before the others).
    shape: Option<Format>,
    /// The format of its first content part only one format has.
    exclusive: Option<Format>,
    /// Its first decisive evidence: fields that decide first, else its
    /// first decisive part, else fields that decide last.
    decisive: Option<Format>,
}

/// Detection under way: the verdicts of the messages so far, folded in
/// order. The three kinds of evidence are each looked for in every message
/// before the next: the first message whose shape is evidence decides,
/// else the first exclusive part, else the first decisive evidence.
/// Messages that are all plain strings read as the list's first format
/// (OpenAI).
#[derive(Debug, Clone, Copy, Default)]
pub struct Detection {
    /// The first format a message's shape named.
    shape: Option<Format>,
    /// The first exclusive part's format.
    exclusive: Option<Format>,
    /// The first decisive evidence.
    decisive: Option<Format>,
}

impl Detection {
    /// Folds the next message's verdict in.
    pub fn add(&mut self, verdict: Verdict) {
        self.shape = self.shape.or(verdict.shape);
        self.exclusive = self.exclusive.or(verdict.exclusive);
        self.decisive = self.decisive.or(verdict.decisive);
    }

    /// Whether a shape decided: no later message can change the format.
    pub fn decided(&self) -> bool {
        self.shape.is_some()
    }

    /// The format the verdicts so far give.
    pub fn format(&self) -> Format {
        self.shape
            .or(self.exclusive)
            .or(self.decisive)
            .unwrap_or(Format::DEFAULT)
    }
}

/// The format of `messages`, `evidence_of` giving each format's evidence:
/// each message read once, for only what detection still needs.
pub(super) fn detect_with(messages: &[Value], evidence_of: EvidenceOf) -> Format {
    let mut detection = Detection::default();
    for m in messages {
        detection.add(verdict_with(m, evidence_of, &detection));
        if detection.decided() {
            break;
        }
    }
    detection.format()
}

/// The verdict of one message, `evidence_of` giving each format's
/// evidence, for what `after` (the detection of the messages before it)
/// still needs: nothing once a shape decided, no part once an exclusive
/// part was found, no decisive evidence once some was.
/// `Detection::default()` asks the whole verdict.
pub(super) fn verdict_with(message: &Value, evidence_of: EvidenceOf, after: &Detection) -> Verdict {
    if after.decided() {
        return Verdict::default();
    }
    let fields = match message {
        Value::Array(_) => MessageFields::tuple(),
        Value::Object(map) => MessageFields::of(map),
        _ => return Verdict::default(),
    };
    let shape = |e: &Evidence| e.shape.is_some_and(|f| f(&fields));
    let narrow = |e: &Evidence| e.narrow_shape.is_some_and(|f| f(&fields));
    if let Some(format) = first(evidence_of, narrow).or_else(|| first(evidence_of, shape)) {
        return Verdict {
            shape: Some(format),
            ..Verdict::default()
        };
    }
    let mut verdict = Verdict::default();
    if after.exclusive.is_none() {
        // Set to skip the search for decisive evidence once some was found.
        let mut decisive = after.decisive.map(|_| Format::DEFAULT);
        part_evidence(&fields, evidence_of, &mut verdict.exclusive, &mut decisive);
        if after.decisive.is_none() {
            verdict.decisive = decisive;
        }
    }
    verdict
}

/// Gives each format's evidence.
type EvidenceOf = fn(Format) -> &'static Evidence;

/// The first format in the list whose evidence passes `test`.
fn first(evidence_of: EvidenceOf, test: impl Fn(&Evidence) -> bool) -> Option<Format> {
    Format::ALL
        .into_iter()
        .find(|&format| test(evidence_of(format)))
}

/// Sets `exclusive` to the first content part of `m` only one format has,
/// and `decisive` (while unset) to the first decisive evidence of `m`:
/// fields that decide first, else its first decisive part, else fields that
/// decide last.
fn part_evidence(
    m: &MessageFields<'_>,
    evidence_of: EvidenceOf,
    exclusive: &mut Option<Format>,
    decisive: &mut Option<Format>,
) {
    let look_for_decisive = decisive.is_none();
    let mut from_parts = None;
    if let Some(Value::Array(parts)) = m.content {
        for part in parts {
            let Some(map) = part.as_object() else {
                continue;
            };
            let Some(part_type) = map.get("type").and_then(Value::as_str) else {
                continue;
            };
            if let Some(format) = first(evidence_of, |e| {
                e.exclusive_part.is_some_and(|f| f(map, part_type))
            }) {
                *exclusive = Some(format);
                return;
            }
            if look_for_decisive && from_parts.is_none() {
                from_parts = first(evidence_of, |e| e.part.is_some_and(|f| f(map, part_type)));
            }
        }
    }
    if look_for_decisive {
        *decisive = first(evidence_of, |e| e.fields_first.is_some_and(|f| f(m)))
            .or(from_parts)
            .or_else(|| first(evidence_of, |e| e.fields_last.is_some_and(|f| f(m))));
    }
}

#[cfg(test)]
mod tests {
    use super::super::detect_format;
    use super::*;
    use serde_json::json;

    #[test]
    fn detects_each_format() {
        assert_eq!(detect_format(&[json!(["human", "hi"])]), Format::LangChain);
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":"hi"}),
                json!({"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]})
            ]),
            Format::OpenAi
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]})
            ]),
            Format::Anthropic
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"image","image":"AAAA","mediaType":"image/png"}]})
            ]),
            Format::AiSdk
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"file","mediaType":"image","data":{"type":"data","data":"AAAA"}}]})
            ]),
            Format::AiSdk
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]})
            ]),
            Format::Mcp
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"image","url":"https://x.test/a.png"}]})
            ]),
            Format::LangChain
        );
        assert_eq!(
            detect_format(&[json!({"role":"user","content":"hi"})]),
            Format::OpenAi
        );
        assert_eq!(detect_format(&[]), Format::OpenAi);
    }

    #[test]
    fn a_message_shape_decides_before_part_names() {
        let ui = json!({"id":"m2","role":"user","parts":[{"type":"text","text":"hi"}]});
        assert_eq!(detect_format(std::slice::from_ref(&ui)), Format::UiMessage);
        assert_eq!(
            detect_format(&[json!({"id":"m1","role":"assistant","parts":[]})]),
            Format::UiMessage
        );
        assert_eq!(
            detect_format(&[
                json!({"type":"function_call","call_id":"c","name":"f","arguments":"{}"})
            ]),
            Format::OpenAiResponses
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"developer","content":"be brief"}),
                json!({"role":"user","content":[{"type":"input_text","text":"hi"}]})
            ]),
            Format::OpenAiResponses
        );
        assert_eq!(
            detect_format(&[json!({"role":"user","content":"hi","type":"message"})]),
            Format::OpenAiResponses
        );
        assert_eq!(
            detect_format(&[json!({"role":"user","parts":[{"text":"hi"}]})]),
            Format::Gemini
        );
        assert_eq!(
            detect_format(&[json!({"role":"model","parts":[]})]),
            Format::Gemini
        );
        assert_eq!(
            detect_format(&[json!({"role":"user","content":{"type":"text","text":"hi"}})]),
            Format::Mcp
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]}),
                json!({"role":"user","content":[{"type":"tool_result","toolUseId":"t","content":[]}]})
            ]),
            Format::Mcp
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{}}}]}),
                json!({"role":"user","content":"hi","images":["AAAA"]})
            ]),
            Format::Ollama
        );
        assert_eq!(
            detect_format(&[json!({"role":"user","content":"hi","images":[]})]),
            Format::Ollama
        );
        // Exclusive evidence found first does not outvote a later shape.
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"input_text","text":"hi"}]}),
                json!({"role":"assistant","content":"x"}),
                json!({"role":"user","content":"hi","images":[]})
            ]),
            Format::Ollama
        );
        // Within a message, OpenAI's tool call fields decide before its
        // parts; the first message with evidence decides before later ones.
        assert_eq!(
            detect_format(&[
                json!({"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}],"tool_calls":[]}),
                json!({"role":"user","content":[{"type":"image","source":{}}]})
            ]),
            Format::OpenAi
        );
        assert_eq!(
            detect_format(&[
                json!({"role":"user","content":[{"type":"text","text":"a"},{"type":"tool-result"},{"type":"image_url"}]}),
                json!({"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]})
            ]),
            Format::AiSdk
        );
        // An OpenAI-looking message first does not outvote a UIMessage.
        assert_eq!(
            detect_format(&[json!({"role":"system","content":"x","tool_calls":[]}), ui]),
            Format::UiMessage
        );
    }
}
