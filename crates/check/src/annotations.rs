//! The rule corpus' expectations (tests/corpus/rules/README.md): `//@ key = value` headers
//! and `~KIND [TMxxxx]` marks, with `//~^` pointing lines up. Shared by the static ui test
//! and the future dynamic runner.

/// What a mark expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MarkKind {
    Error,
    Warning,
    Note,
    Related,
    Hang,
}

impl MarkKind {
    fn parse(word: &str) -> Option<MarkKind> {
        Some(match word {
            "ERROR" => MarkKind::Error,
            "WARNING" => MarkKind::Warning,
            "NOTE" => MarkKind::Note,
            "RELATED" => MarkKind::Related,
            "HANG" => MarkKind::Hang,
            _ => return None,
        })
    }

    /// The kind of a finding of this severity.
    pub fn of_severity(s: tmemu_tmem::rules::Severity) -> MarkKind {
        use tmemu_tmem::rules::Severity::*;
        match s {
            Error => MarkKind::Error,
            Warning => MarkKind::Warning,
            Note => MarkKind::Note,
        }
    }
}

/// One expected finding: (kind, rule, 1-based target line).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Mark {
    pub kind: MarkKind,
    /// `None` only for a bare `~HANG`.
    pub rule: Option<String>,
    pub line: u32,
}

/// Headers and marks of one file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Annotations {
    /// `//@ key = value` in file order (value trimmed).
    pub headers: Vec<(String, String)>,
    pub marks: Vec<Mark>,
}

impl Annotations {
    pub fn header(&self, key: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// A malformed annotation, with its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnnotationError {
    pub line: u32,
    pub message: String,
}

impl std::fmt::Display for AnnotationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Reads the annotations of a PTX file. A comment is a mark when `//` is followed (after
/// spaces) by `~`; everything after it must be marks (an unparsable rest is an error, so a
/// typo never silently drops an expectation).
pub fn parse(text: &str) -> Result<Annotations, AnnotationError> {
    let mut a = Annotations::default();
    for (idx, line) in text.lines().enumerate() {
        let no = idx as u32 + 1;
        let trimmed = line.trim_start();
        if let Some(h) = trimmed.strip_prefix("//@") {
            let (k, v) = h.split_once('=').ok_or_else(|| AnnotationError {
                line: no,
                message: format!("header without `=`: {trimmed}"),
            })?;
            a.headers.push((k.trim().to_string(), v.trim().to_string()));
            continue;
        }
        let Some(mark_text) = mark_comment(line) else {
            continue;
        };
        let ups = mark_text.bytes().take_while(|&b| b == b'^').count() as u32;
        if ups >= no {
            return Err(AnnotationError {
                line: no,
                message: "`^` points above the file".into(),
            });
        }
        let target = no - ups;
        let mut words = mark_text[ups as usize..].split_whitespace().peekable();
        let mut any = false;
        while let Some(w) = words.next() {
            let w = w.strip_prefix('~').unwrap_or(w);
            let kind = MarkKind::parse(w).ok_or_else(|| AnnotationError {
                line: no,
                message: format!("unknown mark `{w}`"),
            })?;
            let rule = match words.peek() {
                Some(r) if is_rule_id(r) => {
                    let r = r.to_string();
                    words.next();
                    Some(r)
                }
                _ => None,
            };
            if rule.is_none() && kind != MarkKind::Hang {
                return Err(AnnotationError {
                    line: no,
                    message: format!("`{w}` needs a rule ID"),
                });
            }
            a.marks.push(Mark {
                kind,
                rule,
                line: target,
            });
            any = true;
        }
        if !any {
            return Err(AnnotationError {
                line: no,
                message: "empty mark".into(),
            });
        }
    }
    Ok(a)
}

/// The text after `//` + spaces + `~` of a line's comment, if it is a mark.
fn mark_comment(line: &str) -> Option<&str> {
    let mut rest = line;
    while let Some(p) = rest.find("//") {
        let after = rest[p + 2..].trim_start();
        if let Some(m) = after.strip_prefix('~') {
            return Some(m);
        }
        rest = &rest[p + 2..];
    }
    None
}

fn is_rule_id(s: &str) -> bool {
    s.len() == 6 && s.starts_with("TM") && s[2..].bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_headers_and_carets() {
        let src = "//@ verdict = violation\nx; // ~ERROR TM0001 ~ERROR TM0002\ny;\n//~^ ERROR TM0003 RELATED TM0004\nret; // ~HANG\nz; // ~HANG TM0016\n";
        let a = parse(src).unwrap();
        assert_eq!(a.header("verdict"), Some("violation"));
        let m = |kind, rule: Option<&str>, line| Mark {
            kind,
            rule: rule.map(String::from),
            line,
        };
        assert_eq!(
            a.marks,
            vec![
                m(MarkKind::Error, Some("TM0001"), 2),
                m(MarkKind::Error, Some("TM0002"), 2),
                m(MarkKind::Error, Some("TM0003"), 3),
                m(MarkKind::Related, Some("TM0004"), 3),
                m(MarkKind::Hang, None, 5),
                m(MarkKind::Hang, Some("TM0016"), 6),
            ]
        );
    }

    #[test]
    fn malformed_marks_are_errors() {
        assert_eq!(parse("x; // ~ERRROR TM0001\n").unwrap_err().line, 1);
        assert!(parse("x; // ~ERROR\n").is_err());
        assert!(parse("//~^ ERROR TM0001\n").is_err());
        assert!(parse("//@ verdict\n").is_err());
        // Ordinary comments (and `~` not right after `//`) are not marks.
        assert_eq!(parse("x; // a ~ b\n").unwrap().marks, vec![]);
    }
}
