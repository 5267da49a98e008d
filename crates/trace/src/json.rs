//! Minimal JSON output: string escaping and argument values. Hand-written because the trace
//! writer streams millions of small, fixed-shape objects and needs nothing else from a
//! JSON library.

use std::fmt;
use std::io::{self, Write};

/// Writes `value`'s `Display` text as a JSON string literal (with the quotes).
pub(crate) fn write_str<W: Write>(w: &mut W, value: impl fmt::Display) -> io::Result<()> {
    w.write_all(b"\"")?;
    let mut esc = Escaper { w, err: None };
    if fmt::write(&mut esc, format_args!("{value}")).is_err() {
        return Err(esc
            .err
            .unwrap_or_else(|| io::Error::other("formatting failed")));
    }
    w.write_all(b"\"")
}

/// `fmt::Write` adapter escaping everything JSON requires (RFC 8259 §7): quote, backslash
/// and the control characters U+0000..U+001F. Everything else is valid UTF-8 already.
struct Escaper<'a, W: Write> {
    w: &'a mut W,
    err: Option<io::Error>,
}

impl<W: Write> Escaper<'_, W> {
    fn put(&mut self, s: &str) -> io::Result<()> {
        let bytes = s.as_bytes();
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let esc: &[u8] = match b {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0..=0x1f => b"",
                _ => continue,
            };
            self.w.write_all(&bytes[start..i])?;
            if esc.is_empty() {
                write!(self.w, "\\u{:04x}", b)?;
            } else {
                self.w.write_all(esc)?;
            }
            start = i + 1;
        }
        self.w.write_all(&bytes[start..])
    }
}

impl<W: Write> fmt::Write for Escaper<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.put(s).map_err(|e| {
            self.err = Some(e);
            fmt::Error
        })
    }
}

/// One value in an event's `args` object.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Arg<'a> {
    U(u64),
    /// A number shown as a `0x…` string (addresses read best in hex).
    Hex(u64),
    S(&'a str),
    B(bool),
    Dims([u32; 3]),
}

pub(crate) fn write_args<W: Write>(w: &mut W, args: &[(&str, Arg<'_>)]) -> io::Result<()> {
    w.write_all(b"{")?;
    for (i, (k, v)) in args.iter().enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        write_str(w, k)?;
        w.write_all(b":")?;
        match *v {
            Arg::U(n) => write!(w, "{n}")?,
            Arg::Hex(n) => write!(w, "\"{n:#x}\"")?,
            Arg::S(s) => write_str(w, s)?,
            Arg::B(b) => write!(w, "{b}")?,
            Arg::Dims([x, y, z]) => write!(w, "[{x},{y},{z}]")?,
        }
    }
    w.write_all(b"}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_strings_round_trip_through_serde_json() {
        for s in [
            "plain",
            "quote \" and backslash \\",
            "ctl \u{0} \u{1f} \n\r\t end",
            "unicode é ✓ 𝄞",
            "</svg>&<",
        ] {
            let mut out = Vec::new();
            write_str(&mut out, s).unwrap();
            let back: String = serde_json::from_slice(&out).unwrap();
            assert_eq!(back, s);
        }
    }
}
