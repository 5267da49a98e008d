//! Parse errors: one typed kind, one span, rendered `file:line:col: error: message`.

use std::fmt;

use crate::span::Span;

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// A byte that starts no PTX token.
    UnexpectedChar(char),
    UnterminatedString,
    UnterminatedComment,
    InvalidNumber(String),
    /// `expected` was needed, `found` is the offending token's text (or "end of file").
    Expected {
        expected: &'static str,
        found: String,
    },
    /// A directive the grammar does not allow here (unknown directives are errors; unknown
    /// *opcodes* are not, see `docs/arch/ptx.md`).
    UnknownDirective(String),
    UnknownType(String),
    /// `}` without `{`, or end of file inside `{`.
    UnbalancedBrace,
    /// Nesting of blocks, vectors, initializers or expressions beyond the parser's limit.
    TooDeep,
    /// The text does not fit 32-bit offsets (4 GiB).
    TooLarge,
    /// A constant expression that cannot be evaluated (division by zero, float arithmetic).
    BadConstant(&'static str),
}

/// A parse error at a position of the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub kind: ParseErrorKind,
    pub span: Span,
}

impl ParseError {
    pub fn new(kind: ParseErrorKind, span: Span) -> ParseError {
        ParseError { kind, span }
    }

    /// `file:line:col: error: message`
    pub fn render(&self, file: &str) -> String {
        format!(
            "{file}:{}:{}: error: {}",
            self.span.line, self.span.col, self
        )
    }

    /// [`ParseError::render`] followed by the offending source line and a caret under the
    /// column (rustc style). Tabs before the column are kept so the caret lines up.
    pub fn render_with_source(&self, file: &str, src: &str) -> String {
        let mut out = self.render(file);
        let line_no = self.span.line;
        let start = floor_char(src, (self.span.start as usize).min(src.len()));
        let line_start = src[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = src[line_start..]
            .find('\n')
            .map_or(src.len(), |i| line_start + i);
        let line = src[line_start..line_end].trim_end_matches('\r');
        // Very long lines (minified or garbage input) are cut around the column.
        const MAX: usize = 160;
        let col = (start - line_start).min(line.len());
        let (shown, caret_at) = if line.len() > MAX {
            let from = floor_char(line, col.saturating_sub(MAX / 2));
            let to = floor_char(line, (from + MAX).min(line.len()));
            (&line[from..to], col - from)
        } else {
            (line, col)
        };
        let pad: String = shown
            .char_indices()
            .take_while(|&(i, _)| i < caret_at)
            .map(|(_, c)| if c == '\t' { '\t' } else { ' ' })
            .collect();
        let gutter = " ".repeat(line_no.to_string().len());
        out.push_str(&format!(
            "\n{gutter} |\n{line_no} | {shown}\n{gutter} | {pad}^"
        ));
        out
    }
}

/// The largest char boundary of `s` at or below `i`.
fn floor_char(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseErrorKind::UnexpectedChar(c) => write!(f, "unexpected character {c:?}"),
            ParseErrorKind::UnterminatedString => write!(f, "unterminated string literal"),
            ParseErrorKind::UnterminatedComment => write!(f, "unterminated block comment"),
            ParseErrorKind::InvalidNumber(s) => write!(f, "invalid number `{s}`"),
            ParseErrorKind::Expected { expected, found } => {
                write!(f, "expected {expected}, found {found}")
            }
            ParseErrorKind::UnknownDirective(d) => {
                write!(f, "unknown or misplaced directive `{d}`")
            }
            ParseErrorKind::UnknownType(t) => write!(f, "unknown type `{t}`"),
            ParseErrorKind::UnbalancedBrace => write!(f, "unbalanced braces"),
            ParseErrorKind::TooDeep => write!(f, "nesting too deep"),
            ParseErrorKind::TooLarge => write!(f, "input larger than 4 GiB"),
            ParseErrorKind::BadConstant(why) => write!(f, "bad constant expression: {why}"),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.kind.fmt(f)
    }
}

impl std::error::Error for ParseError {}
