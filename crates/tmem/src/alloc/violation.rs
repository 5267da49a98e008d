//! Findings and errors of the allocation protocol.

use std::fmt;

use super::{CtaId, Issue, Origin, WarpId};
use crate::rules::Rule;

/// A broken rule, with what a diagnostic needs: the rule, where (origin token, CTA, warp,
/// lanes), a message, and related places (e.g. "allocated here").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub rule: &'static Rule,
    pub cta: CtaId,
    pub warp: Option<WarpId>,
    /// Origin of the event the finding is about.
    pub origin: Origin,
    /// Lanes of the warp concerned (0 = the warp or CTA as a whole).
    pub lanes: u32,
    pub message: String,
    pub related: Vec<Related>,
}

/// A second place a finding points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    pub origin: Origin,
    pub cta: CtaId,
    pub label: String,
}

impl Violation {
    #[cold]
    pub(crate) fn new(rule: &'static Rule, issue: &Issue, message: String) -> Self {
        Violation {
            rule,
            cta: issue.cta,
            warp: Some(issue.warp),
            origin: issue.origin,
            lanes: 0,
            message,
            related: Vec::new(),
        }
    }

    #[cold]
    pub(crate) fn for_cta(
        rule: &'static Rule,
        cta: CtaId,
        origin: Origin,
        message: String,
    ) -> Self {
        Violation {
            rule,
            cta,
            warp: None,
            origin,
            lanes: 0,
            message,
            related: Vec::new(),
        }
    }

    pub(crate) fn with_lanes(mut self, lanes: u32) -> Self {
        self.lanes = lanes;
        self
    }

    pub(crate) fn related(mut self, origin: Origin, cta: CtaId, label: impl Into<String>) -> Self {
        self.related.push(Related {
            origin,
            cta,
            label: label.into(),
        });
        self
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}[{}] {}: {}",
            self.rule.severity.as_str(),
            self.rule.id,
            self.rule.name,
            self.message
        )
    }
}

/// The caller broke the allocator's contract (a tmemu bug, not the program's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Misuse {
    pub message: String,
}

impl fmt::Display for Misuse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tmemu bug: allocator misuse: {}", self.message)
    }
}

/// Why a step was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepError {
    /// The program broke a rule; the event had no effect.
    Violation(Violation),
    /// The caller broke the API contract.
    Misuse(Misuse),
}

impl StepError {
    /// The violation, if this is one.
    pub fn violation(&self) -> Option<&Violation> {
        match self {
            StepError::Violation(v) => Some(v),
            StepError::Misuse(_) => None,
        }
    }
}

impl From<Violation> for StepError {
    fn from(v: Violation) -> Self {
        StepError::Violation(v)
    }
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepError::Violation(v) => v.fmt(f),
            StepError::Misuse(m) => m.fmt(f),
        }
    }
}

impl std::error::Error for StepError {}
