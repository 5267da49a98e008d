//! The outcome of a run and its exit code (shared/launch-spec.md).

use std::fmt;

use serde::Serialize;

/// Exit code for bad input or usage (a spec or PTX error, an unknown rule ID...).
pub const EXIT_BAD_INPUT: u8 = 2;

/// What a run or check concluded. Fails closed: `Clean` only when everything ran and was
/// modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Ran to completion, no error-severity finding.
    Clean,
    /// At least one error-severity finding.
    Violation,
    /// The run stopped in a hang (deadlock, or a spin that can never end).
    Hang,
    /// Something was not modelled (an instruction form, a protocol) or a budget ran out.
    Incomplete,
}

impl Verdict {
    pub const fn as_str(self) -> &'static str {
        match self {
            Verdict::Clean => "clean",
            Verdict::Violation => "violation",
            Verdict::Hang => "hang",
            Verdict::Incomplete => "incomplete",
        }
    }

    /// 0 clean, 1 diagnostics, 3 hang, 4 incomplete (2 is bad input: [`EXIT_BAD_INPUT`]).
    pub const fn exit_code(self) -> u8 {
        match self {
            Verdict::Clean => 0,
            Verdict::Violation => 1,
            Verdict::Hang => 3,
            Verdict::Incomplete => 4,
        }
    }

    /// Precedence when several apply (the project's contract, tests/corpus/rules/README.md):
    /// a hang (the run did not finish; its outputs mean nothing) over incomplete (a run that
    /// could not be completed, or a form that was not modelled, may hide anything) over a
    /// violation (the findings are still reported) over clean.
    pub fn decide(has_hang: bool, errors: usize, incomplete: bool) -> Verdict {
        if has_hang {
            Verdict::Hang
        } else if incomplete {
            Verdict::Incomplete
        } else if errors > 0 {
            Verdict::Violation
        } else {
            Verdict::Clean
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
