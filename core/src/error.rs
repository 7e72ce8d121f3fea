//! What every error of the core has in common: a stable code and, where the
//! error is about one value of the input, the JSON path of that value.

/// An error that the JavaScript boundary reports as a `CtxpackError`.
pub trait ErrorCode: std::error::Error {
    /// The stable, documented code, e.g. `INVALID_MESSAGE`.
    fn code(&self) -> &'static str;
    /// The JSON path of the offending value, where there is one.
    fn path(&self) -> Option<&str>;
}
