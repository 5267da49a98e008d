//! Source positions: every node carries a [`Span`]; [`SourceMap`] turns byte offsets into
//! line:column for offsets that were not recorded at parse time.

use std::fmt;

/// A byte range of the source plus the 1-based line and column of its start.
///
/// Line and column are computed by the lexer as it goes (it counts newlines anyway), so
/// diagnostics never need to re-scan the file. Columns count bytes, 1-based.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
    pub line: u32,
    pub col: u32,
}

impl Span {
    pub const DUMMY: Span = Span {
        start: 0,
        end: 0,
        line: 0,
        col: 0,
    };

    /// From the start of `self` to the end of `other`.
    pub fn to(self, other: Span) -> Span {
        Span {
            end: other.end.max(self.end),
            ..self
        }
    }

    /// The text this span covers.
    pub fn text(self, src: &str) -> &str {
        &src[self.start as usize..self.end as usize]
    }

    pub fn len(self) -> u32 {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.end == self.start
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Line-start index of one source text.
#[derive(Clone, Debug)]
pub struct SourceMap {
    line_starts: Vec<u32>,
    len: u32,
}

impl SourceMap {
    pub fn new(src: &str) -> SourceMap {
        let mut line_starts = vec![0];
        line_starts.extend(
            src.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        );
        SourceMap {
            line_starts,
            len: src.len() as u32,
        }
    }

    /// 1-based (line, column) of a byte offset (clamped to the end of the text).
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let offset = offset.min(self.len);
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        (line as u32 + 1, offset - self.line_starts[line] + 1)
    }

    /// A span for `start..end` with its line and column filled in.
    pub fn span(&self, start: u32, end: u32) -> Span {
        let (line, col) = self.line_col(start);
        Span {
            start,
            end,
            line,
            col,
        }
    }

    /// The text of 1-based line `line` (without its newline), for caret diagnostics.
    pub fn line_text<'a>(&self, src: &'a str, line: u32) -> Option<&'a str> {
        let i = line.checked_sub(1)? as usize;
        let start = *self.line_starts.get(i)? as usize;
        let end = self
            .line_starts
            .get(i + 1)
            .map_or(src.len(), |&e| e as usize);
        src.get(start..end)
            .map(|l| l.trim_end_matches(['\n', '\r']))
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }
}
