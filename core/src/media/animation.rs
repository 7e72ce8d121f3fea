//! Whether an image is animated, read from its header: a GIF with the
//! NETSCAPE2.0 looping extension (written before the first frame by every
//! encoder of animated GIFs), a PNG with an `acTL` chunk before its image
//! data (APNG), a WebP whose `VP8X` header sets the animation flag.

/// True when the leading bytes `head` are those of an animated image.
pub fn is_animated(head: &[u8]) -> bool {
    match super::sniff_mime(head) {
        Some("image/gif") => contains(head, b"NETSCAPE2.0") || contains(head, b"ANIMEXTS1.0"),
        Some("image/png") => apng(head),
        Some("image/webp") => {
            head.get(12..16) == Some(b"VP8X") && head.get(20).is_some_and(|f| f & 0x02 != 0)
        }
        _ => false,
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Walks the PNG chunks until the first `IDAT`, looking for `acTL`.
fn apng(b: &[u8]) -> bool {
    let mut at = 8usize;
    while let Some(len) = b.get(at..at + 4) {
        let len = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
        match b.get(at + 4..at + 8) {
            Some(b"acTL") => return true,
            Some(b"IDAT") | None => return false,
            Some(_) => {}
        }
        at = match at.checked_add(12).and_then(|a| a.checked_add(len)) {
            Some(next) => next,
            None => return false,
        };
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn still_and_animated_headers() {
        let mut gif = b"GIF89a\x02\x00\x02\x00\x00\x00\x00".to_vec();
        assert!(!is_animated(&gif));
        gif.extend_from_slice(b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00");
        assert!(is_animated(&gif));

        let chunk = |kind: &[u8], data: &[u8]| {
            let mut c = (data.len() as u32).to_be_bytes().to_vec();
            c.extend_from_slice(kind);
            c.extend_from_slice(data);
            c.extend_from_slice(&[0, 0, 0, 0]);
            c
        };
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend(chunk(b"IHDR", &[0; 13]));
        let mut apng = png.clone();
        png.extend(chunk(b"IDAT", &[0; 4]));
        png.extend(chunk(b"acTL", &[0; 8]));
        assert!(!is_animated(&png), "acTL after IDAT is not APNG");
        apng.extend(chunk(b"acTL", &[0; 8]));
        assert!(is_animated(&apng));

        let mut webp = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\x02\0\0\0".to_vec();
        assert!(is_animated(&webp));
        webp[20] = 0;
        assert!(!is_animated(&webp));
        assert!(!is_animated(b"\xff\xd8\xff\xe0"));
    }
}
