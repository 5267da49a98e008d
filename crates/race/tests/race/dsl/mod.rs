//! A tiny script DSL for race scenarios: one method per PTX instruction, each returning the
//! span token it used so tests can name the accesses a finding must report.

#![allow(dead_code)]

use tmemu_race::*;

pub const CTA: u32 = 0;
pub const SMEM: MemSpace = MemSpace::Shared { cta: CTA };

/// A full-height TMEM accumulator of `cols` columns at `col`.
pub fn acc(col: u32, cols: u32) -> TmemRect {
    TmemRect {
        cta: CTA,
        lane: 0,
        lanes: 128,
        col,
        cols,
    }
}

/// The lane quarter of warp `w % 4`, `cols` columns at `col` (a tcgen05.ld/st .32x32b).
pub fn quarter(w: u32, col: u32, cols: u32) -> TmemRect {
    TmemRect {
        cta: CTA,
        lane: 32 * (w % 4),
        lanes: 32,
        col,
        cols,
    }
}

pub fn mbar(offset: u32) -> SyncKey {
    SyncKey::Mbarrier { cta: CTA, offset }
}

pub const BAR0: SyncKey = SyncKey::CtaBarrier { cta: CTA, id: 0 };

fn smem(addr: u64, len: u64) -> Place {
    Place::Mem {
        space: SMEM,
        addr,
        len,
    }
}

pub struct Script {
    pub d: RaceDetector,
    line: u32,
}

impl Script {
    pub fn new(warps: u32) -> Self {
        let mut d = RaceDetector::new();
        for w in 0..warps {
            d.add_warp(WarpId(w));
        }
        Script { d, line: 0 }
    }

    fn next(&mut self) -> SpanToken {
        self.line += 1;
        SpanToken(self.line)
    }

    // -- thread memory -------------------------------------------------------------------

    pub fn st_shared(&mut self, w: u32, addr: u64, len: u64) -> SpanToken {
        self.mem(w, SMEM, addr, len, AccessKind::Write, MemOrder::Weak)
    }

    pub fn ld_shared(&mut self, w: u32, addr: u64, len: u64) -> SpanToken {
        self.mem(w, SMEM, addr, len, AccessKind::Read, MemOrder::Weak)
    }

    pub fn mem(
        &mut self,
        w: u32,
        space: MemSpace,
        addr: u64,
        len: u64,
        kind: AccessKind,
        order: MemOrder,
    ) -> SpanToken {
        let sp = self.next();
        self.d.access(WarpId(w), space, addr, len, kind, order, sp);
        sp
    }

    /// A warp-wide store: 32 lanes × 4 bytes, reported per lane as the engine does.
    pub fn st_shared_warp(&mut self, w: u32, addr: u64) -> SpanToken {
        let sp = self.next();
        for lane in 0..32 {
            self.d.access(
                WarpId(w),
                SMEM,
                addr + 4 * lane,
                4,
                AccessKind::Write,
                MemOrder::Weak,
                sp,
            );
        }
        sp
    }

    pub fn alloc(&mut self, w: u32, addr: u64) -> SpanToken {
        let sp = self.next();
        self.d.alloc_address_store(WarpId(w), SMEM, addr, sp);
        sp
    }

    // -- fences and synchronisation ------------------------------------------------------

    pub fn fence(&mut self, w: u32, f: Fence) {
        self.next();
        self.d.fence(WarpId(w), f);
    }

    pub fn fence_before(&mut self, w: u32) {
        self.fence(w, Fence::TcBeforeThreadSync)
    }

    pub fn fence_after(&mut self, w: u32) {
        self.fence(w, Fence::TcAfterThreadSync)
    }

    pub fn fence_proxy_async(&mut self, w: u32) {
        self.fence(w, Fence::ProxyAsync)
    }

    /// `bar.sync 0` by all the given warps.
    pub fn bar_sync(&mut self, warps: &[u32]) {
        self.next();
        for &w in warps {
            self.d.arrive(WarpId(w), BAR0, Sem::Ordering);
        }
        self.d.sync_complete(BAR0);
        for &w in warps {
            self.d.wait(WarpId(w), BAR0, Sem::Ordering);
        }
    }

    /// `mbarrier.arrive` completing the phase (count 1).
    pub fn arrive(&mut self, w: u32, mb: SyncKey, sem: Sem) {
        self.next();
        self.d.arrive(WarpId(w), mb, sem);
        self.d.sync_complete(mb);
    }

    /// A successful `mbarrier.try_wait` loop.
    pub fn try_wait(&mut self, w: u32, mb: SyncKey, sem: Sem) {
        self.next();
        self.d.wait(WarpId(w), mb, sem);
    }

    // -- tcgen05 -------------------------------------------------------------------------

    /// `tcgen05.mma.cta_group::1` reading smem A and B and accumulating into `d`.
    pub fn mma(&mut self, w: u32, a: (u64, u64), b: (u64, u64), d: TmemRect) -> (OpId, SpanToken) {
        self.mma_shape(w, a, b, d, 0)
    }

    pub fn mma_shape(
        &mut self,
        w: u32,
        a: (u64, u64),
        b: (u64, u64),
        d: TmemRect,
        shape: u64,
    ) -> (OpId, SpanToken) {
        let sp = self.next();
        let accum = ((d.col as u64) << 32) | shape;
        let op = self.d.issue(
            WarpId(w),
            OpKind::Mma {
                cta_group: 1,
                accum,
            },
            sp,
        );
        self.d.op_access(op, smem(a.0, a.1), AccessKind::Read);
        self.d.op_access(op, smem(b.0, b.1), AccessKind::Read);
        self.d.op_access(op, Place::Tmem(d), AccessKind::Read);
        self.d.op_access(op, Place::Tmem(d), AccessKind::Write);
        (op, sp)
    }

    /// `tcgen05.mma.cta_group::1` with its A operand in TMEM: reads `a_tmem` and, when given,
    /// writes `d` (no shared-memory operand is modelled), at the explicit source span `span`.
    pub fn mma_tmem_a(
        &mut self,
        w: u32,
        a_tmem: TmemRect,
        d: Option<TmemRect>,
        span: SpanToken,
    ) -> OpId {
        let op = self.d.issue(
            WarpId(w),
            OpKind::Mma {
                cta_group: 1,
                accum: 0,
            },
            span,
        );
        self.d.op_access(op, Place::Tmem(a_tmem), AccessKind::Read);
        if let Some(d) = d {
            self.d.op_access(op, Place::Tmem(d), AccessKind::Write);
        }
        op
    }

    /// `tcgen05.cp.cta_group::1.128x256b` from smem to TMEM.
    pub fn cp(&mut self, w: u32, src: (u64, u64), dst: TmemRect) -> (OpId, SpanToken) {
        let sp = self.next();
        let op = self.d.issue(
            WarpId(w),
            OpKind::Cp {
                cta_group: 1,
                shape_4x256b: false,
            },
            sp,
        );
        self.d.op_access(op, smem(src.0, src.1), AccessKind::Read);
        self.d.op_access(op, Place::Tmem(dst), AccessKind::Write);
        (op, sp)
    }

    pub fn tc_ld(&mut self, w: u32, r: TmemRect) -> (OpId, SpanToken) {
        let sp = self.next();
        let op = self.d.issue(WarpId(w), OpKind::Ld, sp);
        self.d.op_access(op, Place::Tmem(r), AccessKind::Read);
        (op, sp)
    }

    pub fn tc_st(&mut self, w: u32, r: TmemRect) -> (OpId, SpanToken) {
        let sp = self.next();
        let op = self.d.issue(WarpId(w), OpKind::St, sp);
        self.d.op_access(op, Place::Tmem(r), AccessKind::Write);
        (op, sp)
    }

    pub fn wait_ld(&mut self, w: u32) {
        self.next();
        self.d.wait_ld(WarpId(w));
    }

    pub fn wait_st(&mut self, w: u32) {
        self.next();
        self.d.wait_st(WarpId(w));
    }

    /// `tcgen05.commit.cta_group::1.mbarrier::arrive::one [mb]`; fired when `fire` is called.
    pub fn commit(&mut self, w: u32) -> CommitId {
        self.next();
        self.d.commit(WarpId(w), 1)
    }

    /// The engine completes the commit's ops and performs the arrive (completing the phase).
    pub fn fire(&mut self, c: CommitId, mb: SyncKey) {
        self.d.commit_fire(c, &[mb]);
        self.d.sync_complete(mb);
    }

    pub fn complete(&mut self, op: OpId) {
        self.d.complete(op);
    }

    // -- bulk copies ---------------------------------------------------------------------

    /// `cp.async.bulk.tensor` global→shared into `[addr, addr+len)`, completing on `mb`.
    pub fn tma_load(&mut self, w: u32, addr: u64, len: u64) -> (OpId, SpanToken) {
        let sp = self.next();
        let op = self.d.issue(WarpId(w), OpKind::Bulk, sp);
        self.d.op_access(
            op,
            Place::Mem {
                space: MemSpace::Global,
                addr: 0x10_0000 + addr,
                len,
            },
            AccessKind::Read,
        );
        self.d.op_access(op, smem(addr, len), AccessKind::Write);
        (op, sp)
    }

    /// The copy lands: complete_tx on `mb` completes the phase.
    pub fn tma_land(&mut self, op: OpId, mb: SyncKey) {
        self.d.complete(op);
        self.d.op_arrive(op, mb);
        self.d.sync_complete(mb);
    }

    /// `cp.async.bulk.tensor` shared→global reading `[addr, addr+len)`.
    pub fn tma_store(&mut self, w: u32, addr: u64, len: u64) -> (OpId, SpanToken) {
        let sp = self.next();
        let op = self.d.issue(WarpId(w), OpKind::Bulk, sp);
        self.d.op_access(op, smem(addr, len), AccessKind::Read);
        self.d.op_access(
            op,
            Place::Mem {
                space: MemSpace::Global,
                addr: 0x20_0000 + addr,
                len,
            },
            AccessKind::Write,
        );
        (op, sp)
    }

    // -- assertions ----------------------------------------------------------------------

    pub fn assert_silent(&self) {
        let f = self.d.findings();
        assert!(f.is_empty(), "expected no findings, got:\n{}", show(f));
    }

    /// Exactly one finding, with this rule, naming `first` and `second`.
    pub fn assert_one(&self, rule: &str, first: SpanToken, second: SpanToken) -> &Race {
        let f = self.d.findings();
        assert_eq!(
            f.len(),
            1,
            "expected exactly one finding, got:\n{}",
            show(f)
        );
        let r = &f[0];
        assert_eq!(r.rule.id, rule, "{r}");
        assert_eq!((r.first.span, r.second.span), (first, second), "{r}");
        r
    }
}

fn show(f: &[Race]) -> String {
    f.iter().map(|r| format!("  {r}\n")).collect()
}
