//! TMEM allocation as a protocol: the per-SM column allocator, allocation permits and the
//! CTA-pair rendezvous of `.cta_group::2` collectives (PTX ISA §9.7.16.1.2, §9.7.16.5,
//! §9.7.16.7.1; facts in shared/spec/tmem.md §3–§5, §7).
//!
//! Contract: [`TmemAllocator::step`] takes one [`Event`] (a warp executing
//! `tcgen05.alloc`/`dealloc`/`relinquish_alloc_permit`, a CTA launching or exiting) and
//! returns what happened ([`Outcome`]: granted, blocked, freed, and which blocked warps it
//! woke) or why the event is rejected ([`StepError`]). The engine, the checker and a schedule
//! explorer drive this same function; it knows no PTX text and no scheduler.
//!
//! - `Err(StepError::Violation)`: the program broke a rule and the event has **no effect**
//!   (the state is unchanged); the engine reports it and decides how to go on.
//! - `Ok(outcome)` with `outcome.findings`: the event took effect, and these findings
//!   (warnings, notes, and errors such as leaks reported at CTA exit) describe it.
//! - `Err(StepError::Misuse)`: the caller broke this API's contract (unknown CTA, a blocked
//!   warp issuing again, ...). That is a tmemu bug, never a program's fault.
//!
//! Modelling choices (see docs/arch/tmem.md):
//! - The 512 columns belong to the SM and are shared by the CTAs resident on it (DERIVED).
//! - Placement: lowest free range aligned to its size by default; [`Placement::Random`]
//!   picks uniformly among free aligned ranges with a seeded PCG.
//! - Blocked requests are granted in arrival order per SM (FIFO, head-of-line blocking): a
//!   later small request never overtakes an earlier blocked one on the same SM. This is the
//!   fair reading: the ISA promises a blocked alloc resumes "as soon as" columns are
//!   available, and letting small requests overtake could starve a large one forever.
//! - `.cta_group::2` alloc: both warps must arrive; both CTAs (on two SMs) get the same
//!   column range, which must be free on both SMs; the pair queues on both SMs.
//! - `.cta_group::2` dealloc/relinquish "may block" until the peer performs it (9.1 page).
//!   [`PairCollective::Blocking`] (default) makes the first arrival wait, which exposes the
//!   schedule-dependent hang of ISA Table 48; [`PairCollective::Eager`] lets it proceed.

mod allocator;
mod columns;
mod pair;
mod violation;
mod warp;

pub use allocator::{ncols_rule, Blocked, BlockedOn, Explanation, PeerState, TmemAllocator};
pub use columns::{Allocation, ColumnAllocator};
pub use violation::{Misuse, Related, StepError, Violation};
pub use warp::{LaneValues, WarpLanes};

use crate::geometry::{ColumnRange, TmemAddr};

/// A CTA, as numbered by the engine (dense indices keep the allocator's tables small).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CtaId(pub u32);

/// A streaming multiprocessor; its TMEM is one [`ColumnAllocator`] of 512 columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SmId(pub u32);

/// Warp index within its CTA (linear thread id / 32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WarpId(pub u32);

/// Opaque token the engine passes with each event (it maps it to a source span and an
/// execution context); violations hand it back, e.g. a leak points at "allocated here".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Origin(pub u64);

/// The `.cta_group` qualifier of the instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CtaGroup {
    One,
    Two,
}

/// Where new allocations land.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Lowest free column range aligned to its size.
    Lowest,
    /// Uniformly among free aligned ranges, from this seed (same seed, same placements).
    Random { seed: u64 },
}

/// Whether the first warp of a `.cta_group::2` dealloc / relinquish waits for its peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairCollective {
    /// The first arrival blocks until the peer's warp performs the same operation.
    Blocking,
    /// The first arrival performs its own CTA's half and continues.
    Eager,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Number of SMs (each has its own 512 columns).
    pub sms: u32,
    pub placement: Placement,
    pub pair_collective: PairCollective,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            sms: 148,
            placement: Placement::Lowest,
            pair_collective: PairCollective::Blocking,
        }
    }
}

/// What the issuing warp is and which of its threads take part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Issue {
    pub cta: CtaId,
    pub warp: WarpId,
    pub lanes: WarpLanes,
    pub group: CtaGroup,
    pub origin: Origin,
}

impl Issue {
    /// A whole, converged 32-thread warp.
    pub fn warp(cta: CtaId, warp: WarpId, group: CtaGroup, origin: Origin) -> Self {
        Issue {
            cta,
            warp,
            lanes: WarpLanes::FULL,
            group,
            origin,
        }
    }
}

/// One input to the allocation protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A CTA becomes resident on `sm`. `peer` is the CTA with `%cluster_ctarank ^ 1` in its
    /// cluster, if the cluster has one (it must be on another SM).
    Launch {
        cta: CtaId,
        sm: SmId,
        peer: Option<CtaId>,
    },
    /// `tcgen05.alloc` executed by a warp.
    Alloc { issue: Issue, ncols: LaneValues },
    /// `tcgen05.dealloc` executed by a warp.
    Dealloc {
        issue: Issue,
        taddr: LaneValues,
        ncols: LaneValues,
    },
    /// `tcgen05.relinquish_alloc_permit` executed by a warp.
    Relinquish { issue: Issue },
    /// The last thread of the CTA exited.
    CtaExit { cta: CtaId, origin: Origin },
}

/// What happened to the issuing warp (or CTA).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    Launched,
    /// The allocation is made; the engine writes the address to `dst`.
    Granted(TmemAddr),
    /// The warp waits; a later step's [`Outcome::woken`] releases it.
    Blocked(BlockedOn),
    /// The columns of the issuing CTA's allocation are free (for a blocking pair dealloc,
    /// both CTAs' allocations are).
    Freed(ColumnRange),
    Relinquished,
    /// The CTA is gone; `reclaimed` columns it leaked were returned to its SM.
    Exited {
        reclaimed: u32,
    },
}

/// A blocked warp that this step released, and with what result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wake {
    pub cta: CtaId,
    pub warp: WarpId,
    /// Origin of the instruction the warp was blocked in.
    pub origin: Origin,
    pub done: Done,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Done {
    Alloc(TmemAddr),
    Dealloc(ColumnRange),
    Relinquish,
}

/// Result of one accepted step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub effect: Effect,
    /// Blocked warps released by this step, in grant order.
    pub woken: Vec<Wake>,
    /// Findings about an event that still took effect (warnings, notes, leaks at exit).
    pub findings: Vec<Violation>,
}

impl Outcome {
    fn new(effect: Effect) -> Self {
        Outcome {
            effect,
            woken: Vec::new(),
            findings: Vec::new(),
        }
    }
}
