//! Everything one run has to say: findings, a hang, what was not modelled.

use crate::group::group;
use crate::hang::HangReport;
use crate::model::{Finding, Location, Severity};
use crate::verdict::Verdict;

/// Why a run is `incomplete`: a form or protocol tmemu does not model, or a budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Incomplete {
    pub message: String,
    pub location: Option<Location>,
}

/// One `[[expect]]` of a launch spec: a buffer compared with its reference after the run.
/// A failed comparison makes the verdict `violation` (the kernel computed the wrong thing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectResult {
    /// The buffer's name in the spec.
    pub buffer: String,
    /// The reference as the spec wrote it (a `.npy` path, a value).
    pub reference: String,
    pub passed: bool,
    /// `128 elements, max abs err 0.000e0, ...` or why it failed.
    pub detail: String,
}

/// The input of every renderer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Grouped findings (see [`crate::group`]).
    pub findings: Vec<Finding>,
    pub hang: Option<HangReport>,
    pub incomplete: Vec<Incomplete>,
    /// `[[expect]]` comparisons, in spec order (empty when the command made none).
    pub expects: Vec<ExpectResult>,
}

/// Counts by severity, after grouping (a finding in 96 CTAs counts once).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub findings: usize,
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
    /// `[[expect]]` comparisons that failed.
    pub expects_failed: usize,
}

impl Report {
    /// Groups the raw findings.
    pub fn new(findings: Vec<Finding>) -> Report {
        Report {
            findings: group(findings),
            hang: None,
            incomplete: Vec::new(),
            expects: Vec::new(),
        }
    }

    pub fn with_hang(mut self, hang: HangReport) -> Report {
        self.hang = Some(hang);
        self
    }

    pub fn with_incomplete(mut self, incomplete: Incomplete) -> Report {
        self.incomplete.push(incomplete);
        self
    }

    pub fn with_expect(mut self, expect: ExpectResult) -> Report {
        self.expects.push(expect);
        self
    }

    pub fn counts(&self) -> Counts {
        let mut c = Counts {
            findings: self.findings.len(),
            expects_failed: self.expects.iter().filter(|e| !e.passed).count(),
            ..Counts::default()
        };
        for f in &self.findings {
            match f.severity {
                Severity::Error => c.errors += 1,
                Severity::Warning => c.warnings += 1,
                Severity::Note => c.notes += 1,
            }
        }
        c
    }

    /// A failed `[[expect]]` counts as an error: the kernel computed the wrong result.
    pub fn verdict(&self) -> Verdict {
        let c = self.counts();
        Verdict::decide(
            self.hang.is_some(),
            c.errors + c.expects_failed,
            !self.incomplete.is_empty(),
        )
    }
}
