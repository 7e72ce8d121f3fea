//! Media: data URLs, MIME sniffing from magic bytes, image dimensions and
//! friendly type names.

pub mod base64_text;
pub mod data_url;
pub mod dimensions;
pub mod mime;
pub mod type_names;

pub use data_url::{DataUrl, DataUrlError};
pub use dimensions::{image_dimensions, Dimensions};
pub use mime::{mime_from_extension, sniff_mime};
