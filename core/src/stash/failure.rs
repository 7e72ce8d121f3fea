//! Why a payload stayed where it was instead of going to the stash: what
//! compaction and tool-result sanitizing report for each write that did not
//! commit.

/// A payload that stays inline, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Failure {
    /// JSON path of the image part.
    pub path: String,
    /// The image's md5, when it could be computed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub md5: Option<String>,
    /// Stable code: `INVALID_DATA_URL` or a stash error code.
    pub code: crate::ErrorCode,
    /// What went wrong.
    pub reason: String,
}
