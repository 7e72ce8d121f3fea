//! JSON text out: compact, keys in order, strings escaped as `serde_json`
//! and `JSON.stringify` escape them (`\"`, `\\`, `\n`-style escapes for the
//! usual controls, `\u00XX` for the rest; everything else as it is).

use super::{Map, Value};
use core::fmt::{Result, Write};

/// `value` as compact JSON text.
pub fn to_string(value: &Value) -> String {
    let mut out = String::new();
    let _ = write_value(&mut out, value);
    out
}

/// `s` as a JSON string, for naming a value in a message: `"a\"b"`.
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    let _ = write_string(&mut out, s);
    out
}

/// Size in bytes of `value` as compact JSON text, without building it.
pub fn text_len(value: &Value) -> u64 {
    struct Count(u64);
    impl Write for Count {
        fn write_str(&mut self, s: &str) -> Result {
            self.0 += s.len() as u64;
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = write_value(&mut count, value);
    count.0
}

/// Size in bytes of `s` as a JSON string, quotes not counted.
pub fn escaped_len(s: &str) -> usize {
    s.bytes()
        .map(|b| match escape(b) {
            0 => 1,
            b'u' => 6,
            _ => 2,
        })
        .sum()
}

/// Writes `value` as compact JSON text.
pub fn write_value(out: &mut dyn Write, value: &Value) -> Result {
    match value {
        Value::Null => out.write_str("null"),
        Value::Bool(b) => out.write_str(if *b { "true" } else { "false" }),
        Value::Number(n) => n.write(out),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.write_char('[')?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_char(',')?;
                }
                write_value(out, item)?;
            }
            out.write_char(']')
        }
        Value::Object(map) => write_object(out, map),
    }
}

/// Writes an object as compact JSON text.
pub(super) fn write_object(out: &mut dyn Write, map: &Map) -> Result {
    out.write_char('{')?;
    for (i, (k, v)) in map.iter().enumerate() {
        if i > 0 {
            out.write_char(',')?;
        }
        write_string(out, k)?;
        out.write_char(':')?;
        write_value(out, v)?;
    }
    out.write_char('}')
}

/// The escape of byte `b`: 0 for none, `u` for `\u00XX`, else the letter
/// after the backslash.
fn escape(b: u8) -> u8 {
    match b {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        0..=0x1f => b'u',
        _ => 0,
    }
}

/// Writes `s` as a JSON string, runs of plain text at once.
fn write_string(out: &mut dyn Write, s: &str) -> Result {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.write_char('"')?;
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let e = escape(b);
        if e == 0 {
            continue;
        }
        // Escaped bytes are ASCII, so both slice ends are char boundaries.
        out.write_str(s.get(start..i).unwrap_or_default())?;
        start = i + 1;
        if e == b'u' {
            out.write_str("\\u00")?;
            out.write_char(HEX[(b >> 4) as usize] as char)?;
            out.write_char(HEX[(b & 15) as usize] as char)?;
        } else {
            out.write_char('\\')?;
            out.write_char(e as char)?;
        }
    }
    out.write_str(s.get(start..).unwrap_or_default())?;
    out.write_char('"')
}
