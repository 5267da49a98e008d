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
//!   race (TM0212), as the PTX memory model says. Clocks grow with the number of CTAs a
//!   detector has seen; the old occupant's warps are retired (their state dropped), and the
//!   group starts a new generation past a number of warps (below).
//! - The cluster barrier of slot `s` is the detector key `CtaBarrier { cta: CLUSTER_KEY + s }`
//!   (the detector's own `ClusterBarrier` key names one domain; here a group hosts several).
//!
//! # Between SM groups
//!
//! Warps of *different SM groups* never meet in a detector: each group has its own observer
//! (and with `--threads N` groups run in parallel). Each observer also keeps a
//! [`GlobalLog`] of its group's global accesses and of the synchronisation that matters across
//! clusters (release/acquire patterns through global memory at `.gpu`/`.sys` scope, read from
//! the opcode: barriers, mbarriers and `.cta`/`.cluster` fences and atomics cannot order two
//! clusters); [`launch_findings`] compares the groups' logs after the launch
//! (`tmemu_race::cross_group_races`) and reports the conflicting pairs no such synchronisation
//! can order as TM0212, with the other group's access as the related span. A kernel that
//! synchronises through global memory is compared only outside its synchronised windows (a
//! possible miss, never a guess; docs/arch/race.md).
//!
//! # Generations
//!
//! Clocks are dense by component and every CTA brings new components, so one detector for a
//! wide grid's clusters costs time and memory in proportion to all the warps the group ran
//! (a quadratic run). Once a detector has taken [`race_generation_warps`] warps, the group's
//! next cluster starts a *generation*: a fresh observer (detector, maps, global log) takes
//! the new clusters, and the earlier one keeps the clusters still running in its slots,
//! which route their events to it by slot (`slot_gen`), by async op or by commit; it is
//! closed (its detector dropped) when its last slot gets a new cluster. Generations share
//! nothing but global memory (a cluster never spans two: it starts in one, with its shared
//! memory, barriers and TMEM), so each is a group of its own for [`launch_findings`]: the
//! races between clusters of different generations are found by the comparison of their
//! global logs, exactly as between SM groups.
//!
//! # Read-only buffers
//!
//! A weak read of bytes nothing writes during the launch races nothing. The caller passes the
//! global ranges of the spec buffers no global write of the kernel's code can reach
//! (`tmemu_sim::Kernel::written_params`, `tmemu_host::Session::read_only_ranges`); weak reads
//! inside one of them (thread accesses, `cp.async` sources, TMA loads) are neither checked,
//! recorded nor logged. Every global write is tested against the ranges, and one that lands
//! there anyway makes the group's check `incomplete` ([`RaceObserver::incomplete_reason`]):
//! the prediction is verified, so a gap in it costs a verdict, never a missed race.
//!
//! # Cost
//!
//! The engine reports one event per lane and element (`Observer::memory`); the observer
//! buffers one warp-instruction's lanes and hands them to `RaceDetector::access_lanes`, which
//! merges contiguous lanes into one range, so a coalesced warp access costs one shadow update.
//! The fast `ld`/`st` paths report a warp-instruction at once (`Observer::memory_lanes`: the
//! mask and all 32 addresses), which goes to `RaceDetector::access_lane_mask` as it is.

use std::collections::HashMap;
use std::sync::Arc;

use tmemu_ptx::span::Span;
use tmemu_race::{
    cross_group_races, opcode_reach, Access, AccessKind, Agent, CrossAccess, CrossRace, Fence,
    GlobalLog, MemOrder, MemSpace, OpId, OpKind, Place, Race, RaceDetector, Reach, Region, Sem,
    Site, SpanToken, Strength, SyncKey, WarpId,
};
use tmemu_sim::error::{Context, Diagnostic, Rule as SimRule};
use tmemu_sim::exec::tma::TmaOp;
use tmemu_sim::observer::{
    AsyncId, At, BulkGroup, CommitId, CpAsyncGroup, Observer, TcWait, TmemLifetime,
};
use tmemu_sim::program::Inst;
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
    /// A TMA reduction (`cp.reduce.async.bulk.tensor`): its global writes are atomic per
    /// element, strong for the cross-group comparison.
    reduce: bool,
}

/// `RaceObserver::reach` bits.
const REACH_KNOWN: u8 = 1;
const REACH_GRID: u8 = 2;
const REACH_RMW: u8 = 4;
/// `fence.sc` or `membar` (a `fence.sc` by definition).
const REACH_SC: u8 = 8;
/// `.cluster` scope (without `REACH_GRID` and this: `.cta`).
const REACH_CLUSTER: u8 = 16;

/// Feeds one SM group's execution to a [`RaceDetector`] (see the module docs).
pub struct RaceObserver<'k> {
    kernel: &'k Kernel,
    det: RaceDetector,
    cluster_dim: [u32; 3],
    /// First `WarpId` of each dense CTA index (`u32::MAX`: never seen).
    cta_base: Vec<u32>,
    /// Per dense CTA index: its occupant's warps that have not exited (the CTA exits with
    /// its last: `RaceDetector::cta_exit`, TM0234/TM0235).
    cta_live: Vec<u32>,
    warps: Vec<WarpInfo>,
    ops: HashMap<AsyncId, OpEntry>,
    /// The `cp.async` being reported (its events come one after another: issue, accesses,
    /// complete, `cp_async_add`), kept out of `ops`: the detector merges it into its warp's
    /// open cp.async op (`RaceDetector::cp_async_issue`), and nothing names it afterwards.
    cp_cur: Option<(AsyncId, OpEntry)>,
    /// Its ranges until its `async_complete`, given to the detector together
    /// (`RaceDetector::op_access_ranges`: one shadow transition shared by its ranges).
    cp_ranges: Vec<(MemSpace, AccessKind, u64, u64)>,
    /// Scratch of `flush_cp`.
    cp_run: Vec<(u64, u64)>,
    /// The detector's commit and the `At` of the `tcgen05.commit`.
    commits: HashMap<CommitId, (tmemu_race::CommitId, At)>,
    pending: Option<(AccessKey, At)>,
    addrs: Vec<u64>,
    /// The lane of each of `addrs`.
    lanes: Vec<u8>,
    findings: Vec<RaceFinding>,
    /// The group's global accesses for the comparison between SM groups
    /// ([`launch_findings`]).
    log: GlobalLog,
    /// Per pc, the scope of a strong access or fence read from its opcode text once
    /// (`REACH_*` bits; 0: not read yet): only strong accesses and fences look it up.
    reach: Vec<u8>,
    /// `%ctaid` of every CTA the group ran, in order (`Site::cta` indexes it).
    cta_ids: Vec<[u32; 3]>,
    /// Per dense CTA index: the current occupant's index in `cta_ids`.
    cta_site: Vec<u32>,
    /// Per slot: the cluster number its current cluster's warps were given
    /// (`RaceDetector::set_cluster`).
    slot_cluster: Vec<u32>,
    /// Warps a generation's detector takes before the group's next cluster starts a new
    /// generation (see [`race_generation_warps`]).
    gen_warps: u32,
    /// Warps registered in this generation so far.
    warps_seen: u32,
    /// The group's earlier generations, oldest first (module docs, "Generations"): each an
    /// observer of its own, kept for its findings and its global log; one that still has
    /// clusters running gets their events.
    older: Vec<RaceObserver<'k>>,
    /// Per slot: the generation whose cluster occupies it (an index into `older`;
    /// `older.len()` is this one; `u32::MAX`: never used).
    slot_gen: Vec<u32>,
    /// Earlier generations that still have clusters running (0: every event is this one's).
    older_live: u32,
    /// In an earlier generation: how many slots its clusters still occupy.
    live_slots: u32,
    /// Global ranges no global write of the kernel's code can reach (`with_read_only`):
    /// their weak reads are not checked (module docs, "Read-only buffers").
    read_only: Arc<[(u64, u64)]>,
    /// The first global write that landed in `read_only` anyway: (address, pc).
    read_only_hit: Option<(u64, u32)>,
    /// Set when the op budget ran out: the CTAs begun so far. From then on every event is
    /// ignored and the detector's state is dropped; the launch is `incomplete`.
    over_budget: Option<u32>,
    /// Op actors the detector may hold (see [`race_op_budget`]).
    op_budget: u64,
}

/// Op actors one SM group's detector may hold at once before it gives up (verdict
/// `incomplete`). A completed op's slot is reused, so a kernel that waits for its ops stays
/// far below it; ops that never complete in the detector's view (a loop issuing
/// `tcgen05.ld` without `tcgen05.wait::ld` until the step budget) each keep clocks as long as
/// all the actors, so memory grows as the square of the loop's trips: 6 000 such loads took
/// 311 MB, and 200 000 steps of such a loop aborted at fuzz/mutate_run.py's 4 GB limit.
/// `TMEMU_RACE_MAX_OPS` overrides it ([`race_op_budget`]).
pub const MAX_OP_SLOTS: u64 = 8192;

/// The environment variable that overrides [`MAX_OP_SLOTS`].
pub const RACE_OP_BUDGET_ENV: &str = "TMEMU_RACE_MAX_OPS";

/// [`MAX_OP_SLOTS`], or `TMEMU_RACE_MAX_OPS` when it is a positive number.
pub fn race_op_budget() -> u64 {
    env_budget(RACE_OP_BUDGET_ENV).unwrap_or(MAX_OP_SLOTS)
}

/// A positive number in environment variable `name`; `None` when it is unset, unparsable or
/// zero (the caller's default then applies).
fn env_budget<T: std::str::FromStr + Default + PartialOrd>(name: &str) -> Option<T> {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse::<T>().ok())
        .filter(|n| *n > T::default())
}

/// Default of [`race_generation_warps`]. Clocks are dense by component and every CTA a group
/// runs brings new components, so a detector's joins and clocks cost time and memory in
/// proportion to the warps it has seen: a 16 384-CTA elementwise launch (443 CTAs of 4
/// warps per group on 148 SMs) took 33× `run` and 1.3 GB in one detector per group
/// (docs/arch/race.md, "Generations"). 256 keeps every kernel of the compiler corpus
/// (softmax_bench2048: 56 warps per group) in one generation.
pub const DEFAULT_RACE_GENERATION_WARPS: u32 = 256;

/// The environment variable that overrides [`DEFAULT_RACE_GENERATION_WARPS`].
pub const RACE_GENERATION_WARPS_ENV: &str = "TMEMU_RACE_GEN_WARPS";

/// Warps one race detector takes before the SM group's next cluster starts a new generation
/// (a fresh detector; races with the earlier generations' clusters are found by the
/// comparison of global-memory logs, as between SM groups). `TMEMU_RACE_GEN_WARPS` overrides
/// the default; an unparsable or zero value keeps it.
pub fn race_generation_warps() -> u32 {
    env_budget(RACE_GENERATION_WARPS_ENV).unwrap_or(DEFAULT_RACE_GENERATION_WARPS)
}

impl<'k> RaceObserver<'k> {
    pub fn new(kernel: &'k Kernel) -> Self {
        RaceObserver {
            kernel,
            det: RaceDetector::new(),
            cluster_dim: kernel.reqnctapercluster.unwrap_or([1, 1, 1]),
            cta_base: Vec::new(),
            cta_live: Vec::new(),
            warps: Vec::new(),
            ops: HashMap::new(),
            cp_cur: None,
            cp_ranges: Vec::new(),
            cp_run: Vec::new(),
            commits: HashMap::new(),
            pending: None,
            addrs: Vec::with_capacity(256),
            lanes: Vec::with_capacity(256),
            findings: Vec::new(),
            log: GlobalLog::new(),
            reach: Vec::new(),
            cta_ids: Vec::new(),
            cta_site: Vec::new(),
            slot_cluster: Vec::new(),
            gen_warps: race_generation_warps(),
            warps_seen: 0,
            older: Vec::new(),
            slot_gen: Vec::new(),
            older_live: 0,
            live_slots: 0,
            read_only: Arc::from([]),
            read_only_hit: None,
            over_budget: None,
            op_budget: race_op_budget(),
        }
    }

    /// The generation size of this observer (default: [`race_generation_warps`]).
    pub fn with_generation_warps(mut self, warps: u32) -> Self {
        self.gen_warps = warps.max(1);
        self
    }

    /// Global ranges `[start, end)` (sorted) that no global write of the kernel's code can
    /// reach (`tmemu_host::Session::read_only_ranges`): their weak reads are not checked,
    /// and a write that lands there anyway makes the check `incomplete`.
    pub fn with_read_only(mut self, ranges: Arc<[(u64, u64)]>) -> Self {
        self.read_only = ranges;
        self
    }

    /// Whether `[lo, hi)` lies in one read-only range.
    #[inline]
    fn in_read_only(&self, lo: u64, hi: u64) -> bool {
        self.read_only.iter().any(|&(s, e)| s <= lo && hi <= e)
    }

    /// A global write to `[lo, hi)`: remembered when it touches a read-only range.
    #[inline]
    fn guard_read_only(&mut self, lo: u64, hi: u64, pc: u32) {
        if !self.read_only.is_empty()
            && self.read_only_hit.is_none()
            && self.read_only.iter().any(|&(s, e)| lo < e && s < hi)
        {
            self.read_only_hit = Some((lo, pc));
        }
    }

    /// Whether a global access of `size` bytes at each of `addrs` is a weak read of read-only
    /// bytes (then skipped), after guarding a write.
    #[inline]
    fn skip_global(
        &mut self,
        addrs: impl Iterator<Item = u64>,
        size: u64,
        kind: AccessKind,
        order: MemOrder,
        pc: u32,
    ) -> bool {
        if self.read_only.is_empty() {
            return false;
        }
        let (mut lo, mut hi) = (u64::MAX, 0);
        for a in addrs {
            lo = lo.min(a);
            hi = hi.max(a.saturating_add(size));
        }
        lo < hi && self.skip_range(lo, hi, kind, order, pc)
    }

    /// [`Self::skip_global`] of an access whose bytes lie in `[lo, hi)`.
    #[inline]
    fn skip_range(&mut self, lo: u64, hi: u64, kind: AccessKind, order: MemOrder, pc: u32) -> bool {
        if kind == AccessKind::Write {
            self.guard_read_only(lo, hi, pc);
            return false;
        }
        order == MemOrder::Weak && self.in_read_only(lo, hi)
    }

    /// Why the race check of this group is incomplete (the op budget of one of its
    /// generations ran out), if it is.
    pub fn incomplete_reason(&self) -> Option<String> {
        if let Some(r) = self.older.iter().find_map(RaceObserver::incomplete_reason) {
            return Some(r);
        }
        if let Some((addr, pc)) = self.read_only_hit {
            let line = self.span_of(SpanToken(pc)).line;
            return Some(format!(
                "the write to global address {addr:#x} at line {line} landed in a buffer that \
                 no global write of the kernel's code was found to reach, so the weak reads of \
                 that buffer were not checked for races (docs/arch/race.md, \"Read-only \
                 buffers\")"
            ));
        }
        let ctas = self.over_budget?;
        Some(format!(
            "the race detector's budget of {} asynchronous operations in flight per SM \
             group ran out after {ctas} CTAs of one group (operations that are never \
             waited for, such as tcgen05.ld without tcgen05.wait::ld in a loop, keep their \
             vector clocks): accesses after that were not checked for races. Raise it with \
             {RACE_OP_BUDGET_ENV}=N",
            self.op_budget
        ))
    }

    /// Gives up: drops the detector's state (the memory the budget protects) and ignores the
    /// rest of the run. Findings made so far stay (each is a real race). The group's global
    /// log is dropped as well, so no cross-group race is reported on a partial log.
    fn give_up(&mut self) {
        self.over_budget = Some(self.cta_ids.len() as u32);
        self.close();
        self.log = GlobalLog::new();
    }

    /// Drops the detector and the maps into it, keeping the findings, the global log and the
    /// CTAs' identities (what [`launch_findings`] needs): a generation whose clusters have all
    /// finished, or one that gave up.
    fn close(&mut self) {
        self.flush();
        self.flush_cp();
        self.pending = None;
        // its shadows to the thread's pool first: the group's next generation takes them
        self.det.release();
        self.det = RaceDetector::new();
        self.ops = HashMap::new();
        self.commits = HashMap::new();
        self.cp_cur = None;
        self.cp_ranges = Vec::new();
        self.cta_base = Vec::new();
    }

    // --------------------------------------------------------------------------------------
    // Generations

    /// The earlier generation whose cluster occupies `slot`, if that is not this one. One
    /// predictable branch on every event while no earlier generation runs.
    #[inline(always)]
    fn older_for_slot(&mut self, slot: u32) -> Option<&mut RaceObserver<'k>> {
        if self.older_live == 0 {
            return None;
        }
        let g = *self.slot_gen.get(slot as usize)?;
        self.older.get_mut(g as usize)
    }

    /// The earlier generation that issued async op `id`, if this one did not.
    #[inline]
    fn older_for_async(&mut self, id: AsyncId) -> Option<&mut RaceObserver<'k>> {
        if self.older_live == 0 || self.op_entry(id).is_some() {
            return None;
        }
        (self.older.iter_mut()).find(|o| o.live_slots > 0 && o.op_entry(id).is_some())
    }

    /// The earlier generation that made commit `id`, if this one did not.
    #[inline]
    fn older_for_commit(&mut self, id: CommitId) -> Option<&mut RaceObserver<'k>> {
        if self.older_live == 0 || self.commits.contains_key(&id) {
            return None;
        }
        (self.older.iter_mut()).find(|o| o.live_slots > 0 && o.commits.contains_key(&id))
    }

    /// A new cluster takes `slot` (before its first CTA's `cta_begin`): the generation that
    /// ran the slot's previous cluster, if earlier, loses the slot (and is closed when it was
    /// its last); when this generation has taken its share of warps, the cluster starts a new
    /// one. The cluster belongs to the current generation.
    fn new_cluster(&mut self, slot: u32) {
        let s = slot as usize;
        if self.slot_gen.len() <= s {
            self.slot_gen.resize(s + 1, u32::MAX);
        }
        let prev = self.slot_gen[s] as usize;
        if prev < self.older.len() {
            let o = &mut self.older[prev];
            o.live_slots -= 1;
            if o.live_slots == 0 {
                o.close();
                self.older_live -= 1;
            }
        }
        if self.warps_seen >= self.gen_warps && self.over_budget.is_none() {
            self.start_generation(slot);
        }
        self.slot_gen[s] = self.older.len() as u32;
    }

    /// This generation becomes an earlier one (keeping the slots its clusters occupy, other
    /// than `slot`, which a new cluster takes) and a fresh detector takes its place.
    fn start_generation(&mut self, slot: u32) {
        self.flush();
        self.flush_cp();
        let fresh = RaceObserver {
            cluster_dim: self.cluster_dim,
            gen_warps: self.gen_warps,
            op_budget: self.op_budget,
            read_only: self.read_only.clone(),
            ..RaceObserver::new(self.kernel)
        };
        let mut old = std::mem::replace(self, fresh);
        self.older = std::mem::take(&mut old.older);
        self.slot_gen = std::mem::take(&mut old.slot_gen);
        self.older_live = old.older_live;
        let me = self.older.len() as u32;
        old.live_slots = (self.slot_gen.iter().enumerate())
            .filter(|&(s, &g)| g == me && s != slot as usize)
            .count() as u32;
        if old.live_slots == 0 {
            old.close();
        } else {
            self.older_live += 1;
        }
        self.older.push(old);
    }

    /// This observer and its earlier generations, oldest first: each a group of its own for
    /// the comparison of global-memory logs.
    fn into_generations(mut self) -> Vec<RaceObserver<'k>> {
        let mut gens = std::mem::take(&mut self.older);
        gens.push(self);
        gens
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

    /// Ends the observation: every finding of every generation, oldest first (without the
    /// comparison between generations and groups: [`launch_findings`]).
    pub fn into_findings(self) -> Vec<RaceFinding> {
        let mut out = Vec::new();
        for mut g in self.into_generations() {
            g.flush();
            out.append(&mut g.findings);
        }
        out
    }

    /// The findings as engine diagnostics.
    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.into_findings()
            .iter()
            .map(RaceFinding::to_diagnostic)
            .collect()
    }

    /// The detector's counters (accesses, ops, slot reuse), summed over the generations
    /// (a closed generation's detector is dropped, and its counts with it).
    pub fn stats(&self) -> tmemu_race::Stats {
        let mut s = self.det.stats();
        for o in &self.older {
            s += o.det.stats();
        }
        s
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
                // dropped, not just marked exited: `warp_exit` would register the CTA's
                // unused reserved ids as warps (new clock components) only to retire them
                if (id as usize) < self.warps.len() {
                    self.det.retire_warp(WarpId(id));
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
        // A cluster is named by its rank-0 CTA's first warp id (the engine announces a
        // cluster's CTAs in rank order): unique in the detector, for `.cluster` scopes.
        let s = at.slot as usize;
        if self.slot_cluster.len() <= s {
            self.slot_cluster.resize(s + 1, u32::MAX);
        }
        if at.cta == 0 || self.slot_cluster[s] == u32::MAX {
            self.slot_cluster[s] = base;
        }
        let cluster = self.slot_cluster[s];
        if self.cta_site.len() <= dense {
            self.cta_site.resize(dense + 1, 0);
        }
        self.cta_site[dense] = self.cta_ids.len() as u32;
        self.cta_ids.push(at.ctaid);
        if self.cta_live.len() <= dense {
            self.cta_live.resize(dense + 1, 0);
        }
        self.cta_live[dense] = nwarps.clamp(1, MAX_WARPS);
        self.det.exit_watch_begin(dense as u32, WarpId(base));
        let ctx = self.context(at);
        for w in 0..nwarps.clamp(1, MAX_WARPS) {
            self.warps.push(WarpInfo {
                ctx: Context { warp: w, ..ctx },
            });
            self.det.add_warp(WarpId(base + w));
            self.det.set_cluster(WarpId(base + w), cluster);
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

    /// The place of an event for the group's global log.
    fn site(&self, at: At) -> Site {
        let dense = Self::dense_cta(at.slot, at.cta) as usize;
        Site {
            span: SpanToken(at.pc),
            cta: self.cta_site.get(dense).copied().unwrap_or(0),
            warp: at.warp,
        }
    }

    /// The scope of the instruction at `pc` (`tmemu_race::Reach`: for the cross-group log and
    /// for the detector's moral-strength test) and whether it is a read-modify-write: the
    /// decoded instruction keeps only the order.
    fn reach_of(&mut self, pc: u32) -> (Reach, bool) {
        let i = pc as usize;
        if self.reach.len() <= i {
            self.reach.resize(self.kernel.code.len().max(i + 1), 0);
        }
        if self.reach[i] == 0 {
            let opcode = self.kernel.info.get(i).map(|info| {
                self.kernel
                    .source
                    .get(info.opcode.start as usize..info.opcode.end as usize)
                    .unwrap_or("")
            });
            let (reach, rmw) = opcode.map_or((Reach::Grid, true), opcode_reach);
            // `membar.proxy.*` is a proxy fence, not an SC one
            let sc = opcode.is_some_and(|o| {
                (o.starts_with("membar.") && !o.contains(".proxy")) || o.starts_with("fence.sc")
            });
            self.reach[i] = REACH_KNOWN
                | match reach {
                    Reach::Grid => REACH_GRID,
                    Reach::Cluster => REACH_CLUSTER,
                    Reach::Cta => 0,
                }
                | if rmw { REACH_RMW } else { 0 }
                | if sc { REACH_SC } else { 0 };
        }
        let b = self.reach[i];
        (
            if b & REACH_GRID != 0 {
                Reach::Grid
            } else if b & REACH_CLUSTER != 0 {
                Reach::Cluster
            } else {
                Reach::Cta
            },
            b & REACH_RMW != 0,
        )
    }

    /// A thread access's strength for the detector and the cross-group log (weak ones look
    /// nothing up).
    #[inline]
    fn strength(&mut self, pc: u32, order: MemOrder) -> Strength {
        if !order.is_strong() {
            return Strength {
                order,
                reach: Reach::Grid,
                rmw: false,
            };
        }
        let (reach, rmw) = self.reach_of(pc);
        Strength { order, reach, rmw }
    }

    /// A thread access of shared or global memory, for the cross-group log: global ranges
    /// are logged, strong shared accesses only count as release/acquire operations.
    fn log_access(
        &mut self,
        at: At,
        space: MemSpace,
        size: u64,
        kind: AccessKind,
        order: MemOrder,
    ) {
        if space == MemSpace::Global {
            let site = self.site(at);
            let strength = self.strength(at.pc, order);
            self.log
                .thread_access(site, &self.lanes, &self.addrs, size, kind, strength);
        } else if order.is_strong() {
            let (reach, _) = self.reach_of(at.pc);
            if matches!(order, MemOrder::Release | MemOrder::AcqRel) {
                self.log.release_op(reach);
            }
            if matches!(order, MemOrder::Acquire | MemOrder::AcqRel) {
                self.log.acquire_op(reach);
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

    /// Hands the buffered ranges of the current `cp.async` to the detector, each run of one
    /// space and kind (the engine reports the writes, then the reads) as one batch.
    fn flush_cp(&mut self) {
        if self.cp_ranges.is_empty() {
            return;
        }
        let Some((_, e)) = &self.cp_cur else {
            self.cp_ranges.clear();
            return;
        };
        let (op, at) = (e.op, e.at);
        let mut v = std::mem::take(&mut self.cp_ranges);
        let mut ranges = std::mem::take(&mut self.cp_run);
        let mut i = 0;
        while i < v.len() {
            let (space, kind) = (v[i].0, v[i].1);
            ranges.clear();
            while i < v.len() && v[i].0 == space && v[i].1 == kind {
                ranges.push((v[i].2, v[i].3));
                i += 1;
            }
            self.det.op_access_ranges(op, space, &ranges, kind);
        }
        v.clear();
        self.cp_ranges = v;
        self.cp_run = ranges;
        self.collect(at);
    }

    /// One warp-instruction's lane accesses of `size` bytes each (see `memory_lanes`).
    #[allow(clippy::too_many_arguments)]
    fn lanes_batch(
        &mut self,
        at: At,
        lanes: u32,
        space: MemSpace,
        addrs: &[u64; 32],
        size: u64,
        kind: AccessKind,
        order: MemOrder,
    ) {
        self.flush();
        if space == MemSpace::Global && !self.read_only.is_empty() {
            if kind == AccessKind::Read {
                // what `skip_range` answers for a read, without the lanes' lowest and highest
                // address (`lanes_read_only`)
                if order == MemOrder::Weak && lanes_read_only(&self.read_only, lanes, addrs, size) {
                    return;
                }
            } else if let Some((lo, hi)) = lanes_bounds(lanes, addrs) {
                self.skip_range(lo, hi.saturating_add(size), kind, order, at.pc);
            }
        }
        let w = self.warp(at);
        let strength = self.strength(at.pc, order);
        if space == MemSpace::Global {
            let site = self.site(at);
            self.log
                .thread_access_lanes(site, lanes, addrs, size, kind, strength);
        } else {
            self.log_access(at, space, size, kind, order);
        }
        self.det.access_lane_mask(
            w,
            Self::space(at.slot, space),
            lanes,
            addrs,
            size,
            kind,
            strength,
            SpanToken(at.pc),
        );
        self.collect(at);
    }

    /// The detector op of engine op `id`.
    #[inline]
    fn op_entry(&self, id: AsyncId) -> Option<&OpEntry> {
        match &self.cp_cur {
            Some((c, e)) if *c == id => Some(e),
            _ => self.ops.get(&id),
        }
    }

    // --------------------------------------------------------------------------------------
    // Findings

    /// Hands the buffered per-lane accesses to the detector. The test is inline and the rest
    /// out of line: every batch and event flushes, and almost never finds anything (the call
    /// was ~25 host instructions of each of matmul_fp16_bench1024's 1.08 M lane batches).
    #[inline(always)]
    fn flush(&mut self) {
        if self.pending.is_some() {
            self.flush_pending();
        }
    }

    #[inline(never)]
    fn flush_pending(&mut self) {
        if let Some((k, at)) = self.pending.take() {
            if k.space == MemSpace::Global {
                let addrs = std::mem::take(&mut self.addrs);
                let skip =
                    self.skip_global(addrs.iter().copied(), k.size as u64, k.kind, k.order, k.pc);
                self.addrs = addrs;
                if skip {
                    self.addrs.clear();
                    self.lanes.clear();
                    return;
                }
            }
            self.log_access(at, k.space, k.size as u64, k.kind, k.order);
            self.lanes.clear();
            let strength = self.strength(k.pc, k.order);
            self.det.access_lanes(
                k.warp,
                k.space,
                &self.addrs,
                k.size as u64,
                k.kind,
                strength,
                SpanToken(k.pc),
            );
            self.addrs.clear();
            self.collect(at);
        }
    }

    /// Converts the detector's new findings; `at` is where the checked access happened. The
    /// test is inline: every barrier and mbarrier event calls it since TM0214 (~2.8 M host
    /// instructions of matmul_fp16_div16_bench1024's checked run as a call).
    #[inline(always)]
    fn collect(&mut self, at: At) {
        if !self.det.findings().is_empty() {
            self.collect_findings(at);
        }
    }

    #[inline(never)]
    fn collect_findings(&mut self, at: At) {
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
        if r.rule.id == tmemu_tmem::rules::MBARRIER_INIT_RACE.id {
            return self.init_finding(r, span, ctx, related, related_ctx);
        }
        if r.rule.id == tmemu_tmem::rules::ASYNC_SMEM_READ_AT_EXIT.id
            || r.rule.id == tmemu_tmem::rules::ASYNC_SMEM_UNWAITED_AT_EXIT.id
        {
            return self.exit_finding(r, span, related, related_ctx);
        }
        let why = if r.why == tmemu_race::finding::NOT_MORALLY_STRONG {
            scope_why(
                self.kernel,
                (&related_ctx, r.first.span),
                (&ctx, r.second.span),
            )
        } else {
            r.why.to_string()
        };
        let message = format!(
            "{} of {} races the earlier {} at line {}: {}",
            who(&r.second, &ctx),
            region_text(&r.second.region),
            who(&r.first, &related_ctx),
            related.line,
            why
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

    /// Warp `w` exited: when it was its CTA's last, the asynchronous accesses of the CTA's
    /// shared memory not observed by then are findings (TM0234/TM0235).
    fn cta_exit_check(&mut self, at: At, w: WarpId) {
        let dense = Self::dense_cta(at.slot, at.cta);
        let Some(live) = self.cta_live.get_mut(dense as usize) else {
            return;
        };
        if *live == 0 {
            return;
        }
        *live -= 1;
        if *live == 0 {
            self.flush_cp();
            self.det.cta_exit(dense, w, SpanToken(at.pc));
            self.collect(at);
        }
    }

    /// TM0234/TM0235 in their own words: an asynchronous op's access of shared memory and
    /// the exit of the CTA that owns it.
    fn exit_finding(
        &self,
        r: &Race,
        span: Span,
        related: Span,
        related_ctx: Context,
    ) -> RaceFinding {
        let issuer = self.warps.get(r.second.warp.0 as usize).map(|w| w.ctx);
        let mut ctx = issuer.unwrap_or(related_ctx);
        ctx.pc = r.second.span.0;
        ctx.lanes = 0;
        let bytes = match &r.second.region {
            Region::Mem { bytes, .. } => bytes.clone(),
            Region::Tmem { .. } => 0..0,
        };
        let c = related_ctx.cta;
        let side = match r.second.kind {
            AccessKind::Read => "read of",
            AccessKind::Write => "write into",
        };
        let message = format!(
            "the {} {side} shared memory [{:#x}, {:#x}) of CTA ({},{},{}), issued by warp {} of \
             CTA ({},{},{}), is not ordered before that CTA exits at line {} (its last warp, \
             {}): {}",
            r.second.agent.name(),
            bytes.start,
            bytes.end,
            c[0],
            c[1],
            c[2],
            ctx.warp,
            ctx.cta[0],
            ctx.cta[1],
            ctx.cta[2],
            related.line,
            related_ctx.warp,
            r.why
        );
        RaceFinding {
            rule: r.rule,
            message,
            span,
            ctx,
            related,
            related_label: "the CTA's last warp exits here",
            related_ctx,
        }
    }

    /// TM0214 in its own words: an operation on an mbarrier and the init it is not ordered
    /// after (not two data accesses).
    fn init_finding(
        &self,
        r: &Race,
        span: Span,
        ctx: Context,
        related: Span,
        related_ctx: Context,
    ) -> RaceFinding {
        let what = match (r.second.agent, r.second.kind) {
            (Agent::Thread, AccessKind::Read) => "the mbarrier wait",
            (Agent::Thread, AccessKind::Write) => "the mbarrier operation",
            (Agent::Bulk, _) => "the complete_tx of the asynchronous copy",
            (a, _) => a.name(),
        };
        let offset = match &r.second.region {
            Region::Mem { bytes, .. } => bytes.start,
            Region::Tmem { .. } => 0,
        };
        let c = related_ctx.cta;
        let message = format!(
            "{what} by warp {} of CTA ({},{},{}) on the mbarrier at shared offset {offset:#x} of \
             CTA ({},{},{}) is not ordered after its mbarrier.init at line {} (warp {}): {}",
            ctx.warp,
            ctx.cta[0],
            ctx.cta[1],
            ctx.cta[2],
            c[0],
            c[1],
            c[2],
            related.line,
            related_ctx.warp,
            r.why
        );
        RaceFinding {
            rule: r.rule,
            message,
            span,
            ctx,
            related,
            related_label: "the mbarrier is initialised here",
            related_ctx,
        }
    }
}

/// [`launch_findings`] and why the race check is incomplete, if it is: the first SM group
/// whose op budget ran out (its reason names the budget and how to raise it), with the
/// number of such groups. Callers that can report `incomplete` should use this.
pub fn launch_results(observers: Vec<RaceObserver<'_>>) -> (Vec<RaceFinding>, Option<String>) {
    let over: Vec<String> = observers
        .iter()
        .filter_map(RaceObserver::incomplete_reason)
        .collect();
    let reason = over.first().map(|r| {
        format!(
            "race check incomplete on {} of {} SM groups: {r}",
            over.len(),
            observers.len()
        )
    });
    (launch_findings(observers), reason)
}

/// Every race finding of one launch, from its observers (one per SM group, in group order, as
/// `tmemu_sim::run_observed` returns them): each group's own findings, then the global-memory
/// races *between* groups (`tmemu_race::cross_group_races`: accesses of clusters on different
/// SM groups that no synchronisation through global memory can order), TM0212 with the other
/// group's access as the related span.
pub fn launch_findings(observers: Vec<RaceObserver<'_>>) -> Vec<RaceFinding> {
    // each generation of a group is a group of its own here (module docs, "Generations")
    let mut observers: Vec<RaceObserver<'_>> = observers
        .into_iter()
        .flat_map(RaceObserver::into_generations)
        .collect();
    for o in &mut observers {
        o.flush();
    }
    let cross: Vec<RaceFinding> = {
        let logs: Vec<&GlobalLog> = observers.iter().map(|o| &o.log).collect();
        cross_group_races(&logs)
            .iter()
            .map(|r| cross_finding(&observers, r))
            .collect()
    };
    let mut out: Vec<RaceFinding> = observers
        .into_iter()
        .flat_map(RaceObserver::into_findings)
        .collect();
    out.extend(cross);
    out
}

/// The context of one side of a cross-group race.
fn cross_context(observers: &[RaceObserver<'_>], a: &CrossAccess) -> Context {
    let Some(o) = observers.get(a.group as usize) else {
        return Context::default();
    };
    let ctaid = o
        .cta_ids
        .get(a.site.cta as usize)
        .copied()
        .unwrap_or_default();
    let d = o.cluster_dim;
    Context {
        cluster: [
            ctaid[0] / d[0].max(1),
            ctaid[1] / d[1].max(1),
            ctaid[2] / d[2].max(1),
        ],
        cta: ctaid,
        warp: a.site.warp,
        lanes: 1 << a.lane.min(31),
        pc: a.site.span.0,
    }
}

fn cross_finding(observers: &[RaceObserver<'_>], r: &CrossRace) -> RaceFinding {
    let kernel = observers[r.second.group as usize].kernel;
    let span_of = |t: SpanToken| {
        kernel
            .info
            .get(t.0 as usize)
            .map(|i| i.span)
            .unwrap_or(Span::DUMMY)
    };
    let (ctx, related_ctx) = (
        cross_context(observers, &r.second),
        cross_context(observers, &r.first),
    );
    let (span, related) = (span_of(r.second.site.span), span_of(r.first.site.span));
    let who = |a: &CrossAccess, c: &Context| {
        let what = match (a.bulk, a.strong) {
            (true, true) => "TMA reduction",
            (true, false) => "bulk copy",
            (false, true) => "atomic",
            (false, false) => "plain",
        };
        format!(
            "the {what} {} by warp {} lane {} of CTA ({},{},{})",
            kind_word(a.kind).trim_start(),
            c.warp,
            a.lane,
            c.cta[0],
            c.cta[1],
            c.cta[2]
        )
    };
    let message = if r.first.strong && r.second.strong {
        format!(
            "{} of global bytes {:#x}..{:#x} races {} at line {}: {}",
            who(&r.second, &ctx),
            r.bytes.start,
            r.bytes.end,
            who(&r.first, &related_ctx),
            related.line,
            scope_why(
                kernel,
                (&related_ctx, r.first.site.span),
                (&ctx, r.second.site.span)
            )
        )
    } else {
        format!(
            "{} of global bytes {:#x}..{:#x} races {} at line {}: no happens-before between the \
             accesses. The CTAs are in different clusters, which share no barrier or shared \
             memory: only synchronisation through global memory could order them (a release \
             after one access and an acquire before the other: st.release/atom.release and \
             ld.acquire/atom.acquire at .gpu scope, or fences around relaxed atomics), and none \
             does. Use atomics (red/atom) for a reduction, or give each CTA its own output range",
            who(&r.second, &ctx),
            r.bytes.start,
            r.bytes.end,
            who(&r.first, &related_ctx),
            related.line
        )
    };
    RaceFinding {
        rule: &tmemu_tmem::rules::GLOBAL_DATA_RACE,
        message,
        span,
        ctx,
        related,
        related_label: match r.first.kind {
            AccessKind::Read => "conflicting read by a CTA of another cluster here",
            AccessKind::Write => "conflicting write by a CTA of another cluster here",
        },
        related_ctx,
    }
}

/// Why two strong accesses race: their instructions, their CTAs and what their scopes leave
/// out (PTX ISA §8, "Morally strong operations"; "Conflict and Data-races").
fn scope_why(
    kernel: &Kernel,
    first: (&Context, SpanToken),
    second: (&Context, SpanToken),
) -> String {
    let opcode = |t: SpanToken| {
        kernel
            .info
            .get(t.0 as usize)
            .and_then(|i| {
                kernel
                    .source
                    .get(i.opcode.start as usize..i.opcode.end as usize)
            })
            .unwrap_or("a strong access")
    };
    let cta = |c: &Context| format!("CTA ({},{},{})", c.cta[0], c.cta[1], c.cta[2]);
    let ((a, ta), (b, tb)) = (first, second);
    let relation = if a.cta == b.cta {
        "of the same CTA"
    } else if a.cluster == b.cluster {
        "of the same cluster"
    } else {
        "of another cluster"
    };
    format!(
        "{} by {} and {} by {} {relation} are not morally strong (PTX ISA §8, \"Morally strong \
         operations\": each must be strong with a scope that includes the other's thread; .cta \
         includes only its own CTA, .cluster only its own cluster), and no happens-before \
         orders them, so they are a data race (\"Conflict and Data-races\"). Give both a scope \
         that includes the other thread (.gpu: atomicAdd, not atomicAdd_block) or order them",
        opcode(tb),
        cta(b),
        opcode(ta),
        cta(a),
    )
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

    #[inline]
    fn ignores_global_read(&self, lo: u64, hi: u64) -> bool {
        // an op's global reads are weak; ignored by every generation alike (one list)
        self.in_read_only(lo, hi)
    }

    fn cta_begin(&mut self, at: At, warps: u32) {
        if at.cta == 0 {
            // the engine announces a cluster's CTAs in rank order
            self.new_cluster(at.slot);
        } else if let Some(o) = self.older_for_slot(at.slot) {
            return o.cta_begin(at, warps);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        self.warps_seen = self.warps_seen.saturating_add(warps.clamp(1, MAX_WARPS));
        self.begin_cta(at, warps);
    }

    #[inline(always)]
    fn instruction(&mut self, at: At) {
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.instruction(at);
        }
        if self.over_budget.is_some() {
            return;
        }
        if self.pending.is_some() {
            self.flush();
        }
    }

    #[inline]
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
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.memory(at, lane, space, addr, size, kind, order);
        }
        if self.over_budget.is_some() {
            return;
        }
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
        self.lanes.push(lane as u8);
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
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.memory_lanes(at, lanes, space, addrs, size, kind, order);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.lanes_batch(at, lanes, space, addrs, u64::from(size), kind, order);
    }

    #[inline(always)]
    fn wants_memory_lanes_vec(&self) -> bool {
        true
    }

    /// A vector access is one batch of per-lane ranges of `size * elems` bytes: the union of
    /// its bytes, so the same merged ranges (and the same cross-group log entries) as the
    /// per-lane, per-element events, for one setup per warp-instruction.
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
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.memory_lanes_vec(at, lanes, space, addrs, size, elems, kind, order);
        }
        if self.over_budget.is_some() {
            return;
        }
        let total = u64::from(size) * u64::from(elems);
        self.lanes_batch(at, lanes, space, addrs, total, kind, order);
    }
    fn fence(&mut self, at: At, f: Fence) {
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.fence(at, f);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        let w = self.warp(at);
        if matches!(f, Fence::AcqRel | Fence::MbarInit) {
            let (reach, _) = self.reach_of(at.pc);
            self.log.fence(reach);
            if reach == Reach::Grid && self.reach[at.pc as usize] & REACH_SC != 0 {
                return self.det.fence_sc(w);
            }
        }
        self.det.fence(w, f);
    }

    fn sync_arrive(&mut self, at: At, key: SyncKey, sem: Sem) {
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.sync_arrive(at, key, sem);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        let w = self.warp(at);
        // `bar`, `barrier.cluster` and mbarriers reach no further than the cluster: no part of
        // a release pattern another cluster can synchronise with (PTX ISA §8, "Morally strong
        // operations"); the global log ignores them.
        let span = SpanToken(at.pc);
        self.det.arrive_at(w, Self::key(at.slot, key), sem, span);
        self.collect(at);
    }

    fn sync_complete(&mut self, at: At, key: SyncKey) {
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.sync_complete(at, key);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        self.det.sync_complete(Self::key(at.slot, key));
    }

    fn sync_wait(&mut self, at: At, key: SyncKey, sem: Sem) {
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.sync_wait(at, key, sem);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        let w = self.warp(at);
        // cluster-scoped at most, as in `sync_arrive`
        self.det
            .wait_at(w, Self::key(at.slot, key), sem, SpanToken(at.pc));
        self.collect(at);
    }

    fn mbar_init(&mut self, at: At, key: SyncKey) {
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.mbar_init(at, key);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        let w = self.warp(at);
        self.det
            .mbar_init(w, Self::key(at.slot, key), SpanToken(at.pc));
    }

    fn mbar_use(&mut self, at: At, key: SyncKey) {
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.mbar_use(at, key);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        let w = self.warp(at);
        self.det
            .mbar_use(w, Self::key(at.slot, key), SpanToken(at.pc));
        self.collect(at);
    }

    fn async_issue(&mut self, at: At, id: AsyncId, kind: OpKind) {
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.async_issue(at, id, kind);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        let w = self.warp(at);
        self.flush_cp();
        if self.det.stats().op_slots >= self.op_budget {
            self.give_up();
            return;
        }
        if kind == OpKind::CpAsync {
            // one op per warp and cp.async-group; it joins the lanes' groups here, so
            // `cp_async_add` has nothing left to do
            let op = self.det.cp_async_issue(w, at.lanes, SpanToken(at.pc));
            let e = OpEntry {
                op,
                slot: at.slot,
                at,
                reduce: false,
            };
            self.cp_cur = Some((id, e));
            return;
        }
        let kind = match kind {
            // The accumulator key only has to be injective within the domain: fold the CTA in.
            OpKind::Mma { cta_group, accum } => OpKind::Mma {
                cta_group,
                accum: accum ^ ((Self::dense_cta(at.slot, at.cta) as u64) << 48),
            },
            k => k,
        };
        // TMA reductions, tensor or not, reduce each element atomically
        let reduce = kind == OpKind::Bulk
            && match self.kernel.code.get(at.pc as usize) {
                Some(Inst::Tma(t)) => matches!(t.op, TmaOp::Reduce { .. }),
                Some(Inst::BulkReduce(_)) => true,
                _ => false,
            };
        let op = self.det.issue(w, kind, SpanToken(at.pc));
        self.ops.insert(
            id,
            OpEntry {
                op,
                slot: at.slot,
                at,
                reduce,
            },
        );
    }

    fn async_access(&mut self, id: AsyncId, place: Place, kind: AccessKind) {
        if let Some(o) = self.older_for_async(id) {
            return o.async_access(id, place, kind);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        let Some(e) = self.op_entry(id) else { return };
        let (op, at, reduce, slot) = (e.op, e.at, e.reduce, e.slot);
        if let Place::Mem {
            space: MemSpace::Global,
            addr,
            len,
        } = place
        {
            // an op's global reads are weak (a TMA load, a copy's source)
            if self.skip_global(std::iter::once(addr), len, kind, MemOrder::Weak, at.pc) {
                return;
            }
            let site = self.site(at);
            let lane = at.lanes.trailing_zeros().min(31) as u8;
            self.log.op_access(site, lane, addr, len, kind, reduce);
        }
        if let (Some(_), Place::Mem { space, addr, len }) = (&self.cp_cur, place) {
            let space = Self::space(slot, space);
            self.cp_ranges
                .push((space, kind, addr, addr.saturating_add(len)));
            return;
        }
        self.det.op_access(op, Self::place(slot, place), kind);
        self.collect(at);
    }

    fn cp_async_writes(&mut self, id: AsyncId, cta: u32, ranges: &[(u32, u32)]) {
        // The copy's destination checked at once, without the per-range calls and the
        // buffering in `cp_ranges` that `async_access` and `flush_cp` give them: the same
        // detector calls in the same order (nothing is buffered before them: `async_issue`
        // flushed the last copy's ranges) and the findings collected at the same `at`.
        let mine = self.cp_cur.as_ref().is_some_and(|(c, _)| *c == id);
        if !mine || !self.cp_ranges.is_empty() || self.over_budget.is_some() {
            for place in tmemu_sim::observer::shared_places(cta, ranges) {
                self.async_access(id, place, AccessKind::Write);
            }
            return;
        }
        self.flush();
        let Some((_, e)) = &self.cp_cur else { return };
        let (op, at, slot) = (e.op, e.at, e.slot);
        let space = Self::space(slot, MemSpace::Shared { cta });
        let mut run = std::mem::take(&mut self.cp_run);
        run.clear();
        run.extend(ranges.iter().map(|&(s, e)| (u64::from(s), u64::from(e))));
        self.det
            .op_access_ranges(op, space, &run, AccessKind::Write);
        self.cp_run = run;
        self.collect(at);
    }

    fn async_complete(&mut self, id: AsyncId, _time: u64) {
        if let Some(o) = self.older_for_async(id) {
            return o.async_complete(id, _time);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        if self.cp_cur.as_ref().is_some_and(|(c, _)| *c == id) {
            // Its completion clock is computed where a thread first observes it: the op
            // may still take more copies of its group.
            self.flush_cp();
            return;
        }
        if let Some(op) = self.op_entry(id).map(|e| e.op) {
            self.det.complete(op);
        }
    }

    fn async_arrive(&mut self, id: AsyncId, key: SyncKey) {
        if let Some(o) = self.older_for_async(id) {
            return o.async_arrive(id, key);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        if let Some(e) = self.ops.get(&id) {
            let at = e.at;
            self.det.op_arrive(e.op, Self::key(e.slot, key));
            self.collect(at);
        }
    }

    fn async_observe(&mut self, at: At, id: AsyncId) {
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.async_observe(at, id);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        let w = self.warp(at);
        if let Some(e) = self.ops.get(&id) {
            self.det.observe(w, e.op);
        }
    }

    fn bulk_group_add(&mut self, at: At, id: AsyncId) {
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.bulk_group_add(at, id);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        let w = self.warp(at);
        if let Some(e) = self.ops.get(&id) {
            // bulk async-groups are per thread: the issuing lane's
            self.det.bulk_group_add_lanes(w, at.lanes, e.op);
        }
    }

    fn bulk_group(&mut self, at: At, ev: BulkGroup) {
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.bulk_group(at, ev);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        let w = self.warp(at);
        match ev {
            BulkGroup::Commit => self.det.bulk_commit_lanes(w, at.lanes),
            BulkGroup::Wait { n, read } => self.det.bulk_wait_lanes(w, at.lanes, n, read),
        }
    }

    fn cp_async_add(&mut self, at: At, id: AsyncId) {
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.cp_async_add(at, id);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        if self.cp_cur.as_ref().is_some_and(|(c, _)| *c == id) {
            // joined its lanes' groups at issue
            self.flush_cp();
            self.cp_cur = None;
            return;
        }
        let w = self.warp(at);
        if let Some(e) = self.ops.get(&id) {
            // cp.async-groups are per thread: each issuing lane's
            self.det.cp_async_add_lanes(w, at.lanes, e.op);
        }
    }

    fn cp_async_group(&mut self, at: At, ev: CpAsyncGroup) {
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.cp_async_group(at, ev);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        let w = self.warp(at);
        match ev {
            CpAsyncGroup::Commit => self.det.cp_async_commit_lanes(w, at.lanes),
            CpAsyncGroup::Wait { n } => self.det.cp_async_wait_lanes(w, at.lanes, n),
            CpAsyncGroup::WaitAll => {
                self.det.cp_async_commit_lanes(w, at.lanes);
                self.det.cp_async_wait_lanes(w, at.lanes, 0);
            }
            CpAsyncGroup::MbarArrive => self.det.cp_async_arrive_lanes(w, at.lanes),
        }
    }

    fn commit(&mut self, at: At, id: CommitId, cta_group: u8) {
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.commit(at, id, cta_group);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        let w = self.warp(at);
        let c = self.det.commit_at(w, cta_group, SpanToken(at.pc));
        self.commits.insert(id, (c, at));
    }

    fn commit_fire(&mut self, id: CommitId, keys: &[SyncKey], _time: u64) {
        if let Some(o) = self.older_for_commit(id) {
            return o.commit_fire(id, keys, _time);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        if let Some((c, at)) = self.commits.remove(&id) {
            let keys: Vec<SyncKey> = keys.iter().map(|&k| Self::key(at.slot, k)).collect();
            self.det.commit_fire(c, &keys);
            self.collect(at);
        }
    }

    fn tc_wait(&mut self, at: At, which: TcWait) {
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.tc_wait(at, which);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        let w = self.warp(at);
        match which {
            TcWait::Ld => self.det.wait_ld(w),
            TcWait::St => self.det.wait_st(w),
        }
    }

    fn alloc_address_store(&mut self, at: At, space: MemSpace, addr: u64) {
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.alloc_address_store(at, space, addr);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        let w = self.warp(at);
        self.det
            .alloc_address_store(w, Self::space(at.slot, space), addr, SpanToken(at.pc));
        self.collect(at);
    }

    fn tmem_lifetime(&mut self, at: At, ev: TmemLifetime) {
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.tmem_lifetime(at, ev);
        }
        if self.over_budget.is_some() {
            return;
        }
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

    fn group_end(&mut self) {
        // buffered accesses go in first; then every generation's shadows are dead
        for g in &mut self.older {
            g.flush();
            g.det.release();
        }
        self.flush();
        self.det.release();
    }

    fn warp_exit(&mut self, at: At) {
        if let Some(o) = self.older_for_slot(at.slot) {
            return o.warp_exit(at);
        }
        if self.over_budget.is_some() {
            return;
        }
        self.flush();
        let w = self.warp(at);
        self.det.warp_exit(w);
        self.cta_exit_check(at, w);
    }
}

/// The active lanes' lowest and highest address (`None`: no lane active), without a branch
/// per lane.
#[inline]
fn lanes_bounds(lanes: u32, addrs: &[u64; 32]) -> Option<(u64, u64)> {
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for (l, &a) in addrs.iter().enumerate() {
        let on = lanes >> l & 1 != 0;
        lo = lo.min(if on { a } else { u64::MAX });
        hi = hi.max(if on { a } else { 0 });
    }
    (lo <= hi).then_some((lo, hi))
}

/// Whether the bytes of every active lane's `size`-byte access lie in one of `ranges` (the
/// read-only skip of a weak read): the lanes' `[lowest, highest + size)` inside one range, as
/// [`RaceObserver::skip_range`] asks, without computing them.
///
/// A range holding all the lanes holds the first active one, so only the ranges holding it
/// are tried (one: buffers are disjoint). The aligned block that holds every lane (from the
/// bits in which the lanes' addresses differ) is tried first; when it reaches past the range,
/// one pass of the distance of every lane above the range's start, unsigned (a lane below
/// the start is far above), decides: no minimum, no mask per lane when all are active. Why:
/// matmul_fp16_bench1024 reads every operand element with an `ld.global.b16` of a read-only
/// buffer, 524 288 warp-instructions whose skip cost ~340 host
/// instructions each with the lowest and highest address (perf.md, session 12). A range
/// ending at `u64::MAX` or an empty access takes the reference (`lanes_bounds`), where the
/// saturated end differs. `tests::lanes_read_only_matches_the_bounds` holds the two to the
/// same answers.
#[inline]
fn lanes_read_only(ranges: &[(u64, u64)], lanes: u32, addrs: &[u64; 32], size: u64) -> bool {
    let bounds_in = |s: u64, e: u64| {
        lanes_bounds(lanes, addrs).is_some_and(|(lo, hi)| s <= lo && hi.saturating_add(size) <= e)
    };
    if lanes == 0 || size == 0 {
        return ranges.iter().any(|&(s, e)| bounds_in(s, e));
    }
    let a0 = addrs[lanes.trailing_zeros() as usize];
    // The bits in which some lane's address differs from the first's: every lane lies in
    // the aligned block of 2^k bytes holding `a0` (a vectorised XOR and OR per lane; a
    // warp's lanes usually share all but the low 6 to 8 bits).
    let mut diff = 0u64;
    if lanes == u32::MAX {
        for &a in addrs {
            diff |= a ^ a0;
        }
    } else {
        for (l, &a) in addrs.iter().enumerate() {
            diff |= (a ^ a0) & 0u64.wrapping_sub(u64::from(lanes >> l & 1));
        }
    }
    let k = 64 - diff.leading_zeros();
    ranges.iter().any(|&(s, e)| {
        if e == u64::MAX {
            return bounds_in(s, e);
        }
        if !(s <= a0 && a0 < e) {
            return false;
        }
        // the whole block inside: every lane is (its last byte at most the block's last
        // address plus `size - 1`)
        if k < 63 {
            let block = a0 >> k << k;
            let last = block + ((1u64 << k) - 1);
            if s <= block && last.checked_add(size).is_some_and(|end| end <= e) {
                return true;
            }
        }
        let Some(room) = (e - s).checked_sub(size) else {
            return false;
        };
        let mut far = 0u64;
        if lanes == u32::MAX {
            for &a in addrs {
                far = far.max(a.wrapping_sub(s));
            }
        } else {
            for (l, &a) in addrs.iter().enumerate() {
                let x = if lanes >> l & 1 != 0 { a } else { a0 };
                far = far.max(x.wrapping_sub(s));
            }
        }
        far <= room
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The skip as it was: the lanes' lowest and highest address, then one range holding both.
    fn reference(ranges: &[(u64, u64)], lanes: u32, addrs: &[u64; 32], size: u64) -> bool {
        lanes_bounds(lanes, addrs).is_some_and(|(lo, hi)| {
            let hi = hi.saturating_add(size);
            ranges.iter().any(|&(s, e)| s <= lo && hi <= e)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16384))]
        /// Lanes inside, across the ends of and outside one or two (possibly overlapping)
        /// ranges, anywhere in the address space.
        #[test]
        fn lanes_read_only_matches_the_bounds(
            lanes in prop_oneof![Just(u32::MAX), any::<u32>(), (0u32..32).prop_map(|l| 1u32 << l)],
            size in prop_oneof![Just(0u64), 1u64..17, Just(64)],
            base in prop_oneof![Just(0u64), 1u64 << 20..1 << 40, (0u64..512).prop_map(|d| u64::MAX - d)],
            offs in proptest::array::uniform32(0u64..600),
            // lanes clustered in a small span (a warp's usual access, the aligned-block test)
            // near the ranges' ends, or spread
            cluster in (0u64..600, prop_oneof![Just(1u64), Just(2), Just(64), Just(128), Just(600)]),
            r0 in (0u64..700, 0u64..700),
            r1 in (0u64..700, 0u64..700),
            two in any::<bool>(),
            to_top in any::<bool>(),
            near in any::<bool>(),
        ) {
            let addrs: [u64; 32] =
                std::array::from_fn(|l| base.wrapping_add(cluster.0 + offs[l] % cluster.1));
            let range = |(a, b): (u64, u64)| {
                let s = base.wrapping_add(a.min(b));
                let e = base.saturating_add(a.max(b));
                (s, if to_top && a > b { u64::MAX } else { e })
            };
            // the first range's ends within 2 bytes of the cluster's
            let r0 = if near {
                let (c, w) = cluster;
                ((c + r0.0 % 5).saturating_sub(2), (c + w + r0.1 % 5).saturating_sub(2))
            } else {
                r0
            };
            let mut ranges = vec![range(r0)];
            if two {
                ranges.push(range(r1));
            }
            prop_assert_eq!(
                lanes_read_only(&ranges, lanes, &addrs, size),
                reference(&ranges, lanes, &addrs, size)
            );
        }
    }

    /// Every lane inside a read-only buffer is skipped, one byte past its end is not.
    #[test]
    fn a_warp_read_inside_a_buffer_is_read_only() {
        let ranges = [(0x1000, 0x1100), (0x2000, 0x2400)];
        let mut addrs: [u64; 32] = std::array::from_fn(|l| 0x2000 + 2 * ((l as u64 * 7) % 32));
        assert!(lanes_read_only(&ranges, u32::MAX, &addrs, 2));
        addrs[5] = 0x23ff;
        assert!(!lanes_read_only(&ranges, u32::MAX, &addrs, 2));
        assert!(lanes_read_only(&ranges, !(1 << 5), &addrs, 2));
        addrs[0] = 0x1ffe;
        assert!(!lanes_read_only(&ranges, !(1 << 5), &addrs, 2));
    }
}
