//! The race observer: an engine run → `tmemu_race::RaceDetector` events → findings.
//!
//! One observer watches one SM group (`tmemu_sim::run_observed` makes one per group). It keeps
//! one detector for everything resident in the group, so shared memory, distributed shared
//! memory, TMEM and global memory are all compared between the group's warps, across the
//! clusters the group runs one after another too.
//!
//! # Identities
//!
//! - CTAs: the engine names a CTA by its cluster's resident *slot* and its rank; the detector
//!   by a small dense index (`slot * MAX_CLUSTER + rank`) that keys its shared-memory and TMEM
//!   shadows, barriers and mbarriers. When a new cluster takes a slot (`cta_begin`), the
//!   index's state is reset (`RaceDetector::reset_cta`): fresh shared memory, fresh barriers.
//! - Warps: every warp of every CTA gets a new `WarpId` (a vector-clock component), so a
//!   later cluster's warps are never confused with an earlier one's: global memory written by
//!   one cluster and read by a later cluster of the same group without synchronisation is a
//!   race (TM0212), as the PTX memory model says. Clocks grow with the number of CTAs a group
//!   runs (a few dozen warps on the corpus' largest launches).
//! - The cluster barrier of slot `s` is the detector key `CtaBarrier { cta: CLUSTER_KEY + s }`
//!   (the detector's own `ClusterBarrier` key names one domain; here a group hosts several).
//!
//! # What is not compared
//!
//! Warps of *different SM groups* are never compared: each group has its own observer (and
//! with `--threads N` groups run in parallel). A global-memory race between two clusters
//! that run on different groups is missed. With the default 148 SMs a launch of up to 148
//! clusters (every kernel of the corpus but the 2048-CTA softmax benchmark) puts each cluster
//! on its own group, so only races *within* a cluster are seen there; a run with fewer SMs
//! (`nsms`) puts more clusters in one group and compares them. Missing, never inventing.
//!
//! # Cost
//!
//! The engine reports one event per lane and element (`Observer::memory`); the observer
//! buffers one warp-instruction's lanes and hands them to `RaceDetector::access_lanes`, which
//! merges contiguous lanes into one range, so a coalesced warp access costs one shadow update.

use std::collections::HashMap;

use tmemu_ptx::span::Span;
use tmemu_race::{
    Access, AccessKind, Agent, Fence, MemOrder, MemSpace, OpId, OpKind, Place, Race, RaceDetector,
    Region, Sem, SpanToken, SyncKey, WarpId,
};
use tmemu_sim::error::{Context, Diagnostic, Rule as SimRule};
use tmemu_sim::observer::{AsyncId, At, BulkGroup, CommitId, Observer, TcWait, TmemLifetime};
use tmemu_sim::Kernel;
use tmemu_tmem::rules::Rule;

/// CTAs per cluster the dense CTA index leaves room for (the engine's `Limits::max_cluster`).
const MAX_CLUSTER: u32 = 16;
/// Warps per CTA (1024 threads).
const MAX_WARPS: u32 = 32;
/// Detector keys of the cluster barriers: `CtaBarrier { cta: CLUSTER_KEY + slot, id: 0 }`.
const CLUSTER_KEY: u32 = 1 << 30;

/// A race found during the run, located in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceFinding {
    pub rule: &'static Rule,
    /// What happened, naming both accesses and the fix.
    pub message: String,
    /// The access that completed the race (the later one in the emulated execution).
    pub span: Span,
    pub ctx: Context,
    /// The earlier access it races, with its label ("conflicting write here", ...).
    pub related: Span,
    pub related_label: &'static str,
    /// Who made the earlier access.
    pub related_ctx: Context,
}

impl RaceFinding {
    /// The finding as an engine diagnostic, the earlier access as its related span.
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic {
            rule: SimRule {
                id: self.rule.id,
                name: self.rule.name,
            },
            message: self.message.clone(),
            span: self.span,
            ctx: self.ctx,
            related: vec![(self.related, self.related_label.to_string())],
        }
    }
}

impl RaceFinding {
    /// Related spans with their labels, as `tmemu_host::check` keeps them.
    pub fn related_spans(&self) -> Vec<(Span, &'static str)> {
        vec![(self.related, self.related_label)]
    }
}

/// Who a warp is, for messages and contexts.
#[derive(Clone, Copy, Debug)]
struct WarpInfo {
    ctx: Context,
}

/// The memory events of one warp-instruction, gathered before they go to the detector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct AccessKey {
    time: u64,
    warp: WarpId,
    pc: u32,
    space: MemSpace,
    size: u32,
    kind: AccessKind,
    order: MemOrder,
}

struct OpEntry {
    op: OpId,
    slot: u32,
    at: At,
}

/// Feeds one SM group's execution to a [`RaceDetector`] (see the module docs).
pub struct RaceObserver<'k> {
    kernel: &'k Kernel,
    det: RaceDetector,
    cluster_dim: [u32; 3],
    /// First `WarpId` of each dense CTA index (`u32::MAX`: never seen).
    cta_base: Vec<u32>,
    warps: Vec<WarpInfo>,
    ops: HashMap<AsyncId, OpEntry>,
    commits: HashMap<CommitId, (tmemu_race::CommitId, u32)>,
    pending: Option<(AccessKey, At)>,
    addrs: Vec<u64>,
    findings: Vec<RaceFinding>,
}

impl<'k> RaceObserver<'k> {
    pub fn new(kernel: &'k Kernel) -> Self {
        RaceObserver {
            kernel,
            det: RaceDetector::new(),
            cluster_dim: kernel.reqnctapercluster.unwrap_or([1, 1, 1]),
            cta_base: Vec::new(),
            warps: Vec::new(),
            ops: HashMap::new(),
            commits: HashMap::new(),
            pending: None,
            addrs: Vec::with_capacity(256),
            findings: Vec::new(),
        }
    }

    /// The launch's cluster shape (for the cluster coordinates in contexts; the default is
    /// the kernel's `.reqnctapercluster` or 1×1×1).
    pub fn with_cluster_dim(mut self, dim: [u32; 3]) -> Self {
        if !dim.contains(&0) {
            self.cluster_dim = dim;
        }
        self
    }

    /// Findings so far (the last warp-instruction's accesses may still be buffered).
    pub fn findings(&self) -> &[RaceFinding] {
        &self.findings
    }

    /// Ends the observation: every finding, in the order found.
    pub fn into_findings(mut self) -> Vec<RaceFinding> {
        self.flush();
        self.findings
    }

    /// The findings as engine diagnostics.
    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.into_findings()
            .iter()
            .map(RaceFinding::to_diagnostic)
            .collect()
    }

    /// The detector's counters (accesses, ops, slot reuse).
    pub fn stats(&self) -> tmemu_race::Stats {
        self.det.stats()
    }

    // --------------------------------------------------------------------------------------
    // Identities

    fn dense_cta(slot: u32, rank: u32) -> u32 {
        slot * MAX_CLUSTER + rank.min(MAX_CLUSTER - 1)
    }

    fn begin_cta(&mut self, at: At, nwarps: u32) {
        let dense = Self::dense_cta(at.slot, at.cta) as usize;
        if self.cta_base.len() <= dense {
            self.cta_base.resize(dense + 1, u32::MAX);
        }
        if self.cta_base[dense] != u32::MAX {
            // A new cluster in a slot used before: fresh shared memory, TMEM and barriers.
            for w in 0..MAX_WARPS {
                let id = self.cta_base[dense] + w;
                if (id as usize) < self.warps.len() {
                    self.det.warp_exit(WarpId(id));
                }
            }
            self.det.reset_cta(dense as u32);
            if at.cta == 0 {
                self.det.forget_sync(SyncKey::CtaBarrier {
                    cta: CLUSTER_KEY + at.slot,
                    id: 0,
                });
            }
        }
        let base = self.warps.len() as u32;
        self.cta_base[dense] = base;
        let ctx = self.context(at);
        for w in 0..nwarps.clamp(1, MAX_WARPS) {
            self.warps.push(WarpInfo {
                ctx: Context { warp: w, ..ctx },
            });
            self.det.add_warp(WarpId(base + w));
        }
        // Reserve the rest of the CTA's range so ids stay `base + warp`.
        for w in nwarps.clamp(1, MAX_WARPS)..MAX_WARPS {
            self.warps.push(WarpInfo {
                ctx: Context { warp: w, ..ctx },
            });
        }
    }

    #[inline]
    fn warp(&mut self, at: At) -> WarpId {
        let dense = Self::dense_cta(at.slot, at.cta) as usize;
        match self.cta_base.get(dense) {
            Some(&b) if b != u32::MAX => WarpId(b + at.warp.min(MAX_WARPS - 1)),
            // An engine that never announced the CTA: announce it now.
            _ => {
                self.begin_cta(at, MAX_WARPS);
                WarpId(self.cta_base[dense] + at.warp.min(MAX_WARPS - 1))
            }
        }
    }

    fn context(&self, at: At) -> Context {
        let d = self.cluster_dim;
        Context {
            cluster: [
                at.ctaid[0] / d[0].max(1),
                at.ctaid[1] / d[1].max(1),
                at.ctaid[2] / d[2].max(1),
            ],
            cta: at.ctaid,
            warp: at.warp,
            lanes: at.lanes,
            pc: at.pc,
        }
    }

    fn space(slot: u32, s: MemSpace) -> MemSpace {
        match s {
            MemSpace::Shared { cta } => MemSpace::Shared {
                cta: Self::dense_cta(slot, cta),
            },
            MemSpace::Global => MemSpace::Global,
        }
    }

    fn place(slot: u32, p: Place) -> Place {
        match p {
            Place::Mem { space, addr, len } => Place::Mem {
                space: Self::space(slot, space),
                addr,
                len,
            },
            Place::Tmem(mut r) => {
                r.cta = Self::dense_cta(slot, r.cta);
                Place::Tmem(r)
            }
        }
    }

    fn key(slot: u32, k: SyncKey) -> SyncKey {
        match k {
            SyncKey::CtaBarrier { cta, id } => SyncKey::CtaBarrier {
                cta: Self::dense_cta(slot, cta),
                id,
            },
            SyncKey::Mbarrier { cta, offset } => SyncKey::Mbarrier {
                cta: Self::dense_cta(slot, cta),
                offset,
            },
            SyncKey::ClusterBarrier => SyncKey::CtaBarrier {
                cta: CLUSTER_KEY + slot,
                id: 0,
            },
        }
    }

    // --------------------------------------------------------------------------------------
    // Findings

    #[inline]
    fn flush(&mut self) {
        if let Some((k, at)) = self.pending.take() {
            self.det.access_lanes(
                k.warp,
                k.space,
                &self.addrs,
                k.size as u64,
                k.kind,
                k.order,
                SpanToken(k.pc),
            );
            self.addrs.clear();
            self.collect(at);
        }
    }

    /// Converts the detector's new findings; `at` is where the checked access happened.
    fn collect(&mut self, at: At) {
        if self.det.findings().is_empty() {
            return;
        }
        for r in self.det.take_findings() {
            let f = self.convert(&r, at);
            self.findings.push(f);
        }
    }

    fn span_of(&self, t: SpanToken) -> Span {
        self.kernel
            .info
            .get(t.0 as usize)
            .map(|i| i.span)
            .unwrap_or(Span::DUMMY)
    }

    fn convert(&self, r: &Race, at: At) -> RaceFinding {
        let span = self.span_of(r.second.span);
        let related = self.span_of(r.first.span);
        let mut ctx = self.context(at);
        ctx.pc = r.second.span.0;
        if let Some(w) = self.warps.get(r.second.warp.0 as usize) {
            ctx.warp = w.ctx.warp;
        }
        let related_ctx = self
            .warps
            .get(r.first.warp.0 as usize)
            .map(|w| Context {
                pc: r.first.span.0,
                lanes: 0,
                ..w.ctx
            })
            .unwrap_or_default();
        let who = |a: &Access, c: &Context| {
            format!(
                "{}{} by warp {} of CTA ({},{},{})",
                a.agent.name(),
                match a.agent {
                    Agent::Alloc | Agent::Dealloc => "",
                    _ => kind_word(a.kind),
                },
                c.warp,
                c.cta[0],
                c.cta[1],
                c.cta[2]
            )
        };
        let message = format!(
            "{} of {} races the earlier {} at line {}: {}",
            who(&r.second, &ctx),
            region_text(&r.second.region),
            who(&r.first, &related_ctx),
            related.line,
            r.why
        );
        RaceFinding {
            rule: r.rule,
            message,
            span,
            ctx,
            related,
            related_label: related_label(&r.first),
            related_ctx,
        }
    }
}

fn kind_word(k: AccessKind) -> &'static str {
    match k {
        AccessKind::Read => " read",
        AccessKind::Write => " write",
    }
}

fn related_label(first: &Access) -> &'static str {
    match (first.agent, first.kind) {
        (Agent::Thread, AccessKind::Read) => "conflicting read here",
        (Agent::Thread, AccessKind::Write) => "conflicting write here",
        (Agent::AllocAddr, _) => "tcgen05.alloc writes the address here",
        (Agent::Alloc, _) => {
            "this half of the collective tcgen05.alloc is not ordered before the dealloc"
        }
        (Agent::Dealloc, _) => "the columns were deallocated here",
        (_, AccessKind::Read) => "the asynchronous read was issued here",
        (_, AccessKind::Write) => "the asynchronous write was issued here",
    }
}

fn region_text(r: &Region) -> String {
    match r {
        Region::Mem {
            space: MemSpace::Global,
            bytes,
        } => format!("global bytes {:#x}..{:#x}", bytes.start, bytes.end),
        Region::Mem {
            space: MemSpace::Shared { .. },
            bytes,
        } => format!("shared bytes {:#x}..{:#x}", bytes.start, bytes.end),
        Region::Tmem { lanes, cols, .. } => format!(
            "TMEM lanes {}..{}, columns {}..{}",
            lanes.start, lanes.end, cols.start, cols.end
        ),
    }
}

impl Observer for RaceObserver<'_> {
    #[inline(always)]
    fn wants_memory(&self) -> bool {
        true
    }

    fn cta_begin(&mut self, at: At, warps: u32) {
        self.flush();
        self.begin_cta(at, warps);
    }

    #[inline(always)]
    fn instruction(&mut self, _at: At) {
        if self.pending.is_some() {
            self.flush();
        }
    }

    #[inline]
    fn memory(
        &mut self,
        at: At,
        _lane: u32,
        space: MemSpace,
        addr: u64,
        size: u32,
        kind: AccessKind,
        order: MemOrder,
    ) {
        let warp = self.warp(at);
        let key = AccessKey {
            time: at.time,
            warp,
            pc: at.pc,
            space: Self::space(at.slot, space),
            size,
            kind,
            order,
        };
        match &self.pending {
            Some((k, _)) if *k == key => {}
            _ => {
                self.flush();
                self.pending = Some((key, at));
            }
        }
        self.addrs.push(addr);
    }

    #[inline(always)]
    fn wants_memory_lanes(&self) -> bool {
        true
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
        self.flush();
        let w = self.warp(at);
        let mut n = 0;
        let mut buf = [0u64; 32];
        for (l, &a) in addrs.iter().enumerate() {
            if lanes >> l & 1 != 0 {
                buf[n] = a;
                n += 1;
            }
        }
        self.det.access_lanes(
            w,
            Self::space(at.slot, space),
            &buf[..n],
            size as u64,
            kind,
            order,
            SpanToken(at.pc),
        );
        self.collect(at);
    }

    fn fence(&mut self, at: At, f: Fence) {
        self.flush();
        let w = self.warp(at);
        self.det.fence(w, f);
    }

    fn sync_arrive(&mut self, at: At, key: SyncKey, sem: Sem) {
        self.flush();
        let w = self.warp(at);
        self.det.arrive(w, Self::key(at.slot, key), sem);
    }

    fn sync_complete(&mut self, at: At, key: SyncKey) {
        self.flush();
        self.det.sync_complete(Self::key(at.slot, key));
    }

    fn sync_wait(&mut self, at: At, key: SyncKey, sem: Sem) {
        self.flush();
        let w = self.warp(at);
        self.det.wait(w, Self::key(at.slot, key), sem);
    }

    fn async_issue(&mut self, at: At, id: AsyncId, kind: OpKind) {
        self.flush();
        let w = self.warp(at);
        let kind = match kind {
            // The accumulator key only has to be injective within the domain: fold the CTA in.
            OpKind::Mma { cta_group, accum } => OpKind::Mma {
                cta_group,
                accum: accum ^ ((Self::dense_cta(at.slot, at.cta) as u64) << 48),
            },
            k => k,
        };
        let op = self.det.issue(w, kind, SpanToken(at.pc));
        self.ops.insert(
            id,
            OpEntry {
                op,
                slot: at.slot,
                at,
            },
        );
    }

    fn async_access(&mut self, id: AsyncId, place: Place, kind: AccessKind) {
        self.flush();
        let Some(e) = self.ops.get(&id) else { return };
        let (op, at) = (e.op, e.at);
        self.det.op_access(op, Self::place(e.slot, place), kind);
        self.collect(at);
    }

    fn async_complete(&mut self, id: AsyncId, _time: u64) {
        self.flush();
        if let Some(e) = self.ops.get(&id) {
            self.det.complete(e.op);
        }
    }

    fn async_arrive(&mut self, id: AsyncId, key: SyncKey) {
        self.flush();
        if let Some(e) = self.ops.get(&id) {
            self.det.op_arrive(e.op, Self::key(e.slot, key));
        }
    }

    fn async_observe(&mut self, at: At, id: AsyncId) {
        self.flush();
        let w = self.warp(at);
        if let Some(e) = self.ops.get(&id) {
            self.det.observe(w, e.op);
        }
    }

    fn bulk_group_add(&mut self, at: At, id: AsyncId) {
        self.flush();
        let w = self.warp(at);
        if let Some(e) = self.ops.get(&id) {
            self.det.bulk_group_add(w, e.op);
        }
    }

    fn bulk_group(&mut self, at: At, ev: BulkGroup) {
        self.flush();
        let w = self.warp(at);
        match ev {
            BulkGroup::Commit => self.det.bulk_commit(w),
            BulkGroup::Wait { n, read } => self.det.bulk_wait(w, n, read),
        }
    }

    fn commit(&mut self, at: At, id: CommitId, cta_group: u8) {
        self.flush();
        let w = self.warp(at);
        let c = self.det.commit(w, cta_group);
        self.commits.insert(id, (c, at.slot));
    }

    fn commit_fire(&mut self, id: CommitId, keys: &[SyncKey], _time: u64) {
        self.flush();
        if let Some((c, slot)) = self.commits.remove(&id) {
            let keys: Vec<SyncKey> = keys.iter().map(|&k| Self::key(slot, k)).collect();
            self.det.commit_fire(c, &keys);
        }
    }

    fn tc_wait(&mut self, at: At, which: TcWait) {
        self.flush();
        let w = self.warp(at);
        match which {
            TcWait::Ld => self.det.wait_ld(w),
            TcWait::St => self.det.wait_st(w),
        }
    }

    fn alloc_address_store(&mut self, at: At, space: MemSpace, addr: u64) {
        self.flush();
        let w = self.warp(at);
        self.det
            .alloc_address_store(w, Self::space(at.slot, space), addr, SpanToken(at.pc));
        self.collect(at);
    }

    fn tmem_lifetime(&mut self, at: At, ev: TmemLifetime) {
        self.flush();
        let w = self.warp(at);
        let cta = Self::dense_cta(at.slot, at.cta);
        let (alloc, cta_group, col, ncols) = match ev {
            TmemLifetime::Alloc {
                cta_group,
                col,
                ncols,
            } => (true, cta_group, col, ncols),
            TmemLifetime::Dealloc {
                cta_group,
                col,
                ncols,
            } => (false, cta_group, col, ncols),
        };
        let peer = (cta_group == 2).then(|| Self::dense_cta(at.slot, at.cta ^ 1));
        let cols = col..col.saturating_add(ncols);
        if alloc {
            self.det.tmem_alloc(w, cta, peer, cols, SpanToken(at.pc));
        } else {
            self.det.tmem_dealloc(w, cta, peer, cols, SpanToken(at.pc));
        }
        self.collect(at);
    }

    fn warp_exit(&mut self, at: At) {
        self.flush();
        let w = self.warp(at);
        self.det.warp_exit(w);
    }
}
