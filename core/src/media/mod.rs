//! Media: data URLs, MIME sniffing from magic bytes, image dimensions and
//! friendly type names.

#[doc(hidden)]
pub mod base64_text;
pub(crate) mod data_url;
pub(crate) mod dimensions;
pub(crate) mod mime;
pub(crate) mod payload;
pub(crate) mod type_names;

pub use data_url::{DataUrl, DataUrlError};
pub use dimensions::{image_dimensions, Dimensions};
pub use mime::{mime_from_extension, sniff_mime};
pub use payload::{
    external_ref, facts_of_text, find_external_ref, parse_external_ref, payload_facts,
    split_external_refs, stored_mime, InMemory, PayloadFacts, Payloads, Piece,
};
pub use type_names::kind_of_mime;
