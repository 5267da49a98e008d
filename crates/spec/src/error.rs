//! Spec errors: every one names the file, the line and column, the key, and what was expected.

use std::fmt;

/// Where in a spec something was written: 1-based line and column (in characters) plus the
/// dotted key path (`grid`, `buffers.a.shape`, `arg[3].packed[1].u32`).
///
/// `line == 0` means "no position" (e.g. a `--set` override given on the command line).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Site {
    pub line: u32,
    pub col: u32,
    pub key: String,
}

impl Site {
    pub fn new(line: u32, col: u32, key: impl Into<String>) -> Site {
        Site {
            line,
            col,
            key: key.into(),
        }
    }

    /// A site without a position, for input that does not come from the spec text.
    pub fn unplaced(key: impl Into<String>) -> Site {
        Site::new(0, 0, key)
    }

    /// The same position under another key name.
    pub fn with_key(&self, key: impl Into<String>) -> Site {
        Site::new(self.line, self.col, key)
    }
}

/// An error in a launch spec (or in what it refers to: .npy files, kernel parameters).
///
/// Displays as `FILE:LINE:COL: error: key 'KEY': MESSAGE`; the message says what was expected
/// and what was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    pub file: String,
    pub site: Site,
    pub message: String,
}

impl SpecError {
    pub fn new(file: impl Into<String>, site: Site, message: impl Into<String>) -> SpecError {
        SpecError {
            file: file.into(),
            site,
            message: message.into(),
        }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if self.site.line != 0 {
            write!(f, ":{}:{}", self.site.line, self.site.col)?;
        }
        f.write_str(": error: ")?;
        if !self.site.key.is_empty() {
            write!(f, "key '{}': ", self.site.key)?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for SpecError {}

/// Maps byte offsets of a text to 1-based line:column (columns count characters).
pub(crate) struct LineIndex<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub(crate) fn new(text: &'a str) -> LineIndex<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { text, line_starts }
    }

    pub(crate) fn position(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let col = self
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line as u32 + 1, col as u32 + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_and_count_chars() {
        let idx = LineIndex::new("ab\nçd = 1\n");
        assert_eq!(idx.position(0), (1, 1));
        assert_eq!(idx.position(3), (2, 1));
        // 'ç' is two bytes: offset 5 is the 'd', column 2.
        assert_eq!(idx.position(5), (2, 2));
    }

    #[test]
    fn display_without_position() {
        let e = SpecError::new("--set", Site::unplaced("n"), "expected a number");
        assert_eq!(e.to_string(), "--set: error: key 'n': expected a number");
    }
}
