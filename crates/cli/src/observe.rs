//! The observer `tmemu run` attaches: counts warp-instructions for the progress bar and, with
//! `--trace` / `--tmem-map`, records the run into a `tmemu_trace::Recorder`.
//!
//! One observer per SM group (the engine's unit of parallel work); their recorders are merged
//! in group order afterwards, so the trace is the same for any `--threads`. Times are the SM
//! group's own warp-instruction count (`At::time`), which the trace shows as microseconds.
//!
//! What becomes what:
//! - `cta_begin` / `warp_exit`: CTA residency and warp lifetime tracks (the CTA retires when
//!   its last warp exits);
//! - a barrier (`bar.sync`, `barrier.cluster.wait`) arrival followed by the warp's resumption:
//!   a blocking span from arrival to resumption (a warp that did not wait draws nothing);
//! - `mbarrier.try_wait` / `test_wait`: a blocking span from the warp's first attempt to the
//!   attempt that saw the phase complete;
//! - `tcgen05.alloc` blocked → unblocked: an allocation wait span; TMEM `Alloc` / `Dealloc`:
//!   the allocation's lifetime (the SVG's rectangles);
//! - async ops (tcgen05.mma/cp/shift/ld/st, bulk copies): issue → completion on the CTA's
//!   tensor-pipe or TMA track;
//! - a completed mbarrier phase: an instant plus a per-barrier counter (the phase number).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use tmemu_check::dynamic::RaceObserver;
use tmemu_sim::observer::{
    AccessKind, AsyncId, At, CommitId, Fence, MemOrder, MemSpace, Observer, OpKind, Place, Sem,
    SyncKey, TcWait, TmemEvent,
};
use tmemu_sim::Kernel;
use tmemu_trace::{
    AsyncOp, Blocked, Cta, CtaHandle, OpHandle, Pipe, Recorder, SpanHandle, Warp, WarpHandle,
};

/// Warp-instructions counted locally before they are added to the shared counter.
const PROGRESS_BATCH: u64 = 1 << 14;

/// The observer of one SM group: progress count, optional trace recorder, optional race
/// detector (`tmemu_check`'s, fed every event first).
pub struct RunObserver<'a> {
    progress: Option<&'a AtomicU64>,
    pending: u64,
    /// `%ctaid` → SM of every CTA that became resident (for the findings' context).
    cta_sms: Vec<([u32; 3], u32)>,
    trace: Option<TraceRecorder<'a>>,
    race: Option<RaceObserver<'a>>,
}

impl<'a> RunObserver<'a> {
    pub fn new(
        progress: Option<&'a AtomicU64>,
        trace: Option<TraceRecorder<'a>>,
        race: Option<RaceObserver<'a>>,
    ) -> Self {
        RunObserver {
            progress,
            pending: 0,
            cta_sms: Vec::new(),
            trace,
            race,
        }
    }

    /// The recorder (closed at the group's last step), the races found, and where each CTA
    /// ran.
    pub fn into_parts(mut self) -> ObservedParts<'a> {
        (
            self.trace.take().map(TraceRecorder::finish),
            self.race.take(),
            std::mem::take(&mut self.cta_sms),
        )
    }
}

/// What one group's observer leaves: its trace recorder, the races found, `%ctaid` → SM.
/// The observer of a plain run: only where each CTA became resident (for the findings'
/// context). It takes no per-instruction event, so the engine's hot loop stays as fast as
/// with `NoObserver`.
#[derive(Default)]
pub struct PlacementObserver {
    pub cta_sms: Vec<([u32; 3], u32)>,
}

impl Observer for PlacementObserver {
    fn cta_begin(&mut self, at: At, _warps: u32) {
        self.cta_sms.push((at.ctaid, at.sm));
    }
}

/// The race observer is handed back whole: the groups' global-memory logs are compared with
/// each other after the launch (`tmemu_check::dynamic::launch_findings`).
pub type ObservedParts<'a> = (
    Option<Recorder>,
    Option<RaceObserver<'a>>,
    Vec<([u32; 3], u32)>,
);

/// Which PCs are mbarrier waits (`try_wait` / `test_wait`), from the kernel's opcode text.
pub fn mbarrier_wait_pcs(k: &Kernel) -> Vec<bool> {
    k.info
        .iter()
        .map(|i| {
            let op = k
                .source
                .get(i.opcode.start as usize..i.opcode.end as usize)
                .unwrap_or("");
            op.starts_with("mbarrier.try_wait") || op.starts_with("mbarrier.test_wait")
        })
        .collect()
}

/// Identity of a resident CTA within one SM group: (slot, rank in cluster).
type CtaKey = (u32, u32);
/// A warp of a resident CTA.
type WarpKey = (u32, u32, u32);

struct CtaState {
    cta: Cta,
    handle: CtaHandle,
    warps: Vec<Option<WarpHandle>>,
    live: u32,
}

/// Records one SM group's run.
pub struct TraceRecorder<'a> {
    rec: Recorder,
    grid: [u32; 3],
    mbar_wait_pc: &'a [bool],
    ctas: HashMap<CtaKey, CtaState>,
    /// A barrier arrival not yet followed by the warp's resumption.
    arrivals: HashMap<WarpKey, (SyncKey, u64)>,
    /// First failed mbarrier wait of a warp still spinning.
    spinning: HashMap<WarpKey, u64>,
    alloc_waits: HashMap<WarpKey, SpanHandle>,
    ops: HashMap<AsyncId, OpHandle>,
    /// cp.async copies issued and not yet added to their thread's group.
    cp_issued: HashMap<AsyncId, OpHandle>,
    /// Per warp: cp.async copies since the last commit, then committed groups (oldest first);
    /// a copy's span ends at the wait that observes it.
    cp_groups: HashMap<WarpKey, (Vec<OpHandle>, std::collections::VecDeque<Vec<OpHandle>>)>,
    /// Completed phases per mbarrier (slot, rank, offset).
    phases: HashMap<(u32, u32, u32), u32>,
    now: u64,
}

impl<'a> TraceRecorder<'a> {
    pub fn new(grid: [u32; 3], mbar_wait_pc: &'a [bool], limit: usize) -> Self {
        TraceRecorder {
            rec: Recorder::with_limit(limit),
            grid,
            mbar_wait_pc,
            ctas: HashMap::new(),
            arrivals: HashMap::new(),
            spinning: HashMap::new(),
            alloc_waits: HashMap::new(),
            ops: HashMap::new(),
            cp_issued: HashMap::new(),
            cp_groups: HashMap::new(),
            phases: HashMap::new(),
            now: 0,
        }
    }

    fn finish(mut self) -> Recorder {
        self.rec.finish(self.now);
        self.rec
    }

    fn tick(&mut self, t: u64) -> u64 {
        self.now = self.now.max(t);
        t
    }

    fn linear(&self, ctaid: [u32; 3]) -> u32 {
        ctaid[0] + self.grid[0] * (ctaid[1] + self.grid[1] * ctaid[2])
    }

    fn warp_of(&self, at: &At) -> Warp {
        Warp {
            sm: at.sm,
            cta: self.linear(at.ctaid),
            warp: at.warp,
        }
    }

    /// The CTA of rank `rank` in the cluster of `at` (for barriers owned by another CTA).
    fn cta_of_rank(&self, at: &At, rank: u32) -> Cta {
        self.ctas
            .get(&(at.slot, rank))
            .map(|c| c.cta)
            .unwrap_or(Cta {
                sm: at.sm,
                cta: self.linear(at.ctaid),
            })
    }
}

impl Observer for RunObserver<'_> {
    /// The trace wants it too: the engine reports `cp.async` copies (async_issue) only to an
    /// observer that wants memory events; without the race detector they come in warp
    /// batches (`wants_memory_lanes`) and are dropped.
    fn wants_memory(&self) -> bool {
        self.race.is_some() || self.trace.is_some()
    }

    fn ignores_global_read(&self, lo: u64, hi: u64) -> bool {
        // the trace records every access
        self.trace.is_none()
            && self
                .race
                .as_ref()
                .is_some_and(|r| r.ignores_global_read(lo, hi))
    }

    fn memory(
        &mut self,
        at: At,
        lane: u32,
        space: MemSpace,
        addr: u64,
        size: u32,
        kind: AccessKind,
        order: MemOrder,
    ) {
        if let Some(r) = &mut self.race {
            r.memory(at, lane, space, addr, size, kind, order);
        }
    }

    /// Forwarded, so that `run --races` keeps the engine's warp-wide `ld`/`st` fast paths and
    /// the detector gets one batch per warp-instruction instead of 32 lane events.
    fn wants_memory_lanes(&self) -> bool {
        self.race.as_ref().is_none_or(|r| r.wants_memory_lanes())
    }

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
        if let Some(r) = &mut self.race {
            r.memory_lanes(at, lanes, space, addrs, size, kind, order);
        }
    }

    /// Forwarded like `memory_lanes`: vector `ld`/`st` stay on the warp-wide paths too.
    fn wants_memory_lanes_vec(&self) -> bool {
        self.race
            .as_ref()
            .is_none_or(|r| r.wants_memory_lanes_vec())
    }

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
        if let Some(r) = &mut self.race {
            r.memory_lanes_vec(at, lanes, space, addrs, size, elems, kind, order);
        }
    }

    fn fence(&mut self, at: At, f: Fence) {
        if let Some(r) = &mut self.race {
            r.fence(at, f);
        }
    }

    fn async_access(&mut self, id: AsyncId, place: Place, kind: AccessKind) {
        if let Some(r) = &mut self.race {
            r.async_access(id, place, kind);
        }
    }

    fn async_arrive(&mut self, id: AsyncId, key: SyncKey) {
        if let Some(r) = &mut self.race {
            r.async_arrive(id, key);
        }
    }

    fn async_observe(&mut self, at: At, id: AsyncId) {
        if let Some(r) = &mut self.race {
            r.async_observe(at, id);
        }
    }

    fn bulk_group_add(&mut self, at: At, id: AsyncId) {
        if let Some(r) = &mut self.race {
            r.bulk_group_add(at, id);
        }
    }

    fn bulk_group(&mut self, at: At, ev: tmemu_sim::observer::BulkGroup) {
        if let Some(r) = &mut self.race {
            r.bulk_group(at, ev);
        }
    }

    fn cp_async_add(&mut self, at: At, id: AsyncId) {
        if let Some(r) = &mut self.race {
            r.cp_async_add(at, id);
        }
        let Some(t) = &mut self.trace else { return };
        if let Some(h) = t.cp_issued.remove(&id) {
            let wk = (at.slot, at.cta, at.warp);
            t.cp_groups.entry(wk).or_default().0.push(h);
        }
    }

    fn cp_async_group(&mut self, at: At, ev: tmemu_sim::observer::CpAsyncGroup) {
        use tmemu_sim::observer::CpAsyncGroup as G;
        if let Some(r) = &mut self.race {
            r.cp_async_group(at, ev);
        }
        let Some(t) = &mut self.trace else { return };
        let step = t.tick(at.time);
        let wk = (at.slot, at.cta, at.warp);
        let Some((open, committed)) = t.cp_groups.get_mut(&wk) else {
            return;
        };
        // which of the warp's copies this event observes
        let keep = match ev {
            G::Commit => {
                committed.push_back(std::mem::take(open));
                return;
            }
            G::Wait { n } => n as usize,
            G::WaitAll | G::MbarArrive => {
                committed.push_back(std::mem::take(open));
                0
            }
        };
        while committed.len() > keep {
            for h in committed.pop_front().unwrap_or_default() {
                t.rec.async_complete(step, h);
            }
        }
    }

    fn tmem_lifetime(&mut self, at: At, ev: tmemu_sim::observer::TmemLifetime) {
        if let Some(r) = &mut self.race {
            r.tmem_lifetime(at, ev);
        }
    }

    fn commit(&mut self, at: At, id: CommitId, cta_group: u8) {
        if let Some(r) = &mut self.race {
            r.commit(at, id, cta_group);
        }
    }

    fn commit_fire(&mut self, id: CommitId, keys: &[SyncKey], time: u64) {
        if let Some(r) = &mut self.race {
            r.commit_fire(id, keys, time);
        }
    }

    fn tc_wait(&mut self, at: At, which: TcWait) {
        if let Some(r) = &mut self.race {
            r.tc_wait(at, which);
        }
    }

    fn alloc_address_store(&mut self, at: At, space: MemSpace, addr: u64) {
        if let Some(r) = &mut self.race {
            r.alloc_address_store(at, space, addr);
        }
    }

    #[inline]
    fn instruction(&mut self, at: At) {
        if let Some(r) = &mut self.race {
            r.instruction(at);
        }
        if let Some(p) = self.progress {
            self.pending += 1;
            if self.pending >= PROGRESS_BATCH {
                p.fetch_add(self.pending, Ordering::Relaxed);
                self.pending = 0;
            }
        }
        if let Some(t) = &mut self.trace {
            t.tick(at.time);
            if t.mbar_wait_pc.get(at.pc as usize).copied().unwrap_or(false) {
                t.spinning
                    .entry((at.slot, at.cta, at.warp))
                    .or_insert(at.time);
            }
        }
    }

    fn cta_begin(&mut self, at: At, warps: u32) {
        if let Some(r) = &mut self.race {
            r.cta_begin(at, warps);
        }
        self.cta_sms.push((at.ctaid, at.sm));
        let Some(t) = &mut self.trace else { return };
        let step = t.tick(at.time);
        let cta = Cta {
            sm: at.sm,
            cta: t.linear(at.ctaid),
        };
        let handle = t.rec.cta_launch(step, cta, at.ctaid);
        let handles = (0..warps)
            .map(|w| Some(t.rec.warp_launch(step, cta.warp(w))))
            .collect();
        t.ctas.insert(
            (at.slot, at.cta),
            CtaState {
                cta,
                handle,
                warps: handles,
                live: warps,
            },
        );
    }

    fn warp_exit(&mut self, at: At) {
        if let Some(r) = &mut self.race {
            r.warp_exit(at);
        }
        let Some(t) = &mut self.trace else { return };
        let step = t.tick(at.time);
        let Some(c) = t.ctas.get_mut(&(at.slot, at.cta)) else {
            return;
        };
        if let Some(h) = c.warps.get_mut(at.warp as usize).and_then(Option::take) {
            t.rec.warp_exit(step, h);
            c.live = c.live.saturating_sub(1);
            if c.live == 0 {
                t.rec.cta_retire(step, c.handle);
            }
        }
    }

    fn sync_arrive(&mut self, at: At, key: SyncKey, sem: Sem) {
        if let Some(r) = &mut self.race {
            r.sync_arrive(at, key, sem);
        }
        let Some(t) = &mut self.trace else { return };
        let step = t.tick(at.time);
        if matches!(key, SyncKey::CtaBarrier { .. } | SyncKey::ClusterBarrier) {
            t.arrivals.insert((at.slot, at.cta, at.warp), (key, step));
        }
    }

    fn sync_complete(&mut self, at: At, key: SyncKey) {
        if let Some(r) = &mut self.race {
            r.sync_complete(at, key);
        }
        let Some(t) = &mut self.trace else { return };
        let step = t.tick(at.time);
        if let SyncKey::Mbarrier { cta, offset } = key {
            let n = t.phases.entry((at.slot, cta, offset)).or_insert(0);
            *n += 1;
            let phase = *n;
            let owner = t.cta_of_rank(&at, cta);
            t.rec.mbarrier_phase(step, owner, offset, phase);
        }
    }

    fn mbar_init(&mut self, at: At, key: SyncKey) {
        if let Some(r) = &mut self.race {
            r.mbar_init(at, key);
        }
    }

    fn mbar_use(&mut self, at: At, key: SyncKey) {
        if let Some(r) = &mut self.race {
            r.mbar_use(at, key);
        }
    }

    fn sync_wait(&mut self, at: At, key: SyncKey, sem: Sem) {
        if let Some(r) = &mut self.race {
            r.sync_wait(at, key, sem);
        }
        let Some(t) = &mut self.trace else { return };
        let step = t.tick(at.time);
        let wk = (at.slot, at.cta, at.warp);
        let warp = t.warp_of(&at);
        match key {
            SyncKey::CtaBarrier { id, .. } => {
                if let Some((k, begin)) = t.arrivals.remove(&wk) {
                    if k == key && step > begin {
                        let h = t.rec.span_begin(begin, warp, Blocked::Barrier { id });
                        t.rec.span_end(step, h);
                    }
                }
            }
            SyncKey::ClusterBarrier => {
                if let Some((k, begin)) = t.arrivals.remove(&wk) {
                    if k == key && step > begin {
                        let h = t.rec.span_begin(begin, warp, Blocked::ClusterBarrier);
                        t.rec.span_end(step, h);
                    }
                }
            }
            SyncKey::Mbarrier { cta, offset } => {
                if let Some(begin) = t.spinning.remove(&wk) {
                    if step > begin {
                        let done = t.phases.get(&(at.slot, cta, offset)).copied().unwrap_or(1);
                        let parity = done.wrapping_sub(1) & 1;
                        let h = t.rec.span_begin(
                            begin,
                            warp,
                            Blocked::Mbarrier {
                                addr: offset,
                                parity,
                            },
                        );
                        t.rec.span_end(step, h);
                    }
                }
            }
        }
    }

    fn async_issue(&mut self, at: At, id: AsyncId, kind: OpKind) {
        if let Some(r) = &mut self.race {
            r.async_issue(at, id, kind);
        }
        let Some(t) = &mut self.trace else { return };
        let step = t.tick(at.time);
        let (pipe, name, cta_group) = match kind {
            OpKind::Mma { cta_group, .. } => (Pipe::TensorCore, "tcgen05.mma", cta_group),
            OpKind::Cp { cta_group, .. } => (Pipe::TensorCore, "tcgen05.cp", cta_group),
            OpKind::Shift { cta_group } => (Pipe::TensorCore, "tcgen05.shift", cta_group),
            OpKind::Ld => (Pipe::TensorCore, "tcgen05.ld", 0),
            OpKind::St => (Pipe::TensorCore, "tcgen05.st", 0),
            OpKind::Bulk => (Pipe::Tma, "cp.async.bulk", 0),
            OpKind::CpAsync => (Pipe::CpAsync, "cp.async", 0),
        };
        let cta = Cta {
            sm: at.sm,
            cta: t.linear(at.ctaid),
        };
        let op = AsyncOp {
            cta_group,
            ..AsyncOp::new(name)
        };
        let h = t.rec.async_issue(step, cta, pipe, op);
        if pipe == Pipe::CpAsync {
            // the engine completes it at issue; the program observes it at a group wait
            t.cp_issued.insert(id, h);
        } else {
            t.ops.insert(id, h);
        }
    }

    fn async_complete(&mut self, id: AsyncId, time: u64) {
        if let Some(r) = &mut self.race {
            r.async_complete(id, time);
        }
        let Some(t) = &mut self.trace else { return };
        let step = t.tick(time);
        if let Some(h) = t.ops.remove(&id) {
            t.rec.async_complete(step, h);
        }
    }

    fn tmem_event(&mut self, at: At, ev: TmemEvent) {
        if let Some(r) = &mut self.race {
            r.tmem_event(at, ev);
        }
        let Some(t) = &mut self.trace else { return };
        let step = t.tick(at.time);
        let warp = t.warp_of(&at);
        let wk = (at.slot, at.cta, at.warp);
        match ev {
            TmemEvent::Alloc { col, ncols } => {
                t.rec.tmem_alloc(step, at.sm, warp.cta, col, ncols, None);
            }
            TmemEvent::Dealloc { col, .. } => {
                t.rec.tmem_dealloc(step, at.sm, col);
            }
            TmemEvent::Blocked { ncols } => {
                let h = t.rec.tmem_wait_begin(step, warp, ncols);
                t.alloc_waits.insert(wk, h);
            }
            TmemEvent::Unblocked => {
                if let Some(h) = t.alloc_waits.remove(&wk) {
                    t.rec.span_end(step, h);
                }
            }
            TmemEvent::Relinquish => {}
        }
    }
}

impl Drop for RunObserver<'_> {
    fn drop(&mut self) {
        if let (Some(p), n) = (self.progress, self.pending) {
            p.fetch_add(n, Ordering::Relaxed);
        }
    }
}
