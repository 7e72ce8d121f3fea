//! [`Number`]: a JSON number, kept exactly when it is an integer.

/// A JSON number: an unsigned integer, a negative integer or a finite
/// floating-point value. Integers are kept exactly (a tool result's 64-bit
/// ids survive being read and written again); `1` and `1.0` are different
/// numbers, as in `serde_json`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Number(N);

#[derive(Clone, Copy, Debug, PartialEq)]
enum N {
    PosInt(u64),
    NegInt(i64),
    Float(f64),
}

impl Number {
    /// A finite float as a number; `None` for NaN and the infinities, which
    /// JSON cannot hold.
    pub fn from_f64(f: f64) -> Option<Number> {
        f.is_finite().then_some(Number(N::Float(f)))
    }

    /// The value as an unsigned integer, when it is one.
    pub fn as_u64(&self) -> Option<u64> {
        match self.0 {
            N::PosInt(n) => Some(n),
            _ => None,
        }
    }

    /// The value as a signed integer, when it is one that fits.
    pub fn as_i64(&self) -> Option<i64> {
        match self.0 {
            N::PosInt(n) => i64::try_from(n).ok(),
            N::NegInt(n) => Some(n),
            N::Float(_) => None,
        }
    }

    /// The value as a float (integers beyond 2^53 rounded).
    pub fn as_f64(&self) -> Option<f64> {
        Some(match self.0 {
            N::PosInt(n) => n as f64,
            N::NegInt(n) => n as f64,
            N::Float(f) => f,
        })
    }

    /// Whether the number is held as a float.
    pub fn is_f64(&self) -> bool {
        matches!(self.0, N::Float(_))
    }

    /// Writes the number as JSON: integers in decimal, floats in their
    /// shortest round-tripping form (`1.0`, `0.1`, `1e300`).
    pub(super) fn write(&self, out: &mut dyn core::fmt::Write) -> core::fmt::Result {
        match self.0 {
            N::PosInt(n) => write!(out, "{n}"),
            N::NegInt(n) => write!(out, "{n}"),
            N::Float(f) => out.write_str(zmij::Buffer::new().format_finite(f)),
        }
    }
}

impl From<u64> for Number {
    fn from(n: u64) -> Self {
        Number(N::PosInt(n))
    }
}

impl From<i64> for Number {
    fn from(n: i64) -> Self {
        if n < 0 {
            Number(N::NegInt(n))
        } else {
            Number(N::PosInt(n as u64))
        }
    }
}
