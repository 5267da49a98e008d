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

/// The rules the engine itself reports: engine-level (TM05xx) and mbarrier / cluster-barrier
/// rules (TM022x). IDs, names, sections and help live once, in the catalogue
/// (`tmemu_tmem::rules`, source of docs/rules.md); these are handles into it.
pub mod rules {
    use super::Rule;
    use tmemu_tmem::rules as catalogue;

    const fn of(r: &catalogue::Rule) -> Rule {
        Rule {
            id: r.id,
            name: r.name,
        }
    }

    pub const OUT_OF_BOUNDS: Rule = of(&catalogue::OUT_OF_BOUNDS_ACCESS);
    pub const MISALIGNED: Rule = of(&catalogue::MISALIGNED_ACCESS);
    pub const BAD_ADDRESS_SPACE: Rule = of(&catalogue::ADDRESS_OUTSIDE_SPACE);
    pub const BARRIER_DEADLOCK: Rule = of(&catalogue::BARRIER_DEADLOCK);
    pub const TRAP: Rule = of(&catalogue::TRAP);
    pub const STEP_BUDGET: Rule = of(&catalogue::STEP_BUDGET_EXHAUSTED);
    pub const DIVERGENT_ALIGNED: Rule = of(&catalogue::DIVERGENT_ALIGNED_INSTRUCTION);
    pub const BAD_BARRIER: Rule = of(&catalogue::INVALID_BARRIER_OPERAND);
    pub const BAR_REARRIVE: Rule = of(&catalogue::BARRIER_REARRIVE);
    pub const SETMAXNREG_HANG: Rule = of(&catalogue::SETMAXNREG_HANG);
    pub const SYNC_MASK: Rule = of(&catalogue::SYNC_MEMBERMASK_MISMATCH);
    pub const CALL_DEPTH: Rule = of(&catalogue::CALL_DEPTH_EXCEEDED);
    pub const MBAR_UNINIT: Rule = of(&catalogue::MBARRIER_UNINITIALIZED);
    pub const MBAR_REINIT: Rule = of(&catalogue::MBARRIER_REINIT);
    pub const MBAR_COUNT_RANGE: Rule = of(&catalogue::MBARRIER_COUNT_RANGE);
    pub const MBAR_OVERARRIVE: Rule = of(&catalogue::MBARRIER_OVERARRIVE);
    pub const MBAR_TX_RANGE: Rule = of(&catalogue::MBARRIER_TX_RANGE);
    pub const MBAR_HANG: Rule = of(&catalogue::MBARRIER_HANG);
    pub const TMEM_ALLOC_HANG: Rule = of(&catalogue::TMEM_ALLOC_HANG);
    pub const MBAR_ALIGN: Rule = of(&catalogue::MBARRIER_MISALIGNED);
    pub const MBAR_REMOTE_WAIT: Rule = of(&catalogue::MBARRIER_REMOTE_WAIT);
    pub const MBAR_NOCOMPLETE: Rule = of(&catalogue::MBARRIER_NOCOMPLETE_COMPLETES);
    pub const CLUSTER_REARRIVE: Rule = of(&catalogue::CLUSTER_BARRIER_DOUBLE_ARRIVE);
    pub const PEER_EXITED: Rule = of(&catalogue::SHARED_CLUSTER_PEER_EXITED);
    pub const UNMODELLED: Rule = of(&catalogue::UNMODELLED_FORM);
    pub const MBAR_PHASE_SKIP: Rule = of(&catalogue::MBARRIER_PHASE_SKIPPED);
    pub const MBAR_MEMORY_REUSED: Rule = of(&catalogue::MBARRIER_MEMORY_REUSED);
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

/// A launch that cannot run (bad grid, too much shared memory...): the message, and the
/// launch parameter at fault, so a front end can point at the spec key that set it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchError(pub String, pub LaunchKey);

/// Which launch parameter a [`LaunchError`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaunchKey {
    Grid,
    Block,
    Cluster,
    /// Dynamic shared memory (with the kernel's static shared memory).
    SharedBytes,
    /// The kernel's static shared memory alone (`Kernel::static_shared_span` names it).
    StaticShared,
    /// None of them alone (the host could not start threads, the CTA does not fit an SM).
    Launch,
}

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
    /// Other places the finding refers to (e.g. where a leaked allocation was made).
    pub related: Vec<(Span, String)>,
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
