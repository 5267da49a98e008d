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

/// How many raw findings a (grouped) finding stands for, and which threads they came from.
///
/// `count`, `ctas` and `warps` are the original fields; the others (added later, so JSON
/// consumers keep working) describe the set: the union of the lane masks, the warp indices
/// (bit w = warp w of its CTA; a CTA has at most 32 warps), the smallest box of CTA
/// coordinates that holds every CTA, and how many distinct messages were merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Occurrences {
    /// Raw findings merged into this one.
    pub count: u32,
    /// Distinct CTAs among them (0 when none had a context).
    pub ctas: u32,
    /// Distinct (CTA, warp) pairs among them.
    pub warps: u32,
    /// Union of the lane masks (0: not lane-specific).
    pub lanes: u32,
    /// Warp indices seen, as a mask (bit w: warp w of some CTA).
    pub warp_mask: u32,
    /// Smallest CTA coordinates (x, y, z taken separately).
    pub cta_min: [u32; 3],
    /// Largest CTA coordinates (x, y, z taken separately).
    pub cta_max: [u32; 3],
    /// Distinct messages among the merged findings (1 when they all read the same).
    pub messages: u32,
}

impl Occurrences {
    /// No occurrence yet; [`Occurrences::add`] counts them.
    pub const EMPTY: Occurrences = Occurrences {
        count: 0,
        ctas: 0,
        warps: 0,
        lanes: 0,
        warp_mask: 0,
        cta_min: [u32::MAX; 3],
        cta_max: [0; 3],
        messages: 0,
    };

    pub(crate) fn of(context: Option<&ExecContext>) -> Occurrences {
        let mut o = Occurrences::EMPTY;
        o.count = 1;
        o.messages = 1;
        if let Some(c) = context {
            o.ctas = 1;
            o.add_context(c);
            o.warps = c.warp.is_some() as u32;
        } else {
            o.cta_min = [0; 3];
        }
        o
    }

    /// Widens the lane, warp and CTA sets by one context (the distinct counts `ctas`/`warps`
    /// are the caller's: they need the sets themselves).
    pub fn add_context(&mut self, c: &ExecContext) {
        self.lanes |= c.lanes;
        if let Some(w) = c.warp {
            self.warp_mask |= 1u32.checked_shl(w).unwrap_or(0);
        }
        for d in 0..3 {
            self.cta_min[d] = self.cta_min[d].min(c.cta[d]);
            self.cta_max[d] = self.cta_max[d].max(c.cta[d]);
        }
    }

    /// Whether any context was seen (the CTA box is meaningful).
    pub fn has_ctas(&self) -> bool {
        self.ctas > 0 && self.cta_min[0] <= self.cta_max[0]
    }

    /// Whether the CTAs seen fill their box (so `(0,0,0)-(3,1,0)` names exactly them).
    pub fn ctas_fill_box(&self) -> bool {
        if !self.has_ctas() {
            return false;
        }
        let volume = (0..3).fold(1u64, |v, d| {
            v * (u64::from(self.cta_max[d]) - u64::from(self.cta_min[d]) + 1)
        });
        volume == u64::from(self.ctas)
    }
}

/// One raw occurrence of a grouped finding: who, and what its own message said (messages may
/// differ in an address or a lane number).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Instance {
    pub context: Option<ExecContext>,
    pub message: String,
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
    /// The operand the rule is about (the `[taddr]` of a tcgen05.ld, the nCols of an alloc),
    /// inside the primary instruction; the human format puts its carets there. `None`: the
    /// instruction as a whole.
    pub operand: Option<Location>,
    /// Every raw occurrence merged into this finding, sorted by CTA (z, y, x), warp, lanes
    /// (schedule-independent); empty for a fresh finding (it stands for itself). Set by
    /// [`crate::group`]; a front end that merged occurrences itself may fill it.
    pub instances: Vec<Instance>,
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
            operand: None,
            instances: Vec::new(),
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

    /// The operand the rule is about (see [`Finding::operand`]).
    pub fn with_operand(mut self, operand: Location) -> Finding {
        self.operand = Some(operand);
        self
    }

    /// The occurrences this finding stands for: its own when none were merged into it.
    pub fn instances(&self) -> Vec<Instance> {
        if self.instances.is_empty() {
            vec![Instance {
                context: self.context,
                message: self.message.clone(),
            }]
        } else {
            self.instances.clone()
        }
    }
}
