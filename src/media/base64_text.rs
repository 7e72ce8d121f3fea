//! Checks and partial decoding of standard base64 text without decoding the
//! whole payload.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

/// Why a text is not standard, padded base64.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base64Problem {
    /// A byte outside `A–Z a–z 0–9 + /` (and `=` as padding) at this offset.
    InvalidByte(usize),
    /// The length is not a multiple of four.
    BadLength,
    /// `=` appears somewhere other than the last one or two positions.
    BadPadding,
}

fn is_alphabet(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'+' || b == b'/'
}

/// Checks that `text` is standard base64 with correct padding, in one pass and
/// without allocating.
pub fn check_base64(text: &str) -> Result<(), Base64Problem> {
    let bytes = text.as_bytes();
    if bytes.len() % 4 != 0 {
        // Report an invalid byte first when there is one: it is the more useful answer.
        if let Some(i) = bytes.iter().position(|&b| !is_alphabet(b) && b != b'=') {
            return Err(Base64Problem::InvalidByte(i));
        }
        return Err(Base64Problem::BadLength);
    }
    let body_end = bytes.len().saturating_sub(2);
    for (i, &b) in bytes.iter().enumerate() {
        if is_alphabet(b) {
            continue;
        }
        if b != b'=' {
            return Err(Base64Problem::InvalidByte(i));
        }
        if i < body_end {
            return Err(Base64Problem::BadPadding);
        }
    }
    if bytes.len() >= 2 && bytes[bytes.len() - 2] == b'=' && bytes[bytes.len() - 1] != b'=' {
        return Err(Base64Problem::BadPadding);
    }
    Ok(())
}

/// Decodes at most the first `max_bytes` bytes (rounded up to a whole base64
/// quantum) of valid base64 `text`. Returns an empty vector if that prefix does
/// not decode.
pub fn decode_prefix(text: &str, max_bytes: usize) -> Vec<u8> {
    let quanta = max_bytes.div_ceil(3);
    let end = (quanta * 4).min(text.len());
    let end = end - end % 4;
    STANDARD.decode(&text.as_bytes()[..end]).unwrap_or_default()
}

/// The number of bytes that valid base64 `text` decodes to.
pub fn decoded_len(text: &str) -> usize {
    let padding = text.bytes().rev().take(2).filter(|&b| b == b'=').count();
    (text.len() / 4 * 3).saturating_sub(padding)
}

/// Encodes bytes as standard, padded base64.
pub fn encode(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_padded_base64() {
        assert_eq!(check_base64("aGVsbG8="), Ok(()));
        assert_eq!(check_base64("aGVsbA=="), Ok(()));
        assert_eq!(check_base64(""), Ok(()));
    }

    #[test]
    fn rejects_bad_base64() {
        assert_eq!(check_base64("aGVsbG8"), Err(Base64Problem::BadLength));
        assert_eq!(check_base64("aGV*bG8="), Err(Base64Problem::InvalidByte(3)));
        assert_eq!(check_base64("aG=sbG8="), Err(Base64Problem::BadPadding));
        assert_eq!(check_base64("aGVsbG=x"), Err(Base64Problem::BadPadding));
    }

    #[test]
    fn decodes_prefix_and_length() {
        let text = encode(b"hello world, this is a test");
        assert_eq!(decode_prefix(&text, 5), b"hello ".to_vec());
        assert_eq!(decoded_len(&text), 27);
        assert_eq!(decoded_len("aGVsbA=="), 4);
    }
}
