//! What can go wrong turning one image into another.

/// Why an image could not be transcoded.
#[derive(Debug, thiserror::Error)]
pub enum CodecError {
    /// The bytes are not an image of a format this codec reads (PNG, JPEG,
    /// GIF, WebP, BMP, TIFF), or they are damaged.
    #[error("cannot decode the image: {0}")]
    Decode(String),
    /// The bytes are an image in a format this codec recognises but cannot
    /// decode (AVIF, HEIC/HEIF, JPEG XL need decoders that are not pure Rust).
    #[error("cannot decode the image: {0} is not supported; convert it to JPEG or PNG first")]
    UnsupportedFormat(&'static str),
    /// The image declares more pixels than the codec decodes (a camera
    /// original fits; a decompression bomb does not).
    #[error(
        "cannot decode the image: {width}×{height} px is larger than the codec decodes ({limit})"
    )]
    TooLarge {
        /// Declared width.
        width: u32,
        /// Declared height.
        height: u32,
        /// The limit it breaks, in words.
        limit: String,
    },
    /// The requested size is empty or larger than the limits allow.
    #[error("cannot resize to {width}×{height}: {reason}")]
    Resize {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
        /// Why.
        reason: String,
    },
    /// The encoder refused the pixels.
    #[error("cannot encode the image: {0}")]
    Encode(String),
    /// The output format is not one this codec writes.
    #[error("cannot encode {0}: this codec writes image/jpeg and image/png")]
    UnsupportedOutput(String),
}

impl CodecError {
    /// A stable code for the error, as the main module's errors carry one.
    pub fn code(&self) -> &'static str {
        match self {
            CodecError::Decode(_)
            | CodecError::UnsupportedFormat(_)
            | CodecError::TooLarge { .. } => "IMAGE_DECODE_FAILED",
            CodecError::Resize { .. } => "IMAGE_RESIZE_FAILED",
            CodecError::Encode(_) => "IMAGE_ENCODE_FAILED",
            CodecError::UnsupportedOutput(_) => "INVALID_OPTION",
        }
    }
}
