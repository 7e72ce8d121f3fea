//! File references: an image part that names a file the provider keeps
//! (uploaded once through its Files API) instead of carrying the image.
//! Each format's module says whether its API takes one, for which
//! provider, how it writes one from an image part and how it reads one
//! back (its `FILE_REFS`); this module names the providers and the file,
//! and `registry` answers for each format.

use super::image_template::ImageTemplate;
use serde_json::{Map, Value};

/// A provider whose Files API an image reference names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileProvider {
    /// OpenAI's Files API: an id (`file-…`).
    OpenAi,
    /// Anthropic's Files API: an id (`file_…`).
    Anthropic,
    /// Gemini's Files API: a URI (`https://generativelanguage.googleapis.com/v1beta/files/…`).
    Gemini,
}

impl FileProvider {
    /// Every provider, in the order of their names.
    pub const ALL: [FileProvider; 3] = [
        FileProvider::OpenAi,
        FileProvider::Anthropic,
        FileProvider::Gemini,
    ];

    /// The provider's name, as options and reports write it.
    pub fn name(self) -> &'static str {
        match self {
            FileProvider::OpenAi => "openai",
            FileProvider::Anthropic => "anthropic",
            FileProvider::Gemini => "gemini",
        }
    }

    /// The provider named `name`; `None` for any other text.
    pub fn from_name(name: &str) -> Option<FileProvider> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Whether a reference to this provider's files needs `file`'s URI
    /// (Gemini) rather than its id.
    pub fn names_by_uri(self) -> bool {
        self == FileProvider::Gemini
    }
}

/// A file at a provider, as its upload answered: its id, its URI, or both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRef {
    /// The id (`file-…`, `file_…`, Gemini's `files/…` name).
    pub id: Option<String>,
    /// The URI (Gemini's `fileUri`).
    pub uri: Option<String>,
}

impl FileRef {
    /// What a reference to `provider`'s file names: the URI for Gemini, the
    /// id for the others; `None` when the file lacks it.
    pub fn name_for(&self, provider: FileProvider) -> Option<&str> {
        if provider.names_by_uri() {
            self.uri.as_deref()
        } else {
            self.id.as_deref()
        }
    }
}

/// Whether `name`, as a refusal or a caller writes it, names the file
/// `reference` names: the same text, or the same last path segment of the
/// two (Gemini's file `https://…/v1beta/files/f1` is `files/f1` in its API
/// and `File f1` in its refusals).
pub fn names_file(reference: &str, name: &str) -> bool {
    fn last_segment(name: &str) -> &str {
        let path = name.split(['?', '#']).next().unwrap_or(name);
        path.rsplit('/').next().unwrap_or(path)
    }
    let last = last_segment(name);
    reference == name || (!last.is_empty() && last_segment(reference) == last)
}

/// Writes the image part `template` (its payload removed), of MIME type
/// `mime` (last), as a reference to a file of a provider named by its id or
/// URI; `None` where the part's shape holds no reference.
pub(super) type WriteReference =
    fn(&ImageTemplate, FileProvider, &str, &str) -> Option<Map<String, Value>>;

/// How a format's API takes an image by file reference (a module's
/// `FILE_REFS`).
pub(super) struct FileRefs {
    /// The provider the format's API is; `None` when the caller names it
    /// (a format several providers' SDKs share).
    pub(super) provider: Option<FileProvider>,
    /// The image part `template` (its payload removed), of MIME type `mime`,
    /// as a reference to `provider`'s file named `name` (its id, or its URI
    /// for Gemini); `None` where the part's shape holds no reference.
    pub(super) write: WriteReference,
    /// What a part of the format references: the file's id or URI.
    pub(super) read: fn(&Map<String, Value>) -> Option<&str>,
}

/// `template`'s wire without the keys in `drop`, for a reference written
/// over it.
pub(super) fn wire_without(template: &ImageTemplate, drop: &[&str]) -> Map<String, Value> {
    let mut wire = template.wire.clone();
    for key in drop {
        wire.remove(*key);
    }
    wire
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_path::JsonPath;
    use crate::messages::walk::for_each_image;
    use crate::messages::{Format, Message};
    use serde_json::json;

    /// The template of the first image of `message` in `format`.
    fn template_of(format: Format, message: Value) -> ImageTemplate {
        let m = Message::decode(format, message, &JsonPath::root("m")).unwrap();
        let mut out = None;
        for_each_image(&m, &JsonPath::root("m"), &mut |_, _, img| {
            out = out.take().or_else(|| img.template());
        });
        out.unwrap()
    }

    fn file() -> FileRef {
        FileRef {
            id: Some("file-1".into()),
            uri: Some("https://generativelanguage.googleapis.com/v1beta/files/abc".into()),
        }
    }

    #[test]
    fn each_format_writes_its_api_s_reference_and_reads_it_back() {
        let cases = [
            (
                Format::OpenAiResponses,
                FileProvider::OpenAi,
                json!({"role": "user", "content": [{"type": "input_image", "image_url": "data:image/png;base64,AAAA"}]}),
                json!({"type": "input_image", "file_id": "file-1", "detail": "auto"}),
            ),
            (
                Format::Anthropic,
                FileProvider::Anthropic,
                json!({"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}, "cache_control": {"type": "ephemeral"}}]}),
                json!({"type": "image", "source": {"type": "file", "file_id": "file-1"}, "cache_control": {"type": "ephemeral"}}),
            ),
            (
                Format::Gemini,
                FileProvider::Gemini,
                json!({"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": "AAAA"}}]}),
                json!({"fileData": {"mimeType": "image/png", "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc"}}),
            ),
            (
                Format::GeminiInteractions,
                FileProvider::Gemini,
                json!({"type": "user_input", "content": [{"type": "image", "data": "AAAA", "mime_type": "image/png", "resolution": "high"}]}),
                json!({"type": "image", "uri": "https://generativelanguage.googleapis.com/v1beta/files/abc", "mime_type": "image/png", "resolution": "high"}),
            ),
        ];
        for (format, provider, message, want) in cases {
            assert_eq!(format.file_provider(), Ok(Some(provider)));
            let template = template_of(format, message);
            let part = format
                .reference_part(&template, provider, &file(), "image/png")
                .unwrap_or_else(|| panic!("{format:?}"));
            assert_eq!(part, want, "{format:?}");
            let named = file().name_for(provider).unwrap().to_owned();
            assert_eq!(format.referenced_file(&part), Some(named.as_str()));
            // Another provider's file is no reference of this format.
            let other = FileProvider::ALL
                .into_iter()
                .find(|p| *p != provider)
                .unwrap();
            assert_eq!(
                format.reference_part(&template, other, &file(), "image/png"),
                None
            );
            // Nor is a file without what the reference names.
            let nameless = FileRef {
                id: None,
                uri: None,
            };
            assert_eq!(
                format.reference_part(&template, provider, &nameless, "image/png"),
                None
            );
        }
    }

    #[test]
    fn ai_sdk_parts_reference_the_provider_the_caller_names() {
        assert_eq!(Format::AiSdk.file_provider(), Ok(None));
        let image = template_of(
            Format::AiSdk,
            json!({"role": "user", "content": [{"type": "image", "image": "AAAA", "mediaType": "image/png", "providerOptions": {"openai": {"imageDetail": "low"}}}]}),
        );
        let tagged = template_of(
            Format::AiSdk,
            json!({"role": "user", "content": [{"type": "file", "mediaType": "image/png", "data": {"type": "data", "data": "AAAA"}, "filename": "a.png"}]}),
        );
        for (provider, key, name) in [
            (FileProvider::OpenAi, "openai", "file-1"),
            (FileProvider::Anthropic, "anthropic", "file-1"),
            (
                FileProvider::Gemini,
                "google",
                "https://generativelanguage.googleapis.com/v1beta/files/abc",
            ),
        ] {
            let part = Format::AiSdk
                .reference_part(&image, provider, &file(), "image/png")
                .unwrap();
            assert_eq!(
                part,
                json!({"providerOptions": {"openai": {"imageDetail": "low"}}, "type": "file", "mediaType": "image/png", "data": {"type": "reference", "reference": {key: name}}})
            );
            assert_eq!(Format::AiSdk.referenced_file(&part), Some(name));
            let part = Format::AiSdk
                .reference_part(&tagged, provider, &file(), "image/png")
                .unwrap();
            assert_eq!(part["filename"], "a.png");
            assert_eq!(part["data"]["reference"][key], name);
        }
        // AI SDK 6's tool-result images go as that version's file ids.
        for (kind, id_kind) in [("image-data", "image-file-id"), ("file-data", "file-id")] {
            let shot = template_of(
                Format::AiSdk,
                json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "t", "output": {"type": "content", "value": [{"type": kind, "data": "AAAA", "mediaType": "image/png", "providerOptions": {"openai": {"imageDetail": "low"}}}]}}]}),
            );
            let part = Format::AiSdk
                .reference_part(&shot, FileProvider::OpenAi, &file(), "image/png")
                .unwrap();
            assert_eq!(
                part,
                json!({"providerOptions": {"openai": {"imageDetail": "low"}}, "type": id_kind, "fileId": {"openai": "file-1"}})
            );
            assert_eq!(Format::AiSdk.referenced_file(&part), Some("file-1"));
            let plain = json!({"type": id_kind, "fileId": "file-2"});
            assert_eq!(Format::AiSdk.referenced_file(&plain), Some("file-2"));
        }
        // AI SDK 5's `media` part has no file id: it stays inline.
        let media = template_of(
            Format::AiSdk,
            json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "t", "output": {"type": "content", "value": [{"type": "media", "data": "AAAA", "mediaType": "image/png"}]}}]}),
        );
        assert_eq!(
            Format::AiSdk.reference_part(&media, FileProvider::OpenAi, &file(), "image/png"),
            None
        );
    }

    #[test]
    fn langchain_blocks_reference_the_provider_the_caller_names() {
        assert_eq!(Format::LangChain.file_provider(), Ok(None));
        let messages = [
            json!({"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA", "detail": "low"}}]}),
            json!(["human", [{"type": "image", "source_type": "base64", "data": "AAAA", "mime_type": "image/png"}]]),
            json!({"role": "user", "content": [{"type": "image", "data": "AAAA", "mimeType": "image/png", "cache_control": {"type": "ephemeral"}}]}),
        ];
        for message in messages {
            let template = template_of(Format::LangChain, message.clone());
            let anthropic = Format::LangChain
                .reference_part(&template, FileProvider::Anthropic, &file(), "image/png")
                .unwrap();
            assert_eq!(anthropic["type"], "image", "{message}");
            assert_eq!(anthropic["fileId"], "file-1", "{message}");
            for key in ["data", "image_url", "source_type", "mime_type", "mimeType"] {
                assert!(anthropic.get(key).is_none(), "{key} left in {anthropic}");
            }
            assert_eq!(
                Format::LangChain.referenced_file(&anthropic),
                Some("file-1")
            );
            let openai = Format::LangChain
                .reference_part(&template, FileProvider::OpenAi, &file(), "image/png")
                .unwrap();
            assert_eq!(
                (&openai["type"], &openai["file_id"]),
                (&json!("input_image"), &json!("file-1"))
            );
            assert_eq!(Format::LangChain.referenced_file(&openai), Some("file-1"));
            let gemini = Format::LangChain
                .reference_part(&template, FileProvider::Gemini, &file(), "image/png")
                .unwrap();
            let uri = "https://generativelanguage.googleapis.com/v1beta/files/abc";
            assert_eq!(
                (&gemini["url"], &gemini["mimeType"]),
                (&json!(uri), &json!("image/png"))
            );
            assert_eq!(Format::LangChain.referenced_file(&gemini), Some(uri));
        }
        // OpenAI's detail rides along (`auto` when the part had none);
        // another key of the part (Anthropic's cache_control) stays.
        let low = template_of(
            Format::LangChain,
            json!({"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA", "detail": "low"}}]}),
        );
        let part = Format::LangChain
            .reference_part(&low, FileProvider::OpenAi, &file(), "image/png")
            .unwrap();
        assert_eq!(
            part,
            json!({"type": "input_image", "file_id": "file-1", "detail": "low"})
        );
        let cached = template_of(
            Format::LangChain,
            json!({"role": "user", "content": [{"type": "image", "data": "AAAA", "mimeType": "image/png", "cache_control": {"type": "ephemeral"}}]}),
        );
        let part = Format::LangChain
            .reference_part(&cached, FileProvider::Anthropic, &file(), "image/png")
            .unwrap();
        assert_eq!(
            part,
            json!({"type": "image", "fileId": "file-1", "cache_control": {"type": "ephemeral"}})
        );
        // An inline image, or an image by a data URL, is no reference.
        assert_eq!(Format::LangChain.referenced_file(&json!({"type": "image", "url": "data:image/png;base64,AAAA", "mimeType": "image/png"})), None);
        assert_eq!(Format::LangChain.referenced_file(&json!({"type": "image", "source_type": "url", "url": "https://x/y.png", "mimeType": "image/png"})), None);
    }

    #[test]
    fn ui_message_file_parts_reference_by_provider_reference() {
        assert_eq!(Format::UiMessage.file_provider(), Ok(None));
        let template = template_of(
            Format::UiMessage,
            json!({"id": "m", "role": "user", "parts": [{"type": "file", "mediaType": "image/png", "filename": "a.png", "url": "data:image/png;base64,AAAA"}]}),
        );
        for (provider, key, name) in [
            (FileProvider::OpenAi, "openai", "file-1"),
            (FileProvider::Anthropic, "anthropic", "file-1"),
            (
                FileProvider::Gemini,
                "google",
                "https://generativelanguage.googleapis.com/v1beta/files/abc",
            ),
        ] {
            let part = Format::UiMessage
                .reference_part(&template, provider, &file(), "image/png")
                .unwrap();
            assert_eq!(
                part,
                json!({"type": "file", "mediaType": "image/png", "filename": "a.png", "url": name, "providerReference": {key: name}})
            );
            assert_eq!(Format::UiMessage.referenced_file(&part), Some(name));
        }
    }

    #[test]
    fn formats_whose_api_takes_no_reference_say_so() {
        for format in [Format::OpenAi, Format::Mcp, Format::Ollama] {
            assert!(format.file_provider().is_err(), "{format:?}");
        }
        // An inline image is no reference.
        let inline = json!({"type": "input_image", "image_url": "data:image/png;base64,AAAA"});
        assert_eq!(Format::OpenAiResponses.referenced_file(&inline), None);
    }

    #[test]
    fn picture_only_places_take_their_own_references() {
        // A Gemini function response's image goes as a `FunctionResponsePart`'s `fileData`.
        let blob = template_of(
            Format::Gemini,
            json!({"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}, "parts": [{"inlineData": {"mimeType": "image/png", "data": "AAAA"}}]}}]}),
        );
        let uri = "https://generativelanguage.googleapis.com/v1beta/files/abc";
        let part = Format::Gemini
            .reference_part(&blob, FileProvider::Gemini, &file(), "image/png")
            .unwrap();
        assert_eq!(
            part,
            json!({"fileData": {"mimeType": "image/png", "fileUri": uri}})
        );
        assert_eq!(Format::Gemini.referenced_file(&part), Some(uri));
        // A computer screenshot as `{type:'computer_screenshot', file_id}`, no `detail`.
        let shot = template_of(
            Format::OpenAiResponses,
            json!({"type": "computer_call_output", "call_id": "c", "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,AAAA"}}),
        );
        let part = Format::OpenAiResponses
            .reference_part(&shot, FileProvider::OpenAi, &file(), "image/png")
            .unwrap();
        assert_eq!(
            part,
            json!({"type": "computer_screenshot", "file_id": "file-1"})
        );
        assert_eq!(
            Format::OpenAiResponses.referenced_file(&part),
            Some("file-1")
        );
    }

    #[test]
    fn providers_read_back_from_their_names() {
        for p in FileProvider::ALL {
            assert_eq!(FileProvider::from_name(p.name()), Some(p));
        }
        assert_eq!(FileProvider::from_name("bedrock"), None);
    }

    #[test]
    fn a_file_is_named_by_its_id_uri_or_the_uri_s_last_segment() {
        let uri = "https://generativelanguage.googleapis.com/v1beta/files/f1";
        for name in [uri, "files/f1", "f1"] {
            assert!(names_file(uri, name), "{name}");
        }
        assert!(names_file("file-abc", "file-abc"));
        for name in ["f", "f13", "files/f2", "", "https://x/files/"] {
            assert!(!names_file(uri, name), "{name}");
        }
        assert!(!names_file("file-abc", "file-ab"));
    }
}
