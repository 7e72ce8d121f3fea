//! Finding a short needle in text by its first byte. Only the markdown
//! scanner still uses it (for `![` and a closing fence); the rest of the
//! crate uses `str::find`.

/// The byte offset of the first `needle` in `hay`.
pub fn find(hay: &str, needle: &str) -> Option<usize> {
    find_bytes(hay.as_bytes(), needle.as_bytes())
}

/// Whether `hay` contains `needle`.
pub fn contains(hay: &str, needle: &str) -> bool {
    find(hay, needle).is_some()
}

/// The offset of the first `needle` in `hay`: candidates are found eight
/// bytes at a time by their first byte, then compared whole.
pub fn find_bytes(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let Some((&first, rest)) = needle.split_first() else {
        return Some(0);
    };
    let mut from = 0;
    while let Some(at) = find_byte(hay.get(from..)?, first).map(|i| from + i) {
        if hay.get(at + 1..)?.starts_with(rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The offset of the first `byte` in `hay`, eight bytes per step (a word
/// has the byte when `(w ^ b) - 0x01…` borrows into a high bit that was clear).
fn find_byte(hay: &[u8], byte: u8) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let pattern = LO * byte as u64;
    let mut chunks = hay.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word) ^ pattern;
        if x.wrapping_sub(LO) & !x & HI != 0 {
            break;
        }
        base += 8;
    }
    hay.get(base..)?
        .iter()
        .position(|&b| b == byte)
        .map(|i| base + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_str_find_finds() {
        let hay = "ab![x](y) -->-- ?> é![ end ![";
        for start in 0..hay.len() {
            let Some(h) = hay.get(start..) else { continue };
            for needle in ["![", "-->", "?>", "a", "", "é!", "end ![", "zz", "!!"] {
                assert_eq!(find(h, needle), h.find(needle), "{h:?} {needle:?}");
            }
        }
        let long = "x".repeat(1000) + "![" + &"y".repeat(77);
        assert_eq!(find(&long, "!["), Some(1000));
        for byte in 0..=255u8 {
            let bytes: Vec<u8> = (0..40)
                .map(|i| if i == 37 { byte } else { byte.wrapping_add(1) })
                .collect();
            assert_eq!(find_byte(&bytes, byte), Some(37));
        }
    }
}
