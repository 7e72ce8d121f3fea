//! The dispatch by [`Format`] to each format's module, made from the format
//! list (`list.rs`): its [`WireFormat`] (how it reads and writes messages),
//! its [`NewParts`] (how it writes new parts) and its `file_part`, and what
//! every caller asks of a format through them. Everything else a format
//! knows is in its module.

use super::decode::decode_role_content;
use super::detect::{detect_with, verdict_with, Detection, Verdict};
use super::file_ref::{FileProvider, FileRef};
use super::format::NAMES;
use super::image_template::ImageTemplate;
use super::model::{Message, NewParts, WireFormat};
use super::part::Part;
use super::tool_call::ToolDialect;
use super::tool_call::{CallShape, ToolAnswer};
use super::tool_slots::ToolSlot;
use super::{Format, ImageShape, MessageError, Role};
use crate::json_path::JsonPath;
use serde_json::{Map, Value};

/// Makes the dispatch by format to each module's `WIRE`, `NEW_PARTS` and
/// `file_part` from the format list.
macro_rules! define_dispatch {
    ($($(#[doc = $doc:literal])* $variant:ident => $module:ident, $name:literal, [$($alias:literal),*];)*) => {
        /// How `format` reads and writes messages.
        pub(super) fn wire_format(format: Format) -> &'static WireFormat {
            match format {
                $(Format::$variant => &super::$module::WIRE,)*
            }
        }

        /// How `format` writes new parts: its `NEW_PARTS` alone, so a module
        /// that only writes parts links no format's decoder.
        pub(super) fn new_parts(format: Format) -> &'static NewParts {
            match format {
                $(Format::$variant => &super::$module::NEW_PARTS,)*
            }
        }

        /// Writes a new file part of `format`. (A match, not a table field:
        /// a module that writes images alone links no file writer.)
        fn file_writer(format: Format) -> fn(&str, &str, &str) -> Value {
            match format {
                $(Format::$variant => super::$module::file_part,)*
            }
        }

        /// Whether each format of the list, in its order, has a tool dialect
        /// (its `NEW_PARTS.tool_dialect`): the TypeScript union of dialect
        /// names is made of it.
        const HAS_TOOL_DIALECT: [bool; Format::ALL.len()] =
            [$(super::$module::NEW_PARTS.tool_dialect.is_some()),*];

        /// The key of `format`'s request bodies that holds the messages.
        fn messages_key(format: Format) -> &'static str {
            match format {
                $(Format::$variant => super::$module::MESSAGES_KEY,)*
            }
        }

        /// How `format`'s API takes an image by file reference, if it does.
        pub(super) fn file_refs(format: Format) -> Option<&'static super::file_ref::FileRefs> {
            match format {
                $(Format::$variant => super::$module::FILE_REFS.as_ref(),)*
            }
        }
    };
}

super::list::format_list!(define_dispatch);

/// The pieces of [`TOOL_DIALECT_UNION_TS`]: before the names, around
/// each, and after them.
const TOOL_DIALECT_UNION: [&str; 4] = [
    "/** The name of a format whose API takes a tool definition: a dialect of `historyImageTool`. */\nexport type ToolDialectName = never",
    " | \"",
    "\"",
    ";\n",
];

/// Writes `text` into `out` from `at`; returns where it ends. With
/// `out` empty, only counts.
const fn put(out: &mut [u8], at: usize, text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut k = 0;
    while k < bytes.len() && !out.is_empty() {
        out[at + k] = bytes[k];
        k += 1;
    }
    at + bytes.len()
}

/// Writes the union into `out` (or, `out` empty, counts its bytes); returns
/// its length.
const fn tool_dialect_union(out: &mut [u8]) -> usize {
    let [head, open, close, tail] = TOOL_DIALECT_UNION;
    let mut at = put(out, 0, head);
    let mut i = 0;
    while i < NAMES.len() {
        if HAS_TOOL_DIALECT[i] {
            at = put(out, at, open);
            at = put(out, at, NAMES[i].1);
            at = put(out, at, close);
        }
        i += 1;
    }
    put(out, at, tail)
}

/// [`TOOL_DIALECT_UNION_TS`]'s bytes.
const TOOL_DIALECT_UNION_BYTES: [u8; tool_dialect_union(&mut [])] = {
    let mut out = [0u8; tool_dialect_union(&mut [])];
    tool_dialect_union(&mut out);
    out
};

/// The `ToolDialectName` type of the TypeScript declarations: the union of
/// the names of the formats whose API takes a tool definition, in the
/// list's order.
pub const TOOL_DIALECT_UNION_TS: &str = match std::str::from_utf8(&TOOL_DIALECT_UNION_BYTES) {
    Ok(text) => text,
    Err(_) => "",
};

impl Format {
    /// A text content part in this format: `{type:'text', text}`, Responses
    /// `{type:'input_text', text}`, Gemini `{text}`.
    pub fn text_part(self, text: String) -> serde_json::Value {
        Part::text_in(self, text).into_wire()
    }

    /// The key of this format's request bodies that holds the messages
    /// (`messages`, Gemini's `contents`, Responses' and Interactions' `input`).
    pub fn messages_key(self) -> &'static str {
        messages_key(self)
    }

    /// True when a message's content may be one plain string. Where it may
    /// not (UIMessage and Gemini `parts`, MCP blocks, Interactions steps),
    /// text written as one string goes back as one text part.
    pub fn has_string_content(self) -> bool {
        new_parts(self).string_content
    }

    /// How this format's API takes a tool definition, if it takes one.
    pub fn tool_dialect(self) -> Option<ToolDialect> {
        new_parts(self).tool_dialect
    }

    /// Writes a prompt-cache breakpoint at the end of the raw `message`:
    /// `None` where this format's API caches a request's prefix by itself,
    /// else whether the message holds one now.
    pub fn mark_cache_breakpoint(self, message: &mut serde_json::Value) -> Option<bool> {
        new_parts(self).cache_breakpoint.map(|mark| mark(message))
    }

    /// False for a format whose messages carry images and nothing else
    /// (Ollama): a file goes to it as a description.
    pub fn has_file_parts(self) -> bool {
        new_parts(self).file_parts
    }
}

impl Part {
    /// A new plain text part in the shape `format` writes: `{type:'text',
    /// text}`, Responses `{type:'input_text', text}`, Gemini `{text}`.
    pub fn text_in(format: Format, text: String) -> Part {
        Part::typed_text(new_parts(format).text_type, text)
    }
}

impl ImageShape {
    /// The shape stored under `name`, among those of every format.
    pub fn from_name(name: &str) -> Option<ImageShape> {
        all_shapes().find(|shape| shape.name() == name)
    }
}

impl ToolDialect {
    /// The dialect of the format named `name` (a format name or one of its
    /// other names), if that format has one.
    pub fn from_name(name: &str) -> Option<ToolDialect> {
        Format::from_name(name, "").ok()?.tool_dialect()
    }

    /// The names [`ToolDialect::from_name`] reads, for error messages:
    /// `'a', 'b' or 'c'`.
    pub fn expected_names() -> String {
        let names: Vec<String> = Format::ALL
            .into_iter()
            .filter(|f| f.tool_dialect().is_some())
            .map(|f| format!("'{}'", f.name()))
            .collect();
        match names.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

/// The format of `messages`, from the evidence each format's module gives
/// (see `detect.rs`).
pub fn detect_format(messages: &[Value]) -> Format {
    detect_with(messages, |format| &wire_format(format).evidence)
}

/// What one message says of its format, whole, to fold with others'
/// ([`Detection`]) as [`detect_format`] does.
pub fn verdict_of(message: &Value) -> Verdict {
    verdict_after(message, &Detection::default())
}

/// As [`verdict_of`], for only what `after` (the detection of the messages
/// before it) still needs.
pub fn verdict_after(message: &Value, after: &Detection) -> Verdict {
    verdict_with(message, |format| &wire_format(format).evidence, after)
}

/// Every image shape of every format.
pub(super) fn all_shapes() -> impl Iterator<Item = ImageShape> {
    Format::ALL
        .into_iter()
        .flat_map(|format| new_parts(format).shapes.iter().copied())
}

/// Where a tool call of `format` keeps its id, name and arguments; for a
/// format whose calls are not answered with messages (UIMessage), what to
/// do instead.
pub fn call_shape(format: Format) -> Result<CallShape, &'static str> {
    wire_format(format).call
}

/// The messages that answer a tool call in `format`, as its API takes them
/// (its module writes them).
pub fn answer_tool_call(format: Format, answer: &ToolAnswer<'_>) -> Vec<Value> {
    (wire_format(format).answer)(answer)
}

/// A new image part of `format` holding `payload` (base64) of type `mime`,
/// written by the format ([`new_image_shape`] is its shape). `detail` is
/// OpenAI's, for the formats that carry one.
pub fn new_image_part(format: Format, mime: &str, payload: &str, detail: Option<&str>) -> Value {
    (new_parts(format).new_part)(mime, payload, detail)
}

/// A new file part of `format` holding `payload` (base64) of type `mime`
/// named `filename`, written by the format (a line naming the file in a
/// format without file parts).
pub fn new_file_part(format: Format, filename: &str, mime: &str, payload: &str) -> Value {
    file_writer(format)(filename, mime, payload)
}

/// The shape of the image parts [`new_image_part`] writes in `format`.
pub fn new_image_shape(format: Format) -> ImageShape {
    new_parts(format).new_shape
}

/// The image shapes a message of `format` can hold, so a stashed part can
/// be told to fit the messages it is restored into.
pub fn native_shapes(format: Format) -> &'static [ImageShape] {
    new_parts(format).shapes
}

/// True when some format keeps base64 payloads under `key` (the boundary
/// reads messages before their format is known, so it asks all of them).
pub fn is_payload_key(key: &str) -> bool {
    Format::ALL
        .into_iter()
        .any(|f| wire_format(f).payload_keys.contains(&key))
}

/// Where a raw message of `format` keeps its tool results.
pub fn tool_result_slots(format: Format, message: &Value) -> Vec<ToolSlot> {
    (wire_format(format).tool_slots)(message)
}

/// The role of a raw message of `format`, read without decoding it.
pub fn raw_role(format: Format, message: &Value) -> Option<Role> {
    (wire_format(format).role_of)(message)
}

/// Whose turn a raw message of `format` is, as reading it says (a message
/// that does not read is neither side's).
pub fn raw_turn(format: Format, message: &Value) -> super::Turn {
    Message::decode(format, message.clone(), &JsonPath::root("messages"))
        .map_or(super::Turn::Other, |m| m.turn())
}

impl Message {
    /// Reads one message of `format` at `path`.
    pub fn decode(format: Format, value: Value, path: &JsonPath) -> Result<Message, MessageError> {
        let wire = wire_format(format);
        match wire.decode {
            Some(decode) => decode(value, path),
            None => decode_role_content(wire, value, path),
        }
    }
}

/// Reads an array of messages, detecting the format when `format` is `None`.
pub fn decode_messages(
    values: Vec<Value>,
    format: Option<Format>,
    path: &JsonPath,
) -> Result<(Format, Vec<Message>), MessageError> {
    let format = format.unwrap_or_else(|| detect_format(&values));
    let messages = values
        .into_iter()
        .enumerate()
        .map(|(i, v)| Message::decode(format, v, &path.index(i)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((format, messages))
}

impl Format {
    /// Whether this format's API takes an image by file reference, and
    /// for whose files: `Ok(Some(provider))` when the format implies it,
    /// `Ok(None)` when the caller names it, `Err` with why when it takes
    /// none (OpenAI Chat Completions, MCP, Ollama).
    pub fn file_provider(self) -> Result<Option<FileProvider>, &'static str> {
        file_refs(self)
            .map(|r| r.provider)
            .ok_or("its API takes no image by file reference")
    }

    /// The image part `template` (its payload removed) of MIME type `mime`
    /// as a reference to `file` at `provider`; `None` when the format or
    /// the part's shape takes none, or the file lacks what it names.
    pub fn reference_part(
        self,
        template: &ImageTemplate,
        provider: FileProvider,
        file: &FileRef,
        mime: &str,
    ) -> Option<Value> {
        let refs = file_refs(self)?;
        if refs.provider.is_some_and(|p| p != provider) {
            return None;
        }
        let name = file.name_for(provider)?;
        (refs.write)(template, provider, name, mime).map(Value::Object)
    }

    /// The file a part of this format references (its id or URI), if it is
    /// a file reference.
    pub fn referenced_file(self, part: &Value) -> Option<&str> {
        self.referenced_file_in(part.as_object()?)
    }

    /// [`Format::referenced_file`] of a part's object.
    pub fn referenced_file_in(self, part: &Map<String, Value>) -> Option<&str> {
        (file_refs(self)?.read)(part)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::ImagePart;

    #[test]
    fn the_tool_dialect_union_names_every_format_with_a_dialect() {
        let mut expected = String::from("/** The name of a format whose API takes a tool definition: a dialect of `historyImageTool`. */\nexport type ToolDialectName = never");
        for f in Format::ALL
            .into_iter()
            .filter(|f| f.tool_dialect().is_some())
        {
            expected.push_str(&format!(" | \"{}\"", f.name()));
        }
        expected.push_str(";\n");
        assert_eq!(TOOL_DIALECT_UNION_TS, expected);
        assert!(TOOL_DIALECT_UNION_TS.contains(" | \"openai\" | \"anthropic\""));
    }

    #[test]
    fn every_new_image_part_reads_back_in_its_shape() {
        for format in Format::ALL {
            let Value::Object(wire) = new_image_part(format, "image/png", "AAAA", None) else {
                panic!("{format:?}");
            };
            let shape = new_image_shape(format);
            assert!(native_shapes(format).contains(&shape), "{format:?}");
            let part = ImagePart { wire, shape };
            assert_eq!(
                part.source().inline(),
                Some(((format != Format::Ollama).then_some("image/png"), "AAAA")),
                "{format:?}"
            );
        }
    }

    #[test]
    fn the_payload_keys_are_those_the_formats_name() {
        let mut keys: Vec<&str> = Format::ALL
            .into_iter()
            .flat_map(|f| wire_format(f).payload_keys.iter().copied())
            .collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(
            keys,
            [
                "base64",
                "blob",
                "data",
                "file_data",
                "image",
                "image_url",
                "images",
                "url"
            ]
        );
        assert!(is_payload_key("blob") && !is_payload_key("text"));
        for format in Format::ALL {
            assert_eq!(wire_format(format).format, format);
        }
    }
}
