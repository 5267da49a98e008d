//! A hand-written byte lexer. Tokens are kinds plus spans into the source; no token owns text.
//!
//! Dotted names are single tokens: `ld.global.nc.v4.b32`, `%tid.x` and `.ptr.global.align`
//! each lex as one token, so `.cta_group::2`, `.16x32bx2`, `.warpx2::02_13` or
//! `.b8x16.b6x16_p32` need no special cases: a segment after a dot is a run of
//! `[A-Za-z0-9_$]` and `::` pairs. A single `:` ends the token, so in `name.x:` the colon is
//! a label colon (and printing a tree never glues a colon onto a name).

use crate::error::{ParseError, ParseErrorKind};
use crate::span::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokKind {
    /// `abc`, `%r1`, `$L__BB0_1`, `ld.global.b32`, `%tid.x`, `_`
    Ident,
    /// `.reg`, `.b32`, `.ptr.global.align`
    Dot,
    /// Integer literal, any radix, optional `U` suffix.
    Int,
    /// `0f...`, `0d...`, or a decimal float.
    Float,
    /// `"..."` (span includes the quotes).
    Str,
    Comma,
    Semi,
    Colon,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Lt,
    Gt,
    Le,
    Ge,
    EqEq,
    Ne,
    Assign,
    At,
    Bang,
    Pipe,
    PipePipe,
    Amp,
    AmpAmp,
    Caret,
    Tilde,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Shl,
    Shr,
    Eof,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokKind,
    pub span: Span,
}

pub struct Lexer<'src> {
    src: &'src [u8],
    pos: usize,
    line: u32,
    line_start: usize,
}

/// Byte classes, one table lookup per byte on the hot paths.
const IDENT_START: u8 = 1;
const IDENT_CONT: u8 = 2;
/// Blanks other than `\n`: ` `, `\t`, `\r`, vertical tab, form feed.
const BLANK: u8 = 4;

const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        let alpha = b.is_ascii_alphabetic();
        let digit = b.is_ascii_digit();
        let mut c = 0;
        if alpha || b == b'_' || b == b'$' || b == b'%' {
            c |= IDENT_START;
        }
        if alpha || digit || b == b'_' || b == b'$' {
            c |= IDENT_CONT;
        }
        if matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c) {
            c |= BLANK;
        }
        t[i] = c;
        i += 1;
    }
    t
};

#[inline]
fn is_ident_start(b: u8) -> bool {
    CLASS[b as usize] & IDENT_START != 0
}

#[inline]
fn is_ident_cont(b: u8) -> bool {
    CLASS[b as usize] & IDENT_CONT != 0
}

impl<'src> Lexer<'src> {
    pub fn new(src: &'src str) -> Lexer<'src> {
        Lexer {
            src: src.as_bytes(),
            pos: 0,
            line: 1,
            line_start: 0,
        }
    }

    fn span_from(&self, start: usize, line: u32, line_start: usize) -> Span {
        Span {
            start: start as u32,
            end: self.pos as u32,
            line,
            col: (start - line_start) as u32 + 1,
        }
    }

    fn here(&self) -> Span {
        Span {
            start: self.pos as u32,
            end: self.pos as u32,
            line: self.line,
            col: (self.pos - self.line_start) as u32 + 1,
        }
    }

    #[inline]
    fn peek_at(&self, i: usize) -> u8 {
        *self.src.get(self.pos + i).unwrap_or(&0)
    }

    /// Skips whitespace and comments, counting lines. Works on a local position written back
    /// once: at ~10 000 tokens a file, the field's load and store per byte were much of the
    /// lexer's cost.
    #[inline]
    fn skip_trivia(&mut self) -> Result<(), ParseError> {
        let src = self.src;
        let mut pos = self.pos;
        while let Some(&b) = src.get(pos) {
            if CLASS[b as usize] & BLANK != 0 {
                pos += 1;
            } else if b == b'\n' {
                pos += 1;
                self.line += 1;
                self.line_start = pos;
            } else if b == b'/' && src.get(pos + 1) == Some(&b'/') {
                pos += 2;
                while pos < src.len() && src[pos] != b'\n' {
                    pos += 1;
                }
            } else if b == b'/' && src.get(pos + 1) == Some(&b'*') {
                self.pos = pos;
                return self.skip_block_comment();
            } else {
                break;
            }
        }
        self.pos = pos;
        Ok(())
    }

    /// A `/* */` comment at `pos` and the trivia after it (rare: kept out of the hot loop).
    #[cold]
    #[inline(never)]
    fn skip_block_comment(&mut self) -> Result<(), ParseError> {
        let start = self.here();
        self.pos += 2;
        loop {
            match self.src.get(self.pos) {
                None => return Err(ParseError::new(ParseErrorKind::UnterminatedComment, start)),
                Some(b'*') if self.peek_at(1) == b'/' => {
                    self.pos += 2;
                    break;
                }
                Some(b'\n') => {
                    self.pos += 1;
                    self.line += 1;
                    self.line_start = self.pos;
                }
                Some(_) => self.pos += 1,
            }
        }
        self.skip_trivia()
    }

    #[inline]
    fn eat_while(&mut self, f: impl Fn(u8) -> bool) {
        let rest = &self.src[self.pos..];
        self.pos += rest.iter().position(|&b| !f(b)).unwrap_or(rest.len());
    }

    /// Length of the segment body starting at `pos + i`: `[A-Za-z0-9_$]` and `::` pairs.
    #[inline]
    fn seg_len(&self, i: usize) -> usize {
        let s = self.src.get(self.pos + i..).unwrap_or(&[]);
        let mut n = 0;
        loop {
            match s.get(n) {
                Some(&b) if is_ident_cont(b) => n += 1,
                Some(b':') if s.get(n + 1) == Some(&b':') => n += 2,
                _ => return n,
            }
        }
    }

    /// The end of a name or directive whose first byte is at `pos - 1` (a name) or `pos` (a
    /// `.` that starts a segment): `[A-Za-z0-9_$]*` then `(.seg)*`, where a segment is a run
    /// of `[A-Za-z0-9_$]` and `::` pairs, in one loop over a local position (it was an
    /// `eat_while` and a segment loop through the lexer's fields). `::` counts only once a
    /// dot has been seen.
    #[inline]
    fn name_end(&self, mut pos: usize) -> usize {
        let s = self.src;
        let at = |i: usize| s.get(i).copied().unwrap_or(0);
        let mut segments = false;
        loop {
            let b = at(pos);
            if is_ident_cont(b) {
                pos += 1;
            } else if b == b':' && segments && at(pos + 1) == b':' {
                pos += 2;
            } else if b == b'.'
                && (is_ident_cont(at(pos + 1)) || at(pos + 1) == b':' && at(pos + 2) == b':')
            {
                segments = true;
                pos += 1;
            } else {
                return pos;
            }
        }
    }

    pub fn next_token(&mut self) -> Result<Token, ParseError> {
        self.skip_trivia()?;
        let start = self.pos;
        let (line, line_start) = (self.line, self.line_start);
        let Some(&b) = self.src.get(self.pos) else {
            return Ok(Token {
                kind: TokKind::Eof,
                span: self.here(),
            });
        };
        let kind = match b {
            b'%' if is_ident_cont(self.peek_at(1)) => {
                self.pos = self.name_end(start + 1);
                TokKind::Ident
            }
            _ if is_ident_start(b) && b != b'%' => {
                self.pos = self.name_end(start + 1);
                TokKind::Ident
            }
            b'.' if self.seg_len(1) > 0 => {
                self.pos = self.name_end(start);
                TokKind::Dot
            }
            b'0'..=b'9' => self.number(start, line, line_start)?,
            b'"' => {
                self.pos += 1;
                loop {
                    match self.src.get(self.pos) {
                        None | Some(b'\n') => {
                            let span = self.span_from(start, line, line_start);
                            return Err(ParseError::new(ParseErrorKind::UnterminatedString, span));
                        }
                        Some(b'\\') => self.pos += 2.min(self.src.len() - self.pos),
                        Some(b'"') => {
                            self.pos += 1;
                            break;
                        }
                        Some(_) => self.pos += 1,
                    }
                }
                TokKind::Str
            }
            _ => {
                let two = self.peek_at(1);
                let (kind, len) = match (b, two) {
                    (b'<', b'=') => (TokKind::Le, 2),
                    (b'>', b'=') => (TokKind::Ge, 2),
                    (b'<', b'<') => (TokKind::Shl, 2),
                    (b'>', b'>') => (TokKind::Shr, 2),
                    (b'=', b'=') => (TokKind::EqEq, 2),
                    (b'!', b'=') => (TokKind::Ne, 2),
                    (b'|', b'|') => (TokKind::PipePipe, 2),
                    (b'&', b'&') => (TokKind::AmpAmp, 2),
                    (b',', _) => (TokKind::Comma, 1),
                    (b';', _) => (TokKind::Semi, 1),
                    (b':', _) => (TokKind::Colon, 1),
                    (b'(', _) => (TokKind::LParen, 1),
                    (b')', _) => (TokKind::RParen, 1),
                    (b'[', _) => (TokKind::LBracket, 1),
                    (b']', _) => (TokKind::RBracket, 1),
                    (b'{', _) => (TokKind::LBrace, 1),
                    (b'}', _) => (TokKind::RBrace, 1),
                    (b'<', _) => (TokKind::Lt, 1),
                    (b'>', _) => (TokKind::Gt, 1),
                    (b'=', _) => (TokKind::Assign, 1),
                    (b'@', _) => (TokKind::At, 1),
                    (b'!', _) => (TokKind::Bang, 1),
                    (b'|', _) => (TokKind::Pipe, 1),
                    (b'&', _) => (TokKind::Amp, 1),
                    (b'^', _) => (TokKind::Caret, 1),
                    (b'~', _) => (TokKind::Tilde, 1),
                    (b'+', _) => (TokKind::Plus, 1),
                    (b'-', _) => (TokKind::Minus, 1),
                    (b'*', _) => (TokKind::Star, 1),
                    (b'/', _) => (TokKind::Slash, 1),
                    (b'%', _) => (TokKind::Percent, 1),
                    _ => {
                        // Report the whole (possibly multi-byte) character.
                        let rest = std::str::from_utf8(&self.src[self.pos..]).ok();
                        let c = rest.and_then(|r| r.chars().next()).unwrap_or('\u{fffd}');
                        return Err(ParseError::new(
                            ParseErrorKind::UnexpectedChar(c),
                            self.here(),
                        ));
                    }
                };
                self.pos += len;
                kind
            }
        };
        Ok(Token {
            kind,
            span: self.span_from(start, line, line_start),
        })
    }

    fn number(
        &mut self,
        start: usize,
        line: u32,
        line_start: usize,
    ) -> Result<TokKind, ParseError> {
        let b1 = self.peek_at(1);
        let kind = if self.peek_at(0) == b'0' && matches!(b1, b'f' | b'F' | b'd' | b'D') {
            self.pos += 2;
            self.eat_while(|c| c.is_ascii_hexdigit());
            TokKind::Float
        } else if self.peek_at(0) == b'0' && matches!(b1, b'x' | b'X' | b'b' | b'B') {
            self.pos += 2;
            self.eat_while(|c| c.is_ascii_hexdigit());
            if matches!(self.peek_at(0), b'U' | b'u') {
                self.pos += 1;
            }
            TokKind::Int
        } else {
            self.eat_while(|c| c.is_ascii_digit());
            let mut float = false;
            if self.peek_at(0) == b'.' && self.seg_len(1) == 0
                || self.peek_at(0) == b'.' && self.peek_at(1).is_ascii_digit()
            {
                float = true;
                self.pos += 1;
                self.eat_while(|c| c.is_ascii_digit());
            }
            if matches!(self.peek_at(0), b'e' | b'E')
                && (self.peek_at(1).is_ascii_digit()
                    || matches!(self.peek_at(1), b'+' | b'-') && self.peek_at(2).is_ascii_digit())
            {
                float = true;
                self.pos += 2;
                self.eat_while(|c| c.is_ascii_digit());
            }
            if float {
                TokKind::Float
            } else {
                if matches!(self.peek_at(0), b'U' | b'u') {
                    self.pos += 1;
                }
                TokKind::Int
            }
        };
        // A number glued to letters (`12abc`) is one bad token, not two good ones.
        if is_ident_cont(self.peek_at(0)) {
            self.eat_while(is_ident_cont);
            let span = self.span_from(start, line, line_start);
            let text = String::from_utf8_lossy(&self.src[start..self.pos]).into_owned();
            return Err(ParseError::new(ParseErrorKind::InvalidNumber(text), span));
        }
        Ok(kind)
    }
}

impl<'src> Lexer<'src> {
    /// A lexer that continues at byte `pos`, with line numbers carried on from `anchor`
    /// (a span at or before `pos`). Used after raw-skipping a `.section` body.
    pub fn resume(src: &'src str, pos: usize, anchor: &Span) -> Lexer<'src> {
        let bytes = src.as_bytes();
        let from = anchor.start as usize;
        let mut line = anchor.line;
        let mut line_start = from + 1 - anchor.col as usize;
        for (i, &b) in bytes[from..pos].iter().enumerate() {
            if b == b'\n' {
                line += 1;
                line_start = from + i + 1;
            }
        }
        Lexer {
            src: bytes,
            pos,
            line,
            line_start,
        }
    }
}

/// The lexer as it was before its hot paths were rewritten (session 13), the reference its
/// property test compares tokens, spans and errors with.
#[cfg(test)]
#[path = "lexer_reference.rs"]
mod reference;

#[cfg(test)]
mod tests {
    use super::{reference, Lexer, TokKind};
    use proptest::prelude::*;

    /// Every token (kind and span, line and column included) and the first error of both
    /// lexers, then where each stopped.
    fn same_tokens(src: &str) -> Result<(), TestCaseError> {
        let (mut new, mut old) = (Lexer::new(src), reference::Lexer::new(src));
        for _ in 0..=src.len() + 1 {
            let (a, b) = (new.next_token(), old.next_token());
            prop_assert_eq!(&a, &b, "in {:?}", src);
            match a {
                Ok(t) if t.kind != TokKind::Eof => {}
                _ => return Ok(()),
            }
        }
        prop_assert!(false, "no end of input in {:?}", src);
        Ok(())
    }

    #[test]
    fn the_corpus_lexes_as_the_reference_did() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/corpus/kernels");
        let mut n = 0;
        for sub in std::fs::read_dir(dir).unwrap() {
            let Ok(files) = std::fs::read_dir(sub.unwrap().path()) else {
                continue;
            };
            for f in files {
                let path = f.unwrap().path();
                if path.extension().is_some_and(|e| e == "ptx") {
                    same_tokens(&std::fs::read_to_string(&path).unwrap()).unwrap();
                    n += 1;
                }
            }
        }
        assert!(n > 20, "{n} files");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        /// Random text over the bytes the lexer tells apart: blanks of every kind, newlines,
        /// comments of both kinds (unterminated too), names with dots, `::` and `:`, numbers
        /// of each radix and float form (glued to letters too), strings, operators and a
        /// non-ASCII character.
        #[test]
        fn random_text_lexes_as_the_reference_did(
            parts in proptest::collection::vec(prop_oneof![
                Just(" "), Just("\t"), Just("\r"), Just("\x0b"), Just("\x0c"), Just("\n"),
                Just("//c\n"), Just("// x"), Just("/*"), Just("*/"), Just("/* a\nb */"),
                Just("/"), Just("*"), Just("."), Just(":"), Just("::"), Just("%"), Just("$"),
                Just("_"), Just("a"), Just("Z"), Just("e"), Just("U"), Just("0"), Just("7"),
                Just("0x1F"), Just("0f3F800000"), Just("0d"), Just("0b1"), Just("1.5"),
                Just("2e+3"), Just("1e"), Just("\""), Just("\\"), Just("%r12"),
                Just("ld.global.v4.b32"), Just(".reg"), Just(".shared::cta"), Just("%tid.x"),
                Just("<"), Just(">"), Just("="), Just("!"), Just("|"), Just("&"), Just("+"),
                Just("-"), Just(","), Just(";"), Just("{"), Just("}"), Just("["), Just("]"),
                Just("("), Just(")"), Just("@"), Just("~"), Just("^"), Just("é"), Just("#"),
            ], 0..40)
        ) {
            same_tokens(&parts.concat())?;
        }
    }
}
