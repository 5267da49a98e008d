//! tmemu-race: a happens-before race detector for PTX shared/global memory and Tensor Memory.
//!
//! # Contract
//!
//! The engine reports an execution as events ([`RaceDetector`] methods): ordinary accesses of
//! warps, fences, arrivals and waits on barriers and mbarriers, and asynchronous operations
//! (tcgen05.mma/cp/shift/ld/st, bulk copies) with the ranges they touch, their completion and
//! the commits that track them. The detector answers with [`Race`] findings naming both
//! accesses and a TM02xx rule. It knows no PTX text, no scheduler and no registers.
//!
//! **It may miss races but never invents them**: every approximation below adds
//! happens-before edges (hiding races) and none removes one. A true register dependency on a
//! `tcgen05.ld` result is honoured (PTX ISA §9.7.16.6.4.5): registers are not tracked at all,
//! only TMEM cells, so reading a load's registers before `tcgen05.wait::ld` is never a finding.
//!
//! # Model (PTX ISA 9.1 §8, §9.7.16.6, §9.7.13.15; shared/spec/sync.md)
//!
//! - **Actors.** One vector-clock component per warp, and one per asynchronous op. A warp runs
//!   in lockstep in the engine, so program order inside a warp needs no per-lane clock;
//!   lanes of one warp are one actor, so cross-lane communication through shared memory within
//!   a warp is never reported (a deliberate miss: the engine orders it by the instruction).
//!   An op's component is recycled once the op is complete, no commit or wait still needs
//!   it, and every live warp has observed its completion (memory stays bounded; a hard cap
//!   forces reuse, counted in [`Stats::forced_reuses`], which can only hide races).
//! - **Three views per warp**, each released/acquired through synchronisation objects:
//!   `gen` (generic happens-before, carried only by `.release` arrives and `.acquire` waits),
//!   `pf` (accesses bridged by `fence.proxy.async`), and the tcgen05 view: `tc` is what the
//!   warp's next async tcgen05 op is ordered after; `fence::before_thread_sync` publishes it,
//!   every synchronisation (also `.relaxed`) carries the published part, and
//!   `fence::after_thread_sync` joins what was acquired (and the generic view) into `tc`.
//! - **Async ops** take the issuer's views at issue, record their accesses at issue (they may
//!   happen at any time until completion) stamped with their *completion* time; the issue
//!   time is one less, which the issuer's `tc` learns. A later TMEM access is ordered after
//!   an op's access when it has observed the completion, or when the pair is pipelined
//!   (§9.7.16.6.2: mma→mma same accumulator, cp→mma, shift→mma, shift→cp.4x256b, mma→shift,
//!   same cta_group) and it has observed the issue.
//! - **Completion** reaches threads through `tcgen05.commit` (captures the warp's incomplete
//!   mma/cp/shift of that cta_group, then arrives with their completion clocks, release at
//!   cluster scope, implying `before_thread_sync`), bulk-copy `complete_tx` (release plus the
//!   implicit proxy fence), `tcgen05.wait::ld/st` and bulk async-group waits.
//! - **Proxies.** Shared/global writes remember their proxy; a read or write through the other
//!   proxy must be ordered *and* proxy-fenced (a `fence.proxy.async` by the writer before its
//!   release, or by the reader after its acquire). A read followed by a cross-proxy write only
//!   needs ordering (deviation: real pipelines release TMA stages without a proxy fence).
//! - **Strong accesses** (`.relaxed`, `.acquire`, `.release`, `atom`, `.volatile`) never race
//!   each other; release stores / acquire loads and `fence.acq_rel` synchronise through
//!   per-location clocks that only grow (release sequences over-approximated). Scopes are not
//!   modelled (treated as wide enough).
//! - **Deviations that hide races**: barrier/mbarrier completions accumulate across phases;
//!   a `.relaxed` arrive still carries the tcgen05 view it published; the TMEM shadow is
//!   per CTA (CTAs of another domain on the same SM are not compared).
//!
//! Shadow memory is a run-length interval map per memory ([`shadow`]), byte-granular for
//! shared/global and cell-granular (column-major) for TMEM, so bulk accesses cost per run.

pub mod clock;
mod detector;
pub mod event;
pub mod finding;
mod shadow;

pub use detector::{CommitId, OpId, RaceDetector, Stats};
pub use event::{
    AccessKind, Agent, Fence, MemOrder, MemSpace, OpKind, Place, Sem, SpanToken, SyncKey, TmemRect,
    WarpId,
};
pub use finding::{Access, Race, Region};
