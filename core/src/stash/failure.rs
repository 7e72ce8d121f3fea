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

impl Failure {
    /// A failure of the stash as a whole (no image's path).
    pub fn of_stash(code: crate::ErrorCode, reason: String) -> Failure {
        Failure {
            path: String::new(),
            md5: None,
            code,
            reason,
        }
    }
}

/// Why the records of one write that did not commit failed, by record id.
/// A write fails for few records, so this is a list, not a map.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteErrors(Vec<(String, crate::ErrorCode, String)>);

impl WriteErrors {
    /// Records that record `id` failed with `code` and `reason` (replacing
    /// what was said of it before).
    pub fn insert(&mut self, id: &str, code: crate::ErrorCode, reason: String) {
        self.0.retain(|e| e.0 != id);
        self.0.push((id.to_owned(), code, reason));
    }

    /// The code and reason record `id` failed with.
    pub fn get(&self, id: &str) -> Option<(crate::ErrorCode, String)> {
        self.0
            .iter()
            .find(|e| e.0 == id)
            .map(|e| (e.1, e.2.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::WriteErrors;
    use crate::ErrorCode;

    #[test]
    fn write_errors_are_found_by_record_id() {
        let mut errors = WriteErrors::default();
        assert_eq!(errors.get("a"), None);
        errors.insert("a", ErrorCode::QuotaExceeded, "full".into());
        errors.insert("b", ErrorCode::StashWriteFailed, "gone".into());
        assert_eq!(
            errors.get("a"),
            Some((ErrorCode::QuotaExceeded, "full".into()))
        );
        assert_eq!(
            errors.get("b"),
            Some((ErrorCode::StashWriteFailed, "gone".into()))
        );
        assert_eq!(errors.get("c"), None);
        errors.insert("a", ErrorCode::VersionChange, "deleted".into());
        assert_eq!(
            errors.get("a"),
            Some((ErrorCode::VersionChange, "deleted".into()))
        );
    }
}
