//! MD5 as the stash key: lowercase hex of the digest of the base64 text.

use md5::{Digest, Md5};

/// Lowercase hex MD5 of `bytes`.
pub fn md5_hex(bytes: &[u8]) -> String {
    let mut md5 = Md5Hex::default();
    md5.update(bytes);
    md5.finish()
}

/// [`md5_hex`] of bytes given in pieces.
#[derive(Debug, Clone, Default)]
pub struct Md5Hex(Md5);

impl Md5Hex {
    /// Adds the next piece.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// Lowercase hex MD5 of the pieces given.
    pub fn finish(self) -> String {
        let mut out = String::with_capacity(32);
        for b in self.0.finalize() {
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0x0f)]));
        }
        out
    }
}

/// True when `id` is 32 hexadecimal digits, in either case.
pub fn is_md5_hex(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The number an MD5's 32 hex digits write, as its two 64-bit halves
/// (arithmetic wasm does natively; a `u128` is read a digit at a time in
/// emulated 128-bit steps). `None` unless `id` is 32 hexadecimal digits.
pub fn md5_number(id: &str) -> Option<(u64, u64)> {
    if !is_md5_hex(id) {
        return None;
    }
    let half = |digits: &str| u64::from_str_radix(digits, 16).ok();
    Some((half(id.get(..16)?)?, half(id.get(16..)?)?))
}

/// The lowercase hex an MD5 number ([`md5_number`]) is written as.
pub fn md5_text((high, low): (u64, u64)) -> String {
    let mut out = String::with_capacity(32);
    for half in [high, low] {
        for shift in (0..16).rev() {
            out.push(char::from(HEX[(half >> (4 * shift)) as usize & 0x0f]));
        }
    }
    out
}

const HEX: &[u8; 16] = b"0123456789abcdef";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_md5_is_read_as_the_number_it_writes_in_either_case() {
        let id = "0123456789abcdefFEDCBA9876543210";
        assert_eq!(
            md5_number(id),
            Some((0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210))
        );
        assert_eq!(md5_number(id), md5_number(&id.to_ascii_lowercase()));
        assert_eq!(md5_number(id).map(md5_text), Some(id.to_ascii_lowercase()));
        for bad in [
            "+123456789abcdef0123456789abcdef",
            "0123",
            "g123456789abcdef0123456789abcdef",
        ] {
            assert_eq!(md5_number(bad), None, "{bad}");
        }
    }

    #[test]
    fn matches_known_digests() {
        assert_eq!(md5_hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(md5_hex(b"abc"), "900150983cd24fb0d6963f7d28e17f72");
    }

    #[test]
    fn recognises_md5_ids() {
        assert!(is_md5_hex("900150983CD24FB0D6963F7D28E17F72"));
        assert!(!is_md5_hex("900150983cd24fb0d6963f7d28e17f7"));
        assert!(!is_md5_hex("900150983cd24fb0d6963f7d28e17f7g"));
    }
}
