//! Media: data URLs, MIME sniffing from magic bytes, image dimensions and
//! friendly type names.

mod animation;
pub(crate) mod base64_payload;
pub(crate) mod data_url;
pub(crate) mod dimensions;
mod facts_memo;
mod facts_reader;
mod jpeg_segments;
mod memo;
pub(crate) mod mime;
mod orientation;
pub(crate) mod payload;
pub(crate) mod text_png;
pub(crate) mod type_names;

pub use animation::is_animated;
pub use base64_payload::{
    check_base64, decode_base64, decode_prefix, decoded_len, decoded_len_of, encode_base64,
    Base64Check, Base64Problem, CHECK_CHUNK,
};
pub use data_url::{DataUrl, DataUrlError};
pub use dimensions::{image_dimensions, stored_dimensions, Dimensions};
pub use facts_memo::{FactsMemo, RememberedFacts};
pub use facts_reader::{FactsReader, PIECE_CHARS};
pub use memo::{Memo, MemoLimits};
pub use mime::{mime_from_extension, sniff_mime};
pub use orientation::{exif_orientation, Orientation};
pub use payload::{
    bytes_value, external_ref, facts_of_text, find_external_ref, head_of_text, kept_kind, kept_ref,
    literal_bytes_payload, parse_bytes_literal, parse_external_ref, parse_kept_ref, payload_facts,
    split_external_refs, stored_mime, BytesKind, InMemory, KeptKind, PayloadFacts, PayloadHead,
    Payloads, Piece,
};
pub use type_names::kind_of_mime;
