//! Base64 payload text, over the `base64` crate's standard engine (standard
//! alphabet, padding required, no stray bits): a validity check that keeps
//! none of the decoded bytes, the decoded leading bytes for MIME sniffing,
//! and the decoded length read from the text length and padding alone.

use base64::engine::general_purpose::STANDARD;
use base64::{DecodeError, DecodeSliceError, Engine as _};

/// Why a text is not standard, padded base64.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Base64Problem {
    /// A byte outside `A–Z a–z 0–9 + /` (and `=` as padding) at this offset.
    #[error("invalid byte at offset {0}")]
    InvalidByte(usize),
    /// The length is not a multiple of four.
    #[error("length is not a multiple of 4")]
    BadLength,
    /// `=` appears somewhere other than the last one or two positions, or
    /// the padding does not match the length of the last group.
    #[error("misplaced '=' padding")]
    BadPadding,
    /// The last character before the padding sets bits that encode no byte,
    /// which no encoder writes (`QR==` for `QQ==`).
    #[error("stray bits in the last character at offset {0}")]
    StrayBits(usize),
}

/// The standard padded base64 text of `bytes`.
pub fn encode_base64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// The bytes of standard padded base64 `text`, or `None` when it is not that.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    STANDARD.decode(text).ok()
}

/// Characters decoded per step of [`check_base64`]: whole groups of four,
/// so the decoded bytes fit a small buffer on the stack. A text checked in
/// pieces ([`Base64Check`]) is cut at multiples of it.
pub const CHECK_CHUNK: usize = 8 * 1024;

/// Checks that `text` is standard base64 with correct padding, in one pass.
///
/// The text is decoded a chunk at a time into one small buffer and the bytes
/// are thrown away, so a payload of many megabytes is checked without an
/// allocation the size of its decoded bytes (wasm memory never shrinks).
pub fn check_base64(text: &str) -> Result<(), Base64Problem> {
    let mut check = Base64Check::new(text.len());
    check.feed(text.as_bytes());
    check.result()
}

/// [`check_base64`] over a text read in pieces, with the same answer: feed
/// the pieces in order, each but the last a whole number of
/// [`CHECK_CHUNK`]s long.
#[derive(Debug, Clone)]
pub struct Base64Check {
    /// Offset of the next chunk in the whole text.
    start: usize,
    /// Length of the whole text.
    len: usize,
    result: Result<(), Base64Problem>,
}

impl Base64Check {
    /// A check of a text `len` bytes long.
    pub fn new(len: usize) -> Self {
        Base64Check {
            start: 0,
            len,
            result: Ok(()),
        }
    }

    /// Checks the next piece of the text.
    pub fn feed(&mut self, piece: &[u8]) {
        let mut buf = [0u8; CHECK_CHUNK / 4 * 3];
        for chunk in piece.chunks(CHECK_CHUNK) {
            if self.result.is_err() {
                return;
            }
            if let Err(e) = STANDARD.decode_slice(chunk, &mut buf) {
                self.result = Err(problem(e, self.start, self.len));
                return;
            }
            self.start += chunk.len();
            // A chunk decodes alone with padding at its end; in the whole
            // text that padding is only allowed at the very end.
            if self.start < self.len && chunk.last() == Some(&b'=') {
                self.result = Err(Base64Problem::BadPadding);
            }
        }
    }

    /// What the check found.
    pub fn result(self) -> Result<(), Base64Problem> {
        self.result
    }
}

/// The problem the decoder reported for the chunk at `offset` of a text
/// `len` bytes long.
fn problem(error: DecodeSliceError, offset: usize, len: usize) -> Base64Problem {
    match error {
        DecodeSliceError::DecodeError(DecodeError::InvalidByte(_, b'=')) => {
            Base64Problem::BadPadding
        }
        DecodeSliceError::DecodeError(DecodeError::InvalidByte(at, _)) => {
            Base64Problem::InvalidByte(offset + at)
        }
        DecodeSliceError::DecodeError(DecodeError::InvalidLastSymbol(at, _)) => {
            Base64Problem::StrayBits(offset + at)
        }
        DecodeSliceError::DecodeError(DecodeError::InvalidPadding) if len % 4 == 0 => {
            Base64Problem::BadPadding
        }
        // A missing `=` or a lone last character: the length is wrong. (The
        // output buffer always holds a whole chunk, so it is never too small.)
        DecodeSliceError::DecodeError(
            DecodeError::InvalidPadding | DecodeError::InvalidLength(_),
        )
        | DecodeSliceError::OutputSliceTooSmall => Base64Problem::BadLength,
    }
}

/// Decodes at most the first `max_bytes` bytes (rounded up to a whole base64
/// group) of valid base64 `text`, reading only the characters they take.
/// Returns an empty vector if that prefix does not decode.
pub fn decode_prefix(text: &str, max_bytes: usize) -> Vec<u8> {
    let end = max_bytes.div_ceil(3).saturating_mul(4).min(text.len());
    let end = end - end % 4;
    text.get(..end)
        .and_then(|head| STANDARD.decode(head).ok())
        .unwrap_or_default()
}

/// The number of bytes that valid base64 `text` decodes to, from its length
/// and padding.
pub fn decoded_len(text: &str) -> usize {
    let padding = text.bytes().rev().take(2).filter(|&b| b == b'=').count();
    decoded_len_of(text.len(), padding)
}

/// The number of bytes valid base64 text of `len` characters, `padding` of
/// them the `=` at its end, decodes to (for text held elsewhere, such as a
/// JavaScript string).
pub fn decoded_len_of(len: usize, padding: usize) -> usize {
    (len / 4 * 3).saturating_sub(padding)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_padded_base64() {
        assert_eq!(check_base64("aGVsbG8="), Ok(()));
        assert_eq!(check_base64("aGVsbA=="), Ok(()));
        assert_eq!(check_base64("Zm9vYmFy"), Ok(()));
        assert_eq!(check_base64(""), Ok(()));
    }

    #[test]
    fn rejects_bad_base64() {
        assert_eq!(check_base64("aGVsbG8"), Err(Base64Problem::BadLength));
        assert_eq!(check_base64("Zg="), Err(Base64Problem::BadLength));
        assert_eq!(check_base64("A"), Err(Base64Problem::BadLength));
        assert_eq!(check_base64("aGV*bG8="), Err(Base64Problem::InvalidByte(3)));
        assert_eq!(check_base64("aG=sbG8="), Err(Base64Problem::BadPadding));
        assert_eq!(check_base64("aGVsbG=x"), Err(Base64Problem::BadPadding));
        assert_eq!(check_base64("Zm9=Zm9v"), Err(Base64Problem::BadPadding));
        assert_eq!(check_base64("Z==="), Err(Base64Problem::BadPadding));
    }

    #[test]
    fn refuses_stray_bits_after_the_last_byte() {
        // `QQ==` is "A"; `QR==` sets a bit no byte uses.
        assert_eq!(check_base64("QQ=="), Ok(()));
        assert_eq!(check_base64("QR=="), Err(Base64Problem::StrayBits(1)));
        assert_eq!(check_base64("Zh=="), Err(Base64Problem::StrayBits(1)));
        assert_eq!(check_base64("Zm9="), Err(Base64Problem::StrayBits(2)));
    }

    #[test]
    fn messages_are_readable() {
        assert_eq!(
            Base64Problem::InvalidByte(3).to_string(),
            "invalid byte at offset 3"
        );
        assert_eq!(
            Base64Problem::StrayBits(1).to_string(),
            "stray bits in the last character at offset 1"
        );
    }

    /// A long text goes through several chunks: whatever is put at a chunk
    /// edge, the check agrees with decoding the whole text at once, and
    /// offsets count from the start of the text.
    #[test]
    fn chunked_check_agrees_with_the_whole_decode() {
        let bytes: Vec<u8> = (0..=255u8)
            .cycle()
            .take(CHECK_CHUNK / 4 * 3 * 2 + 200)
            .collect();
        let good = STANDARD.encode(&bytes);
        assert!(good.len() > 2 * CHECK_CHUNK);
        assert_eq!(check_base64(&good), Ok(()));
        let edges = [CHECK_CHUNK, 2 * CHECK_CHUNK, good.len()];
        for edge in edges {
            for at in edge - 6..edge {
                for bad in [b'*', b'=', b'\n', b'A', b'/'] {
                    let mut text = good.clone().into_bytes();
                    text[at] = bad;
                    let text = String::from_utf8(text).unwrap();
                    let whole = STANDARD.decode(&text);
                    assert_eq!(check_base64(&text).is_ok(), whole.is_ok(), "{at} {bad}");
                    if bad == b'*' {
                        assert_eq!(check_base64(&text), Err(Base64Problem::InvalidByte(at)));
                    }
                }
            }
        }
        // A group that would end a text well, at the end of a chunk that is
        // not the last.
        let mut text = good.clone().into_bytes();
        text[CHECK_CHUNK - 4..CHECK_CHUNK].copy_from_slice(b"QQ==");
        let text = String::from_utf8(text).unwrap();
        assert!(STANDARD.decode(&text).is_err());
        assert_eq!(check_base64(&text), Err(Base64Problem::BadPadding));
        // A length that is not a multiple of four, and a missing `=`.
        assert_eq!(
            check_base64(&good[..good.len() - 1]),
            Err(Base64Problem::BadLength)
        );
        assert_eq!(
            check_base64(&format!("{}QQ=", &good[..2 * CHECK_CHUNK])),
            Err(Base64Problem::BadLength)
        );
    }

    #[test]
    fn short_texts_agree_with_the_whole_decode() {
        let symbols = [b'A', b'Q', b'/', b'=', b'*'];
        for len in 0..=8u32 {
            for n in 0..symbols.len().pow(len) {
                let text: String = (0..len)
                    .map(|k| symbols[n / symbols.len().pow(k) % symbols.len()] as char)
                    .collect();
                assert_eq!(
                    check_base64(&text).is_ok(),
                    STANDARD.decode(&text).is_ok(),
                    "{text:?}"
                );
            }
        }
    }

    #[test]
    fn decodes_prefix_and_length() {
        let text = STANDARD.encode(b"hello world, this is a test");
        assert_eq!(decode_prefix(&text, 5), b"hello ".to_vec());
        assert_eq!(decode_prefix(&text, 0), Vec::<u8>::new());
        assert_eq!(decode_prefix(&text, 1000), b"hello world, this is a test");
        assert_eq!(decode_prefix("aGVs*G8=", 3), b"hel".to_vec());
        assert_eq!(decode_prefix("aGV*bG8=", 3), Vec::<u8>::new());
        assert_eq!(decoded_len(&text), 27);
        assert_eq!(decoded_len("aGVsbA=="), 4);
        assert_eq!(decoded_len("aGVsbG8="), 5);
        assert_eq!(decoded_len_of(8, 1), 5);
        assert_eq!(decoded_len_of(0, 0), 0);
        assert_eq!(decoded_len(""), 0);
    }
}
