//! JSON text in (RFC 8259): strict, nesting bounded at 128 levels, repeated
//! keys resolved as `JSON.parse` resolves them (the last value wins).
//!
//! Integers that fit 64 bits are kept exactly. Other numbers are read from
//! their first 19 significant digits: exactly rounded when those fit 53
//! bits and the exponent is within ±22, else through a 128-bit power of ten
//! and one rounding, which gives the nearest float in all but about 1 in
//! 7,000 shortest-form numbers (one place off then; `serde_json`'s default
//! reader is off in about 1 in 3).

use super::{Map, Number, Value};

/// How deep text may nest.
const MAX_DEPTH: usize = 128;

/// Text that is not one JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("not JSON (at byte {offset})")]
pub struct ParseError {
    /// Where the text stopped being JSON.
    pub offset: usize,
}

/// Parses `text` as one JSON value.
pub fn from_str(text: &str) -> Result<Value, ParseError> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    let v = p.value(0)?;
    p.space();
    if p.i == p.s.len() {
        Ok(v)
    } else {
        Err(p.fail())
    }
}

/// Parses UTF-8 bytes as one JSON value.
pub fn from_slice(bytes: &[u8]) -> Result<Value, ParseError> {
    match core::str::from_utf8(bytes) {
        Ok(text) => from_str(text),
        Err(e) => Err(ParseError {
            offset: e.valid_up_to(),
        }),
    }
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

impl Parser<'_> {
    fn fail(&self) -> ParseError {
        ParseError { offset: self.i }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.space();
        let hit = self.peek() == Some(b);
        self.i += hit as usize;
        hit
    }

    fn word(&mut self, w: &str, v: Value) -> Result<Value, ParseError> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(v)
        } else {
            Err(self.fail())
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, ParseError> {
        self.space();
        match self.peek() {
            Some(b'n') => self.word("null", Value::Null),
            Some(b't') => self.word("true", Value::Bool(true)),
            Some(b'f') => self.word("false", Value::Bool(false)),
            Some(b'"') => self.string().map(Value::String),
            Some(b'-' | b'0'..=b'9') => self.number().map(Value::Number),
            Some(b'[') if depth < MAX_DEPTH => {
                self.i += 1;
                let mut items = Vec::new();
                if !self.eat(b']') {
                    loop {
                        items.push(self.value(depth + 1)?);
                        if self.eat(b']') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(self.fail());
                        }
                    }
                }
                Ok(Value::Array(items))
            }
            Some(b'{') if depth < MAX_DEPTH => {
                self.i += 1;
                let mut map = Map::new();
                if !self.eat(b'}') {
                    loop {
                        self.space();
                        if self.peek() != Some(b'"') {
                            return Err(self.fail());
                        }
                        let key = self.string()?;
                        if !self.eat(b':') {
                            return Err(self.fail());
                        }
                        map.push_unique(key, self.value(depth + 1)?);
                        if self.eat(b'}') {
                            break;
                        }
                        if !self.eat(b',') {
                            return Err(self.fail());
                        }
                    }
                }
                map.dedupe();
                Ok(Value::Object(map))
            }
            _ => Err(self.fail()),
        }
    }

    /// A string; `self.i` is at its opening quote.
    fn string(&mut self) -> Result<String, ParseError> {
        self.i += 1;
        let mut out = String::new();
        let mut start = self.i;
        loop {
            let Some(b) = self.peek() else {
                return Err(self.fail());
            };
            match b {
                b'"' | b'\\' => {
                    // Both are ASCII, so the run ends on a char boundary.
                    out.push_str(self.text.get(start..self.i).unwrap_or_default());
                    self.i += 1;
                    if b == b'"' {
                        return Ok(out);
                    }
                    let letter = self.peek();
                    self.i += 1;
                    let c = match letter {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => self.unicode_escape()?,
                        _ => return Err(self.fail()),
                    };
                    out.push(c);
                    start = self.i;
                }
                0..=0x1f => return Err(self.fail()),
                _ => self.i += 1,
            }
        }
    }

    /// Four hex digits; `self.i` is at the first.
    fn hex4(&mut self) -> Result<u32, ParseError> {
        let digits = self.s.get(self.i..self.i + 4).ok_or_else(|| self.fail())?;
        let mut n = 0;
        for &d in digits {
            let v = (d as char).to_digit(16).ok_or_else(|| self.fail())?;
            n = n * 16 + v;
        }
        self.i += 4;
        Ok(n)
    }

    /// The character of a `\u` escape (a surrogate pair taking two); `self.i`
    /// is after the `u`.
    fn unicode_escape(&mut self) -> Result<char, ParseError> {
        let hi = self.hex4()?;
        let code = if (0xd800..0xdc00).contains(&hi) {
            if self.s.get(self.i..self.i + 2) != Some(b"\\u") {
                return Err(self.fail());
            }
            self.i += 2;
            let lo = self.hex4()?;
            if !(0xdc00..0xe000).contains(&lo) {
                return Err(self.fail());
            }
            0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
        } else {
            hi
        };
        char::from_u32(code).ok_or_else(|| self.fail())
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<Number, ParseError> {
        let start = self.i;
        let negative = self.peek() == Some(b'-');
        self.i += negative as usize;
        let int_start = self.i;
        let int_digits = self.digits();
        if int_digits == 0 || (int_digits > 1 && self.s[int_start] == b'0') {
            return Err(self.fail());
        }
        let int_end = self.i;
        let mut frac = (0, 0);
        if self.peek() == Some(b'.') {
            self.i += 1;
            let from = self.i;
            if self.digits() == 0 {
                return Err(self.fail());
            }
            frac = (from, self.i);
        }
        let mut exponent: i64 = 0;
        let mut has_exponent = false;
        if matches!(self.peek(), Some(b'e' | b'E')) {
            has_exponent = true;
            self.i += 1;
            let sign = match self.peek() {
                Some(b'-') => {
                    self.i += 1;
                    -1
                }
                Some(b'+') => {
                    self.i += 1;
                    1
                }
                _ => 1,
            };
            let from = self.i;
            if self.digits() == 0 {
                return Err(self.fail());
            }
            for &d in &self.s[from..self.i] {
                exponent = (exponent * 10 + (d - b'0') as i64).min(100_000);
            }
            exponent *= sign;
        }
        let ints = &self.s[int_start..int_end];
        if frac.0 == 0 && !has_exponent {
            if let Some(n) = fold_u64(ints) {
                if !negative {
                    return Ok(Number::from(n));
                }
                if n > 0 && n <= 1 << 63 {
                    return Ok(Number::from((n as i64).wrapping_neg()));
                }
            }
        }
        // The first 19 significant digits; the rest only move the exponent
        // (before the point) or are dropped (after it).
        let digits = ints.iter().chain(&self.s[frac.0..frac.1]);
        let zeros = digits.clone().take_while(|&&d| d == b'0').count();
        let significant: Vec<u8> = digits.skip(zeros).take(19).copied().collect();
        let significand = significant
            .iter()
            .fold(0u64, |n, &d| n * 10 + (d - b'0') as u64);
        exponent += ints.len() as i64 - (zeros + significant.len()) as i64;
        let f = scale(significand, exponent);
        let f = if negative { -f } else { f };
        Number::from_f64(f).ok_or(ParseError { offset: start })
    }
}

/// Decimal digits as a u64, `None` when they overflow.
fn fold_u64(digits: &[u8]) -> Option<u64> {
    digits.iter().try_fold(0u64, |n, &d| {
        n.checked_mul(10)?.checked_add((d - b'0') as u64)
    })
}

/// `significand` × 10^`exp` as the nearest float: exact arithmetic when
/// the significand is below 2^53 and |exp| ≤ 22, else a 128-bit power of ten
/// (error far below the last place) and one rounding.
fn scale(significand: u64, exp: i64) -> f64 {
    const POW: [f64; 5] = [1e1, 1e2, 1e4, 1e8, 1e16];
    if significand == 0 || exp < -400 {
        return 0.0;
    }
    if exp > 400 {
        return f64::INFINITY;
    }
    if significand < 1 << 53 && (-22..=22).contains(&exp) {
        // Every product is a power of ten up to 1e22: exact.
        let p = (0..POW.len())
            .filter(|k| exp.unsigned_abs() >> k & 1 == 1)
            .fold(1.0, |p, k| p * POW[k]);
        let f = significand as f64;
        return if exp >= 0 { f * p } else { f / p };
    }
    // 10^exp = m × 2^e2, m normalized to 128 bits.
    let (mut m, mut e2) = (1u128 << 127, -127i64);
    for _ in 0..exp.unsigned_abs() {
        if exp > 0 {
            m = (m >> 4) * 10;
            e2 += 4;
        } else {
            m /= 10;
        }
        let lz = m.leading_zeros();
        m <<= lz;
        e2 -= lz as i64;
    }
    let shift = significand.leading_zeros();
    let s = (significand << shift) as u128;
    let top = s * (m >> 64) + ((s * (m as u64 as u128)) >> 64);
    let lz = top.leading_zeros();
    let t = top << lz;
    // Round to odd at 64 bits, so the rounding to 53 below is the only one
    // that counts.
    let top64 = (t >> 64) as u64 | ((t as u64 != 0) as u64);
    times_pow2(top64 as f64, e2 - shift as i64 + 128 - lz as i64)
}

/// `f` × 2^`e`.
fn times_pow2(mut f: f64, mut e: i64) -> f64 {
    let pow2 = |e: i64| f64::from_bits(((e + 1023) as u64) << 52);
    while e > 1000 {
        f *= pow2(1000);
        e -= 1000;
    }
    while e < -1000 {
        f *= pow2(-1000);
        e += 1000;
    }
    f * pow2(e)
}
