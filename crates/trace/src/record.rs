//! The recording model: what happened, on which track, at which emulated step.
//!
//! Every time in this crate is a [`Step`]: the engine's global step counter, not wall time.
//! Recording only appends fixed-size records to `Vec`s (no string formatting, no maps); the
//! writers do all naming and sorting afterwards. The total number of records is capped
//! ([`Recorder::with_limit`]); once the cap is reached new records are dropped and counted,
//! while closing records that already exist (span ends, op completions, deallocations) still
//! works, so every emitted begin keeps its end.

/// The engine's global step counter. Traces are in emulated steps, not wall time.
pub type Step = u64;

/// Columns of one SM's Tensor Memory (128 lanes x 512 columns x 32 bit).
pub const TMEM_COLUMNS: u32 = 512;

/// A CTA and the SM it is resident on. `cta` is the CTA's linear index in the grid.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cta {
    pub sm: u32,
    pub cta: u32,
}

/// A warp of a CTA (`warp` is the warp index within its CTA).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Warp {
    pub sm: u32,
    pub cta: u32,
    pub warp: u32,
}

impl Warp {
    pub fn cta(self) -> Cta {
        Cta {
            sm: self.sm,
            cta: self.cta,
        }
    }
}

impl Cta {
    pub fn warp(self, warp: u32) -> Warp {
        Warp {
            sm: self.sm,
            cta: self.cta,
            warp,
        }
    }
}

/// Why a warp is blocked; one kind per blocking operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Blocked {
    /// `bar.sync` / `barrier.cta.sync` on a named barrier.
    Barrier { id: u32 },
    /// `barrier.cluster.wait`.
    ClusterBarrier,
    /// `mbarrier.try_wait` / `test_wait` spinning on the phase with this parity.
    Mbarrier { addr: u32, parity: u32 },
    /// `tcgen05.alloc` waiting for `cols` free columns of the SM.
    TmemAlloc { cols: u32 },
}

/// The asynchronous engine an operation runs on; each CTA has one track per pipe.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pipe {
    /// The tensor-core pipe: `tcgen05.mma`, `.cp`, `.shift`.
    TensorCore,
    /// The TMA / bulk-copy engine: `cp.async.bulk{.tensor}`, bulk stores, prefetches.
    Tma,
    /// Non-bulk `cp.async` copies (global -> shared, per thread), from issue to the
    /// `cp.async.wait_group`/`wait_all`/`cp.async.mbarrier.arrive` that observes them.
    CpAsync,
}

impl Pipe {
    pub fn label(self) -> &'static str {
        match self {
            Pipe::TensorCore => "tensor pipe",
            Pipe::Tma => "TMA",
            Pipe::CpAsync => "cp.async",
        }
    }
}

/// The shape of an asynchronous operation, as the engine decoded it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum OpShape {
    #[default]
    None,
    /// M x N x K of an MMA.
    Mnk([u32; 3]),
    /// A named shape such as `128x256b` (tcgen05.cp) or `32x32b` (ld/st).
    Named(&'static str),
}

/// Arguments of an asynchronous operation. Only `Copy` data so issuing costs one push.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct AsyncOp {
    /// The instruction, e.g. `tcgen05.mma` or `cp.async.bulk.tensor.2d`.
    pub name: &'static str,
    /// The operation kind, e.g. `f16`, `tf32`, `mxf8f6f4`; empty when none.
    pub kind: &'static str,
    pub shape: OpShape,
    /// `cta_group` (1 or 2); 0 when not applicable.
    pub cta_group: u8,
    pub bytes: Option<u64>,
    /// Source address (shared, global or TMEM address as the instruction names it).
    pub src: Option<u64>,
    /// Destination address.
    pub dst: Option<u64>,
}

impl AsyncOp {
    pub fn new(name: &'static str) -> Self {
        AsyncOp {
            name,
            ..AsyncOp::default()
        }
    }
}

/// Handle of a CTA residency track (from [`Recorder::cta_launch`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CtaHandle(u32);
/// Handle of a warp lifetime (from [`Recorder::warp_launch`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WarpHandle(u32);
/// Handle of a blocking span (from [`Recorder::span_begin`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SpanHandle(u32);
/// Handle of an asynchronous operation (from [`Recorder::async_issue`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OpHandle(u32);

/// Index meaning "this record was dropped by the cap"; ending it is a no-op.
const DROPPED: u32 = u32::MAX;

macro_rules! handle_dropped {
    ($($t:ident),*) => {$(
        impl $t {
            /// Whether the record was dropped because the trace reached its cap.
            pub fn is_dropped(self) -> bool {
                self.0 == DROPPED
            }
        }
    )*};
}
handle_dropped!(CtaHandle, WarpHandle, SpanHandle, OpHandle);

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CtaRecord {
    pub cta: Cta,
    /// `%ctaid` (x, y, z).
    pub ctaid: [u32; 3],
    pub begin: Step,
    pub end: Option<Step>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpRecord {
    pub warp: Warp,
    pub begin: Step,
    pub end: Option<Step>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpanRecord {
    pub warp: Warp,
    pub what: Blocked,
    pub begin: Step,
    /// `None`: still blocked when the run ended (a hang or a deadlock).
    pub end: Option<Step>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpRecord {
    pub cta: Cta,
    pub pipe: Pipe,
    pub op: AsyncOp,
    pub issue: Step,
    /// `None`: never completed before the run ended.
    pub complete: Option<Step>,
}

/// An mbarrier completed a phase; `phase` is the number of the phase now current
/// (0 after `init`, 1 after the first completion, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhaseRecord {
    pub cta: Cta,
    /// Shared-memory address of the mbarrier object.
    pub addr: u32,
    pub phase: u32,
    pub step: Step,
}

/// One TMEM allocation of `cols` columns from `col` on SM `sm`, owned by `cta`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllocRecord {
    pub sm: u32,
    pub cta: u32,
    pub col: u32,
    pub cols: u32,
    pub begin: Step,
    /// `None`: never deallocated (leaked at the end of the run).
    pub end: Option<Step>,
    /// Where the allocation came from, e.g. `gemm.ptx:57`.
    pub origin: Option<Box<str>>,
}

/// Everything recorded for one run. Build it with the `record` methods, close it with
/// [`Recorder::finish`], then hand it to [`crate::write_chrome_trace`] or
/// [`crate::write_tmem_map`].
#[derive(Clone, Debug)]
pub struct Recorder {
    limit: usize,
    len: usize,
    dropped: u64,
    truncated_at: Option<Step>,
    last: Step,
    finished: Option<Step>,
    pub(crate) ctas: Vec<CtaRecord>,
    pub(crate) warps: Vec<WarpRecord>,
    pub(crate) spans: Vec<SpanRecord>,
    pub(crate) ops: Vec<OpRecord>,
    pub(crate) phases: Vec<PhaseRecord>,
    pub(crate) allocs: Vec<AllocRecord>,
    /// Indices into `allocs` not yet deallocated (few: at most 16 per SM).
    live_allocs: Vec<u32>,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder::with_limit(Recorder::DEFAULT_LIMIT)
    }
}

impl Recorder {
    /// Default cap on the number of records (about 64 MiB of records at most).
    pub const DEFAULT_LIMIT: usize = 1 << 20;

    pub fn new() -> Self {
        Recorder::default()
    }

    /// A recorder that keeps at most `limit` records (all kinds together).
    pub fn with_limit(limit: usize) -> Self {
        Recorder {
            limit: limit.min(DROPPED as usize),
            len: 0,
            dropped: 0,
            truncated_at: None,
            last: 0,
            finished: None,
            ctas: Vec::new(),
            warps: Vec::new(),
            spans: Vec::new(),
            ops: Vec::new(),
            phases: Vec::new(),
            allocs: Vec::new(),
            live_allocs: Vec::new(),
        }
    }

    /// Counts one new record; false when the cap is reached (the record is dropped).
    #[inline]
    fn admit(&mut self, step: Step) -> bool {
        self.last = self.last.max(step);
        if self.len < self.limit {
            self.len += 1;
            true
        } else {
            self.dropped += 1;
            self.truncated_at.get_or_insert(step);
            false
        }
    }

    #[inline]
    fn touch(&mut self, step: Step) {
        self.last = self.last.max(step);
    }

    /// A CTA becomes resident on its SM.
    pub fn cta_launch(&mut self, step: Step, cta: Cta, ctaid: [u32; 3]) -> CtaHandle {
        if !self.admit(step) {
            return CtaHandle(DROPPED);
        }
        self.ctas.push(CtaRecord {
            cta,
            ctaid,
            begin: step,
            end: None,
        });
        CtaHandle(self.ctas.len() as u32 - 1)
    }

    /// The CTA retired (all its threads exited).
    pub fn cta_retire(&mut self, step: Step, h: CtaHandle) {
        self.touch(step);
        if let Some(r) = self.ctas.get_mut(h.0 as usize) {
            r.end.get_or_insert(step.max(r.begin));
        }
    }

    pub fn warp_launch(&mut self, step: Step, warp: Warp) -> WarpHandle {
        if !self.admit(step) {
            return WarpHandle(DROPPED);
        }
        self.warps.push(WarpRecord {
            warp,
            begin: step,
            end: None,
        });
        WarpHandle(self.warps.len() as u32 - 1)
    }

    pub fn warp_exit(&mut self, step: Step, h: WarpHandle) {
        self.touch(step);
        if let Some(r) = self.warps.get_mut(h.0 as usize) {
            r.end.get_or_insert(step.max(r.begin));
        }
    }

    /// The warp starts waiting on `what`. Record it when the wait first fails, not for a
    /// wait that succeeds at once.
    pub fn span_begin(&mut self, step: Step, warp: Warp, what: Blocked) -> SpanHandle {
        if !self.admit(step) {
            return SpanHandle(DROPPED);
        }
        self.spans.push(SpanRecord {
            warp,
            what,
            begin: step,
            end: None,
        });
        SpanHandle(self.spans.len() as u32 - 1)
    }

    /// The wait ended (the warp can run again).
    pub fn span_end(&mut self, step: Step, h: SpanHandle) {
        self.touch(step);
        if let Some(r) = self.spans.get_mut(h.0 as usize) {
            r.end.get_or_insert(step.max(r.begin));
        }
    }

    /// An asynchronous operation was issued to `pipe` of `cta`.
    pub fn async_issue(&mut self, step: Step, cta: Cta, pipe: Pipe, op: AsyncOp) -> OpHandle {
        if !self.admit(step) {
            return OpHandle(DROPPED);
        }
        self.ops.push(OpRecord {
            cta,
            pipe,
            op,
            issue: step,
            complete: None,
        });
        OpHandle(self.ops.len() as u32 - 1)
    }

    /// The operation completed (its results are visible; its mbarrier arrive happened).
    pub fn async_complete(&mut self, step: Step, h: OpHandle) {
        self.touch(step);
        if let Some(r) = self.ops.get_mut(h.0 as usize) {
            r.complete.get_or_insert(step.max(r.issue));
        }
    }

    /// The mbarrier at shared address `addr` of `cta` is now in phase `phase`.
    pub fn mbarrier_phase(&mut self, step: Step, cta: Cta, addr: u32, phase: u32) {
        if self.admit(step) {
            self.phases.push(PhaseRecord {
                cta,
                addr,
                phase,
                step,
            });
        }
    }

    /// `cta` was granted columns `col .. col + cols` of SM `sm`'s TMEM. For `cta_group::2`
    /// record one allocation per SM of the pair.
    pub fn tmem_alloc(
        &mut self,
        step: Step,
        sm: u32,
        cta: u32,
        col: u32,
        cols: u32,
        origin: Option<&str>,
    ) {
        if !self.admit(step) {
            return;
        }
        self.live_allocs.push(self.allocs.len() as u32);
        self.allocs.push(AllocRecord {
            sm,
            cta,
            col,
            cols,
            begin: step,
            end: None,
            origin: origin.map(Box::from),
        });
    }

    /// Columns from `col` of SM `sm` were deallocated. Returns false when no live recorded
    /// allocation starts there (it was dropped by the cap, or the program freed columns it
    /// did not hold; the checker reports the latter, the trace only draws what it saw).
    pub fn tmem_dealloc(&mut self, step: Step, sm: u32, col: u32) -> bool {
        self.touch(step);
        let allocs = &self.allocs;
        let found = self.live_allocs.iter().rposition(|&i| {
            let a = &allocs[i as usize];
            a.sm == sm && a.col == col
        });
        match found {
            Some(pos) => {
                let i = self.live_allocs.swap_remove(pos) as usize;
                let a = &mut self.allocs[i];
                a.end = Some(step.max(a.begin));
                true
            }
            None => false,
        }
    }

    /// `warp` blocks in `tcgen05.alloc` waiting for `cols` columns. End it with
    /// [`Recorder::span_end`] when the allocation is granted.
    pub fn tmem_wait_begin(&mut self, step: Step, warp: Warp, cols: u32) -> SpanHandle {
        self.span_begin(step, warp, Blocked::TmemAlloc { cols })
    }

    /// Appends everything `other` recorded (e.g. one recorder per SM, run on its own thread,
    /// merged in SM order afterwards — merge in a fixed order to keep the output
    /// deterministic). Handles issued by `other` do not refer to records of `self`: close
    /// what you can before merging; a still-live allocation of `other` can be deallocated
    /// through `self` afterwards. Each side was capped on its own; the sum is kept.
    pub fn merge(&mut self, other: Recorder) {
        let base = self.allocs.len() as u32;
        self.live_allocs
            .extend(other.live_allocs.iter().map(|&i| i + base));
        self.len += other.len;
        self.dropped += other.dropped;
        self.truncated_at = match (self.truncated_at, other.truncated_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.last = self.last.max(other.last);
        self.finished = match (self.finished, other.finished) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.ctas.extend(other.ctas);
        self.warps.extend(other.warps);
        self.spans.extend(other.spans);
        self.ops.extend(other.ops);
        self.phases.extend(other.phases);
        self.allocs.extend(other.allocs);
    }

    /// The run ended at `step`; whatever is still open is drawn up to here.
    pub fn finish(&mut self, step: Step) {
        self.touch(step);
        self.finished = Some(self.last);
    }

    /// The last step of the run: [`Recorder::finish`]'s step, or the latest step seen.
    pub fn end_step(&self) -> Step {
        self.finished.unwrap_or(self.last)
    }

    /// Records dropped by the cap, and the step of the first one.
    pub fn truncated(&self) -> Option<(Step, u64)> {
        self.truncated_at.map(|s| (s, self.dropped))
    }

    /// Number of records kept.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn ctas(&self) -> &[CtaRecord] {
        &self.ctas
    }
    pub fn warps(&self) -> &[WarpRecord] {
        &self.warps
    }
    pub fn spans(&self) -> &[SpanRecord] {
        &self.spans
    }
    pub fn ops(&self) -> &[OpRecord] {
        &self.ops
    }
    pub fn phases(&self) -> &[PhaseRecord] {
        &self.phases
    }
    pub fn allocs(&self) -> &[AllocRecord] {
        &self.allocs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_drops_new_records_but_still_closes_old_ones() {
        let mut r = Recorder::with_limit(2);
        let c = Cta { sm: 0, cta: 0 };
        let op = r.async_issue(1, c, Pipe::TensorCore, AsyncOp::new("tcgen05.mma"));
        r.tmem_alloc(2, 0, 0, 0, 32, None);
        let dropped = r.async_issue(3, c, Pipe::Tma, AsyncOp::new("cp.async.bulk"));
        r.mbarrier_phase(4, c, 0x10, 1);
        assert!(dropped.is_dropped());
        r.async_complete(5, dropped); // no-op, must not panic
        r.async_complete(6, op);
        assert!(r.tmem_dealloc(7, 0, 0));
        assert_eq!(r.truncated(), Some((3, 2)));
        assert_eq!(r.len(), 2);
        assert_eq!(r.ops()[0].complete, Some(6));
        assert_eq!(r.allocs()[0].end, Some(7));
        assert_eq!(r.end_step(), 7);
    }

    #[test]
    fn dealloc_matches_the_live_allocation_at_that_column() {
        let mut r = Recorder::new();
        r.tmem_alloc(1, 0, 0, 0, 128, None);
        r.tmem_alloc(2, 1, 1, 0, 128, None);
        assert!(r.tmem_dealloc(3, 0, 0));
        r.tmem_alloc(4, 0, 2, 0, 64, Some("k.ptx:9"));
        assert!(!r.tmem_dealloc(5, 0, 64), "nothing starts at column 64");
        assert!(r.tmem_dealloc(6, 0, 0));
        assert!(!r.tmem_dealloc(7, 0, 0), "already freed");
        let ends: Vec<_> = r.allocs().iter().map(|a| a.end).collect();
        assert_eq!(ends, [Some(3), None, Some(6)]);
    }

    #[test]
    fn merge_keeps_live_allocations_deallocatable() {
        let mut a = Recorder::new();
        a.tmem_alloc(1, 0, 0, 0, 32, None);
        let mut b = Recorder::with_limit(1);
        b.tmem_alloc(2, 1, 1, 64, 32, None);
        b.tmem_alloc(3, 1, 1, 96, 32, None); // dropped
        a.merge(b);
        assert_eq!(a.len(), 2);
        assert_eq!(a.truncated(), Some((3, 1)));
        assert!(a.tmem_dealloc(5, 1, 64));
        assert!(a.tmem_dealloc(6, 0, 0));
        let ends: Vec<_> = a.allocs().iter().map(|r| (r.sm, r.end)).collect();
        assert_eq!(ends, [(0, Some(6)), (1, Some(5))]);
        assert_eq!(a.end_step(), 6);
    }

    #[test]
    fn ends_never_precede_begins() {
        let mut r = Recorder::new();
        let w = Cta { sm: 0, cta: 0 }.warp(0);
        let s = r.span_begin(10, w, Blocked::Barrier { id: 0 });
        r.span_end(4, s);
        assert_eq!(r.spans()[0].end, Some(10));
    }
}
