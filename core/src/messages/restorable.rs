//! Where a stashed image part may go back as it was. (The image part each
//! format writes, and the shapes each holds, are the formats' own: see
//! `registry::new_image_part` and `registry::native_shapes`.)

use super::{Format, ImageShape};

/// Whether a part stashed in `shape` can be written back as it was into a
/// message of `format`. An Ollama image is an entry of `images`, not a part:
/// it goes back only into an Ollama message, and an Ollama message takes no
/// other shape (it gets the canonical `{image}` instead).
pub fn restores_as_stashed(shape: ImageShape, format: Format) -> bool {
    (shape == crate::messages::ollama::IMAGE) == (format == Format::Ollama)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ollama_images_and_parts_do_not_mix() {
        assert!(restores_as_stashed(
            crate::messages::ollama::IMAGE,
            Format::Ollama
        ));
        assert!(!restores_as_stashed(
            crate::messages::ollama::IMAGE,
            Format::OpenAi
        ));
        assert!(!restores_as_stashed(
            crate::messages::openai::IMAGE_URL_OBJECT,
            Format::Ollama
        ));
        assert!(restores_as_stashed(
            crate::messages::openai::IMAGE_URL_OBJECT,
            Format::Anthropic
        ));
    }
}
