//! The observer seam: the engine steps, observers watch.
//!
//! `run` uses [`NoObserver`], whose empty inlined methods compile to nothing; the checker, the
//! race detector and the tracer implement [`Observer`] and see the same execution. Per-lane
//! work (building memory events) is guarded by [`Observer::wants_memory`], so `NoObserver`
//! pays no loop for it.
//!
//! # Event protocol
//!
//! The events mirror what `tmemu_race::RaceDetector` consumes (its vocabulary types are
//! re-exported here), plus what the tracer needs (instructions, TMEM allocation changes, time).
//!
//! | PTX | events |
//! |---|---|
//! | every warp-instruction | [`Observer::instruction`] (before it executes) |
//! | `ld`/`st`/`atom`/`red` on shared or global (also through generic addresses) | [`Observer::memory`] per lane and element, with its [`MemOrder`] (only when `wants_memory()`) |
//! | `fence.proxy.async*`, `fence.{sc,acq_rel}`/`membar`, `fence.mbarrier_init`, `tcgen05.fence::*` | [`Observer::fence`] |
//! | `bar.sync`/`bar.arrive`/`barrier.cta.*` | `sync_arrive(CtaBarrier, Ordering)` per warp; `sync_complete` when the generation completes; `sync_wait` per waiting warp when it resumes (also the warp that completed it, for `.sync`) |
//! | `barrier.cluster.arrive{.relaxed}` / `.wait` | `sync_arrive(ClusterBarrier, Ordering or Relaxed)`, `sync_complete`, `sync_wait(ClusterBarrier, Ordering)` when a `wait` passes |
//! | `mbarrier.arrive*` | `sync_arrive(Mbarrier, sem)`; `sync_complete(Mbarrier)` when the phase completes |
//! | successful `mbarrier.test_wait`/`try_wait` | `sync_wait(Mbarrier, sem)` |
//! | `mbarrier.init` | [`Observer::mbar_init`] per lane, after the barrier is valid |
//! | `mbarrier.expect_tx` / `complete_tx` (a thread's) / `inval` on a valid barrier | [`Observer::mbar_use`] per lane |
//! | `cp.async.bulk*` | `async_issue(Bulk)` + `async_access` per range; `async_complete`; `async_arrive(mbarrier)` for its complete_tx (then `sync_complete` if the phase completed) |
//! | `cp.async.bulk*` with `.bulk_group` (to global, TMA store/reduce) | as above, then [`Observer::bulk_group_add`] (the copy joins the warp's open bulk async-group) |
//! | `cp.async.bulk.commit_group` / `cp.async.bulk.wait_group{.read} n` | [`Observer::bulk_group`] (`Commit` / `Wait`) |
//! | `cp.async.{ca,cg}.shared.global` (non-bulk) | only when `wants_memory()`: `async_issue(CpAsync)` + `async_access` per run of lanes (shared write, global read of the source size), `async_complete`, then [`Observer::cp_async_add`] (the copies join their threads' open cp.async-groups) |
//! | `cp.async.commit_group` / `wait_group n` / `wait_all` / `cp.async.mbarrier.arrive{.noinc}` | [`Observer::cp_async_group`] (then, for `.noinc`, the mbarrier arrive's events) |
//! | `tcgen05.mma/cp/shift/ld/st` | `async_issue` + `async_access` per operand (TMEM rectangles, smem ranges); `async_complete` when the op completes |
//! | `tcgen05.commit` | `commit(at, id, cta_group)`; when its ops are done, `commit_fire(id, barriers)`, then `sync_complete` per barrier whose phase completed |
//! | `tcgen05.wait::ld` / `::st` | [`Observer::tc_wait`] |
//! | `tcgen05.alloc` | `alloc_address_store` (the weak store of the address), `tmem_event(Alloc / Blocked / Unblocked)` |
//! | `tcgen05.dealloc` / `relinquish_alloc_permit` | `tmem_event(Dealloc / Relinquish)` |
//! | `tcgen05.alloc` / `dealloc` took effect for a CTA (its half of a `.cta_group::2` collective) | [`Observer::tmem_lifetime`] (for the race model; an alloc half woken from the rendezvous is reported when the engine releases it) |
//! | a cluster becomes resident | [`Observer::cta_begin`] once per CTA, before any of its warps runs |
//! | all lanes of a warp exited | [`Observer::warp_exit`] |
//!
//! # Identities
//!
//! - [`At::cta`] is the CTA's rank in its cluster (`%cluster_ctarank`); `MemSpace::Shared
//!   { cta }`, `TmemRect::cta`, `SyncKey::{CtaBarrier, Mbarrier}::cta` are ranks in the
//!   cluster of the event's `At` (for async ops: of the `At` given at `async_issue`; for
//!   commits: at `commit`). [`At::slot`] numbers the clusters resident in the SM group
//!   densely (reused when a cluster finishes; `cta_begin` announces the new one), so
//!   `slot * cluster_size + cta` is a small dense CTA index for shadow maps.
//! - [`AsyncId`] and [`CommitId`] are unique within one SM group (one observer).
//! - [`At::time`] is the number of warp-instructions the SM group has executed before this
//!   event: monotone within one observer. Events without an `At` carry the time explicitly.

pub use tmemu_race::{
    AccessKind, Fence, MemOrder, MemSpace, OpKind, Place, Sem, SyncKey, TmemRect,
};

/// The places of shared-memory ranges `[start, end)` (offsets in CTA `cta`'s shared memory), as
/// [`Observer::cp_async_writes`] reports them one by one.
pub fn shared_places(cta: u32, ranges: &[(u32, u32)]) -> impl Iterator<Item = Place> + '_ {
    ranges.iter().map(move |&(s, e)| Place::Mem {
        space: MemSpace::Shared { cta },
        addr: u64::from(s),
        len: u64::from(e - s),
    })
}

/// Where and when an event happened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct At {
    /// Linear index of the cluster in the grid (x fastest).
    pub cluster: u32,
    /// Dense index of the cluster among those resident in this SM group (see module docs).
    pub slot: u32,
    /// Rank of the CTA in its cluster (`%cluster_ctarank`).
    pub cta: u32,
    /// `%ctaid` of the CTA.
    pub ctaid: [u32; 3],
    /// `%smid` of the CTA's SM.
    pub sm: u32,
    /// Warp index within the CTA.
    pub warp: u32,
    pub pc: u32,
    /// Lanes that executed (after the guard).
    pub lanes: u32,
    /// Warp-instructions executed by this SM group before this event.
    pub time: u64,
}

/// An asynchronous operation (bulk copy, tcgen05.mma/cp/shift/ld/st), unique per SM group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AsyncId(pub u64);

/// A `tcgen05.commit`, unique per SM group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CommitId(pub u64);

/// Which `tcgen05.wait` form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TcWait {
    Ld,
    St,
}

/// A change of the SM's Tensor Memory allocation state, for traces and occupancy pictures.
/// `at` of [`Observer::tmem_event`] names the CTA and warp concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmemEvent {
    /// Columns `col..col+ncols` were allocated to the CTA.
    Alloc { col: u32, ncols: u32 },
    /// Columns `col..col+ncols` of the CTA were freed.
    Dealloc { col: u32, ncols: u32 },
    /// The warp blocks in `tcgen05.alloc` waiting for `ncols` free columns.
    Blocked { ncols: u32 },
    /// The blocked warp got its columns (an `Alloc` event follows).
    Unblocked,
    /// The CTA relinquished its allocation permit.
    Relinquish,
}

/// A bulk async-group boundary of the executing warp (PTX ISA §9.7.9.27.2,
/// bulk-copies.md §4). The engine completes bulk copies at issue; these events tell an
/// observer where the program *observes* that completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BulkGroup {
    /// `cp.async.bulk.commit_group`: the warp's `.bulk_group` copies since the last commit
    /// form one group (possibly empty).
    Commit,
    /// `cp.async.bulk.wait_group{.read} n`: every committed group but the `n` most recent has
    /// completed; with `read`, has only finished reading its source.
    Wait { n: u32, read: bool },
}

/// A non-bulk `cp.async` async-group boundary of the executing threads (PTX ISA
/// §9.7.9.25.3). The engine completes `cp.async` copies at issue; these events tell an observer
/// where each thread *observes* that completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpAsyncGroup {
    /// `cp.async.commit_group`: the thread's copies since its last commit form one group.
    Commit,
    /// `cp.async.wait_group n`: every committed group of the thread but the `n` most recent
    /// has completed.
    Wait { n: u32 },
    /// `cp.async.wait_all` (a commit and `wait_group 0`).
    WaitAll,
    /// `cp.async.mbarrier.arrive{.noinc}`: the arrive-on fires when all the thread's prior
    /// copies complete.
    MbarArrive,
}

/// An allocation's lifetime as the race model sees it: a `tcgen05.alloc` or `dealloc` took
/// effect for the CTA of the event's `At` (for `.cta_group::2`, that CTA's half of the
/// collective). `at.warp` and `at.pc` name the issuing warp and instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmemLifetime {
    Alloc { cta_group: u8, col: u32, ncols: u32 },
    Dealloc { cta_group: u8, col: u32, ncols: u32 },
}

pub trait Observer {
    /// Whether [`Observer::memory`] wants per-lane events (lets the engine skip building
    /// them, and keeps the fast paths of `ld`/`st`).
    #[inline(always)]
    fn wants_memory(&self) -> bool {
        false
    }

    /// Whether a weak (non-atomic) read of global bytes `[lo, hi)` may go unreported: the
    /// engine then skips building its ranges (a `cp.async`'s source rows) or, for a warp's
    /// `ld` whose lanes all read inside one buffer, asked with that buffer's bounds, the
    /// batch (the event would have been ignored too). The race observer ignores the reads of
    /// buffers the kernel never writes.
    #[inline(always)]
    fn ignores_global_read(&self, _lo: u64, _hi: u64) -> bool {
        false
    }

    /// A CTA of a newly resident cluster, before any of its `warps` warps runs (`at.warp` 0,
    /// `at.lanes` 0, `at.pc` the entry).
    #[inline(always)]
    fn cta_begin(&mut self, _at: At, _warps: u32) {}

    /// A warp-instruction is about to execute.
    #[inline(always)]
    fn instruction(&mut self, _at: At) {}

    /// One lane's access of `size` bytes at `addr` of `space` (shared offsets are offsets into
    /// the owning CTA's shared memory). Atomics are `Write`s with a strong order.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn memory(
        &mut self,
        _at: At,
        _lane: u32,
        _space: MemSpace,
        _addr: u64,
        _size: u32,
        _kind: AccessKind,
        _order: MemOrder,
    ) {
    }

    /// One warp-instruction's accesses at once: lane `l` (bit `l` of `lanes`) accessed
    /// `size` bytes at `addrs[l]` of `space`. The fast `ld`/`st` paths report this instead of
    /// per-lane [`Observer::memory`] events when [`Observer::wants_memory_lanes`]; the default
    /// forwards lane by lane.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn memory_lanes(
        &mut self,
        at: At,
        lanes: u32,
        space: MemSpace,
        addrs: &[u64; 32],
        size: u32,
        kind: AccessKind,
        order: MemOrder,
    ) {
        for l in 0..32u32 {
            if lanes >> l & 1 != 0 {
                self.memory(at, l, space, addrs[l as usize], size, kind, order);
            }
        }
    }

    /// Whether the observer takes [`Observer::memory_lanes`] batches, so that the fast
    /// `ld`/`st` paths stay enabled under it even though it [`Observer::wants_memory`].
    #[inline(always)]
    fn wants_memory_lanes(&self) -> bool {
        false
    }

    /// One vector `ld`/`st` warp-instruction (`.v2`/`.v4`/...) at once: lane `l` (bit `l` of
    /// `lanes`) accessed `elems` elements of `size` bytes each, one after another from
    /// `addrs[l]`. The warp-wide `ld`/`st` paths report this instead of per-lane
    /// [`Observer::memory`] events when [`Observer::wants_memory_lanes_vec`]; the default
    /// forwards lane by lane and element by element, in the per-lane path's order.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn memory_lanes_vec(
        &mut self,
        at: At,
        lanes: u32,
        space: MemSpace,
        addrs: &[u64; 32],
        size: u32,
        elems: u32,
        kind: AccessKind,
        order: MemOrder,
    ) {
        for l in 0..32u32 {
            if lanes >> l & 1 != 0 {
                for e in 0..elems {
                    let a = addrs[l as usize] + u64::from(e) * u64::from(size);
                    self.memory(at, l, space, a, size, kind, order);
                }
            }
        }
    }

    /// Whether the observer takes vector accesses as [`Observer::memory_lanes_vec`] batches,
    /// so that the warp-wide `ld`/`st` paths also take vectors under it.
    #[inline(always)]
    fn wants_memory_lanes_vec(&self) -> bool {
        false
    }

    #[inline(always)]
    fn fence(&mut self, _at: At, _f: Fence) {}

    /// An arrival on a barrier, the cluster barrier or an mbarrier.
    #[inline(always)]
    fn sync_arrive(&mut self, _at: At, _key: SyncKey, _sem: Sem) {}

    /// The barrier generation or mbarrier phase `key` completed. `at` is the event that
    /// completed it: the arriving warp, or for an asynchronous arrival (complete_tx, commit)
    /// the issuer's `At` with `time` set to now.
    #[inline(always)]
    fn sync_complete(&mut self, _at: At, _key: SyncKey) {}

    /// A wait observed a completion (a warp resumes after `bar.sync`/`barrier.cluster.wait`, a
    /// `test_wait`/`try_wait` returned true).
    #[inline(always)]
    fn sync_wait(&mut self, _at: At, _key: SyncKey, _sem: Sem) {}

    /// `mbarrier.init` made the mbarrier `key` valid: every later operation on it must be
    /// ordered after this (the race model's TM0214).
    #[inline(always)]
    fn mbar_init(&mut self, _at: At, _key: SyncKey) {}

    /// An operation on the valid mbarrier `key` that no other event reports (`expect_tx`, a
    /// thread's `complete_tx`, `inval`).
    #[inline(always)]
    fn mbar_use(&mut self, _at: At, _key: SyncKey) {}

    /// An asynchronous operation was issued; its accesses follow as `async_access`.
    #[inline(always)]
    fn async_issue(&mut self, _at: At, _id: AsyncId, _kind: OpKind) {}

    /// A place the op reads or writes at some moment until it completes.
    #[inline(always)]
    fn async_access(&mut self, _id: AsyncId, _place: Place, _kind: AccessKind) {}

    /// The shared-memory ranges `[start, end)` (offsets in CTA `cta`'s shared memory) that a
    /// warp's non-bulk `cp.async` op writes: one `async_access` write per range, unless the
    /// observer takes them at once (a warp's copy is one to four ranges, and a per-range
    /// call was ~85 host instructions of the race observer's ~1 400 per copy).
    #[inline(always)]
    fn cp_async_writes(&mut self, id: AsyncId, cta: u32, ranges: &[(u32, u32)]) {
        for place in shared_places(cta, ranges) {
            self.async_access(id, place, AccessKind::Write);
        }
    }

    /// The op completed (its effects are visible in the engine's memories from now on).
    #[inline(always)]
    fn async_complete(&mut self, _id: AsyncId, _time: u64) {}

    /// The completed op performed complete_tx on the mbarrier `key` (a bulk copy).
    #[inline(always)]
    fn async_arrive(&mut self, _id: AsyncId, _key: SyncKey) {}

    /// A warp observed the op's completion without an mbarrier.
    #[inline(always)]
    fn async_observe(&mut self, _at: At, _id: AsyncId) {}

    /// The `.bulk_group` copy `id` (issued by the warp of `at`) joined the warp's open bulk
    /// async-group; its completion is observed at a later `cp.async.bulk.wait_group`.
    #[inline(always)]
    fn bulk_group_add(&mut self, _at: At, _id: AsyncId) {}

    /// `cp.async.bulk.commit_group` / `wait_group{.read}` by the warp of `at`.
    #[inline(always)]
    fn bulk_group(&mut self, _at: At, _ev: BulkGroup) {}

    /// The non-bulk `cp.async` `id` (the copies of the lanes of `at`) joined each issuing
    /// thread's open cp.async-group.
    #[inline(always)]
    fn cp_async_add(&mut self, _at: At, _id: AsyncId) {}

    /// A cp.async-group boundary by the threads of `at` (see [`CpAsyncGroup`]).
    #[inline(always)]
    fn cp_async_group(&mut self, _at: At, _ev: CpAsyncGroup) {}

    /// `tcgen05.commit`: tracks the warp's earlier incomplete mma/cp/shift of `cta_group`.
    #[inline(always)]
    fn commit(&mut self, _at: At, _id: CommitId, _cta_group: u8) {}

    /// The commit's ops are done: it arrives (arrive::one, release at cluster scope) on `keys`.
    #[inline(always)]
    fn commit_fire(&mut self, _id: CommitId, _keys: &[SyncKey], _time: u64) {}

    /// `tcgen05.wait::ld` / `wait::st` passed (every earlier ld/st of the warp completed).
    #[inline(always)]
    fn tc_wait(&mut self, _at: At, _which: TcWait) {}

    /// The weak shared-memory store of the TMEM address by `tcgen05.alloc`.
    #[inline(always)]
    fn alloc_address_store(&mut self, _at: At, _space: MemSpace, _addr: u64) {}

    #[inline(always)]
    fn tmem_event(&mut self, _at: At, _ev: TmemEvent) {}

    /// An alloc or dealloc half took effect (see [`TmemLifetime`]).
    #[inline(always)]
    fn tmem_lifetime(&mut self, _at: At, _ev: TmemLifetime) {}

    /// Every lane of the warp has exited.
    #[inline(always)]
    fn warp_exit(&mut self, _at: At) {}

    /// The SM group ran its last cluster: no event follows (the observer is kept for its
    /// results). An observer may free its working state here, for the thread's next group.
    #[inline(always)]
    fn group_end(&mut self) {}
}

/// The observer of `run`: watches nothing, costs nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl Observer for NoObserver {}
