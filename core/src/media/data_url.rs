//! `data:` URLs (RFC 2397) as ctxpack meets them: images and files encoded in
//! base64.

use super::base64_payload::check_base64;

/// Why a string is not a usable base64 `data:` URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DataUrlError {
    /// The string does not start with `data:`.
    #[error("not a data: URL")]
    NotDataUrl,
    /// There is no `,` separating the header from the payload.
    #[error("data: URL has no ',' before its payload")]
    MissingComma,
    /// The header does not end in `;base64`; ctxpack stores only base64 payloads.
    #[error("data: URL is not base64-encoded")]
    NotBase64,
    /// The payload is not valid standard base64.
    #[error("data: URL payload is not valid base64: {0}")]
    InvalidBase64(String),
}

/// A parsed base64 `data:` URL that borrows from the original string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataUrl<'a> {
    /// The declared MIME type, lowercase trimmed, e.g. `image/png`; empty when
    /// the URL declares none.
    pub mime: &'a str,
    /// The base64 payload text after `base64,`.
    pub payload: &'a str,
}

impl<'a> DataUrl<'a> {
    /// Parses `url` as a base64 data URL and checks its payload is valid base64.
    pub fn parse(url: &'a str) -> Result<Self, DataUrlError> {
        let parsed = Self::parse_unchecked(url)?;
        check_base64(parsed.payload).map_err(|p| DataUrlError::InvalidBase64(p.to_string()))?;
        Ok(parsed)
    }

    /// Splits `url` into MIME type and payload without checking the payload.
    pub fn parse_unchecked(url: &'a str) -> Result<Self, DataUrlError> {
        if !is_data_url(url) {
            return Err(DataUrlError::NotDataUrl);
        }
        let rest = &url[5..];
        let comma = rest.find(',').ok_or(DataUrlError::MissingComma)?;
        let header = &rest[..comma];
        let payload = &rest[comma + 1..];
        let Some(mime_and_params) = strip_suffix_ignore_case(header, ";base64") else {
            return Err(DataUrlError::NotBase64);
        };
        let mime = mime_and_params.split(';').next().unwrap_or_default().trim();
        Ok(DataUrl { mime, payload })
    }

    /// The lowercase hex MD5 of the payload text: the stash key and the id in
    /// `[Picture:history_<md5>]`.
    pub fn md5(&self) -> String {
        crate::hash::md5_hex(self.payload.as_bytes())
    }
}

/// True when `url` starts with `data:` in any letter case.
pub fn is_data_url(url: &str) -> bool {
    url.len() >= 5 && url.as_bytes()[..5].eq_ignore_ascii_case(b"data:")
}

/// Builds `data:<mime>;base64,<payload>`.
pub fn format_data_url(mime: &str, payload: &str) -> String {
    let mut s = String::with_capacity(13 + mime.len() + payload.len());
    s.push_str("data:");
    s.push_str(mime);
    s.push_str(";base64,");
    s.push_str(payload);
    s
}

fn strip_suffix_ignore_case<'a>(s: &'a str, suffix: &str) -> Option<&'a str> {
    let cut = s.len().checked_sub(suffix.len())?;
    if s.is_char_boundary(cut) && s[cut..].eq_ignore_ascii_case(suffix) {
        Some(&s[..cut])
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_base64_data_url() {
        let d = DataUrl::parse("data:image/png;base64,aGVsbG8=").unwrap();
        assert_eq!(d.mime, "image/png");
        assert_eq!(d.payload, "aGVsbG8=");
        // The dootask backend: hashlib.md5("aGVsbG8=".encode()).hexdigest()
        assert_eq!(d.md5(), "0733351879b2fa9bd05c7ca3061529c0");
    }

    #[test]
    fn accepts_parameters_and_case() {
        let d = DataUrl::parse("DATA:image/jpeg;name=a.jpg;BASE64,aGVsbG8=").unwrap();
        assert_eq!(d.mime, "image/jpeg");
        let d = DataUrl::parse("data:;base64,aGVsbG8=").unwrap();
        assert_eq!(d.mime, "");
    }

    #[test]
    fn rejects_broken_urls() {
        assert_eq!(
            DataUrl::parse("http://x/a.png"),
            Err(DataUrlError::NotDataUrl)
        );
        assert_eq!(
            DataUrl::parse("data:image/png;base64"),
            Err(DataUrlError::MissingComma)
        );
        assert_eq!(
            DataUrl::parse("data:image/svg+xml,<svg/>"),
            Err(DataUrlError::NotBase64)
        );
        assert!(matches!(
            DataUrl::parse("data:image/png;base64,aGVsbG8"),
            Err(DataUrlError::InvalidBase64(_))
        ));
        assert!(matches!(
            DataUrl::parse("data:image/png;base64,<script>"),
            Err(DataUrlError::InvalidBase64(_))
        ));
        assert_eq!(DataUrl::parse("dat"), Err(DataUrlError::NotDataUrl));
        assert_eq!(
            DataUrl::parse("data:é;base64"),
            Err(DataUrlError::MissingComma)
        );
    }
}
