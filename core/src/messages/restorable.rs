//! Where a stashed image part may go back as it was. (The image part each
//! format writes, and the shapes each holds, are the formats' own: see
//! `registry::new_image_part` and `registry::native_shapes`.)

use super::registry::{native_shapes, new_parts};
use super::{Format, ImageShape};

/// Whether a part stashed in `shape` can be written back as it was into a
/// message of `format`. An Ollama image is an entry of `images`, not a part:
/// it goes back only into a format that holds its shape, and an Ollama
/// message takes no other format's shape (it gets its own new part instead).
pub fn restores_as_stashed(shape: ImageShape, format: Format) -> bool {
    if shape.own_format_only() {
        native_shapes(format).contains(&shape)
    } else {
        new_parts(format).foreign_parts
    }
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
