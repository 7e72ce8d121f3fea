//! The facts of a payload read in pieces: what [`super::facts_of_text`]
//! finds in the whole text (its MD5, sizes, leading bytes and whether it is
//! valid base64), found piece by piece, so that a host can read a payload of
//! many megabytes over several tasks.

use super::base64_payload::{decode_prefix, decoded_len_of, Base64Check, CHECK_CHUNK};
use super::payload::PayloadFacts;
use crate::hash::Md5Hex;

/// Characters per piece a host reads at a time: a whole number of
/// [`CHECK_CHUNK`]s, about 2 ms of reading and hashing in a browser.
pub const PIECE_CHARS: usize = 64 * CHECK_CHUNK;

/// The facts of a text `len` bytes long, read a piece at a time.
#[derive(Debug, Clone)]
pub struct FactsReader {
    len: usize,
    head_bytes: usize,
    /// The leading bytes of the text that [`decode_prefix`] reads.
    head_text: Vec<u8>,
    head_chars: usize,
    md5: Md5Hex,
    check: Base64Check,
    /// The last two bytes read, for the padding.
    tail: Vec<u8>,
    read: usize,
}

impl FactsReader {
    /// A reader of a text `len` bytes long, keeping `head_bytes` decoded
    /// leading bytes.
    pub fn new(len: usize, head_bytes: usize) -> Self {
        let head_chars = head_bytes.div_ceil(3).saturating_mul(4).min(len);
        FactsReader {
            len,
            head_bytes,
            head_text: Vec::with_capacity(head_chars),
            head_chars,
            md5: Md5Hex::default(),
            check: Base64Check::new(len),
            tail: Vec::with_capacity(2),
            read: 0,
        }
    }

    /// Reads the next piece: each but the last a whole number of
    /// [`CHECK_CHUNK`]s long (as [`PIECE_CHARS`] is).
    pub fn read(&mut self, piece: &str) {
        let bytes = piece.as_bytes();
        self.md5.update(bytes);
        self.check.feed(bytes);
        let wanted = self.head_chars.saturating_sub(self.head_text.len());
        self.head_text
            .extend_from_slice(&bytes[..wanted.min(bytes.len())]);
        self.tail
            .extend_from_slice(&bytes[bytes.len().saturating_sub(2)..]);
        let extra = self.tail.len().saturating_sub(2);
        self.tail.drain(..extra);
        self.read += bytes.len();
    }

    /// The facts of the text read; a text shorter than announced is not
    /// valid base64.
    pub fn finish(self) -> PayloadFacts {
        let padding = self.tail.iter().filter(|&&b| b == b'=').count();
        let valid = match self.check.result() {
            Ok(()) if self.read != self.len => Err(super::Base64Problem::BadLength),
            other => other,
        };
        // As `decode_prefix` reads the whole text: whole groups of four, and
        // nothing when they end inside a character.
        let end = self.head_text.len() - self.head_text.len() % 4;
        let head = std::str::from_utf8(&self.head_text[..end])
            .map(|text| decode_prefix(text, self.head_bytes))
            .unwrap_or_default();
        PayloadFacts {
            md5: self.md5.finish(),
            len: self.read,
            decoded_len: decoded_len_of(self.read, padding),
            head,
            valid,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::{encode_base64, facts_of_text, InMemory};

    /// `text` read in pieces of `chunks` × [`CHECK_CHUNK`] bytes; `None`
    /// when a piece would end inside a character.
    fn in_pieces(text: &str, chunks: usize, head_bytes: usize) -> Option<PayloadFacts> {
        let mut reader = FactsReader::new(text.len(), head_bytes);
        for piece in text.as_bytes().chunks(chunks * CHECK_CHUNK) {
            reader.read(std::str::from_utf8(piece).ok()?);
        }
        Some(reader.finish())
    }

    fn bytes(n: usize, seed: u8) -> Vec<u8> {
        (0..n)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect()
    }

    #[test]
    fn pieces_find_what_the_whole_text_shows() {
        let valid = encode_base64(&bytes(3 * CHECK_CHUNK + 1000, 7));
        let mut texts = vec![
            String::new(),
            "aGVsbG8=".to_owned(),
            encode_base64(&bytes(CHECK_CHUNK / 4 * 3, 1)),
            valid.clone(),
            format!("{valid}A"),
            valid[..valid.len() - 1].to_owned(),
        ];
        // A bad byte, stray padding and stray bits in each piece and at
        // every piece boundary.
        for at in [
            5,
            CHECK_CHUNK - 1,
            CHECK_CHUNK,
            2 * CHECK_CHUNK + 3,
            valid.len() - 3,
        ] {
            for c in ["*", "=", "\u{e9}"] {
                let mut t = valid.clone();
                t.replace_range(at..at + 1, c);
                texts.push(t);
            }
        }
        texts.push(format!("{}QR==", &valid[..CHECK_CHUNK]));
        for text in &texts {
            for head_bytes in [0, 64, 64 * 1024] {
                let whole = facts_of_text(&InMemory, text, head_bytes);
                for chunks in [1, 2, 64] {
                    let Some(pieces) = in_pieces(text, chunks, head_bytes) else {
                        continue;
                    };
                    assert_eq!(
                        pieces,
                        whole,
                        "{} characters, pieces of {chunks} chunks, head {head_bytes}",
                        text.len()
                    );
                }
            }
        }
    }

    #[test]
    fn a_text_shorter_than_announced_is_not_valid() {
        let mut reader = FactsReader::new(12, 0);
        reader.read("aGVsbG8=");
        assert!(reader.finish().valid.is_err());
    }
}
