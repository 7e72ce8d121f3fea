//! Checks and partial decoding of standard base64 text without decoding the
//! whole payload.

/// The standard base64 alphabet, by value.
const ENCODE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `DECODE[b]` is the value of base64 character `b`, or `NOT_BASE64`.
static DECODE: [u8; 256] = decode_table();

const NOT_BASE64: u8 = 0xff;

const fn decode_table() -> [u8; 256] {
    let mut table = [NOT_BASE64; 256];
    let mut i = 0;
    while i < 64 {
        table[ENCODE[i] as usize] = i as u8;
        i += 1;
    }
    table
}

/// Why a text is not standard, padded base64.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Base64Problem {
    /// A byte outside `A–Z a–z 0–9 + /` (and `=` as padding) at this offset.
    #[error("invalid byte at offset {0}")]
    InvalidByte(usize),
    /// The length is not a multiple of four.
    #[error("length is not a multiple of 4")]
    BadLength,
    /// `=` appears somewhere other than the last one or two positions.
    #[error("misplaced '=' padding")]
    BadPadding,
}

fn is_alphabet(b: u8) -> bool {
    DECODE[usize::from(b)] != NOT_BASE64
}

/// Whether every byte is a base64 character: a table lookup per byte,
/// folded over blocks so the hot loop has no branch per byte (this runs
/// over every payload stashed, next to MD5).
fn all_alphabet(bytes: &[u8]) -> bool {
    let mut blocks = bytes.chunks_exact(32);
    for block in &mut blocks {
        // Values are below 64; `NOT_BASE64` sets the top bit.
        let mut any_bad = 0u8;
        for &b in block {
            any_bad |= DECODE[usize::from(b)];
        }
        if any_bad >= 64 {
            return false;
        }
    }
    blocks.remainder().iter().all(|&b| is_alphabet(b))
}

/// Checks that `text` is standard base64 with correct padding, in one pass and
/// without allocating.
pub fn check_base64(text: &str) -> Result<(), Base64Problem> {
    let bytes = text.as_bytes();
    if let Some((body, tail)) = bytes
        .len()
        .checked_sub(2)
        .filter(|_| bytes.len() % 4 == 0)
        .map(|end| bytes.split_at(end))
    {
        let tail_ok = match tail {
            [b'=', b'='] => true,
            [a, b'='] => is_alphabet(*a),
            [a, b] => is_alphabet(*a) && is_alphabet(*b),
            _ => false,
        };
        if tail_ok && all_alphabet(body) {
            return Ok(());
        }
    }
    find_problem(bytes)
}

/// The precise problem with text the fast check refused (or too short for it).
fn find_problem(bytes: &[u8]) -> Result<(), Base64Problem> {
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
    text.get(..end).and_then(decode).unwrap_or_default()
}

/// Decodes standard, padded base64; `None` when `text` is not exactly that
/// (wrong length, a byte outside the alphabet, misplaced padding, or bits
/// set after the last byte, which no encoder writes).
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    if bytes.len() % 4 != 0 {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    let quads = bytes.chunks_exact(4);
    let last = quads.len().checked_sub(1);
    for (i, quad) in quads.enumerate() {
        let padding = match quad {
            [_, _, b'=', b'='] if Some(i) == last => 2,
            [_, _, _, b'='] if Some(i) == last => 1,
            _ => 0,
        };
        let mut n = 0u32;
        for &b in quad.get(..4 - padding)? {
            let v = DECODE[usize::from(b)];
            if v == NOT_BASE64 {
                return None;
            }
            n = n << 6 | u32::from(v);
        }
        n <<= 6 * padding as u32;
        let unused_bits = [0, 0xff, 0xffff][padding];
        if n & unused_bits != 0 {
            return None;
        }
        out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8][..3 - padding]);
    }
    Some(out)
}

/// The number of bytes that valid base64 `text` decodes to.
pub fn decoded_len(text: &str) -> usize {
    let padding = text.bytes().rev().take(2).filter(|&b| b == b'=').count();
    (text.len() / 4 * 3).saturating_sub(padding)
}

/// Encodes bytes as standard, padded base64.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let byte = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let n = byte(0) << 16 | byte(1) << 8 | byte(2);
        for k in 0..4 {
            out.push(if k <= chunk.len() {
                char::from(ENCODE[(n >> (18 - 6 * k)) as usize & 63])
            } else {
                '='
            });
        }
    }
    out
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
    fn fast_check_agrees_with_the_precise_scan() {
        let symbols = [b'A', b'/', b'=', b'*', b' '];
        for len in 0..=8u32 {
            for n in 0..symbols.len().pow(len) {
                let text: String = (0..len)
                    .map(|k| symbols[n / symbols.len().pow(k) % symbols.len()] as char)
                    .collect();
                assert_eq!(
                    check_base64(&text),
                    find_problem(text.as_bytes()),
                    "{text:?}"
                );
            }
        }
        // Long texts go through the block loop: a bad byte in any position.
        let good = encode(&(0..=255u8).cycle().take(300).collect::<Vec<_>>());
        assert_eq!(check_base64(&good), Ok(()));
        for at in 0..good.len() {
            for bad in [b'*', b'=', b'\n', 0xff] {
                let mut bytes = good.clone().into_bytes();
                bytes[at] = bad;
                let text = String::from_utf8_lossy(&bytes).into_owned();
                assert_eq!(check_base64(&text), find_problem(text.as_bytes()));
                assert!(check_base64(&text).is_err() || at + 2 >= good.len());
            }
        }
    }

    #[test]
    fn decodes_prefix_and_length() {
        let text = encode(b"hello world, this is a test");
        assert_eq!(decode_prefix(&text, 5), b"hello ".to_vec());
        assert_eq!(decoded_len(&text), 27);
        assert_eq!(decoded_len("aGVsbA=="), 4);
    }
}
