//! MIME types from magic bytes, then from file extensions.

/// The MIME type that the leading bytes of a file announce, for the image
/// formats ctxpack handles (PNG, JPEG, GIF, WebP, BMP, SVG, AVIF, HEIC/HEIF,
/// TIFF, ICO) and PDF.
pub fn sniff_mime(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some("image/png");
    }
    if bytes.starts_with(b"\xff\xd8\xff") {
        return Some("image/jpeg");
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        return Some("image/gif");
    }
    if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        return Some("image/webp");
    }
    if bytes.len() >= 14 && bytes.starts_with(b"BM") {
        return Some("image/bmp");
    }
    if bytes.starts_with(b"%PDF-") {
        return Some("application/pdf");
    }
    if bytes.starts_with(b"ID3")
        || (bytes.len() > 2 && bytes[0] == 0xff && bytes[1] & 0xe0 == 0xe0 && bytes[1] != 0xff)
    {
        return Some("audio/mpeg");
    }
    if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WAVE" {
        return Some("audio/wav");
    }
    if bytes.starts_with(b"OggS") {
        return Some("audio/ogg");
    }
    if bytes.starts_with(b"fLaC") {
        return Some("audio/flac");
    }
    if bytes.starts_with(b"\x1a\x45\xdf\xa3") {
        return Some("video/webm");
    }
    if bytes.starts_with(b"PK\x03\x04") {
        return Some("application/zip");
    }
    if bytes.starts_with(b"\x1f\x8b") {
        return Some("application/gzip");
    }
    if bytes.starts_with(b"II*\0") || bytes.starts_with(b"MM\0*") {
        return Some("image/tiff");
    }
    if bytes.starts_with(b"\0\0\x01\0") && bytes.len() >= 6 {
        return Some("image/x-icon");
    }
    if let Some(mime) = sniff_iso_bmff(bytes) {
        return Some(mime);
    }
    if bytes.len() >= 12 && &bytes[4..8] == b"ftyp" {
        return Some(match &bytes[8..11] {
            b"qt " => "video/quicktime",
            b"M4A" => "audio/mp4",
            _ => "video/mp4",
        });
    }
    if looks_like_svg(bytes) {
        return Some("image/svg+xml");
    }
    None
}

/// AVIF and HEIC/HEIF: an ISO-BMFF `ftyp` box whose major or compatible
/// brands name the format.
fn sniff_iso_bmff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.len() < 16 || &bytes[4..8] != b"ftyp" {
        return None;
    }
    let size = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
    let end = size.clamp(16, bytes.len());
    let mut brands = vec![&bytes[8..12]];
    let mut i = 16;
    while i + 4 <= end {
        brands.push(&bytes[i..i + 4]);
        i += 4;
    }
    if brands.iter().any(|b| *b == b"avif" || *b == b"avis") {
        return Some("image/avif");
    }
    if brands.iter().any(|b| {
        matches!(
            *b,
            b"heic" | b"heix" | b"heim" | b"heis" | b"hevc" | b"hevx"
        )
    }) {
        return Some("image/heic");
    }
    if brands.iter().any(|b| *b == b"mif1" || *b == b"msf1") {
        return Some("image/heif");
    }
    None
}

/// SVG: text (after an optional BOM, whitespace, XML declaration, comments
/// and doctype) whose first element is `<svg`.
fn looks_like_svg(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => match std::str::from_utf8(&head[..e.valid_up_to()]) {
            Ok(t) => t,
            Err(_) => return false,
        },
    };
    let mut rest = text.trim_start_matches('\u{feff}').trim_start();
    loop {
        if let Some(r) = rest.strip_prefix("<?") {
            match r.find("?>") {
                Some(i) => rest = r[i + 2..].trim_start(),
                None => return false,
            }
        } else if let Some(r) = rest.strip_prefix("<!--") {
            match r.find("-->") {
                Some(i) => rest = r[i + 3..].trim_start(),
                None => return false,
            }
        } else if let Some(r) = rest.strip_prefix("<!") {
            match r.find('>') {
                Some(i) => rest = r[i + 1..].trim_start(),
                None => return false,
            }
        } else {
            break;
        }
    }
    rest.starts_with("<svg")
        && rest[4..]
            .chars()
            .next()
            .is_some_and(|c| c.is_whitespace() || c == '>' || c == '/')
}

/// The MIME type for the extension of a path or URL (query and fragment
/// ignored), for images and common documents.
pub fn mime_from_extension(path: &str) -> Option<&'static str> {
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let (_, ext) = name.rsplit_once('.')?;
    let ext = ext.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" | "jpe" | "jfif" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "bmp" => "image/bmp",
        "svg" => "image/svg+xml",
        "avif" => "image/avif",
        "heic" => "image/heic",
        "heif" => "image/heif",
        "tif" | "tiff" => "image/tiff",
        "ico" => "image/x-icon",
        "pdf" => "application/pdf",
        "doc" => "application/msword",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls" => "application/vnd.ms-excel",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt" => "application/vnd.ms-powerpoint",
        "pptx" => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "ogg" | "oga" => "audio/ogg",
        "flac" => "audio/flac",
        "m4a" => "audio/mp4",
        "mp4" | "m4v" => "video/mp4",
        "webm" => "video/webm",
        "mov" => "video/quicktime",
        "zip" => "application/zip",
        "gz" => "application/gzip",
        "txt" | "log" => "text/plain",
        "md" | "markdown" => "text/markdown",
        "csv" => "text/csv",
        "json" => "application/json",
        "html" | "htm" => "text/html",
        _ => return None,
    })
}

/// The essence of a declared MIME type: lowercase, parameters dropped;
/// `None` when nothing is left.
pub fn mime_essence(declared: &str) -> Option<String> {
    let m = declared
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    (!m.is_empty()).then_some(m)
}

/// True for `image/*` MIME types.
pub fn is_image_mime(mime: &str) -> bool {
    mime.len() > 6 && mime.as_bytes()[..6].eq_ignore_ascii_case(b"image/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_magic_bytes() {
        assert_eq!(
            sniff_mime(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
            Some("image/png")
        );
        assert_eq!(
            sniff_mime(b"\xff\xd8\xff\xe0\0\x10JFIF"),
            Some("image/jpeg")
        );
        assert_eq!(sniff_mime(b"GIF89a\x01\0\x01\0"), Some("image/gif"));
        assert_eq!(sniff_mime(b"RIFF\x24\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(
            sniff_mime(b"BM\x3a\0\0\0\0\0\0\0\x36\0\0\0"),
            Some("image/bmp")
        );
        assert_eq!(sniff_mime(b"%PDF-1.7"), Some("application/pdf"));
        assert_eq!(
            sniff_mime(b"\0\0\0\x1cftypavif\0\0\0\0avifmif1miaf"),
            Some("image/avif")
        );
        assert_eq!(
            sniff_mime(b"\0\0\0\x18ftypheic\0\0\0\0mif1heic"),
            Some("image/heic")
        );
        assert_eq!(
            sniff_mime(b"\xef\xbb\xbf<?xml version=\"1.0\"?>\n<!-- x -->\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>"),
            Some("image/svg+xml")
        );
        assert_eq!(sniff_mime(b"<svgfoo>"), None);
        assert_eq!(sniff_mime(b"<html><svg>"), None);
        assert_eq!(sniff_mime(b"hello"), None);
        assert_eq!(sniff_mime(b""), None);
    }

    #[test]
    fn maps_extensions() {
        assert_eq!(
            mime_from_extension("file:///workspace/chart.PNG"),
            Some("image/png")
        );
        assert_eq!(
            mime_from_extension("https://x.test/a.jpeg?x=1#y"),
            Some("image/jpeg")
        );
        assert_eq!(mime_from_extension("dir.d/file"), None);
        assert_eq!(mime_from_extension("noext"), None);
    }

    #[test]
    fn recognises_image_mimes() {
        assert!(is_image_mime("image/png"));
        assert!(is_image_mime("IMAGE/PNG"));
        assert!(!is_image_mime("application/pdf"));
        assert!(!is_image_mime("image/"));
        // Found by fuzzing: a multi-byte character across byte 6.
        assert!(!is_image_mime("~ \teߣ = "));
    }
}
