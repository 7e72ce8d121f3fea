//! Counts that come from outside (a provider's error text, a caller's limit,
//! a stored record) can exceed 2^53, the largest integer a JavaScript number
//! holds exactly. They are written as floating-point numbers, which every
//! serializer accepts, instead of as 64-bit integers, which a JavaScript one
//! may refuse.

use serde::Serializer;

/// Writes `n` as a floating-point number.
pub(crate) fn u64_as_number<S: Serializer>(n: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(*n as f64)
}

/// Writes `n` as a floating-point number, or `null`.
pub(crate) fn opt_u64_as_number<S: Serializer>(n: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
    match n {
        Some(n) => s.serialize_f64(*n as f64),
        None => s.serialize_none(),
    }
}
