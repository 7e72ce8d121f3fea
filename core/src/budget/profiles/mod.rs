//! Model profiles: the image rules of each model as data — how it counts
//! image tokens (every figure of the formula named), which image types it
//! takes, how large an image it takes, the many-image rule, images per
//! request, bytes per image and per request and what each is measured on,
//! the context window. Each row names its source and the date it was read.
//! Apps add or replace profiles ([`register_model_profile`]) or pass one per
//! call ([`resolve_profile`]).

mod names;
mod overrides_input;
mod registry;
mod rows;
mod rules;
mod spec;
mod table;
mod tokens;

pub use registry::register_model_profile;
pub use rows::{model_ids, ROWS};
pub use rules::{BytesOn, Detail, MimeSet, TokenRule};
pub use spec::{resolve_profile, ProfileError, ProfileOverrides};
pub use table::{model_profile, provider_profile};
pub use tokens::{image_tokens_at, profile_image_tokens, seen_size, seen_size_at};

/// One mebibyte: the providers' "MB".
pub(crate) const MB: u64 = 1024 * 1024;

/// The rules of one model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelProfile {
    /// The table row that matched: a model id, a registered id, or the
    /// provider (for its defaults).
    pub matched: &'static str,
    /// True when the id is not in the table and the profile is its family's
    /// newest row (`matched`): `claude-sonnet-6` gets the newest Sonnet's.
    pub inferred: bool,
    /// The date (`YYYY-MM-DD`) the model was retired, or is to be, on its
    /// provider's API; `None` while none is announced.
    pub retired: Option<&'static str>,
    /// Whether the model reads images at all; one that does not takes none
    /// (`maxImages` 0, `accepts` empty).
    pub reads_images: bool,
    /// Whose API it is: `openai`, `anthropic`, `bedrock`, `vertex` (Claude
    /// on Google Vertex AI) or `gemini`.
    pub provider: &'static str,
    /// How it counts image tokens.
    pub tokens: TokenRule,
    /// The detail (OpenAI) or media resolution (Gemini 3) an image without
    /// its own is read at; `None` where the model has no such setting.
    pub default_detail: Option<Detail>,
    /// The image types it takes.
    pub accepts: MimeSet,
    /// Whether it takes animated images (OpenAI: "non-animated GIF" only).
    pub accepts_animated: bool,
    /// The largest side, in pixels, it accepts.
    pub max_long_edge: Option<u32>,
    /// The many-image rule: with more than `manyImages` images in a request,
    /// every side must be at most `manyImagesLongEdge` pixels.
    pub many_images: Option<usize>,
    /// The long edge under the many-image rule.
    pub many_images_long_edge: Option<u32>,
    /// Images per request.
    pub max_images: Option<usize>,
    /// Bytes per image, measured as `imageBytesOn` says.
    pub max_image_bytes: Option<u64>,
    /// What `maxImageBytes` is measured on: the base64 text or the decoded image.
    pub image_bytes_on: BytesOn,
    /// Bytes per request, measured on the request body as sent (images as
    /// base64 text).
    pub max_request_bytes: Option<u64>,
    /// Context window, in tokens.
    pub context_tokens: Option<u64>,
    /// Where the figures come from, and when they were read.
    pub source: &'static str,
}

impl ModelProfile {
    /// True when the model takes images of `mime` (`image/png`, any case;
    /// parameters ignored; `image/jpg` is `image/jpeg`).
    pub fn accepts_mime(&self, mime: &str) -> bool {
        self.accepts.contains(mime)
    }

    /// The request limits this profile sets.
    pub fn limits(&self) -> super::RequestLimits {
        super::RequestLimits {
            max_images: self.max_images,
            max_image_bytes: self.max_image_bytes,
            max_request_bytes: self.max_request_bytes,
        }
    }
}
