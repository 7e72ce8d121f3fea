//! Friendly names for MIME types, in English and Chinese, and the broad kind
//! of a binary (image, audio, video, document, other).

/// The broad kind of a binary file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryKind {
    /// `image/*`.
    Image,
    /// `audio/*`.
    Audio,
    /// `video/*`.
    Video,
    /// PDF, office documents, plain-text-like documents.
    Document,
    /// Anything else (archives, executables, unknown bytes).
    Other,
}

/// The kind of a MIME type.
pub fn kind_of_mime(mime: &str) -> BinaryKind {
    let m = mime.to_ascii_lowercase();
    if m.starts_with("image/") {
        BinaryKind::Image
    } else if m.starts_with("audio/") {
        BinaryKind::Audio
    } else if m.starts_with("video/") {
        BinaryKind::Video
    } else if m == "application/pdf"
        || m.starts_with("application/msword")
        || m.starts_with("application/vnd.ms-")
        || m.starts_with("application/vnd.openxmlformats-officedocument")
        || m.starts_with("application/vnd.oasis.opendocument")
        || m == "application/rtf"
        || m == "application/epub+zip"
    {
        BinaryKind::Document
    } else {
        BinaryKind::Other
    }
}

const NAMES: &[(&str, &str, &str)] = &[
    ("image/jpeg", "JPEG image", "JPEG 图片"),
    ("image/png", "PNG image", "PNG 图片"),
    ("image/gif", "GIF image", "GIF 图片"),
    ("image/webp", "WebP image", "WebP 图片"),
    ("image/bmp", "BMP image", "BMP 图片"),
    ("image/svg+xml", "SVG image", "SVG 图片"),
    ("image/avif", "AVIF image", "AVIF 图片"),
    ("image/heic", "HEIC image", "HEIC 图片"),
    ("image/heif", "HEIF image", "HEIF 图片"),
    ("image/tiff", "TIFF image", "TIFF 图片"),
    ("application/pdf", "PDF document", "PDF 文档"),
    ("application/msword", "Word document", "Word 文档"),
    (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "Word document",
        "Word 文档",
    ),
    (
        "application/vnd.ms-excel",
        "Excel spreadsheet",
        "Excel 表格",
    ),
    (
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "Excel spreadsheet",
        "Excel 表格",
    ),
    (
        "application/vnd.ms-powerpoint",
        "PowerPoint presentation",
        "PowerPoint 演示",
    ),
    (
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "PowerPoint presentation",
        "PowerPoint 演示",
    ),
    ("audio/mpeg", "MP3 audio", "MP3 音频"),
    ("audio/mp3", "MP3 audio", "MP3 音频"),
    ("audio/wav", "WAV audio", "WAV 音频"),
    ("audio/x-wav", "WAV audio", "WAV 音频"),
    ("audio/ogg", "OGG audio", "OGG 音频"),
    ("audio/flac", "FLAC audio", "FLAC 音频"),
    ("video/mp4", "MP4 video", "MP4 视频"),
    ("video/webm", "WebM video", "WebM 视频"),
    ("video/quicktime", "QuickTime video", "QuickTime 视频"),
    ("application/zip", "ZIP archive", "ZIP 压缩包"),
    ("application/x-rar-compressed", "RAR archive", "RAR 压缩包"),
    ("application/gzip", "gzip archive", "gzip 压缩包"),
    ("application/octet-stream", "binary file", "二进制文件"),
];

/// A friendly name for `mime` (`PDF document` / `PDF 文档`); the MIME type
/// itself when there is none.
pub fn friendly_type_name(mime: &str, zh: bool) -> String {
    let m = mime.to_ascii_lowercase();
    NAMES
        .iter()
        .find(|(k, _, _)| *k == m)
        .map(|(_, en, cn)| if zh { *cn } else { *en }.to_owned())
        .unwrap_or_else(|| mime.to_owned())
}

/// `n / unit` with one decimal, rounded half up, in integer arithmetic (no
/// float formatting in the wasm binary).
pub fn one_decimal(n: u64, unit: u64) -> String {
    let unit = unit.max(1);
    // Exact for units below u64::MAX / 10 (the byte units are).
    let tenths = (n / unit)
        .saturating_mul(10)
        .saturating_add(((n % unit).saturating_mul(10) + unit / 2) / unit);
    format!("{}.{}", tenths / 10, tenths % 10)
}

/// A human size: `512 B`, `12.3 KB`, `2.5 MB`.
pub fn human_size(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{} KB", one_decimal(b, 1024)),
        b => format!("{} MB", one_decimal(b, 1024 * 1024)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_kinds() {
        assert_eq!(friendly_type_name("application/pdf", true), "PDF 文档");
        assert_eq!(friendly_type_name("audio/mpeg", false), "MP3 audio");
        assert_eq!(friendly_type_name("x/unknown", true), "x/unknown");
        assert_eq!(
            kind_of_mime("application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
            BinaryKind::Document
        );
        assert_eq!(kind_of_mime("VIDEO/MP4"), BinaryKind::Video);
        assert_eq!(kind_of_mime("application/zip"), BinaryKind::Other);
        assert_eq!(human_size(2_621_440), "2.5 MB");
    }
}
