//! The lexer before session 13 rewrote its hot paths (skipping trivia, scanning names), kept
//! unchanged as the reference of `lexer::tests`.
//!
//! A hand-written byte lexer. Tokens are kinds plus spans into the source; no token owns text.
//!
//! Dotted names are single tokens: `ld.global.nc.v4.b32`, `%tid.x` and `.ptr.global.align`
//! each lex as one token, so `.cta_group::2`, `.16x32bx2`, `.warpx2::02_13` or
//! `.b8x16.b6x16_p32` need no special cases: a segment after a dot is a run of
//! `[A-Za-z0-9_$]` and `::` pairs. A single `:` ends the token, so in `name.x:` the colon is
//! a label colon (and printing a tree never glues a colon onto a name).

use super::{TokKind, Token};
use crate::error::{ParseError, ParseErrorKind};
use crate::span::Span;

pub struct Lexer<'src> {
    src: &'src [u8],
    pos: usize,
    line: u32,
    line_start: usize,
}

/// Byte classes, one table lookup per byte on the hot paths.
const IDENT_START: u8 = 1;
const IDENT_CONT: u8 = 2;

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

    /// Skips whitespace and comments, counting lines.
    fn skip_trivia(&mut self) -> Result<(), ParseError> {
        loop {
            let Some(&b) = self.src.get(self.pos) else {
                return Ok(());
            };
            match b {
                b'\n' => {
                    self.pos += 1;
                    self.line += 1;
                    self.line_start = self.pos;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.pos += 1,
                b'/' if self.peek_at(1) == b'/' => {
                    let rest = &self.src[self.pos..];
                    self.pos += rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
                }
                b'/' if self.peek_at(1) == b'*' => {
                    let start = self.here();
                    self.pos += 2;
                    loop {
                        match self.src.get(self.pos) {
                            None => {
                                return Err(ParseError::new(
                                    ParseErrorKind::UnterminatedComment,
                                    start,
                                ))
                            }
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
                }
                _ => return Ok(()),
            }
        }
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

    /// Dot segments after a name: `(.seg)*`.
    fn eat_segments(&mut self) {
        while self.peek_at(0) == b'.' {
            let n = self.seg_len(1);
            if n == 0 {
                break;
            }
            self.pos += 1 + n;
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
                self.pos += 1;
                self.eat_while(is_ident_cont);
                self.eat_segments();
                TokKind::Ident
            }
            _ if is_ident_start(b) && b != b'%' => {
                self.pos += 1;
                self.eat_while(is_ident_cont);
                self.eat_segments();
                TokKind::Ident
            }
            b'.' if self.seg_len(1) > 0 => {
                self.eat_segments();
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
