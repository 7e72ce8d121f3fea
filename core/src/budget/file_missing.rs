//! A refusal of a file the request references, which the provider no
//! longer has (`file-missing`): OpenAI's, Gemini's and Anthropic's
//! wordings (quoted in `core/tests/integration/refusals.rs`), and the file's
//! id when they name it.

use super::context_error::find;
use super::refusal::{provider_of, ProviderRefusal, RefusalKind};

/// The word after `needle` in `text`: an id of letters, digits, `-`, `_`
/// and `/` (trailing `.` and quotes left out).
fn id_after(text: &str, needle: &str) -> Option<String> {
    let from = find(text, needle)? + needle.len();
    let rest = text[from..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '/')))
        .unwrap_or(rest.len());
    (end > 0).then(|| rest[..end].to_owned())
}

/// A refusal of a file the request references: OpenAI's `No such File
/// object: file-…`, Gemini's 403 `You do not have permission to access the
/// File … or it may not exist.`, and Anthropic's 404 `not_found_error`
/// about a file (`File not found: file_…`).
pub(super) fn file_missing_refusal(text: &str) -> Option<ProviderRefusal> {
    let refusal = |provider, id| ProviderRefusal {
        file_id: id,
        ..ProviderRefusal::new(RefusalKind::FileMissing, provider)
    };
    if find(text, "No such File object").is_some() {
        let id = id_after(text, "No such File object:");
        return Some(refusal(provider_of(text, "openai"), id));
    }
    if find(text, "permission to access the File").is_some()
        && find(text, "or it may not exist").is_some()
    {
        let id = id_after(text, "permission to access the File");
        let id = id.map(|id| id.strip_prefix("files/").map_or(id.clone(), str::to_owned));
        return Some(refusal("gemini", id));
    }
    find(text, "not_found_error")?;
    let lower = text.to_ascii_lowercase();
    // Where `word` begins a word of the text (`file not found`, not
    // `profile not found`).
    let words_at = |word: &'static str| {
        lower
            .match_indices(word)
            .map(|(at, _)| at)
            .filter(|&at| at == 0 || !lower.as_bytes()[at - 1].is_ascii_alphanumeric())
    };
    // The id Anthropic gives files (`file_011C…`), when named.
    let id = words_at("file_")
        .filter_map(|at| id_after(&text[at..], ""))
        .find(|id| id.len() > "file_".len() && id != "file_id");
    let about_a_file = id.is_some()
        || words_at("file not found").next().is_some()
        || words_at("file_id").next().is_some();
    about_a_file.then(|| refusal(provider_of(text, "anthropic"), id))
}
