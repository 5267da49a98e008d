//! Bad input (exit 2) as users read it: every layer reports it as one line,
//! `file:line:col: error: text` (spec keys, PTX syntax, loader) or `file: error: text`; this
//! module splits that line, quotes the named line with a caret under the token at the
//! column (rustc-style, through `tmemu_diag`), and, for `--format json`/`sarif`, also writes
//! one `{"type":"error",...}` object or a SARIF log with a failed invocation on stdout, so a
//! consumer of the output is not left with an empty stream.

use tmemu_diag::{render_input_error, ColorChoice, HumanOptions, Location, Sources};

use crate::output::{self, Format, OutputArgs};

/// A bad-input message split into where and what.
#[derive(Debug, PartialEq, Eq)]
pub struct InputError {
    /// The file (or `--set`) the message names, if any.
    pub file: Option<String>,
    /// 1-based; 0 when the message names no line.
    pub line: u32,
    pub column: u32,
    pub text: String,
}

impl InputError {
    /// `a.toml:4:1: error: key 'bogus': ...`, `nope.toml: error: cannot read ...`, or any
    /// other text as it is.
    pub fn parse(message: &str) -> InputError {
        let Some((head, text)) = message.split_once(": error: ") else {
            let text = message.strip_prefix("error: ").unwrap_or(message);
            return InputError {
                file: None,
                line: 0,
                column: 0,
                text: text.to_string(),
            };
        };
        let mut parts = head.rsplitn(3, ':');
        let (col, line, file) = (parts.next(), parts.next(), parts.next());
        if let (Some(c), Some(l), Some(f)) = (col, line, file) {
            if let (Ok(column), Ok(line)) = (c.parse::<u32>(), l.parse::<u32>()) {
                return InputError {
                    file: Some(f.to_string()),
                    line,
                    column,
                    text: text.to_string(),
                };
            }
        }
        InputError {
            file: Some(head.to_string()),
            line: 0,
            column: 0,
            text: text.to_string(),
        }
    }

    /// The message in the human format: `error: text` with the quoted line, or
    /// `file: error: text` when there is no line to quote.
    pub fn human(&self, color: bool) -> String {
        let opts = HumanOptions { color };
        let (Some(file), true) = (&self.file, self.line > 0) else {
            let head = self
                .file
                .as_deref()
                .map_or(String::new(), |f| format!("{f}: "));
            let title = format!("{head}{}", self.text);
            return render_input_error(&title, None, &Sources::default(), opts);
        };
        let mut sources = Sources::default();
        let mut location = Location::new(file.clone(), self.line, self.column.max(1));
        // only small text files are quoted (a spec, a PTX); a directory or a binary is not
        let text = std::fs::metadata(file)
            .ok()
            .filter(|m| m.is_file() && m.len() < (64 << 20))
            .and_then(|_| std::fs::read_to_string(file).ok());
        if let Some(text) = text {
            if let Some(r) = token_at(&text, self.line, self.column) {
                location = location.with_range(r);
            }
            sources.insert(file.clone(), text);
        }
        render_input_error(&self.text, Some(&location), &sources, opts)
    }

    /// A SARIF log whose failed invocation carries the message (see
    /// `tmemu_diag::render_sarif_error`).
    pub fn sarif(&self) -> String {
        let place = match (&self.file, self.line > 0) {
            (Some(f), true) => Some(Location::new(f.clone(), self.line, self.column)),
            _ => None,
        };
        tmemu_diag::render_sarif_error(&self.text, place.as_ref(), &output::sarif_options())
    }

    /// One JSON Lines object: `{"type":"error","message",...,"exit_code":2}`.
    pub fn json(&self) -> String {
        #[derive(serde::Serialize)]
        struct Json<'a> {
            #[serde(rename = "type")]
            kind: &'static str,
            message: &'a str,
            file: Option<&'a str>,
            line: Option<u32>,
            column: Option<u32>,
            exit_code: u8,
        }
        let has_line = self.line > 0;
        let v = Json {
            kind: "error",
            message: &self.text,
            file: self.file.as_deref(),
            line: has_line.then_some(self.line),
            column: has_line.then_some(self.column),
            exit_code: tmemu_diag::EXIT_BAD_INPUT,
        };
        serde_json::to_string(&v).map_or_else(|_| String::new(), |s| s + "\n")
    }
}

/// The byte range of the token at (line, column): a word (letters, digits, `_ . % $ :`), a
/// quoted string, or one character.
fn token_at(text: &str, line: u32, column: u32) -> Option<std::ops::Range<u32>> {
    let start = if line == 0 {
        return None;
    } else if line == 1 {
        0
    } else {
        text.match_indices('\n').nth(line as usize - 2)?.0 + 1
    };
    let line_text = &text[start..];
    let line_text = &line_text[..line_text.find('\n').unwrap_or(line_text.len())];
    let col = column.max(1) as usize - 1;
    let rest = line_text.get(col..)?;
    let first = rest.chars().next()?;
    let word = |c: char| c.is_alphanumeric() || "_.%$:".contains(c);
    let len = if first == '"' || first == '\'' {
        rest[1..].find(first).map_or(rest.len(), |i| i + 2)
    } else if word(first) {
        rest.find(|c: char| !word(c)).unwrap_or(rest.len())
    } else {
        first.len_utf8()
    };
    let s = (start + col) as u32;
    Some(s..s + len as u32)
}

/// Prints a bad-input message for `run`/`explore`: rendered on stderr, plus a JSON object on
/// stdout with `--format json`. Returns exit code 2.
pub fn report(message: &str, out: &OutputArgs) -> u8 {
    let e = InputError::parse(message);
    match out.format {
        Format::Json => output::print(&e.json()),
        Format::Sarif => output::print(&e.sarif()),
        Format::Human => {}
    }
    let color = ColorChoice::from(out.color).use_color(&std::io::stderr());
    eprint!("{}", e.human(color));
    tmemu_diag::EXIT_BAD_INPUT
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_split_into_file_line_column_and_text() {
        let e = InputError::parse("a.toml:4:1: error: key 'bogus': unknown key");
        assert_eq!(
            e,
            InputError {
                file: Some("a.toml".into()),
                line: 4,
                column: 1,
                text: "key 'bogus': unknown key".into()
            }
        );
        let e = InputError::parse("nope.toml: error: cannot read the spec: gone");
        assert_eq!((e.file.as_deref(), e.line), (Some("nope.toml"), 0));
        let e = InputError::parse("C:\\k\\a.ptx:6:16: error: expected `;`");
        assert_eq!(
            (e.file.as_deref(), e.line, e.column),
            (Some("C:\\k\\a.ptx"), 6, 16)
        );
        let e = InputError::parse("something odd");
        assert_eq!((e.file, e.text.as_str()), (None, "something odd"));
    }

    #[test]
    fn the_caret_covers_the_token_at_the_column() {
        let t = "ptx = \"k.ptx\"\nbogus = 3\n  mov.u32 %r1, ;\n";
        let at = |l, c| token_at(t, l, c).map(|r| &t[r.start as usize..r.end as usize]);
        assert_eq!(at(1, 7), Some("\"k.ptx\""));
        assert_eq!(at(2, 1), Some("bogus"));
        assert_eq!(at(3, 16), Some(";"));
        assert_eq!(at(3, 3), Some("mov.u32"));
        assert_eq!(at(9, 1), None);
        assert_eq!(at(2, 99), None);
    }
}
