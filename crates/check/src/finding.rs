use std::fmt;

use tmemu_ptx::span::Span;
use tmemu_tmem::rules::{Rule, Severity};

/// One static finding: a catalogued rule broken at `span`.
#[derive(Clone, Debug, PartialEq)]
pub struct StaticFinding {
    pub rule: &'static Rule,
    /// The rule's catalogued severity.
    pub severity: Severity,
    pub message: String,
    /// The instruction (or directive) at fault.
    pub span: Span,
    /// Other places that explain the finding (e.g. the instruction that fixed the
    /// `.cta_group` a later one contradicts).
    pub related: Vec<Span>,
    /// The file name given to `static_check`, for rendering.
    pub file: String,
}

impl StaticFinding {
    pub(crate) fn new(rule: &'static Rule, span: Span, message: String) -> Self {
        StaticFinding {
            rule,
            severity: rule.severity,
            message,
            span,
            related: Vec::new(),
            file: String::new(),
        }
    }

    pub(crate) fn related(mut self, span: Span) -> Self {
        self.related.push(span);
        self
    }
}

/// `file:line:col: error[TM0401]: message`
impl fmt::Display for StaticFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}[{}]: {}",
            self.file,
            self.span.line,
            self.span.col,
            self.severity.as_str(),
            self.rule.id,
            self.message
        )?;
        for r in &self.related {
            write!(f, "\n{}:{}:{}: related", self.file, r.line, r.col)?;
        }
        Ok(())
    }
}
