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
//! - **Proxies.** Shared/global writes remember their proxy; a read through the other proxy
//!   must be ordered *and* proxy-fenced (a `fence.proxy.async` by the writer before its
//!   release, or by the reader after its acquire). A cross-proxy write after a read or a write
//!   only needs ordering (deviation: real pipelines release TMA stages without a proxy fence,
//!   and Triton reuses the alloc address slot as a TMA destination).
//! - **Same-instruction stores** by several warps (the "uniform store" of compiled code) are
//!   not reported against each other: the values are equal in every compiled case we know,
//!   and the detector cannot see values (a deliberate miss).
//! - **Strong accesses** (`.relaxed`, `.acquire`, `.release`, `atom`, `.volatile`) race each
//!   other only when they are not morally strong: the scope of one (`.cta`, `.cluster`, given
//!   with the order as a [`Strength`]; a bare [`MemOrder`] is `.gpu`) does not include the
//!   other's thread (PTX ISA §8, "Morally strong operations"; clusters come from
//!   [`RaceDetector::set_cluster`]). A weak *read* racing only strong writes is not reported
//!   (it returns one of the written values; the CUDA atomicCAS loop's `old = *p` relies on
//!   it); release stores / acquire loads and `fence.acq_rel` synchronise through
//!   per-location clocks that only grow (release sequences over-approximated). The scopes of
//!   synchronisation are not modelled (treated as wide enough), except by the engine: an
//!   `mbarrier.arrive` with an explicit `.release.cta` on another CTA's barrier reaches the
//!   detector as a relaxed arrive.
//! - **TM0207 (reading of §9.7.16.6.3–4, see docs/arch/race.md).** The tcgen05 fence pair
//!   around a thread synchronisation is what orders the *issue* of async tcgen05 ops across
//!   threads, which a pipelined pair split over two threads (canonical pattern 3) relies on:
//!   such a pair ordered by an `.release`/`.acquire` or `bar` synchronisation but without the
//!   fences is TM0207. A *completion* that was observed (commit + mbarrier wait,
//!   `tcgen05.wait::ld/st`) and carried to another thread by synchronisation orders that
//!   thread's later TMEM accesses with or without the fences: no finding. Triton, Gluon and
//!   CuTe DSL output relies on exactly this (no `tcgen05.fence` in any of their kernels).
//! - **mbarrier init (TM0214).** `mbarrier.init` is a write to the barrier object: every
//!   other operation on it (by a thread, or by an async op on its issuer's behalf) must be
//!   ordered after it, in every schedule, not only when it runs first (the engine's TM0220).
//!   `fence.mbarrier_init` + a relaxed arrive publishes the warp's inits (`mbar_init.rs`).
//! - **Deviations that hide races**: barrier/mbarrier completions accumulate across phases;
//!   a `.relaxed` arrive still carries the tcgen05 view it published; the TMEM shadow is
//!   per CTA (CTAs of another domain on the same SM are not compared).
//!
//! Shadow memory (the state of each byte or TMEM cell: last write, reads since) is dense for
//! shared/global memory (module `dense`: a state id per byte in 128-byte pages, one id for a
//! uniform page, states updated in place) and a run-length interval map for TMEM (module
//! `shadow`; cells numbered quarter, column, lane, so a warp's `tcgen05.ld` is one run). Both
//! call the check once per run of equal state, so they give the same findings; the map is
//! also the reference of the differential tests (`RaceDetector::with_reference_shadow`).
//!
//! # Event protocol (what the engine calls for each instruction)
//!
//! | PTX | calls |
//! |---|---|
//! | `ld`/`st`/`atom`/`red` on shared or global | [`RaceDetector::access_lanes`] (or `access_lane_mask`: the mask and all 32 addresses; or `access`), with the [`MemOrder`] |
//! | `tcgen05.alloc` (its address store) | [`RaceDetector::alloc_address_store`] |
//! | `tcgen05.alloc` / `dealloc` took effect (each CTA's half of a `.cta_group::2` collective) | [`RaceDetector::tmem_alloc`] / [`RaceDetector::tmem_dealloc`] |
//! | `bar.sync` / `barrier.cta.sync` | `arrive(Ordering)` per warp, `sync_complete` when the barrier completes, `wait(Ordering)` per waiting warp (`bar.arrive`: arrive only) |
//! | `barrier.cluster.arrive{.relaxed}` / `.wait` | `arrive(ClusterBarrier, Ordering or Relaxed)`, `sync_complete`, `wait` |
//! | `mbarrier.arrive{.release,.relaxed}` | `arrive(Mbarrier, sem)`; `sync_complete` when the phase completes |
//! | successful `mbarrier.test_wait`/`try_wait{.acquire,.relaxed}` | `wait(Mbarrier, sem)` |
//! | `mbarrier.init` / `expect_tx`, a thread's `complete_tx`, `inval` | [`RaceDetector::mbar_init`] / [`RaceDetector::mbar_use`]; arrivals and waits with their instruction (`arrive_at`, `wait_at`, `commit_at`) are checked against the init too (TM0214) |
//! | `cp.async.bulk{.tensor}` | `issue(Bulk)` + `op_access` per range; on completion `complete` and `op_arrive(mbarrier)`; a `.bulk_group` copy: `bulk_group_add` |
//! | `cp.async.bulk.commit_group` / `wait_group{.read} n` | `bulk_commit` / `bulk_wait(n, read)` |
//! | `tcgen05.mma/cp/shift/ld/st` | `issue` + `op_access` per operand (TMEM rectangles, smem ranges); `complete` when done |
//! | `tcgen05.commit` | `commit(warp, cta_group)`; when its ops are done, `commit_fire(c, barriers)` then `sync_complete` |
//! | `tcgen05.wait::ld` / `::st` | `wait_ld` / `wait_st` |
//! | `tcgen05.fence::*`, `fence.proxy.async`, `fence.acq_rel`/`fence.sc`/`membar`, `fence.mbarrier_init` | [`RaceDetector::fence`] |
//! | a warp exits | `warp_exit` |
//!
//! ```
//! use tmemu_race::*;
//! let mut d = RaceDetector::new();
//! let (mma_warp, epilogue) = (WarpId(0), WarpId(1));
//! d.add_warp(mma_warp);
//! d.add_warp(epilogue);
//! let accum = TmemRect { cta: 0, lane: 0, lanes: 128, col: 0, cols: 128 };
//! let full = SyncKey::Mbarrier { cta: 0, offset: 0 };
//! // tcgen05.mma into the accumulator, then tcgen05.commit [full].
//! let mma = d.issue(mma_warp, OpKind::Mma { cta_group: 1, accum: 0 }, SpanToken(10));
//! d.op_access(mma, Place::Tmem(accum), AccessKind::Write);
//! let commit = d.commit(mma_warp, 1);
//! // The engine completes the mma; the commit arrives and completes the phase.
//! d.complete(mma);
//! d.commit_fire(commit, &[full]);
//! d.sync_complete(full);
//! // Epilogue warp 1: try_wait succeeds, fence::after_thread_sync, tcgen05.ld of its quarter.
//! d.wait(epilogue, full, Sem::Ordering);
//! d.fence(epilogue, Fence::TcAfterThreadSync);
//! let ld = d.issue(epilogue, OpKind::Ld, SpanToken(20));
//! d.op_access(ld, Place::Tmem(TmemRect { lane: 32, lanes: 32, ..accum }), AccessKind::Read);
//! assert!(d.findings().is_empty());
//!
//! // The MMA warp itself never observed the completion: its load races the mma.
//! let ld2 = d.issue(mma_warp, OpKind::Ld, SpanToken(30));
//! d.op_access(ld2, Place::Tmem(TmemRect { lanes: 32, ..accum }), AccessKind::Read);
//! assert_eq!(d.findings()[0].rule.id, "TM0206");
//! ```

mod access;
pub mod clock;
pub mod cross;
mod dense;
mod detector;
pub mod event;
pub mod finding;
mod planes;
mod shadow;

pub use cross::{
    cross_group_races, opcode_reach, CrossAccess, CrossRace, GlobalLog, Reach, Site, Strength,
};
pub use detector::{CommitId, OpId, RaceDetector, Stats};
pub use event::{
    AccessKind, Agent, Fence, MemOrder, MemSpace, OpKind, Place, Sem, SpanToken, SyncKey, TmemRect,
    WarpId,
};
pub use finding::{Access, Race, Region};
