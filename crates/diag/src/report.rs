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

/// The input of every renderer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Grouped findings (see [`crate::group`]).
    pub findings: Vec<Finding>,
    pub hang: Option<HangReport>,
    pub incomplete: Vec<Incomplete>,
}

/// Counts by severity, after grouping (a finding in 96 CTAs counts once).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub findings: usize,
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
}

impl Report {
    /// Groups the raw findings.
    pub fn new(findings: Vec<Finding>) -> Report {
        Report {
            findings: group(findings),
            hang: None,
            incomplete: Vec::new(),
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

    pub fn counts(&self) -> Counts {
        let mut c = Counts {
            findings: self.findings.len(),
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

    pub fn verdict(&self) -> Verdict {
        Verdict::decide(
            self.hang.is_some(),
            self.counts().errors,
            !self.incomplete.is_empty(),
        )
    }
}
