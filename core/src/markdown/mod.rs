//! Markdown images: [`MarkdownImage`], the spans the CommonMark parser
//! finds (`parse_markdown_images`, with the `markdown` feature: pulldown-cmark,
//! so code spans, fenced and indented code, HTML, escapes and entities follow
//! the spec rather than a regex), and the multimodal parts built from them.
//! Without the feature the spans come from elsewhere (the wasm build gets
//! them from its separate extras module) and [`with_byte_offsets`] makes
//! them usable on the Rust string. [`work_bound`] keeps the parser's work
//! linear in the text.

mod image;
pub(crate) mod multimodal;
#[cfg(feature = "markdown")]
mod parse;
#[cfg(feature = "markdown")]
pub mod work_bound;
#[cfg(all(test, feature = "markdown", not(target_arch = "wasm32")))]
mod work_bound_tests;

pub use image::{with_byte_offsets, MarkdownImage};
pub use multimodal::{
    build_parts, resolve_bytes, resolve_data_url, resolve_data_url_in, resolve_data_url_sliced,
    shorten, source_kind, ImageInfo, MimeCorrection, MissingImage, MultimodalContent, PartOptions,
    ResolveError, ResolvedImage, SourceKind,
};
#[cfg(feature = "markdown")]
pub use parse::parse_markdown_images;
