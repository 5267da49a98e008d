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
