//! Errors and diagnostics of the engine.
//!
//! Whose fault it is decides the type (after Miri's error kinds): [`LoadError::Unsupported`] is
//! a tmemu gap (verdict `incomplete`), [`LoadError::Invalid`] a bad program or launch (exit 2),
//! a [`Diagnostic`] a rule the running program broke, a [`HangReport`] a program that can no
//! longer make progress.

use std::fmt;
use tmemu_ptx::span::Span;

/// A stable rule: ID and short name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    pub id: &'static str,
    pub name: &'static str,
}

/// Engine-level rules (TM05xx) and the synchronisation rules the engine itself detects (TM02xx).
pub mod rules {
    use super::Rule;
    pub const OUT_OF_BOUNDS: Rule = Rule {
        id: "TM0501",
        name: "out-of-bounds-access",
    };
    pub const MISALIGNED: Rule = Rule {
        id: "TM0502",
        name: "misaligned-access",
    };
    pub const BAD_ADDRESS_SPACE: Rule = Rule {
        id: "TM0503",
        name: "address-outside-space",
    };
    pub const BARRIER_DEADLOCK: Rule = Rule {
        id: "TM0504",
        name: "barrier-deadlock",
    };
    pub const TRAP: Rule = Rule {
        id: "TM0505",
        name: "trap",
    };
    pub const STEP_BUDGET: Rule = Rule {
        id: "TM0506",
        name: "step-budget-exhausted",
    };
    pub const DIVERGENT_ALIGNED: Rule = Rule {
        id: "TM0507",
        name: "divergent-aligned-instruction",
    };
    pub const BAD_BARRIER: Rule = Rule {
        id: "TM0508",
        name: "invalid-barrier-operand",
    };
    pub const SYNC_MASK: Rule = Rule {
        id: "TM0509",
        name: "sync-membermask-mismatch",
    };
    pub const CALL_DEPTH: Rule = Rule {
        id: "TM0510",
        name: "call-depth-exceeded",
    };
    pub const MBAR_UNINIT: Rule = Rule {
        id: "TM0201",
        name: "mbarrier-uninitialized",
    };
    pub const MBAR_REINIT: Rule = Rule {
        id: "TM0202",
        name: "mbarrier-reinit",
    };
    pub const MBAR_COUNT_RANGE: Rule = Rule {
        id: "TM0203",
        name: "mbarrier-count-range",
    };
    pub const MBAR_OVERARRIVE: Rule = Rule {
        id: "TM0204",
        name: "mbarrier-overarrive",
    };
    pub const MBAR_TX_RANGE: Rule = Rule {
        id: "TM0205",
        name: "mbarrier-tx-range",
    };
    pub const MBAR_HANG: Rule = Rule {
        id: "TM0206",
        name: "mbarrier-hang",
    };
    pub const MBAR_ALIGN: Rule = Rule {
        id: "TM0207",
        name: "mbarrier-misaligned",
    };
    pub const MBAR_REMOTE_WAIT: Rule = Rule {
        id: "TM0208",
        name: "mbarrier-remote-wait",
    };
    pub const MBAR_NOCOMPLETE: Rule = Rule {
        id: "TM0209",
        name: "mbarrier-nocomplete-completes",
    };
    pub const CLUSTER_REARRIVE: Rule = Rule {
        id: "TM0210",
        name: "cluster-barrier-double-arrive",
    };
}

/// Why a kernel could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// A form tmemu does not execute (verdict `incomplete`, exit 4).
    Unsupported { form: String, span: Span },
    /// The PTX (or the launch) is wrong (exit 2).
    Invalid { message: String, span: Span },
}

impl LoadError {
    pub fn span(&self) -> Span {
        match self {
            LoadError::Unsupported { span, .. } | LoadError::Invalid { span, .. } => *span,
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Unsupported { form, span } => write!(f, "unsupported: {form} at {span}"),
            LoadError::Invalid { message, span } => write!(f, "{message} at {span}"),
        }
    }
}

impl std::error::Error for LoadError {}

/// A launch that cannot run (bad grid, too much shared memory...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchError(pub String);

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LaunchError {}

/// Which thread(s) broke a rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Context {
    pub cluster: [u32; 3],
    pub cta: [u32; 3],
    pub warp: u32,
    pub lanes: u32,
    pub pc: u32,
}

/// A broken rule, found while running.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub rule: Rule,
    pub message: String,
    pub span: Span,
    pub ctx: Context,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = &self.ctx;
        write!(
            f,
            "{} {}: {} at {} (cta ({},{},{}), warp {}, lanes {:#010x})",
            self.rule.id,
            self.rule.name,
            self.message,
            self.span,
            c.cta[0],
            c.cta[1],
            c.cta[2],
            c.warp,
            c.lanes
        )
    }
}

/// One blocked warp in a hang report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockedWarp {
    pub cta: [u32; 3],
    pub warp: u32,
    pub lanes: u32,
    pub span: Span,
    pub opcode: String,
    pub waiting_for: String,
}

/// No warp can progress and nothing asynchronous is pending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HangReport {
    pub rule: Rule,
    pub summary: String,
    pub warps: Vec<BlockedWarp>,
}

impl fmt::Display for HangReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} {}: {}", self.rule.id, self.rule.name, self.summary)?;
        for w in &self.warps {
            writeln!(
                f,
                "  cta ({},{},{}) warp {} lanes {:#010x}: blocked in `{}` at {}: {}",
                w.cta[0], w.cta[1], w.cta[2], w.warp, w.lanes, w.opcode, w.span, w.waiting_for
            )?;
        }
        Ok(())
    }
}
