//! The renderer-side model of a finding: plain data, independent of the engine.
//!
//! The CLI converts the engine's diagnostics (and the allocator's violations, the static
//! checks' findings...) into these types; every output format reads only these.

use std::fmt;
use std::ops::Range;

use serde::Serialize;

/// How bad a finding is (same scale as the rule catalogue's `Severity`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl From<tmemu_tmem::rules::Severity> for Severity {
    fn from(s: tmemu_tmem::rules::Severity) -> Self {
        match s {
            tmemu_tmem::rules::Severity::Note => Severity::Note,
            tmemu_tmem::rules::Severity::Warning => Severity::Warning,
            tmemu_tmem::rules::Severity::Error => Severity::Error,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A place in a PTX file (or any text file), with an optional label.
///
/// `line`/`column` are 1-based; columns count bytes (as `tmemu_ptx::span::Span` does).
/// `byte_range` is the exact range to underline; without it (or when the file cannot be read,
/// or the range does not fit the text) renderers fall back to `file:line:column`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub byte_range: Option<Range<u32>>,
    pub label: Option<String>,
}

impl Location {
    pub fn new(file: impl Into<String>, line: u32, column: u32) -> Location {
        Location {
            file: file.into(),
            line,
            column,
            byte_range: None,
            label: None,
        }
    }

    /// The bytes to underline (e.g. an operand's span).
    pub fn with_range(mut self, range: Range<u32>) -> Location {
        self.byte_range = Some(range);
        self
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Location {
        self.label = Some(label.into());
        self
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// Which threads a finding is about.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExecContext {
    pub cluster: [u32; 3],
    pub cta: [u32; 3],
    /// The SM the CTA ran on, when known.
    pub sm: Option<u32>,
    /// `None` for a finding about the CTA as a whole (e.g. a leaked allocation at exit).
    pub warp: Option<u32>,
    /// Lanes of the warp concerned; 0 = not lane-specific.
    pub lanes: u32,
}

impl ExecContext {
    /// Order used to choose the representative of a group: by CTA (z, y, x, as CUDA
    /// linearises it), then warp, so the choice does not depend on the schedule.
    pub(crate) fn order_key(&self) -> ([u32; 3], Option<u32>) {
        ([self.cta[2], self.cta[1], self.cta[0]], self.warp)
    }
}

impl fmt::Display for ExecContext {
    /// `cluster (0,0,0), CTA (1,0,0) on SM 3, warp 2, lanes 0-31`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [a, b, c] = self.cluster;
        let [x, y, z] = self.cta;
        write!(f, "cluster ({a},{b},{c}), CTA ({x},{y},{z})")?;
        if let Some(sm) = self.sm {
            write!(f, " on SM {sm}")?;
        }
        if let Some(w) = self.warp {
            write!(f, ", warp {w}")?;
            if self.lanes != 0 {
                write!(f, ", lanes {}", LaneSet(self.lanes))?;
            }
        }
        Ok(())
    }
}

/// A lane mask shown as ranges: `0-31`, `0,2,4-7`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneSet(pub u32);

impl fmt::Display for LaneSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        let mut lane = 0u32;
        while lane < 32 {
            if self.0 >> lane & 1 == 0 {
                lane += 1;
                continue;
            }
            let start = lane;
            while lane < 32 && self.0 >> lane & 1 == 1 {
                lane += 1;
            }
            if !first {
                f.write_str(",")?;
            }
            first = false;
            if lane - 1 == start {
                write!(f, "{start}")?;
            } else {
                write!(f, "{start}-{}", lane - 1)?;
            }
        }
        if first {
            f.write_str("none")?;
        }
        Ok(())
    }
}

/// The kernel's own source line, from the PTX `.loc` before the instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceLine {
    /// The path as written in the `.file` directive.
    pub file: String,
    pub line: u32,
    /// `.loc`'s column (0 = unknown, as compilers write it).
    pub column: u32,
}

/// How many raw findings a (grouped) finding stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Occurrences {
    /// Raw findings merged into this one.
    pub count: u32,
    /// Distinct CTAs among them (0 when none had a context).
    pub ctas: u32,
    /// Distinct (CTA, warp) pairs among them.
    pub warps: u32,
}

impl Occurrences {
    pub(crate) fn of(context: Option<&ExecContext>) -> Occurrences {
        Occurrences {
            count: 1,
            ctas: context.is_some() as u32,
            warps: context.is_some_and(|c| c.warp.is_some()) as u32,
        }
    }
}

/// One finding, as every output format sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Stable rule ID, e.g. `TM0009`.
    pub rule: &'static str,
    /// Stable rule name, e.g. `alloc-after-relinquish`.
    pub name: &'static str,
    pub severity: Severity,
    /// What happened, specific to this occurrence (no CTA/warp: those are in `context`).
    pub message: String,
    /// The instruction (or operand) at fault; its label is drawn under the caret.
    pub primary: Location,
    /// Other places that explain the finding ("allocated here", "first access here").
    pub related: Vec<Location>,
    pub context: Option<ExecContext>,
    /// The kernel's source line (from `.loc`), when the PTX carries debug lines.
    pub source: Option<SourceLine>,
    /// The schedule seed of the run, when a random schedule was used.
    pub seed: Option<u64>,
    pub notes: Vec<String>,
    /// Set by [`crate::group`]; a fresh finding stands for itself.
    pub occurrences: Occurrences,
}

impl Finding {
    pub fn new(
        rule: &'static str,
        name: &'static str,
        severity: Severity,
        message: impl Into<String>,
        primary: Location,
    ) -> Finding {
        Finding {
            rule,
            name,
            severity,
            message: message.into(),
            primary,
            related: Vec::new(),
            context: None,
            source: None,
            seed: None,
            notes: Vec::new(),
            occurrences: Occurrences::of(None),
        }
    }

    /// A finding for a catalogued rule: name and severity come from the catalogue.
    pub fn for_rule(
        rule: &'static tmemu_tmem::rules::Rule,
        message: impl Into<String>,
        primary: Location,
    ) -> Finding {
        Finding::new(rule.id, rule.name, rule.severity.into(), message, primary)
    }

    pub fn with_related(mut self, location: Location) -> Finding {
        self.related.push(location);
        self
    }

    pub fn with_context(mut self, context: ExecContext) -> Finding {
        self.context = Some(context);
        self.occurrences = Occurrences::of(self.context.as_ref());
        self
    }

    pub fn with_source(mut self, source: SourceLine) -> Finding {
        self.source = Some(source);
        self
    }

    pub fn with_seed(mut self, seed: u64) -> Finding {
        self.seed = Some(seed);
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Finding {
        self.notes.push(note.into());
        self
    }
}
