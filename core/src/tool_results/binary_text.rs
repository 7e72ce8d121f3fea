//! What a binary payload written as text looks like, for the sanitizer:
//! how long a base64 string must be to count, and the character mix that
//! tells encoded binary from words, hex digests and the like. Shared by the
//! judgment of strings in memory (`sanitize`) and of strings held outside
//! it (`held_payload`), so both judge alike.

/// Minimum length of a base64 string inside a known binary field.
pub(super) const KNOWN_FIELD_MIN: usize = 64;

/// The least length of a base64 string that counts as binary: any inside a
/// known binary field of [`KNOWN_FIELD_MIN`] or more, else one longer than
/// `threshold`.
pub(super) fn min_base64_len(known_field: bool, threshold: usize) -> usize {
    if known_field {
        KNOWN_FIELD_MIN
    } else {
        threshold + 1
    }
}

/// True when `text` mixes upper case, lower case and digits and is not just
/// hexadecimal digits, as base64 of binary does.
pub(super) fn mixes_like_encoded_binary(text: &[u8]) -> bool {
    let (mut upper, mut lower, mut digit, mut non_hex) = (false, false, false, false);
    for &b in text {
        upper |= b.is_ascii_uppercase();
        lower |= b.is_ascii_lowercase();
        digit |= b.is_ascii_digit();
        non_hex |= !b.is_ascii_hexdigit() && b != b'=';
        if upper && lower && digit && non_hex {
            return true;
        }
    }
    false
}

/// The MIME type of a binary: `sniffed` from its bytes, else as `declared`
/// (in lower case), else `application/octet-stream`.
pub(super) fn binary_mime(sniffed: Option<&str>, declared: &str) -> String {
    match sniffed {
        Some(mime) => mime.to_owned(),
        None if declared.is_empty() => "application/octet-stream".into(),
        None => declared.to_ascii_lowercase(),
    }
}
