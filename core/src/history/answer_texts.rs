//! What the `get_history_image` tool tells the model besides the image: the
//! placeholder it reads again when an answer drops its image, the text that
//! goes before a found image, and the text when the image is gone.
//! `answerHistoryImageCall` and the AI SDK and LangChain adapters all speak
//! with these words.

use serde::Serialize;

/// The texts of an answer about image `id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AnswerTexts {
    /// `[Picture:history_<md5>]`, or `None` when `id` is no image id.
    pub placeholder: Option<String>,
    /// The text before the image: `Image <id> from earlier in the conversation:`.
    pub found: String,
    /// The text when the image is gone: it says so and asks the model to
    /// have the user share it again.
    pub missing: String,
}

/// The texts of an answer about image `id`, as the model called the tool
/// (`history_<md5>`, a bare md5, or anything else it wrote).
pub fn answer_texts(id: &str) -> AnswerTexts {
    AnswerTexts {
        placeholder: crate::messages::parse_image_id(id).map(|md5| crate::messages::placeholder(&md5)),
        found: format!("Image {id} from earlier in the conversation:"),
        missing: format!(
            "Image {id} is no longer available (expired or never stored). Ask the user to share it again."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MD5: &str = "0733351879b2fa9bd05c7ca3061529c0";

    #[test]
    fn a_valid_id_has_its_placeholder_in_every_spelling() {
        for id in [MD5.to_owned(), format!("history_{MD5}"), MD5.to_uppercase()] {
            let texts = answer_texts(&id);
            assert_eq!(
                texts.placeholder.as_deref(),
                Some(&*format!("[Picture:history_{MD5}]"))
            );
            assert_eq!(
                texts.found,
                format!("Image {id} from earlier in the conversation:")
            );
            assert!(texts
                .missing
                .starts_with(&format!("Image {id} is no longer available")));
            assert!(texts.missing.ends_with("Ask the user to share it again."));
        }
    }

    #[test]
    fn an_invalid_id_has_no_placeholder_but_still_texts() {
        let texts = answer_texts("cat.png");
        assert_eq!(texts.placeholder, None);
        assert!(texts
            .missing
            .starts_with("Image cat.png is no longer available"));
    }
}
