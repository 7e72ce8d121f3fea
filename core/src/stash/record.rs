//! What the stash keeps for one image.

/// A record on its way in: borrows the payload from the message it came from,
/// so writing it does not copy the image inside wasm memory.
#[derive(Debug, Clone, PartialEq)]
pub struct NewRecord<'a> {
    /// Lowercase hex MD5 of the base64 payload text: the key.
    pub id: String,
    /// MIME type (from the bytes when they tell it).
    pub mime: String,
    /// The base64 payload text.
    pub payload: &'a str,
    /// Bookkeeping: size, times.
    pub meta: RecordMeta,
    /// The image part without its payload (an `ImageTemplate` as JSON), so
    /// `expandContext` can restore the exact original part.
    pub part: Option<String>,
    /// The stash already holds this record (its listing names it, with this
    /// payload's size and this part): the backend only confirms, in the
    /// same commit as the other records, that it is still there, and writes
    /// nothing for it. A record no longer there is an error, so the caller
    /// can write it in full.
    pub stored: bool,
}

/// When a record is written and how long it lives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WrittenAt {
    /// Now, in ms since the epoch.
    pub now: f64,
    /// How long the record lives unused, in ms.
    pub ttl_ms: f64,
}

impl<'a> NewRecord<'a> {
    /// A record written at `written.now` that expires `written.ttl_ms` later.
    pub fn new(
        id: String,
        mime: String,
        payload: &'a str,
        size: u64,
        stored_bytes: u64,
        part: Option<String>,
        written: WrittenAt,
    ) -> Self {
        let WrittenAt { now, ttl_ms } = written;
        let meta = RecordMeta {
            id: id.clone(),
            size,
            stored_bytes,
            mime: mime.clone(),
            created_at: now,
            expires_at: now + ttl_ms,
            last_used_at: now,
            part: part.clone(),
            files: Vec::new(),
        };
        NewRecord {
            id,
            mime,
            payload,
            meta,
            part,
            stored: false,
        }
    }
}

/// A record read back.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRecord {
    /// Lowercase hex MD5 of `payload`.
    pub id: String,
    /// MIME type.
    pub mime: String,
    /// The base64 payload text.
    pub payload: String,
    /// The image part template, when one was stored.
    pub part: Option<String>,
    /// When it expires (ms since the epoch), from its metadata.
    pub expires_at: f64,
}

/// The bookkeeping of one record, kept apart from the payload so listing,
/// refreshing and evicting never load images.
/// Its stored form (and `Stash.list`'s) is an object in camelCase; a field
/// missing from a stored object reads as zero or empty.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordMeta {
    /// The record's id.
    pub id: String,
    /// Decoded size of the image in bytes.
    #[serde(default)]
    pub size: u64,
    /// Length of the base64 payload text (what the stash actually holds).
    #[serde(default)]
    pub stored_bytes: u64,
    /// MIME type, for listings.
    #[serde(default)]
    pub mime: String,
    /// When the record was first written (ms since the epoch).
    #[serde(default)]
    pub created_at: f64,
    /// When it expires unless referenced again (ms since the epoch).
    #[serde(default)]
    pub expires_at: f64,
    /// When a compaction, expansion or tool call last referenced it.
    #[serde(default)]
    pub last_used_at: f64,
    /// The record's part template (as [`NewRecord::part`]), so a later
    /// compaction can tell from the listing alone that the record already
    /// holds what it would write. Absent in records of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    /// The files this image was uploaded as (one per provider and account),
    /// so an image the model still sees goes by reference and is uploaded
    /// once. Absent when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<StashedFile>,
}

/// An image uploaded to a provider's Files API, as its record remembers it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StashedFile {
    /// The provider (`openai`, `anthropic`, `gemini`).
    pub provider: String,
    /// The app's name for the key or project it was uploaded with (empty by
    /// default): files of one account are not another's.
    #[serde(default)]
    pub account: String,
    /// The file's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The file's URI (Gemini's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// When the provider lets go of it (ms since the epoch); `None` when it
    /// keeps it until deleted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<f64>,
}
