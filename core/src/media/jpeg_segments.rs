//! The marker segments of a JPEG header, in order, up to the first scan:
//! what both the size reader and the EXIF orientation reader walk.

/// One marker segment: its marker byte and its body (the bytes after the
/// length field, cut at the end of the segment or of the data).
pub(crate) struct Segment<'a> {
    /// The marker (`0xc0` SOF0, `0xe1` APP1 …).
    pub marker: u8,
    /// The bytes after the length field.
    pub body: &'a [u8],
}

/// Iterates the segments of JPEG `bytes` after SOI, skipping fill bytes
/// and markers without a body, and stops at the start of scan, the end of
/// image, a malformed marker or where the data is cut off.
pub(crate) struct JpegSegments<'a> {
    bytes: &'a [u8],
    at: Option<usize>,
}

impl<'a> JpegSegments<'a> {
    /// The segments of `bytes`, a JPEG beginning with SOI.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        JpegSegments { bytes, at: Some(2) }
    }
}

impl<'a> Iterator for JpegSegments<'a> {
    type Item = Segment<'a>;

    fn next(&mut self) -> Option<Segment<'a>> {
        let b = self.bytes;
        let mut i = self.at.take()?;
        loop {
            // Skip fill bytes before a marker.
            while *b.get(i)? == 0xff && *b.get(i + 1)? == 0xff {
                i += 1;
            }
            if *b.get(i)? != 0xff {
                return None;
            }
            let marker = *b.get(i + 1)?;
            match marker {
                0xd8 | 0x01 | 0xd0..=0xd7 => {
                    i += 2;
                    continue;
                }
                // End of image or start of scan: the header is over.
                0xd9 | 0xda => return None,
                _ => {}
            }
            let len = usize::from(u16::from_be_bytes([*b.get(i + 2)?, *b.get(i + 3)?]));
            let start = i + 4;
            let end = (i + 2 + len).clamp(start, b.len().max(start));
            // A length below 2 cannot be stepped over: this segment is the last.
            if len >= 2 {
                self.at = Some(i + 2 + len);
            }
            return Some(Segment {
                marker,
                body: b.get(start..end).unwrap_or_default(),
            });
        }
    }
}
