//! Recognising, from their first bytes, formats the codec cannot decode, so
//! the error names them instead of calling the bytes damaged.

/// The name of an image format that the codec recognises but cannot decode,
/// or `None` when the bytes are not one of those.
pub fn undecodable_format(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(&[0xFF, 0x0A]) || bytes.starts_with(b"\0\0\0\x0CJXL \r\n\x87\n") {
        return Some("JPEG XL");
    }
    // ISO base media files (AVIF, HEIC/HEIF) open with a `ftyp` box: size,
    // "ftyp", the major brand, a version, then compatible brands.
    if bytes.get(4..8) != Some(b"ftyp".as_slice()) {
        return None;
    }
    let size = bytes
        .get(0..4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map_or(0, u32::from_be_bytes) as usize;
    let end = size.clamp(16, 256).min(bytes.len());
    let major = bytes.get(8..12)?;
    let compatible = bytes.get(16..end).unwrap_or_default().chunks_exact(4);
    let brands: Vec<&[u8]> = std::iter::once(major).chain(compatible).collect();
    if brands.iter().any(|b| matches!(*b, b"avif" | b"avis")) {
        return Some("AVIF");
    }
    let heif = [
        b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"hevm", b"hevs", b"mif1", b"msf1",
    ];
    if brands
        .iter()
        .any(|b| heif.iter().any(|h| *b == h.as_slice()))
    {
        return Some("HEIC/HEIF");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ftyp(major: &[u8; 4], compatible: &[&[u8; 4]]) -> Vec<u8> {
        let size = 16 + 4 * compatible.len();
        let mut out = (size as u32).to_be_bytes().to_vec();
        out.extend_from_slice(b"ftyp");
        out.extend_from_slice(major);
        out.extend_from_slice(&[0, 0, 0, 0]);
        for brand in compatible {
            out.extend_from_slice(*brand);
        }
        out.extend_from_slice(b"\0\0\0\x08meta");
        out
    }

    #[test]
    fn avif_heic_and_jpeg_xl_are_named() {
        assert_eq!(undecodable_format(&ftyp(b"avif", &[b"mif1"])), Some("AVIF"));
        assert_eq!(undecodable_format(&ftyp(b"mif1", &[b"avif"])), Some("AVIF"));
        assert_eq!(
            undecodable_format(&ftyp(b"heic", &[b"mif1", b"heic"])),
            Some("HEIC/HEIF")
        );
        assert_eq!(undecodable_format(&[0xFF, 0x0A, 1, 2]), Some("JPEG XL"));
    }

    #[test]
    fn other_bytes_are_not_named() {
        assert_eq!(undecodable_format(b"\x89PNG\r\n\x1a\n"), None);
        assert_eq!(undecodable_format(&ftyp(b"isom", &[b"mp41"])), None);
        assert_eq!(undecodable_format(b"abc"), None);
        assert_eq!(undecodable_format(b"\0\0\0\0ftyp"), None);
    }
}
