//! The detector: per-warp and per-op clocks, synchronisation objects, shadow memories, and the
//! event methods the engine calls.

use std::collections::{HashMap, HashSet, VecDeque};
use std::ops::Range;

use smallvec::SmallVec;

use crate::access::Check;
use crate::clock::{ActorIdx, Stamp, Time, VClock, Views};
use crate::cross::{Reach, Strength};
use crate::dense::{FxBuild, MemShadow, Shadow};
use crate::event::{
    AccessKind, Agent, Fence, MemOrder, MemSpace, OpKind, Place, Sem, SpanToken, SyncKey, TmemRect,
    WarpId,
};
use crate::finding::{self, Access, Cause, Race, Region};
use crate::shadow::{Rec, Scope, ShadowMap, NO_CLUSTER};

#[path = "cp_async.rs"]
mod cp_async;
#[path = "exit_watch.rs"]
mod exit_watch;
#[path = "mbar_init.rs"]
mod mbar_init;

/// Above this many op actors, a completed op's slot is reused even if some live warp never
/// observed its completion (which can only hide races, never invent them).
const MAX_OP_SLOTS: usize = 256;
/// TMEM lanes.
const TMEM_LANES: u64 = 128;
/// Committed bulk async-groups a warp keeps before the oldest is taken as observed.
const MAX_BULK_GROUPS: usize = 64;

/// The three views a synchronisation carries (see the crate docs).
#[derive(Clone, Debug, Default)]
struct Channels {
    /// Generic happens-before (release/acquire).
    gen: VClock,
    /// Proxy-fenced: accesses known to be bridged by `fence.proxy.async`.
    pf: VClock,
    /// tcgen05 ordering: what `fence::before_thread_sync` published.
    tc: VClock,
}

impl Channels {
    fn join(&mut self, o: &Channels) {
        self.gen.join(&o.gen);
        self.pf.join(&o.pf);
        self.tc.join(&o.tc);
    }
}

/// Handle of an asynchronous op (actor slot plus issue time, so stale handles are detected).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId {
    actor: ActorIdx,
    issue: Time,
}

/// Handle of a `tcgen05.commit` waiting for its ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CommitId(u32);

#[derive(Default, Debug)]
struct GroupOps {
    /// Committable ops (mma/cp/shift) of this cta_group issued and not yet complete.
    inflight: SmallVec<[OpId; 8]>,
    /// Completion clocks of those that completed: every later commit carries them.
    done: VClock,
}

#[derive(Debug)]
struct WarpState {
    actor: ActorIdx,
    live: bool,
    /// The warp's cluster (`RaceDetector::set_cluster`; `NO_CLUSTER` if never told), kept in
    /// the records of its strong accesses for the `.cluster` scope test.
    cluster: u32,
    /// Generic, proxy-fenced, and the tcgen05 view (what the warp's next async tcgen05 op is
    /// ordered after).
    v: Views,
    /// Published by `fence::before_thread_sync`, released by every later synchronisation.
    tc_pub: VClock,
    /// Acquired by synchronisations, joined into `tc` by `fence::after_thread_sync`.
    tc_acq: VClock,
    /// Snapshot of the last release fence: later relaxed strong stores release it.
    fence_rel: Option<Channels>,
    /// Whether the warp executed `fence.mbarrier_init`: its later relaxed barrier arrivals
    /// release its inits (its own clock entry, in the inits channel only), so they reach the
    /// cluster through `barrier.cluster.arrive.relaxed` + `wait` (TM0214, `mbar_init.rs`).
    init_fenced: bool,
    /// Inits acquired through the inits channel (empty in kernels without the pattern).
    init_acq: VClock,
    /// Clocks seen by relaxed strong loads, acquired by the next acquire fence.
    fence_acq: Channels,
    groups: [GroupOps; 2],
    /// Whether the warp ever issued an async tcgen05 op (its tcgen05 view then matters for
    /// slot reuse).
    issued_tcgen05: bool,
    ld_pending: SmallVec<[OpId; 4]>,
    st_pending: SmallVec<[OpId; 4]>,
    /// Bulk async-groups per lane (empty until the warp's first `.bulk_group` event, then 32):
    /// they are per thread in the ISA (PTX ISA §9.7.9.27.2: commit_group and wait_group act on
    /// the executing thread's groups), so one lane's wait never observes another lane's copy.
    bulk: Vec<LaneBulk>,
    /// Non-bulk `cp.async` async-groups per lane, the same way (a sequence separate from the
    /// bulk one: `cp.async.wait_group` never waits for `cp.async.bulk` groups, PTX ISA
    /// §9.7.9.25.3.2). Empty while `cpw` holds them.
    cpa: Vec<LaneBulk>,
    /// The warp's cp.async-groups while its lanes commit and wait together (`cp_async.rs`).
    cpw: cp_async::WarpGroups,
    /// The `cp.async` op still taking this warp's copies (one op per warp and group, see
    /// `cp_async.rs`).
    cpa_open: Option<cp_async::OpenCpAsync>,
    /// The synchronisation objects this warp's waits joined last: (key, `SyncObj::version`,
    /// whether that join was ordering). A warp's views only grow, so a wait of the same
    /// version (ordering no stronger) would join nothing: it is skipped (the barrier and
    /// mbarrier waits of a GEMM loop were ~3 % of a checked run).
    joined: SmallVec<[(SyncKey, u64, bool); 4]>,
}

/// Which per-thread async-group sequence an event acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GroupSeq {
    Bulk,
    CpAsync,
}

/// One thread's bulk async-groups.
#[derive(Debug, Default)]
struct LaneBulk {
    /// `.bulk_group` copies since the thread's last `cp.async.bulk.commit_group`.
    open: SmallVec<[OpId; 4]>,
    /// Committed groups, oldest first, with whether their reads were observed
    /// (`wait_group.read`).
    groups: VecDeque<(SmallVec<[OpId; 4]>, bool)>,
}

/// The lanes of a mask, lowest first.
fn lanes_of(mask: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |l| mask >> l & 1 != 0)
}

impl WarpState {
    fn new(actor: ActorIdx) -> Self {
        let mut v = Views::default();
        v.gen_mut().raise(actor, 1);
        WarpState {
            actor,
            live: true,
            cluster: NO_CLUSTER,
            v,
            tc_pub: VClock::new(),
            tc_acq: VClock::new(),
            fence_rel: None,
            init_fenced: false,
            init_acq: VClock::new(),
            fence_acq: Channels::default(),
            groups: Default::default(),
            issued_tcgen05: false,
            ld_pending: SmallVec::new(),
            st_pending: SmallVec::new(),
            bulk: Vec::new(),
            cpa: Vec::new(),
            cpw: Default::default(),
            cpa_open: None,
            joined: SmallVec::new(),
        }
    }

    fn lane_groups(&mut self, seq: GroupSeq, lane: usize) -> &mut LaneBulk {
        let v = match seq {
            GroupSeq::Bulk => &mut self.bulk,
            GroupSeq::CpAsync => &mut self.cpa,
        };
        if v.is_empty() {
            v.resize_with(32, LaneBulk::default);
        }
        &mut v[lane & 31]
    }

    fn now(&self) -> Stamp {
        Stamp {
            actor: self.actor,
            time: self.v.gen().get(self.actor),
        }
    }

    fn release_channels(&self) -> Channels {
        Channels {
            gen: self.v.gen().clone(),
            pf: self.v.pf().clone(),
            tc: self.tc_pub.clone(),
        }
    }

    fn acquire(&mut self, ch: &Channels, ordering: bool) {
        if ordering {
            self.v.gen_mut().join(&ch.gen);
            self.v.pf_mut().join(&ch.pf);
        }
        self.tc_acq.join(&ch.tc);
    }
}

#[derive(Debug)]
struct OpState {
    kind: OpKind,
    issuer: WarpId,
    span: SpanToken,
    issue: Time,
    /// View for shared/global accesses: issuer's generic ∪ tcgen05 view at issue.
    gen: VClock,
    pf: VClock,
    /// View for TMEM accesses: issuer's tcgen05 view at issue.
    tc: VClock,
    /// Completion clock once complete.
    done: Option<VClock>,
    /// A recycled state's last completion clock, whose buffer the next one reuses.
    done_spare: VClock,
    /// Commits and pending waits that still need `done`; the slot is not reused before 0.
    refs: u32,
}

#[derive(Debug)]
enum Actor {
    Warp,
    Op {
        next_time: Time,
        op: Option<Box<OpState>>,
    },
}

#[derive(Debug)]
struct CommitState {
    clocks: Channels,
    ops: SmallVec<[OpId; 8]>,
    /// The committing warp and instruction, for TM0214 at the arrive.
    warp: WarpId,
    span: SpanToken,
}

#[derive(Debug, Default)]
struct SyncObj {
    pending: Channels,
    /// Joined over all completed generations/phases (over-approximates: can hide, never invent).
    completed: Channels,
    /// Changes whenever `completed` does (a detector-wide counter, so an object forgotten and
    /// created again never repeats a version): a wait that already joined this version joins
    /// nothing new (`WarpState::joined`).
    version: u64,
    /// An mbarrier's latest `mbarrier.init`, which every operation on it must be ordered after
    /// (TM0214, `mbar_init.rs`).
    init: Option<mbar_init::InitRec>,
    /// The inits channel (`mbar_init.rs`): pending and completed as `pending`/`completed`,
    /// empty unless a warp that executed `fence.mbarrier_init` made a relaxed arrival.
    init_pending: VClock,
    init_done: VClock,
}

/// Counters for benchmarks and for judging how much the detector saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub thread_accesses: u64,
    pub op_accesses: u64,
    pub ops_issued: u64,
    /// Distinct op actor slots ever created (bounded by recycling).
    pub op_slots: u64,
    pub slots_reused: u64,
    /// Reuses of a slot some live warp had not observed (may hide races).
    pub forced_reuses: u64,
    /// Findings dropped because the same pair of instructions was already reported.
    pub duplicate_findings: u64,
    /// Events naming an op that no longer exists (an engine bug; ignored).
    pub stale_handles: u64,
    /// `cp.async` instructions merged into their warp's open op instead of issuing one
    /// ([`RaceDetector::cp_async_issue`]).
    pub ops_merged: u64,
}

/// Counters of several detectors (an SM group's generations), added field by field.
impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.thread_accesses += o.thread_accesses;
        self.op_accesses += o.op_accesses;
        self.ops_issued += o.ops_issued;
        self.op_slots += o.op_slots;
        self.slots_reused += o.slots_reused;
        self.forced_reuses += o.forced_reuses;
        self.duplicate_findings += o.duplicate_findings;
        self.stale_handles += o.stale_handles;
        self.ops_merged += o.ops_merged;
    }
}

#[derive(Default)]
struct Memories {
    /// Dense shadows (crate `dense`); the run-length map when `reference`. Indexed by the
    /// domain's CTA index, which has holes (`slot * 16 + rank`): created on first use.
    shared: Vec<Option<MemShadow>>,
    global: MemShadow,
    tmem: Vec<ShadowMap>,
    reference: bool,
}

impl Memories {
    fn mem(&mut self, space: MemSpace) -> &mut MemShadow {
        match space {
            MemSpace::Global => &mut self.global,
            MemSpace::Shared { cta } => {
                let (i, reference) = (cta as usize, self.reference);
                if self.shared.len() <= i {
                    self.shared.resize_with(i + 1, || None);
                }
                self.shared[i].get_or_insert_with(|| MemShadow::new(reference))
            }
        }
    }
}

fn grow(v: &mut Vec<ShadowMap>, i: u32) -> &mut ShadowMap {
    let i = i as usize;
    if v.len() <= i {
        v.resize_with(i + 1, ShadowMap::default);
    }
    &mut v[i]
}

/// The views an access is checked under.
pub(crate) struct View<'a> {
    pub hb: &'a VClock,
    pub pf: &'a VClock,
    pub generic: &'a VClock,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Conflict {
    pub first: Rec,
    pub first_kind: AccessKind,
    pub cause: Cause,
    pub start: u64,
    pub end: u64,
}

/// PTX ISA §9.7.16.6.2: pairs that execute in issue order without waiting.
fn pipelined(prev: &Rec, next: &Rec) -> bool {
    if prev.cta_group != next.cta_group {
        return false;
    }
    match (prev.agent, next.agent) {
        (Agent::Mma, Agent::Mma) => prev.pipe == next.pipe,
        (Agent::Cp, Agent::Mma) | (Agent::Shift, Agent::Mma) | (Agent::Mma, Agent::Shift) => true,
        (Agent::Shift, Agent::Cp) => next.pipe == 1,
        _ => false,
    }
}

pub(crate) fn ordered_in(hb: &VClock, prev: &Rec, next: &Rec, tmem: bool) -> bool {
    hb.covers(prev.stamp)
        || (tmem
            && pipelined(prev, next)
            // The op's issue is one tick before its completion stamp.
            && hb.get(prev.stamp.actor).saturating_add(1) >= prev.stamp.time)
}

/// The maximal ranges of the bytes of `size`-byte accesses at `addrs`, in address order.
///
/// Intervals that touch are merged first in arrival order (a lane's vector elements and
/// coalesced lanes arrive adjacent), then the runs are sorted (only when they are not in
/// order already: swizzled or transposed lanes) and merged again. Same ranges as sorting
/// every address, for a sort of the few runs instead of up to 128 addresses.
pub(crate) fn lane_runs(addrs: &[u64], size: u64, runs: &mut SmallVec<[(u64, u64); 32]>) {
    runs.clear();
    let Some((&first, rest)) = addrs.split_first() else {
        return;
    };
    // A coalesced access (each lane's bytes right after the previous lane's) is one range:
    // no run list and no sort (what the general path below makes of it too).
    let mut end = first.saturating_add(size);
    if rest.iter().all(|&a| {
        let next = a == end;
        end = a.saturating_add(size);
        next
    }) {
        runs.push((first, end));
        return;
    }
    let (mut s, mut e) = (first, first.saturating_add(size));
    for &a in rest {
        if a >= s && a <= e {
            e = e.max(a.saturating_add(size));
        } else {
            runs.push((s, e));
            (s, e) = (a, a.saturating_add(size));
        }
    }
    runs.push((s, e));
    if !runs.windows(2).all(|p| p[0].0 <= p[1].0) {
        runs.sort_unstable();
    }
    // Merged in place: the maximal ranges, in address order.
    let mut n = 0;
    for i in 0..runs.len() {
        let (s, e) = runs[i];
        if n > 0 && s <= runs[n - 1].1 {
            runs[n - 1].1 = runs[n - 1].1.max(e);
        } else {
            runs[n] = (s, e);
            n += 1;
        }
    }
    runs.truncate(n);
}

/// The largest lane size [`lane_mask_runs`] maps (a `.v4.b128`-sized lane is 64 bytes).
const MAP_MAX_SIZE: u64 = 64;

/// [`lane_runs`] of the active lanes of `lanes` (bit `l`: `addrs[l]`), lowest lane first.
///
/// Inactive lanes take the first active lane's address (its bytes again: the union is the
/// same), so the passes below run over all 32 lanes without a branch per lane (branches on
/// the lanes mispredict, and fixed-length loops unroll). A coalesced access (each lane's
/// bytes right after the previous lane's) is one range. Otherwise, when `size` is a power of
/// two, every lane is a multiple of `size` away from the lowest one and the highest fewer
/// than 64 elements above it, each lane is one bit of a map of `size`-byte elements from the
/// lowest address (or from the aligned block holding every lane, see below), and the maximal
/// ranges are the map's runs of ones, in address order: no run list, no sort, no merge.
/// Other accesses take [`lane_runs`] of the active lanes.
/// Why: matmul_fp16_bench1024 stages every operand element with a swizzled `st.shared.b16`,
/// whose run merge and sort were ~900 of the ~1 800 host instructions each cost (perf.md,
/// session 12). `tests::lane_props` holds the two to the same ranges.
// always: called out of line it cost matmul_fp16_bench1024's 561 k stores ~15 M (perf.md,
// session 13)
#[inline(always)]
pub(crate) fn lane_mask_runs(
    lanes: u32,
    addrs: &[u64; 32],
    size: u64,
    runs: &mut SmallVec<[(u64, u64); 32]>,
) {
    runs.clear();
    if lanes == 0 {
        return;
    }
    let filled;
    let a = if lanes == u32::MAX {
        addrs
    } else {
        let f = addrs[lanes.trailing_zeros() as usize];
        filled = std::array::from_fn(|l| if lanes >> l & 1 != 0 { addrs[l] } else { f });
        &filled
    };
    // `adj`: whether every lane follows the previous one; `diff`: the bits in which some lane
    // differs from lane 0 (one vectorised pass for both)
    let (mut adj, mut diff) = (0, 0);
    for l in 1..32 {
        adj |= a[l].wrapping_sub(a[l - 1]) ^ size;
        diff |= a[l] ^ a[0];
    }
    if adj == 0 && size <= MAP_MAX_SIZE {
        // not wrapped around the address space, and no lane's end saturates (the reference's
        // ends are then exact)
        if let Some(end) = a[0].checked_add(32 * size) {
            runs.push((a[0], end));
            return;
        }
    }
    if size.is_power_of_two() && size <= MAP_MAX_SIZE {
        let sh = size.trailing_zeros();
        // Lanes that share all but their low `m` bits with lane 0 and its offset in a
        // `size`-byte element lie on one grid in an aligned block of 2^m bytes: with at most
        // 64 elements there, the block (moved to lane 0's offset) is the map's origin, found
        // without the lowest address (a swizzled warp store stays in its 64- or 128-byte
        // block). Lanes that straddle a larger aligned boundary take the lowest address.
        let m = (64 - diff.leading_zeros()).max(sh);
        if diff & (size - 1) == 0 && m - sh <= 6 {
            let base = (a[0] >> m << m) | (a[0] & (size - 1));
            if base.checked_add(64 << sh).is_some() {
                let mut bits = 0u64;
                for &x in a {
                    bits |= 1 << (((x - base) >> sh) & 63);
                }
                map_runs(bits, base, sh, runs);
                return;
            }
        }
        let lo = a.iter().fold(u64::MAX, |lo, &x| lo.min(x));
        let (mut bits, mut off_grid, mut span) = (0u64, 0u64, 0u64);
        for &x in a {
            let off = x - lo;
            off_grid |= off;
            span |= off >> sh;
            bits |= 1 << ((off >> sh) & 63);
        }
        // `span < 64`: every element index below 64 (an OR of such is below 64 too); the last
        // byte of the map representable, so no end saturates
        if off_grid & (size - 1) == 0 && span < 64 && lo.checked_add(64 << sh).is_some() {
            map_runs(bits, lo, sh, runs);
            return;
        }
        if off_grid & (size - 1) == 0 && line_map_runs(a, lo, sh, span, runs) {
            return;
        }
    }
    let mut buf = [0u64; 32];
    let mut n = 0;
    for (l, &x) in addrs.iter().enumerate() {
        buf[n & 31] = x;
        n += (lanes >> l & 1) as usize;
    }
    lane_runs(&buf[..n], size, runs);
}

/// Lines of 64 elements a map of [`lane_mask_runs`] may have: a warp's 16-byte vector stores
/// of a Triton epilogue (rows 128 bytes apart, a tile's two halves 2 KiB apart) span up to
/// 416 elements.
const MAP_LINES: u64 = 8;

/// [`lane_mask_runs`]'s map for lanes on the grid of `1 << sh`-byte elements from the lowest
/// address `lo` (`span`: the OR of their element indices) that span 64 elements or more and
/// fewer than `64 * MAP_LINES`: a 64-bit map per line of 64 elements, indexed by the line
/// (no search), whose runs are joined across lines. False, with `runs` untouched, for a
/// larger span or when the map's end is not representable. Why: such a store took
/// [`lane_runs`]'s merge and sort, ~1 400 host instructions (matmul_fp16_div16_bench1024's
/// epilogue, perf.md session 13).
#[inline(never)]
fn line_map_runs(
    a: &[u64; 32],
    lo: u64,
    sh: u32,
    span: u64,
    runs: &mut SmallVec<[(u64, u64); 32]>,
) -> bool {
    if span >= 64 * MAP_LINES || lo.checked_add((64 * MAP_LINES) << sh).is_none() {
        return false;
    }
    let mut bits = [0u64; MAP_LINES as usize];
    for &x in a {
        let e = (x - lo) >> sh;
        bits[(e >> 6) as usize & (MAP_LINES as usize - 1)] |= 1 << (e & 63);
    }
    for (i, &b) in bits.iter().enumerate() {
        let k = runs.len();
        map_runs(b, lo + ((i as u64) << (6 + sh)), sh, runs);
        // a run reaching the top of its line continues into the next line's first
        if k > 0 && k < runs.len() && runs[k - 1].1 == runs[k].0 {
            runs[k - 1].1 = runs[k].1;
            runs.remove(k);
        }
    }
    true
}

/// Addresses from which [`slice_runs`] takes [`lane_mask_runs`]: its passes run over all 32
/// lanes, so a few addresses (one thread's access) merge for less.
const SLICE_MAP_MIN: usize = 8;

/// [`lane_runs`] of 8 to 32 addresses through [`lane_mask_runs`] (the first `n` lanes), so
/// that the lanes an observer buffered one by one (`ldmatrix`'s rows: 32 rows of 16 bytes
/// over 4 KiB, ~4 000 host instructions in the merge on matmul_fp16_div16_bench1024) take its
/// maps; fewer or more addresses take `lane_runs`.
fn slice_runs(addrs: &[u64], size: u64, runs: &mut SmallVec<[(u64, u64); 32]>) {
    let n = addrs.len();
    if !(SLICE_MAP_MIN..=32).contains(&n) {
        lane_runs(addrs, size, runs);
        return;
    }
    let mut a = [addrs[0]; 32];
    a[..n].copy_from_slice(addrs);
    lane_mask_runs(u32::MAX >> (32 - n), &a, size, runs);
}

/// The byte ranges of the runs of ones of `bits`, a map of `1 << sh`-byte elements from
/// `origin` (whose last element's end is representable), in address order.
#[inline]
fn map_runs(mut bits: u64, origin: u64, sh: u32, runs: &mut SmallVec<[(u64, u64); 32]>) {
    while bits != 0 {
        let s = bits.trailing_zeros();
        // `>> s` leaves zeros above the map's top, so a run reaching bit 63 ends at 64
        let e = s + (!(bits >> s)).trailing_zeros();
        runs.push((origin + (u64::from(s) << sh), origin + (u64::from(e) << sh)));
        bits &= u64::MAX.checked_shl(e).unwrap_or(0);
    }
}

/// Checks an access of `[start, end)` against the shadow state and records it.
#[allow(clippy::too_many_arguments)]
fn check_range(
    map: &mut impl Shadow,
    start: u64,
    end: u64,
    new: Rec,
    kind: AccessKind,
    view: &View<'_>,
    tmem: bool,
    out: &mut Vec<Conflict>,
) {
    // The check itself (what conflicts, what state remains) is `crate::access`; how the
    // state is stored and shared between bytes is the shadow's (`Shadow::check`).
    map.check(
        start,
        end,
        &Check {
            new,
            kind,
            view,
            tmem,
        },
        out,
    );
}

/// TMEM cells are numbered quarter-major, then column, then lane within the quarter:
/// `quarter * QUARTER_CELLS + col * 32 + lane % 32`. A warp's `tcgen05.ld/st` (32 lanes of
/// its quarter × N columns) is then one contiguous run, and an M=128 accumulator four runs.
const QUARTER_LANES: u64 = 32;
/// Column stride of a quarter: the whole 16-bit column field, so no address aliases another.
const QUARTER_CELLS: u64 = (1 << 16) * QUARTER_LANES;

fn tmem_runs(r: TmemRect) -> impl Iterator<Item = (u64, u64)> {
    let lo = (r.lane as u64).min(TMEM_LANES);
    let hi = (lo + r.lanes as u64).min(TMEM_LANES);
    let (col, cols) = (r.col as u64 & 0xffff, r.cols as u64);
    let cols = cols.min((1 << 16) - col);
    (lo / QUARTER_LANES..hi.div_ceil(QUARTER_LANES)).flat_map(move |q| {
        let l0 = lo.max(q * QUARTER_LANES) % QUARTER_LANES;
        let l1 = hi.min((q + 1) * QUARTER_LANES) - q * QUARTER_LANES;
        let base = q * QUARTER_CELLS;
        let whole = l0 == 0 && l1 == QUARTER_LANES;
        let n = if whole { cols.min(1) } else { cols };
        (0..n).map(move |i| {
            if whole {
                (
                    base + col * QUARTER_LANES,
                    base + (col + cols) * QUARTER_LANES,
                )
            } else {
                let c = base + (col + i) * QUARTER_LANES;
                (c + l0, c + l1)
            }
        })
    })
}

fn tmem_region(cta: u32, start: u64, end: u64) -> Region {
    let q = start / QUARTER_CELLS;
    let (s, e) = (start % QUARTER_CELLS, (end - 1) % QUARTER_CELLS);
    let (c0, c1) = (s / QUARTER_LANES, e / QUARTER_LANES);
    let lane0 = (q * QUARTER_LANES) as u32;
    let lanes = if c0 == c1 {
        lane0 + (s % QUARTER_LANES) as u32..lane0 + (e % QUARTER_LANES) as u32 + 1
    } else {
        lane0..lane0 + QUARTER_LANES as u32
    };
    Region::Tmem {
        cta,
        lanes,
        cols: c0 as u32..c1 as u32 + 1,
    }
}

/// The whole-height region of an allocation's columns in CTA `cta`.
fn lifetime_region(cta: u32, cols: (u32, u32)) -> Region {
    Region::Tmem {
        cta,
        lanes: 0..TMEM_LANES as u32,
        cols: cols.0..cols.1,
    }
}

/// One allocation's lifetime, the allocation-lifetime location of a `.cta_group::2`
/// allocation: the two CTAs' alloc halves and dealloc halves. Each dealloc half must
/// happen after both alloc halves (tmem.md rule 16, NVIDIA/cutlass#3435); the collective's
/// rendezvous itself orders nothing ("may block", PTX ISA §9.7.16.7.1).
#[derive(Debug)]
struct Lifetime {
    /// Dense indices of the two CTAs (even first).
    pair: [u32; 2],
    cols: (u32, u32),
    /// (CTA, its alloc half).
    allocs: SmallVec<[(u32, Rec); 2]>,
    /// (CTA, its dealloc half, the view it was checked under): an alloc half reported after
    /// a dealloc half (a warp woken from the rendezvous reports its alloc when it runs) is
    /// checked against the stored view.
    deallocs: SmallVec<[(u32, Rec, VClock); 2]>,
}

impl Lifetime {
    fn overlaps(&self, pair: [u32; 2], cols: (u32, u32)) -> bool {
        self.pair == pair && self.cols.0 < cols.1 && cols.0 < self.cols.1
    }
}

/// The happens-before race detector of one synchronisation domain (a cluster: its warps, its
/// CTAs' shared memory and TMEM, and global memory as seen from it).
#[derive(Default)]
pub struct RaceDetector {
    actors: Vec<Actor>,
    /// Boxed: the engine's warp ids have holes (a CTA reserves a range), and a vector of
    /// inline states moved ~1 KB per id on growth (softmax_bench2048: 38 M instructions).
    warps: Vec<Option<Box<WarpState>>>,
    /// Completed ops, candidates for slot reuse, oldest first.
    retired: VecDeque<ActorIdx>,
    /// Fx-hashed, as `locs`: every mbarrier poll looks its key up, and SipHash was 38 M
    /// host instructions of matmul_fp16_div16_bench1024's checked run (perf.md, session 8).
    sync: HashMap<SyncKey, SyncObj, FxBuild>,
    /// Release/acquire through strong accesses, per (space, address).
    locs: HashMap<(MemSpace, u64), Channels, FxBuild>,
    /// What every `.gpu`/`.sys` `fence.sc` (`membar.gl`) so far published, in execution
    /// order: [`RaceDetector::fence_sc`].
    sc_fences: VClock,
    mem: Memories,
    commits: Vec<Option<CommitState>>,
    free_commits: Vec<u32>,
    findings: Vec<Race>,
    reported: HashSet<(SpanToken, SpanToken)>,
    /// TM0214 findings made: (init instruction, CTA of the operation). One per CTA, at its
    /// first unordered operation: the rest of a missing cluster sync's operations (16
    /// `st.async` of one loop) say nothing new.
    init_reported: HashSet<(SpanToken, u32)>,
    /// Op accesses of each CTA's shared memory not yet known to end before the CTA exits
    /// (TM0234/TM0235, `exit_watch.rs`).
    exit: exit_watch::ExitWatch,
    scratch: Vec<Conflict>,
    stats: Stats,
    /// Live `.cta_group::2` allocations (a handful at most).
    lifetimes: Vec<Lifetime>,
    /// The last `SyncObj::version` handed out.
    sync_versions: u64,
    /// Keeps every warp's cp.async-groups per lane: the reference of the warp-wide queue.
    per_lane_cp_groups: bool,
    /// States of ops whose slots were reused, kept for the next [`Self::issue`]: their views
    /// are clocks of a few hundred op slots, on the heap, so a fresh state cost three
    /// allocations and its drop three frees (~10 M host instructions of
    /// matmul_fp16_div16_bench1024's checked run, 12 k op issues).
    /// (Boxed as `Actor::Op` holds them: a state moves between the two as a pointer.)
    #[allow(clippy::vec_box)]
    spare_ops: Vec<Box<OpState>>,
}

impl RaceDetector {
    pub fn new() -> Self {
        Self::default()
    }

    /// A detector that keeps each warp's cp.async-groups per lane from the start (the
    /// warp-wide queue's reference, for differential tests; same findings).
    #[doc(hidden)]
    pub fn with_per_lane_cp_groups() -> Self {
        Self {
            per_lane_cp_groups: true,
            ..Self::default()
        }
    }

    /// A detector whose shared/global shadow is the run-length map instead of the dense one:
    /// the reference of the differential tests (same findings, slower).
    #[doc(hidden)]
    pub fn with_reference_shadow() -> Self {
        let mut d = Self::default();
        d.mem.reference = true;
        d.mem.global = MemShadow::new(true);
        d
    }

    pub fn findings(&self) -> &[Race] {
        &self.findings
    }

    pub fn take_findings(&mut self) -> Vec<Race> {
        std::mem::take(&mut self.findings)
    }

    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Runs held by all shadow maps (memory use; a run is one range of equal shadow state).
    pub fn shadow_runs(&self) -> usize {
        let m = &self.mem;
        m.global.runs()
            + m.shared
                .iter()
                .flatten()
                .map(MemShadow::runs)
                .sum::<usize>()
            + m.tmem.iter().map(ShadowMap::runs).sum::<usize>()
    }

    // ------------------------------------------------------------------------------------
    // Warps

    /// Registers a warp. Register every warp of the domain before it runs: slot reuse waits
    /// for the live warps to observe an op, and a warp registered late starts knowing nothing.
    pub fn add_warp(&mut self, w: WarpId) {
        let i = w.0 as usize;
        if self.warps.len() <= i {
            self.warps.resize_with(i + 1, || None);
        }
        if self.warps[i].is_none() {
            let actor = ActorIdx(self.actors.len() as u32);
            self.actors.push(Actor::Warp);
            self.warps[i] = Some(Box::new(WarpState::new(actor)));
        }
    }

    /// Warp `w` (registered or not) belongs to cluster `cluster` (any number the caller gives
    /// each cluster instance it runs). Only the moral strength of `.cluster`-scoped accesses
    /// reads it: a warp never told is taken to share a cluster with every other.
    pub fn set_cluster(&mut self, w: WarpId, cluster: u32) {
        self.warp(w).cluster = cluster;
    }

    /// The warp has exited: it no longer holds op slots from being reused.
    pub fn warp_exit(&mut self, w: WarpId) {
        self.warp(w).live = false;
    }

    /// The warp's CTA ended and its index went to a new CTA: nothing names the warp again, so
    /// its state (views as long as the warps registered before it) is dropped. Without this
    /// a group that runs many CTAs one after another kept every retired warp's clocks:
    /// memory quadratic in the warps it ran (docs/arch/race.md, "Memory on wide grids").
    /// Sound: a warp's state is read only by its own later events, by the slot-reuse test
    /// (which skips warps that are not live) and by the completion of an op it issued (which
    /// then has no group bookkeeping left to update). Its clock component stays reserved,
    /// never reused, so no later warp is ordered after it by accident.
    pub fn retire_warp(&mut self, w: WarpId) {
        if let Some(slot) = self.warps.get_mut(w.0 as usize) {
            *slot = None;
        }
    }

    /// Nothing more will be observed (the SM group ran its last cluster): the shared and
    /// global memory shadows go to the thread's pool ([`MemShadow::recycle`]) for the next
    /// detector it makes, and the rest of the state is freed, for the next group's engine and
    /// detector to reuse. Findings and counters stay; no event may follow.
    ///
    /// Why: every group's observer lives until the launch ends, and a fresh detector's and
    /// engine's buffers page-faulted in where the finished groups' memory could have been
    /// reused (matmul_fp16_div16_bench1024: 9 270 faults against `run`'s 5 260, ~10 % of its
    /// checked run in time, which the instruction count does not see; perf.md, session 14).
    pub fn release(&mut self) {
        for m in self.mem.shared.drain(..).flatten() {
            m.recycle();
        }
        std::mem::replace(&mut self.mem.global, MemShadow::Runs(ShadowMap::default())).recycle();
        self.mem.tmem = Vec::new();
        self.actors = Vec::new();
        self.warps = Vec::new();
        self.retired = VecDeque::new();
        self.sync = HashMap::default();
        self.locs = HashMap::default();
        self.sc_fences = VClock::default();
        self.commits = Vec::new();
        self.free_commits = Vec::new();
        self.reported = HashSet::new();
        self.init_reported = HashSet::new();
        self.exit = Default::default();
        self.scratch = Vec::new();
        self.lifetimes = Vec::new();
        self.spare_ops = Vec::new();
    }

    /// The CTA with domain index `cta` ended and a new CTA will take its index (an engine
    /// that keeps several clusters in one detector reuses indices): its shared memory and
    /// TMEM shadows, its barriers, mbarriers and release/acquire locations are forgotten,
    /// so the new CTA starts on fresh memory. Its warps must be new [`WarpId`]s.
    pub fn reset_cta(&mut self, cta: u32) {
        if let Some(Some(m)) = self.mem.shared.get_mut(cta as usize) {
            m.reset();
        }
        if let Some(m) = self.mem.tmem.get_mut(cta as usize) {
            *m = ShadowMap::default();
        }
        self.sync.retain(|k, _| match k {
            SyncKey::CtaBarrier { cta: c, .. } | SyncKey::Mbarrier { cta: c, .. } => *c != cta,
            SyncKey::ClusterBarrier => true,
        });
        self.locs
            .retain(|(space, _), _| *space != MemSpace::Shared { cta });
        self.lifetimes.retain(|l| !l.pair.contains(&cta));
    }

    /// Forgets a synchronisation object (e.g. the cluster barrier of a cluster that ended).
    pub fn forget_sync(&mut self, key: SyncKey) {
        self.sync.remove(&key);
    }

    fn warp(&mut self, w: WarpId) -> &mut WarpState {
        if !matches!(self.warps.get(w.0 as usize), Some(Some(_))) {
            self.add_warp(w);
        }
        self.warps[w.0 as usize].as_mut().expect("registered")
    }

    // ------------------------------------------------------------------------------------
    // Thread accesses

    /// An ordinary access by (some lanes of) warp `w`: `ld`/`st`/`atom`/`red` on shared or
    /// global memory, `len` bytes at `addr`.
    #[allow(clippy::too_many_arguments)]
    pub fn access(
        &mut self,
        w: WarpId,
        space: MemSpace,
        addr: u64,
        len: u64,
        kind: AccessKind,
        order: impl Into<Strength>,
        span: SpanToken,
    ) {
        let Strength { order, reach, .. } = order.into();
        self.thread_access(w, space, addr, len, kind, order, reach, span, Agent::Thread);
    }

    /// One warp instruction's per-lane accesses of `size` bytes each (`addrs` = the active
    /// lanes' addresses): contiguous lanes are merged into one range first, which makes a
    /// coalesced warp access cost about one range check instead of 32.
    #[allow(clippy::too_many_arguments)]
    pub fn access_lanes(
        &mut self,
        w: WarpId,
        space: MemSpace,
        addrs: &[u64],
        size: u64,
        kind: AccessKind,
        order: impl Into<Strength>,
        span: SpanToken,
    ) {
        let Strength { order, reach, .. } = order.into();
        let mut runs = SmallVec::new();
        slice_runs(addrs, size, &mut runs);
        self.access_runs(w, space, &runs, kind, order, reach, span);
    }

    /// [`RaceDetector::access_lanes`] of the lanes of `lanes` (bit `l`: lane `l` is active,
    /// at `addrs[l]`; the others' entries are ignored), as the engine reports them: the same
    /// ranges, built without compacting the active lanes first and, when the lanes' bytes lie
    /// on one grid of `size`-byte elements (naturally aligned lanes) within 64 elements, as the
    /// runs of a bitmap: no run list to merge and no sort. Why: matmul_fp16_bench1024 stages
    /// every operand element with a `st.shared.b16` whose swizzled lanes land out of order in
    /// a few 16-byte chunks; the general merge and its sort were ~900 host instructions of the
    /// ~1 800 each such store cost (perf.md, session 12).
    #[allow(clippy::too_many_arguments)]
    pub fn access_lane_mask(
        &mut self,
        w: WarpId,
        space: MemSpace,
        lanes: u32,
        addrs: &[u64; 32],
        size: u64,
        kind: AccessKind,
        order: impl Into<Strength>,
        span: SpanToken,
    ) {
        let Strength { order, reach, .. } = order.into();
        let mut runs = SmallVec::new();
        lane_mask_runs(lanes, addrs, size, &mut runs);
        self.access_runs(w, space, &runs, kind, order, reach, span);
    }

    /// The accesses of one warp-instruction whose bytes are the maximal ranges `runs`, in
    /// address order.
    #[allow(clippy::too_many_arguments)]
    fn access_runs(
        &mut self,
        w: WarpId,
        space: MemSpace,
        runs: &[(u64, u64)],
        kind: AccessKind,
        order: MemOrder,
        reach: Reach,
        span: SpanToken,
    ) {
        // The ranges of one instruction are checked under one record and one view unless an
        // acquire (per-location clocks) or a release (a tick) changes the view between them.
        let (releases, acquires) = order.flags();
        if runs.len() > 1 && !acquires && !(kind == AccessKind::Write && releases) {
            self.thread_ranges(w, space, runs, kind, order, reach, span);
            return;
        }
        for &(start, end) in runs {
            self.thread_access(
                w,
                space,
                start,
                end - start,
                kind,
                order,
                reach,
                span,
                Agent::Thread,
            );
        }
    }

    /// [`RaceDetector::thread_access`] of the disjoint ranges of one warp-instruction whose
    /// view no range changes (no acquire, no releasing write): one record, one view and one
    /// report for all of them, and the shadow shares transitions between the ranges
    /// (`DenseShadow::batch`). Same findings as one `thread_access` per range: the record and
    /// the view are the ones each would build, the per-location clocks a relaxed read joins
    /// or a strong write leaves touch neither, and the ranges are neither overlapping nor
    /// adjacent, so no conflict of one range merges with another's in `out`. Why: a
    /// transposed one-byte read (dot_scaled_mxfp8's scale factors) is 32 ranges of one byte,
    /// and the per-range set-up and report were ~150 of its ~1 100 instructions per byte.
    #[allow(clippy::too_many_arguments)]
    fn thread_ranges(
        &mut self,
        w: WarpId,
        space: MemSpace,
        ranges: &[(u64, u64)],
        kind: AccessKind,
        order: MemOrder,
        reach: Reach,
        span: SpanToken,
    ) {
        self.stats.thread_accesses += ranges.len() as u64;
        self.warp(w);
        let ws = self.warps[w.0 as usize].as_mut().expect("registered");
        if order == MemOrder::Relaxed {
            for &(s, _) in ranges {
                if let Some(l) = self.locs.get(&(space, s)) {
                    ws.fence_acq.join(l);
                }
            }
        }
        let rec = Rec {
            stamp: ws.now(),
            span,
            warp: w,
            agent: Agent::Thread,
            strong: order.is_strong(),
            scope: Scope::new(reach, ws.cluster),
            cta_group: 0,
            pipe: 0,
        };
        let view = View {
            hb: ws.v.gen(),
            pf: ws.v.pf(),
            generic: ws.v.gen(),
        };
        let mut out = std::mem::take(&mut self.scratch);
        let mem = self.mem.mem(space);
        mem.batch(true);
        for &(s, e) in ranges {
            check_range(mem, s, e, rec, kind, &view, false, &mut out);
        }
        mem.batch(false);
        if kind == AccessKind::Write && order.is_strong() {
            if let Some(fr) = &ws.fence_rel {
                for &(s, _) in ranges {
                    self.locs.entry((space, s)).or_default().join(fr);
                }
            }
        }
        self.report(
            &mut out,
            rec,
            kind,
            |s, e| Region::Mem { space, bytes: s..e },
            Some(space),
        );
        self.scratch = out;
    }

    /// The shared-memory store of the TMEM address by `tcgen05.alloc` (a weak 4-byte write).
    pub fn alloc_address_store(&mut self, w: WarpId, space: MemSpace, addr: u64, span: SpanToken) {
        self.thread_access(
            w,
            space,
            addr,
            4,
            AccessKind::Write,
            MemOrder::Weak,
            Reach::Grid,
            span,
            Agent::AllocAddr,
        );
    }

    // ------------------------------------------------------------------------------------
    // Allocation lifetimes

    /// `tcgen05.alloc` by warp `w` took effect for CTA `cta` (domain index), columns
    /// `cols`. `peer`: the other CTA of the pair for `.cta_group::2` (this is one half of the
    /// collective), `None` for `.cta_group::1`.
    ///
    /// Reading (DERIVED, docs/arch/race.md): alloc is a synchronous tcgen05 instruction, so
    /// once it has returned any later synchronisation of the warp, fenced or not, `.relaxed`
    /// or not, carries it (it is published like a completed `tcgen05.wait::ld`).
    pub fn tmem_alloc(
        &mut self,
        w: WarpId,
        cta: u32,
        peer: Option<u32>,
        cols: Range<u32>,
        span: SpanToken,
    ) {
        let ws = self.warp(w);
        let stamp = ws.now();
        ws.v.tc_mut().raise(stamp.actor, stamp.time);
        ws.tc_pub.raise(stamp.actor, stamp.time);
        let Some(peer) = peer else { return };
        let rec = Rec {
            stamp,
            span,
            warp: w,
            agent: Agent::Alloc,
            strong: false,
            scope: Scope::WIDE,
            cta_group: 2,
            pipe: 0,
        };
        let pair = [cta.min(peer), cta.max(peer)];
        let cols = (cols.start, cols.end);
        // The peer's half of the same collective, if it is already recorded.
        let open = self.lifetimes.iter().position(|l| {
            l.overlaps(pair, cols)
                && !l.allocs.iter().any(|(c, _)| *c == cta)
                && !l.deallocs.iter().any(|(c, ..)| *c == cta)
        });
        let i = match open {
            Some(i) => i,
            None => {
                self.lifetimes.push(Lifetime {
                    pair,
                    cols,
                    allocs: SmallVec::new(),
                    deallocs: SmallVec::new(),
                });
                self.lifetimes.len() - 1
            }
        };
        let mut out = std::mem::take(&mut self.scratch);
        let lt = &mut self.lifetimes[i];
        lt.allocs.push((cta, rec));
        // A dealloc half reported before this alloc half (which happened no later than the
        // warp blocked in the rendezvous): ordered only if its view covered this half.
        let mut late: SmallVec<[Rec; 2]> = SmallVec::new();
        for (_, d, view) in &lt.deallocs {
            if !view.covers(stamp) {
                late.push(*d);
            }
        }
        let region = lifetime_region(cta, cols);
        for d in late {
            out.push(Conflict {
                first: rec,
                first_kind: AccessKind::Write,
                cause: Cause::Unordered {
                    ordered_without_tc_fence: false,
                },
                start: 0,
                end: 0,
            });
            self.report(&mut out, d, AccessKind::Write, |_, _| region.clone(), None);
        }
        self.scratch = out;
    }

    /// `tcgen05.dealloc` by warp `w` freed columns `cols` of CTA `cta` (for `.cta_group::2`,
    /// this CTA's half of the collective; `peer` the other CTA). Checked as a write of every
    /// cell of the freed columns (all 128 lanes, both CTAs for `.cta_group::2`): each TMEM
    /// access of those cells must happen before it, and for `.cta_group::2` both alloc halves
    /// too (TM0201; TM0204 for `.cta_group::1`).
    ///
    /// The dealloc is a synchronous instruction of the warp: it is judged by what the warp has
    /// observed through ordering synchronisation (the generic view) and by its tcgen05 view.
    /// What a `.relaxed` synchronisation carried (a peer's alloc, a completed
    /// `tcgen05.ld`/`st`, published by the other thread) reaches the tcgen05 view only through
    /// `fence::after_thread_sync`: a `.relaxed` arrive or wait orders no memory (PTX ISA
    /// §9.7.13.15.16; `barrier.cluster.arrive.relaxed` likewise), and tcgen05 instructions
    /// are ordered across threads by such a synchronisation only with the tcgen05 fences
    /// around it (§9.7.16.6.3, canonical patterns §9.7.16.6.4.3–4). Without the fence the
    /// dealloc is not ordered after the other thread's TMEM accesses (TM0204; TM0201 for the
    /// pair, also against the peer's alloc half).
    pub fn tmem_dealloc(
        &mut self,
        w: WarpId,
        cta: u32,
        peer: Option<u32>,
        cols: Range<u32>,
        span: SpanToken,
    ) {
        let ws = self.warp(w);
        let mut view = ws.v.gen().clone();
        view.join(ws.v.tc());
        let rec = Rec {
            stamp: ws.now(),
            span,
            warp: w,
            agent: Agent::Dealloc,
            strong: false,
            scope: Scope::WIDE,
            cta_group: if peer.is_some() { 2 } else { 1 },
            pipe: 0,
        };
        let mut out = std::mem::take(&mut self.scratch);
        let c = (cols.start, cols.end);
        if let Some(peer) = peer {
            let pair = [cta.min(peer), cta.max(peer)];
            let open = self
                .lifetimes
                .iter()
                .position(|l| l.overlaps(pair, c) && !l.deallocs.iter().any(|(x, ..)| *x == cta));
            if let Some(i) = open {
                let lt = &mut self.lifetimes[i];
                for &(ac, a) in &lt.allocs {
                    if !view.covers(a.stamp) {
                        out.push(Conflict {
                            first: a,
                            first_kind: AccessKind::Write,
                            cause: Cause::Unordered {
                                ordered_without_tc_fence: false,
                            },
                            start: ac as u64,
                            end: ac as u64 + 1,
                        });
                    }
                }
                lt.deallocs.push((cta, rec, view.clone()));
                if lt.deallocs.len() == 2 {
                    self.lifetimes.swap_remove(i);
                }
                self.report(
                    &mut out,
                    rec,
                    AccessKind::Write,
                    |s, _| lifetime_region(s as u32, c),
                    None,
                );
            }
        }
        let v = View {
            hb: &view,
            pf: &view,
            generic: &view,
        };
        let rect = TmemRect {
            cta,
            lane: 0,
            lanes: TMEM_LANES as u32,
            col: cols.start,
            cols: cols.end.saturating_sub(cols.start),
        };
        for x in std::iter::once(cta).chain(peer) {
            let map = grow(&mut self.mem.tmem, x);
            for (s, e) in tmem_runs(TmemRect { cta: x, ..rect }) {
                check_range(map, s, e, rec, AccessKind::Write, &v, true, &mut out);
            }
            self.report(
                &mut out,
                rec,
                AccessKind::Write,
                |s, e| tmem_region(x, s, e),
                None,
            );
        }
        self.scratch = out;
    }

    #[allow(clippy::too_many_arguments)]
    fn thread_access(
        &mut self,
        w: WarpId,
        space: MemSpace,
        addr: u64,
        len: u64,
        kind: AccessKind,
        order: MemOrder,
        reach: Reach,
        span: SpanToken,
        agent: Agent,
    ) {
        self.stats.thread_accesses += 1;
        self.warp(w);
        let ws = self.warps[w.0 as usize].as_mut().expect("registered");
        let (releases, acquires) = order.flags();
        if acquires {
            if let Some(l) = self.locs.get(&(space, addr)) {
                ws.acquire(l, true);
            }
        } else if order == MemOrder::Relaxed {
            if let Some(l) = self.locs.get(&(space, addr)) {
                ws.fence_acq.join(l);
            }
        }
        let rec = Rec {
            stamp: ws.now(),
            span,
            warp: w,
            agent,
            strong: order.is_strong(),
            scope: Scope::new(reach, ws.cluster),
            cta_group: 0,
            pipe: 0,
        };
        let view = View {
            hb: ws.v.gen(),
            pf: ws.v.pf(),
            generic: ws.v.gen(),
        };
        let mut out = std::mem::take(&mut self.scratch);
        check_range(
            self.mem.mem(space),
            addr,
            addr.saturating_add(len),
            rec,
            kind,
            &view,
            false,
            &mut out,
        );
        if kind == AccessKind::Write && order.is_strong() {
            if releases {
                let ch = ws.release_channels();
                self.locs.entry((space, addr)).or_default().join(&ch);
                ws.v.gen_mut().tick(ws.actor);
            } else if let Some(fr) = &ws.fence_rel {
                self.locs.entry((space, addr)).or_default().join(fr);
            }
        }
        self.report(
            &mut out,
            rec,
            kind,
            |s, e| Region::Mem { space, bytes: s..e },
            Some(space),
        );
        self.scratch = out;
    }

    // ------------------------------------------------------------------------------------
    // Fences and synchronisation objects

    pub fn fence(&mut self, w: WarpId, f: Fence) {
        let ws = self.warp(w);
        match f {
            Fence::ProxyAsync => {
                let (gen, pf, _) = ws.v.all_mut();
                pf.join(gen);
            }
            Fence::AcqRel | Fence::MbarInit => {
                let fa = std::mem::take(&mut ws.fence_acq);
                ws.acquire(&fa, true);
                ws.fence_rel = Some(ws.release_channels());
                ws.init_fenced |= f == Fence::MbarInit;
                ws.v.gen_mut().tick(ws.actor);
            }
            Fence::TcBeforeThreadSync => ws.tc_pub = ws.v.tc().clone(),
            Fence::TcAfterThreadSync => {
                let (gen, _, tc) = ws.v.all_mut();
                tc.join(&ws.tc_acq);
                tc.join(gen);
            }
        }
    }

    /// A `fence.sc` (or `membar.gl`/`.sys`, which are `fence.sc.gpu`/`.sys`) at a scope that
    /// covers the whole group: an acq_rel fence, and also one point of the total Fence-SC
    /// order (PTX ISA §8, "Fence-SC order"), in which an earlier fence synchronises with a later
    /// one. The group's execution order is one such order, so the fence acquires what every
    /// earlier one published and publishes its own. Why: in CUDA's threadFenceReduction
    /// pattern every thread stores, runs `__threadfence()` and meets the others at
    /// `__syncthreads()`, and only thread 0 takes the ticket; the other threads' stores reach
    /// the last CTA through their own fences, not through thread 0's release pattern, and
    /// were a false TM0212 when the CTAs shared an SM group (holdout ho_nvcc_splitk_threadfence
    /// with `--sms 1`). More ordering, so only ever fewer findings.
    pub fn fence_sc(&mut self, w: WarpId) {
        self.fence(w, Fence::AcqRel);
        let ws = self.warps[w.0 as usize].as_mut().expect("registered");
        ws.v.gen_mut().join(&self.sc_fences);
        self.sc_fences.join(ws.v.gen());
        ws.v.gen_mut().tick(ws.actor);
    }

    /// An arrival on a barrier or mbarrier (`bar.sync`/`bar.arrive`, `barrier.cluster.arrive`,
    /// `mbarrier.arrive*`). `Sem::Ordering` = `.release` (the default).
    pub fn arrive(&mut self, w: WarpId, key: SyncKey, sem: Sem) {
        self.arrive_at(w, key, sem, SpanToken(u32::MAX));
    }

    /// [`Self::arrive`] by instruction `span` (named by a TM0214 finding).
    pub fn arrive_at(&mut self, w: WarpId, key: SyncKey, sem: Sem, span: SpanToken) {
        self.warp(w);
        let ws = self.warps[w.0 as usize].as_mut().expect("registered");
        let obj = self.sync.entry(key).or_default();
        let init = mbar_init::unordered(obj, ws.v.gen(), Some(&ws.init_acq));
        mbar_init::release(obj, ws, key, sem);
        match sem {
            Sem::Ordering => {
                obj.pending.gen.join(ws.v.gen());
                obj.pending.pf.join(ws.v.pf());
                obj.pending.tc.join(&ws.tc_pub);
                ws.v.gen_mut().tick(ws.actor);
            }
            Sem::Relaxed => obj.pending.tc.join(&ws.tc_pub),
        }
        if let Some(i) = init {
            self.init_race(i, key, w, Agent::Thread, AccessKind::Write, span);
        }
    }

    /// The barrier generation or mbarrier phase `key` completed.
    pub fn sync_complete(&mut self, key: SyncKey) {
        let obj = self.sync.entry(key).or_default();
        let p = std::mem::take(&mut obj.pending);
        obj.completed.join(&p);
        if !obj.init_pending.is_empty() {
            let p = std::mem::take(&mut obj.init_pending);
            obj.init_done.join(&p);
        }
        self.sync_versions += 1;
        obj.version = self.sync_versions;
    }

    /// A wait that observed the completion (`bar.sync` after the barrier completed,
    /// `barrier.cluster.wait`, a successful `mbarrier.try_wait`/`test_wait`).
    /// `Sem::Ordering` = `.acquire` (the default).
    pub fn wait(&mut self, w: WarpId, key: SyncKey, sem: Sem) {
        self.wait_at(w, key, sem, SpanToken(u32::MAX));
    }

    /// [`Self::wait`] by instruction `span` (named by a TM0214 finding).
    pub fn wait_at(&mut self, w: WarpId, key: SyncKey, sem: Sem, span: SpanToken) {
        self.warp(w);
        let ws = self.warps[w.0 as usize].as_mut().expect("registered");
        let Some(obj) = self.sync.get(&key) else {
            return;
        };
        let init = mbar_init::unordered(obj, ws.v.gen(), Some(&ws.init_acq));
        let ordering = sem == Sem::Ordering;
        let joined = match ws.joined.iter_mut().position(|j| j.0 == key) {
            Some(i) => {
                let j = &mut ws.joined[i];
                let joined = j.1 == obj.version && (j.2 || !ordering);
                j.2 = ordering || (j.2 && j.1 == obj.version);
                j.1 = obj.version;
                joined
            }
            None => {
                if ws.joined.len() == ws.joined.inline_size() {
                    ws.joined.remove(0);
                }
                ws.joined.push((key, obj.version, ordering));
                false
            }
        };
        if !joined {
            ws.acquire(&obj.completed, ordering);
            if !obj.init_done.is_empty() {
                ws.init_acq.join(&obj.init_done);
            }
        }
        if let Some(i) = init {
            self.init_race(i, key, w, Agent::Thread, AccessKind::Read, span);
        }
    }

    // ------------------------------------------------------------------------------------
    // Asynchronous operations

    /// Warp `w` issues an asynchronous op. Report its accesses with [`Self::op_access`] right
    /// away (an op may touch its ranges at any moment until it completes).
    pub fn issue(&mut self, w: WarpId, kind: OpKind, span: SpanToken) -> OpId {
        self.stats.ops_issued += 1;
        self.warp(w);
        let actor = self.alloc_op_slot(w);
        let Actor::Op { next_time, .. } = &mut self.actors[actor.index()] else {
            unreachable!("op slot")
        };
        let issue = *next_time;
        // A bulk copy has two completion ticks (reads, then writes); other ops one.
        *next_time = next_time.saturating_add(if kind == OpKind::Bulk { 3 } else { 2 });
        let mut st = self.spare_ops.pop().unwrap_or_else(|| {
            Box::new(OpState {
                kind,
                issuer: w,
                span,
                issue,
                gen: VClock::new(),
                pf: VClock::new(),
                tc: VClock::new(),
                done: None,
                done_spare: VClock::new(),
                refs: 0,
            })
        });
        let ws = self.warps[w.0 as usize].as_mut().expect("registered");
        // (`clone_from` keeps the spare's buffers)
        st.tc.clone_from(ws.v.tc());
        if kind.agent().is_tcgen05() {
            pipeline_chain(&self.actors, kind, &mut st.tc);
        }
        st.gen.clone_from(ws.v.gen());
        st.gen.join(ws.v.tc());
        st.pf.clone_from(ws.v.pf());
        let id = OpId { actor, issue };
        let mut refs = 0;
        if kind.agent().is_tcgen05() {
            // Program order: later tcgen05 ops of this warp are issued after this one.
            ws.v.tc_mut().raise(actor, issue);
            // Thread synchronisation carries the issue (not the completion) in the generic
            // view: a pipelined successor ordered after it only by an unfenced sync is the
            // TM0207 case (the fences are what make the pair pipelined across threads).
            ws.v.gen_mut().raise(actor, issue);
            ws.issued_tcgen05 = true;
        }
        match kind {
            OpKind::Ld => {
                ws.ld_pending.push(id);
                refs = 1;
            }
            OpKind::St => {
                ws.st_pending.push(id);
                refs = 1;
            }
            k if k.committable() => ws.groups[group(k.cta_group())].inflight.push(id),
            _ => {}
        }
        let Actor::Op { op, .. } = &mut self.actors[actor.index()] else {
            unreachable!("op slot")
        };
        if let Some(d) = st.done.take() {
            st.done_spare = d;
        }
        (st.kind, st.issuer, st.span, st.issue, st.refs) = (kind, w, span, issue, refs);
        *op = Some(st);
        id
    }

    /// One range the op reads or writes (mma: A, B, scale factors, D; TMA: the box; ...).
    pub fn op_access(&mut self, id: OpId, place: Place, kind: AccessKind) {
        let rect = match place {
            Place::Mem { space, addr, len } => {
                return self.op_mem_ranges(id, space, &[(addr, addr.saturating_add(len))], kind);
            }
            Place::Tmem(rect) => rect,
        };
        self.stats.op_accesses += 1;
        let Some(op) = op_ref(&self.actors, id) else {
            self.stats.stale_handles += 1;
            return;
        };
        let rec = op_rec(op, id, kind);
        let mut out = std::mem::take(&mut self.scratch);
        let view = View {
            hb: &op.tc,
            pf: &op.pf,
            generic: &op.gen,
        };
        let map = grow(&mut self.mem.tmem, rect.cta);
        for (s, e) in tmem_runs(rect) {
            check_range(map, s, e, rec, kind, &view, true, &mut out);
        }
        let cta = rect.cta;
        self.report(&mut out, rec, kind, |s, e| tmem_region(cta, s, e), None);
        self.scratch = out;
    }

    /// The op's accesses of the ranges `[start, end)` of `space` (one [`Self::op_access`]
    /// each): one record, one view and one report for all of them, and the shadow shares
    /// transitions between them (`DenseShadow::batch`). The ranges a caller passes at once are
    /// those of one instruction, disjoint and not adjacent (the engine's maximal ranges), so
    /// no conflict of one merges with another's. Why: a warp's `cp.async` is one destination
    /// range and 2 to 4 source rows, and the per-range record, view and report were ~100 of
    /// each range's host instructions (matmul_fp16_div16_bench1024: 307 k ranges).
    pub(super) fn op_mem_ranges(
        &mut self,
        id: OpId,
        space: MemSpace,
        ranges: &[(u64, u64)],
        kind: AccessKind,
    ) {
        self.stats.op_accesses += ranges.len() as u64;
        let Some(op) = op_ref(&self.actors, id) else {
            self.stats.stale_handles += ranges.len() as u64;
            return;
        };
        let rec = op_rec(op, id, kind);
        if let MemSpace::Shared { cta } = space {
            let lo = ranges.iter().map(|r| r.0).min().unwrap_or(0);
            let hi = ranges.iter().map(|r| r.1).max().unwrap_or(lo);
            let (span, issuer, agent) = (op.span, op.issuer, op.kind.agent());
            self.exit_watch_note(cta, rec.stamp, kind, span, issuer, agent, lo, hi);
        }
        let op = op_ref(&self.actors, id).expect("looked up above");
        let view = View {
            hb: &op.gen,
            pf: &op.pf,
            generic: &op.gen,
        };
        let mut out = std::mem::take(&mut self.scratch);
        let mem = self.mem.mem(space);
        let batch = ranges.len() > 1;
        if batch {
            mem.batch(true);
        }
        for &(s, e) in ranges {
            check_range(mem, s, e.max(s), rec, kind, &view, false, &mut out);
        }
        if batch {
            mem.batch(false);
        }
        self.report(
            &mut out,
            rec,
            kind,
            |s, e| Region::Mem { space, bytes: s..e },
            Some(space),
        );
        self.scratch = out;
    }

    /// The op finished all its accesses.
    pub fn complete(&mut self, id: OpId) {
        if self.done_clock(id).is_none() {
            self.stats.stale_handles += 1;
        }
    }

    /// Completes the op if needed and returns its completion clock.
    fn done_clock(&mut self, id: OpId) -> Option<&VClock> {
        if op_ref(&self.actors, id)?.done.is_none() {
            let mut done = std::mem::take(&mut op_mut(&mut self.actors, id)?.done_spare);
            let op = op_ref(&self.actors, id)?;
            done.clone_from(&op.gen);
            done.join(&op.tc);
            done.raise(id.actor, done_time(op.kind, id.issue));
            // A pipelined predecessor this op was ordered after executes before it (PTX ISA
            // §9.7.16.6.2): once this op is complete, so is the predecessor (e.g. a cp whose
            // columns the mma reads, whose completion only the mma's commit reports). The
            // generic view (which holds the tcgen05 view) is used, so a pair split by an
            // unfenced synchronisation (TM0207, reported at the second op) does not cascade
            // into findings on the first op's columns: an added edge, hiding only.
            if op.kind.committable() {
                for a in 0..self.actors.len() {
                    let a = ActorIdx(a as u32);
                    let t = op.gen.get(a);
                    if t == 0 {
                        continue;
                    }
                    if let Actor::Op { op: Some(p), .. } = &self.actors[a.index()] {
                        if p.issue == t && pipelined_kinds(p.kind, op.kind) {
                            done.raise(a, done_time(p.kind, p.issue));
                        }
                    }
                }
            }
            let op = op_mut(&mut self.actors, id)?;
            op.done = Some(done);
            self.retired.push_back(id.actor);
            if op.kind.committable() {
                let (issuer, g) = (op.issuer, group(op.kind.cta_group()));
                let done = op.done.as_ref().expect("set");
                // a retired issuer (`retire_warp`) has no groups left to update
                if let Some(Some(ws)) = self.warps.get_mut(issuer.0 as usize) {
                    ws.groups[g].inflight.retain(|o| *o != id);
                    ws.groups[g].done.join(done);
                }
            }
        }
        op_ref(&self.actors, id)?.done.as_ref()
    }

    fn release_ref(&mut self, id: OpId) {
        if let Some(op) = op_mut(&mut self.actors, id) {
            op.refs = op.refs.saturating_sub(1);
        }
    }

    /// A bulk copy's `complete_tx` on mbarrier `key` (release at cluster scope, with the
    /// implicit generic↔async proxy fence of the completion: bulk-copies.md §1.3).
    pub fn op_arrive(&mut self, id: OpId, key: SyncKey) {
        if let Some(op) = op_ref(&self.actors, id) {
            let init = self
                .sync
                .get(&key)
                .and_then(|o| mbar_init::unordered(o, &op.gen, self.init_acq(op.issuer)));
            if let Some(i) = init {
                let (w, agent, span) = (op.issuer, op.kind.agent(), op.span);
                self.init_race(i, key, w, agent, AccessKind::Write, span);
            }
        }
        let Some(done) = self.done_clock(id).cloned() else {
            self.stats.stale_handles += 1;
            return;
        };
        let obj = self.sync.entry(key).or_default();
        obj.pending.gen.join(&done);
        obj.pending.pf.join(&done);
        obj.pending.tc.join(&done);
    }

    /// Warp `w` observed the op's completion directly (`cp.async.bulk.wait_group`).
    pub fn observe(&mut self, w: WarpId, id: OpId) {
        self.warp(w);
        if self.done_clock(id).is_none() {
            self.stats.stale_handles += 1;
            return;
        }
        let op = op_ref(&self.actors, id).expect("completed");
        let done = op.done.as_ref().expect("completed");
        let ws = self.warps[w.0 as usize].as_mut().expect("registered");
        ws.v.gen_mut().join(done);
        // An async-proxy op's completion carries the implicit generic<->async proxy fence
        // (bulk-copies.md §1.3). `cp.async` writes through the generic proxy and has no such
        // fence: a `tcgen05.mma` or a TMA store reading what it staged needs the thread's own
        // `fence.proxy.async` after the wait (PTX ISA §9.7.9.25.3, "Async proxy"), which is
        // what Triton emits between `cp.async.wait_group` and its MMA.
        if op.kind.agent().is_async_proxy() {
            ws.v.pf_mut().join(done);
        }
    }

    /// A `.bulk_group` copy (`cp.async.bulk` to global, a TMA store or reduction) joined the
    /// issuing thread's open bulk async-group: its completion is observed by a later
    /// `cp.async.bulk.wait_group` of that thread after the group was committed
    /// (bulk-copies.md §4). Lane 0 of warp `w`: see [`Self::bulk_group_add_lanes`].
    pub fn bulk_group_add(&mut self, w: WarpId, id: OpId) {
        self.bulk_group_add_lanes(w, 1, id);
    }

    /// [`Self::bulk_group_add`] by the threads `lanes` (bit `l` = lane `l`) of warp `w`.
    pub fn bulk_group_add_lanes(&mut self, w: WarpId, lanes: u32, id: OpId) {
        self.group_add(GroupSeq::Bulk, w, lanes, id);
    }

    /// A non-bulk `cp.async` (issued by the threads `lanes` of warp `w`) joined each issuing
    /// thread's open cp.async-group: observed at a later `cp.async.wait_group`/`wait_all` of
    /// that thread after the group was committed, or at its `cp.async.mbarrier.arrive`.
    pub fn cp_async_add_lanes(&mut self, w: WarpId, lanes: u32, id: OpId) {
        self.group_add(GroupSeq::CpAsync, w, lanes, id);
    }

    /// `cp.async.commit_group` by the threads `lanes` of warp `w`.
    pub fn cp_async_commit_lanes(&mut self, w: WarpId, lanes: u32) {
        self.group_commit(GroupSeq::CpAsync, w, lanes);
    }

    /// `cp.async.wait_group n` by the threads `lanes` of warp `w` (`wait_all` is a commit and
    /// `wait_group 0`).
    pub fn cp_async_wait_lanes(&mut self, w: WarpId, lanes: u32, n: u32) {
        self.group_wait(GroupSeq::CpAsync, w, lanes, n, false);
    }

    /// `cp.async.mbarrier.arrive{.noinc}` by the threads `lanes` of warp `w`: its arrive-on
    /// fires when every prior `cp.async` of the thread has completed (PTX ISA §9.7.9.25.3.3).
    /// Read as: the thread observes all its copies now, and the arrive that follows (or the
    /// thread's later arrivals) releases them. An added edge (the thread itself is ordered
    /// after its copies before the mbarrier wait), so it can only hide races.
    pub fn cp_async_arrive_lanes(&mut self, w: WarpId, lanes: u32) {
        self.group_commit(GroupSeq::CpAsync, w, lanes);
        self.group_wait(GroupSeq::CpAsync, w, lanes, 0, false);
    }

    fn group_add(&mut self, seq: GroupSeq, w: WarpId, lanes: u32, id: OpId) {
        if seq == GroupSeq::Bulk {
            if let Some(op) = op_ref(&self.actors, id) {
                let t = access_time(op.kind, id.issue, AccessKind::Read);
                let stamp = Stamp {
                    actor: id.actor,
                    time: t,
                };
                self.exit_watch_bulk_group(w, stamp);
            }
        }
        self.warp(w);
        let Some(op) = op_mut(&mut self.actors, id) else {
            self.stats.stale_handles += 1;
            return;
        };
        op.refs += lanes.count_ones();
        if seq == GroupSeq::CpAsync && self.cp_groups_warp_wide(w) {
            if self.warp(w).cpw.add(lanes, id) {
                return;
            }
            self.split_cp_groups(w);
        }
        let ws = self.warp(w);
        for l in lanes_of(lanes) {
            ws.lane_groups(seq, l).open.push(id);
        }
    }

    /// `cp.async.bulk.commit_group` by lane 0 of warp `w`: its open copies form one group
    /// (possibly empty).
    pub fn bulk_commit(&mut self, w: WarpId) {
        self.bulk_commit_lanes(w, 1);
    }

    /// `cp.async.bulk.commit_group` by the threads `lanes` of warp `w`, each closing its own
    /// group.
    pub fn bulk_commit_lanes(&mut self, w: WarpId, lanes: u32) {
        self.group_commit(GroupSeq::Bulk, w, lanes);
    }

    fn group_commit(&mut self, seq: GroupSeq, w: WarpId, lanes: u32) {
        let mut evicted: SmallVec<[OpId; 8]> = SmallVec::new();
        if seq == GroupSeq::CpAsync {
            cp_async::close_on_commit(&mut self.warp(w).cpa_open, lanes);
            if self.cp_groups_warp_wide(w) {
                if self.warp(w).cpw.commit(lanes) {
                    return;
                }
                self.split_cp_groups(w);
            }
        }
        let ws = self.warp(w);
        for l in lanes_of(lanes) {
            let lb = ws.lane_groups(seq, l);
            let g = std::mem::take(&mut lb.open);
            lb.groups.push_back((g, false));
            // A thread that only ever waits with `.read` (or never) would pin its copies'
            // slots forever: beyond a bound, the oldest group is observed as complete (an
            // added edge, which can only hide races).
            if lb.groups.len() > MAX_BULK_GROUPS {
                let (g, _) = lb.groups.pop_front().expect("nonempty");
                evicted.extend(g);
            }
        }
        for id in evicted {
            self.observe(w, id);
            self.release_ref(id);
        }
    }

    /// `cp.async.bulk.wait_group{.read} n` by lane 0 of warp `w`: every committed group but
    /// the `n` most recent has completed; with `.read`, only finished reading its source (the
    /// source may be reused, the destination is not yet written).
    pub fn bulk_wait(&mut self, w: WarpId, n: u32, read: bool) {
        self.bulk_wait_lanes(w, 1, n, read);
    }

    /// `cp.async.bulk.wait_group{.read} n` by the threads `lanes` of warp `w`: each observes
    /// its own groups only. The warp is one actor, so what one lane observes the whole warp
    /// knows afterwards (lanes of a warp are not told apart, see the crate docs); a copy of
    /// another lane is observed only when that lane waits.
    pub fn bulk_wait_lanes(&mut self, w: WarpId, lanes: u32, n: u32, read: bool) {
        self.group_wait(GroupSeq::Bulk, w, lanes, n, read);
    }

    fn group_wait(&mut self, seq: GroupSeq, w: WarpId, lanes: u32, n: u32, read: bool) {
        if seq == GroupSeq::Bulk {
            self.exit_watch_bulk_wait(w);
        }
        if seq == GroupSeq::CpAsync && !read && self.cp_groups_warp_wide(w) {
            match self.cp_groups_wait(w, lanes, n) {
                Some(done) => {
                    self.observe_popped(w, done);
                    return;
                }
                None => self.split_cp_groups(w),
            }
        }
        let ws = self.warp(w);
        let mut reads: SmallVec<[OpId; 8]> = SmallVec::new();
        // Each op once, with the number of lanes whose group held it (a warp-wide copy sits
        // in the group of each of its lanes): looked up among the few distinct ops, sorted
        // and merged only when there are many.
        let mut done: SmallVec<[(OpId, u32); 8]> = SmallVec::new();
        for l in lanes_of(lanes) {
            let lb = ws.lane_groups(seq, l);
            let k = lb.groups.len().saturating_sub(n as usize);
            if read {
                for (g, reads_seen) in lb.groups.iter_mut().take(k) {
                    if !*reads_seen {
                        *reads_seen = true;
                        reads.extend(g.iter().copied());
                    }
                }
            } else {
                // popped one group at a time: a `drain(..k).flat_map` over the deque cost
                // ~75 host instructions per lane in its adapters' set-up and drop alone
                for _ in 0..k {
                    let Some((g, _)) = lb.groups.pop_front() else {
                        break;
                    };
                    for &id in &g {
                        match done.iter_mut().take(16).find(|e| e.0 == id) {
                            Some(e) => e.1 += 1,
                            None => done.push((id, 1)),
                        }
                    }
                }
            }
        }
        for id in reads {
            let Some(op) = op_ref(&self.actors, id) else {
                self.stats.stale_handles += 1;
                continue;
            };
            let t = access_time(op.kind, id.issue, AccessKind::Read);
            let ws = self.warps[w.0 as usize].as_mut().expect("registered");
            ws.v.gen_mut().raise(id.actor, t);
            ws.v.pf_mut().raise(id.actor, t);
        }
        if done.len() > 16 {
            done.sort_unstable();
            done.dedup_by(|b, a| {
                let same = a.0 == b.0;
                if same {
                    a.1 += b.1;
                }
                same
            });
        }
        self.observe_popped(w, done);
    }

    /// Observes each op once (the warp is one actor) and releases one reference per lane
    /// group that held it.
    fn observe_popped(&mut self, w: WarpId, done: SmallVec<[(OpId, u32); 8]>) {
        for (id, n) in done {
            self.observe(w, id);
            if let Some(op) = op_mut(&mut self.actors, id) {
                op.refs = op.refs.saturating_sub(n);
            }
        }
    }

    /// Whether warp `w`'s cp.async-groups are still one warp-wide queue.
    fn cp_groups_warp_wide(&mut self, w: WarpId) -> bool {
        let per_lane = self.per_lane_cp_groups;
        let ws = self.warp(w);
        if per_lane && ws.cpa.is_empty() {
            ws.cpa.resize_with(32, LaneBulk::default);
        }
        ws.cpa.is_empty()
    }

    /// `tcgen05.wait::ld`: every earlier `tcgen05.ld` of the warp has completed.
    pub fn wait_ld(&mut self, w: WarpId) {
        let pending = std::mem::take(&mut self.warp(w).ld_pending);
        self.observe_tc(w, &pending);
    }

    /// `tcgen05.wait::st`.
    pub fn wait_st(&mut self, w: WarpId) {
        let pending = std::mem::take(&mut self.warp(w).st_pending);
        self.observe_tc(w, &pending);
    }

    fn observe_tc(&mut self, w: WarpId, ops: &[OpId]) {
        for &id in ops {
            if let Some(done) = self.done_clock(id).cloned() {
                let ws = self.warps[w.0 as usize].as_mut().expect("registered");
                ws.v.gen_mut().join(&done);
                ws.v.tc_mut().join(&done);
                // A completed load/store is published by any later synchronisation, fenced or
                // not (`ld; fence::before; wait::ld; arrive.relaxed` must stay silent; the
                // strict reading would also want the fence after the wait: a deliberate miss).
                ws.tc_pub.join(&done);
            }
            self.release_ref(id);
        }
    }

    /// `tcgen05.commit.cta_group::N`: tracks all earlier mma/cp/shift of warp `w` with the same
    /// cta_group. Call [`Self::commit_fire`] when they have completed and the arrive happens.
    pub fn commit(&mut self, w: WarpId, cta_group: u8) -> CommitId {
        self.commit_at(w, cta_group, SpanToken(u32::MAX))
    }

    /// [`Self::commit`] by instruction `span` (named by a TM0214 finding at the arrive).
    pub fn commit_at(&mut self, w: WarpId, cta_group: u8, span: SpanToken) -> CommitId {
        let ws = self.warp(w);
        let g = &ws.groups[group(cta_group)];
        // The commit arrive is a release at cluster scope and implies before_thread_sync
        // (sync.md §4.2): it carries the warp's generic and full tcgen05 views.
        let mut clocks = ws.release_channels();
        clocks.tc.join(ws.v.tc());
        clocks.gen.join(&g.done);
        clocks.tc.join(&g.done);
        let ops = g.inflight.clone();
        ws.v.gen_mut().tick(ws.actor);
        for &id in &ops {
            if let Some(op) = op_mut(&mut self.actors, id) {
                op.refs += 1;
            }
        }
        let state = CommitState {
            clocks,
            ops,
            warp: w,
            span,
        };
        match self.free_commits.pop() {
            Some(i) => {
                self.commits[i as usize] = Some(state);
                CommitId(i)
            }
            None => {
                self.commits.push(Some(state));
                CommitId(self.commits.len() as u32 - 1)
            }
        }
    }

    /// The commit's tracked ops completed: arrive on each mbarrier in `keys` (one for
    /// `.multicast::cluster` per destination CTA). Ops not yet reported complete are completed.
    pub fn commit_fire(&mut self, c: CommitId, keys: &[SyncKey]) {
        let Some(Some(mut state)) = self.commits.get_mut(c.0 as usize).map(Option::take) else {
            self.stats.stale_handles += 1;
            return;
        };
        self.free_commits.push(c.0);
        for &id in &state.ops {
            if let Some(done) = self.done_clock(id) {
                state.clocks.gen.join(done);
                state.clocks.tc.join(done);
            }
            self.release_ref(id);
        }
        for &key in keys {
            let acq = self.init_acq(state.warp);
            let init =
                (self.sync.get(&key)).and_then(|o| mbar_init::unordered(o, &state.clocks.gen, acq));
            let obj = self.sync.entry(key).or_default();
            obj.pending.join(&state.clocks);
            if let Some(i) = init {
                self.init_race(
                    i,
                    key,
                    state.warp,
                    Agent::Thread,
                    AccessKind::Write,
                    state.span,
                );
            }
        }
    }

    // ------------------------------------------------------------------------------------
    // Slot recycling

    fn alloc_op_slot(&mut self, issuer: WarpId) -> ActorIdx {
        for _ in 0..self.retired.len().min(4) {
            let a = self.retired.pop_front().expect("nonempty");
            match self.reusable(a, issuer) {
                Some(true) => return self.reuse(a, false),
                Some(false) => self.retired.push_back(a),
                None => {} // already reused or not an op: drop the entry
            }
        }
        if self.stats.op_slots as usize >= MAX_OP_SLOTS {
            let pos = self.retired.iter().position(|&a| {
                matches!(&self.actors[a.index()], Actor::Op { op: Some(op), .. } if op.refs == 0)
            });
            if let Some(pos) = pos {
                let a = self.retired.remove(pos).expect("in range");
                return self.reuse(a, true);
            }
        }
        self.stats.op_slots += 1;
        self.actors.push(Actor::Op {
            next_time: 1,
            op: None,
        });
        ActorIdx(self.actors.len() as u32 - 1)
    }

    /// `Some(true)` when the op is complete, unreferenced and every live warp has observed its
    /// completion, in the generic view and, for warps that issue tcgen05 ops, in the tcgen05
    /// view too. Reuse adds an edge (observing the new occupant implies observing the old one)
    /// that then nobody lacks. The issuer of the new occupant is never exempt: its own view
    /// takes the new occupant's issue (and later its completion), which covers every record
    /// of the old one, so a warp that had not yet issued a tcgen05 op and had not observed the
    /// old op would judge that op's TMEM accesses as ordered before its own later ones (its
    /// tcgen05.dealloc, triton-lang/triton PR #7994).
    fn reusable(&self, a: ActorIdx, issuer: WarpId) -> Option<bool> {
        let Actor::Op { op: Some(op), .. } = &self.actors[a.index()] else {
            return None;
        };
        let stamp = Stamp {
            actor: a,
            time: done_time(op.kind, op.issue),
        };
        op.done.as_ref()?;
        // Memory records (smem/global: mma and cp operands, bulk copies) are judged by the
        // generic view of threads and ops; TMEM records by the tcgen05 view alone, which only
        // matters for warps that issue tcgen05 ops.
        let agent = op.kind.agent();
        let touches_mem = agent.is_async_proxy() || agent == Agent::CpAsync;
        let touches_tmem = agent.is_tcgen05();
        Some(
            op.refs == 0
                && self.warps.iter().enumerate().all(|(i, w)| {
                    let Some(w) = w.as_deref().filter(|w| w.live) else {
                        return true;
                    };
                    // A warp whose generic view covers the completion judges the op's TMEM
                    // records as ordered anyway (a TMEM access is ordered when its generic view
                    // covers the record, the TM0207 reading of the crate docs, and every later
                    // op and dealloc of the warp takes its generic view), so its tcgen05 view
                    // need not. Kernels without tcgen05 fences (Triton, Gluon) observe mma
                    // completions only through mbarrier waits: their slots were never reused
                    // before the cap (clocks as long as 256 op slots, forced reuses).
                    let gen = w.v.gen().covers(stamp);
                    let exempt = !w.issued_tcgen05 && i != issuer.0 as usize;
                    (!touches_mem || gen)
                        && (!touches_tmem || exempt || gen || w.v.tc().covers(stamp))
                }),
        )
    }

    fn reuse(&mut self, a: ActorIdx, forced: bool) -> ActorIdx {
        self.stats.slots_reused += 1;
        if forced {
            self.stats.forced_reuses += 1;
        }
        if let Actor::Op { op, .. } = &mut self.actors[a.index()] {
            if let Some(st) = op.take() {
                self.spare_ops.push(st);
            }
        }
        a
    }

    // ------------------------------------------------------------------------------------
    // Findings

    fn report(
        &mut self,
        out: &mut Vec<Conflict>,
        second: Rec,
        second_kind: AccessKind,
        region: impl Fn(u64, u64) -> Region,
        space: Option<MemSpace>,
    ) {
        for c in out.drain(..) {
            if !self.reported.insert((c.first.span, second.span)) {
                self.stats.duplicate_findings += 1;
                continue;
            }
            let (rule, why) = finding::classify(
                space.is_none(),
                space,
                (&c.first, c.first_kind),
                (&second, second_kind),
                c.cause,
            );
            let first = Access::from_rec(&c.first, c.first_kind, region(c.start, c.end));
            let second = Access::from_rec(&second, second_kind, region(c.start, c.end));
            let message = finding::message(&first, &second, why);
            self.findings.push(Race {
                rule,
                first,
                second,
                message,
                why,
            });
        }
    }
}

/// The tick an op's access is stamped with: its completion, except that a bulk copy's
/// reads complete one tick before its writes (`cp.async.bulk.wait_group.read` observes the
/// reads alone).
fn access_time(kind: OpKind, issue: Time, access: AccessKind) -> Time {
    if kind == OpKind::Bulk && access == AccessKind::Write {
        issue + 2
    } else {
        issue + 1
    }
}

/// PTX ISA §9.7.16.6.2 for op kinds (the record form is [`pipelined`]).
fn pipelined_kinds(prev: OpKind, next: OpKind) -> bool {
    if prev.cta_group() != next.cta_group() {
        return false;
    }
    match (prev, next) {
        (OpKind::Mma { accum: a, .. }, OpKind::Mma { accum: b, .. }) => a == b,
        (OpKind::Cp { .. }, OpKind::Mma { .. })
        | (OpKind::Shift { .. }, OpKind::Mma { .. })
        | (OpKind::Mma { .. }, OpKind::Shift { .. }) => true,
        (OpKind::Shift { .. }, OpKind::Cp { shape_4x256b, .. }) => shape_4x256b,
        _ => false,
    }
}

/// Makes ordering by pipelined pairs transitive (PTX ISA §9.7.16.6.2: a pair "executes in
/// issue order"). `tc` is the tcgen05 view a new op of `kind` is issued under; for each op
/// `p` that view orders before it (issued earlier by the same thread, or by another thread
/// across `fence::before_thread_sync`, a synchronisation and `fence::after_thread_sync`:
/// sync.md §3) and that forms a pipelined pair with it, the new op executes after `p` has
/// executed, hence after everything `p` was ordered after. So `p`'s own tcgen05 view
/// (which holds `p`'s pipelined predecessors, joined the same way at its issue) and `p`'s
/// completion stamp are joined into `tc`. Example: `cp` → `mma` → `shift` of one thread
/// with no wait; the shift overwriting the cp's columns is ordered after the cp through the
/// mma although (cp, shift) is not a listed pair.
///
/// Only ops that the view already orders before the new one are chained, so this never
/// orders ops of two threads that the pairwise rule (`ordered_in`) would not: it only adds
/// the transitive closure of that rule's edges (an added edge, hiding only). The direct pair
/// itself is still judged by `ordered_in`; here its completion stamp makes it redundant.
fn pipeline_chain(actors: &[Actor], kind: OpKind, tc: &mut VClock) {
    // Only these kinds are the second op of a pair: skip the scan for ld/st and most cps.
    if !matches!(
        kind,
        OpKind::Mma { .. }
            | OpKind::Shift { .. }
            | OpKind::Cp {
                shape_4x256b: true,
                ..
            }
    ) {
        return;
    }
    let mut chain: Option<VClock> = None;
    for (a, actor) in actors.iter().enumerate() {
        let Actor::Op { op: Some(p), .. } = actor else {
            continue;
        };
        let a = ActorIdx(a as u32);
        // The slot's current occupant is the newest op the slot ever held: a view entry at or
        // past its issue tick names it (its issue, or its completion once observed).
        let t = tc.get(a);
        if t == 0 || t < p.issue || !pipelined_kinds(p.kind, kind) {
            continue;
        }
        let c = chain.get_or_insert_with(VClock::new);
        c.join(&p.tc);
        c.raise(a, done_time(p.kind, p.issue));
    }
    if let Some(c) = chain {
        tc.join(&c);
    }
}

/// The tick of an op's completion (all its accesses).
fn done_time(kind: OpKind, issue: Time) -> Time {
    access_time(kind, issue, AccessKind::Write)
}

fn group(cta_group: u8) -> usize {
    usize::from(cta_group == 2)
}

/// The record an access of op `id` leaves (its kind decides the stamp's time).
fn op_rec(op: &OpState, id: OpId, kind: AccessKind) -> Rec {
    Rec {
        stamp: Stamp {
            actor: id.actor,
            time: access_time(op.kind, id.issue, kind),
        },
        span: op.span,
        warp: op.issuer,
        agent: op.kind.agent(),
        strong: false,
        scope: Scope::WIDE,
        cta_group: op.kind.cta_group(),
        pipe: op.kind.pipe_key(),
    }
}

fn op_ref(actors: &[Actor], id: OpId) -> Option<&OpState> {
    match actors.get(id.actor.index()) {
        Some(Actor::Op { op: Some(op), .. }) if op.issue == id.issue => Some(op),
        _ => None,
    }
}

fn op_mut(actors: &mut [Actor], id: OpId) -> Option<&mut OpState> {
    match actors.get_mut(id.actor.index()) {
        Some(Actor::Op { op: Some(op), .. }) if op.issue == id.issue => Some(op),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A detector with warps 0 and 1 registered: the setup every two-warp test starts from.
    fn two_warps() -> (RaceDetector, WarpId, WarpId) {
        let mut d = RaceDetector::new();
        let (w0, w1) = (WarpId(0), WarpId(1));
        d.add_warp(w0);
        d.add_warp(w1);
        (d, w0, w1)
    }

    fn rect(lane: u32, lanes: u32, col: u32, cols: u32) -> TmemRect {
        TmemRect {
            cta: 0,
            lane,
            lanes,
            col,
            cols,
        }
    }

    /// [`lane_mask_runs`] as [`lane_runs`] of the compacted active lanes (its fallback).
    fn reference_lane_runs(lanes: u32, addrs: &[u64; 32], size: u64) -> Vec<(u64, u64)> {
        let active: Vec<u64> = (0..32)
            .filter(|l| lanes >> l & 1 != 0)
            .map(|l| addrs[l])
            .collect();
        let mut runs = SmallVec::new();
        lane_runs(&active, size, &mut runs);
        runs.to_vec()
    }

    fn mask_runs(lanes: u32, addrs: &[u64; 32], size: u64) -> Vec<(u64, u64)> {
        let mut runs = SmallVec::new();
        lane_mask_runs(lanes, addrs, size, &mut runs);
        runs.to_vec()
    }

    /// matmul_fp16_bench1024's swizzled `st.shared.b16`: lane `l` at `2l ^ 144`, the 16-byte
    /// chunks swapped pairwise: one range.
    #[test]
    fn swizzled_half_words_are_one_range() {
        let addrs: [u64; 32] = std::array::from_fn(|l| 0x400 + ((2 * l as u64) ^ 144));
        assert_eq!(mask_runs(u32::MAX, &addrs, 2), vec![(0x480, 0x4c0)]);
        assert_eq!(
            reference_lane_runs(u32::MAX, &addrs, 2),
            vec![(0x480, 0x4c0)]
        );
    }

    /// The top of the address space: a lane at `u64::MAX` is an empty saturated run.
    #[test]
    fn lanes_at_the_top_of_the_address_space() {
        for size in [1u64, 2, 4] {
            for (lo, hi) in [
                (u64::MAX - 64 * size, u64::MAX),
                (u64::MAX - 3 * size, u64::MAX),
            ] {
                let mut addrs = [lo; 32];
                addrs[1] = hi;
                for lanes in [3u32, u32::MAX] {
                    assert_eq!(
                        mask_runs(lanes, &addrs, size),
                        reference_lane_runs(lanes, &addrs, size),
                        "size {size} lo {lo:#x} lanes {lanes:#x}"
                    );
                }
            }
        }
    }

    mod lane_props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2048))]
            /// `slice_runs` (what `access_lanes` uses) gives `lane_runs`'s ranges for any
            /// number of addresses, in or out of order, on or off the element grid.
            #[test]
            fn slice_runs_match_lane_runs(
                addrs in proptest::collection::vec(
                    prop_oneof![0u64..64, 0u64..4096, (0u64..256).prop_map(|x| x * 16)],
                    0..40,
                ),
                size in prop_oneof![Just(1u64), Just(2), Just(4), Just(16), Just(3)],
                base in prop_oneof![Just(0u64), 0u64..1 << 40, (0u64..8192).prop_map(|d| u64::MAX - d)],
            ) {
                let addrs: Vec<u64> = addrs.iter().map(|&x| base.wrapping_add(x)).collect();
                let (mut got, mut want) = (SmallVec::new(), SmallVec::new());
                slice_runs(&addrs, size, &mut got);
                lane_runs(&addrs, size, &mut want);
                prop_assert_eq!(got, want);
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(4096))]
            /// The bitmap of `lane_mask_runs` gives the ranges of the run merge: lanes on and off the
            /// element grid, spans below and above 64 elements, sizes that are not powers of two,
            /// addresses at the top of the address space.
            #[test]
            fn lane_mask_runs_match_lane_runs(
                lanes in prop_oneof![
                    Just(u32::MAX),
                    any::<u32>(),
                    (0u32..32).prop_map(|l| 1u32 << l),
                ],
                size in prop_oneof![
                    (0u32..6).prop_map(|k| 1u64 << k),
                    Just(3u64),
                    Just(12u64),
                ],
                base in prop_oneof![
                    Just(0u64),
                    0u64..1 << 40,
                    (0u64..256).prop_map(|d| u64::MAX - d),
                    any::<u64>(),
                ],
                offs in proptest::array::uniform32(0u64..160),
                // up to 4 and 7 times 160 elements: one line of the map, up to 8, more
                spread in prop_oneof![1u64..4, 4u64..8],
                aligned in any::<bool>(),
                mode in 0u8..4,
            ) {
                let addrs: [u64; 32] = std::array::from_fn(|l| {
                    let off = match mode {
                        0 => offs[l] * spread,
                        1 => (size * l as u64) ^ (offs[0] & !(size - 1)),
                        // spans of about 64 elements, the bitmap's limit
                        2 => offs[l] % 66 * size,
                        // coalesced
                        _ => size * l as u64,
                    };
                    let off = if aligned { off / size * size } else { off };
                    base.wrapping_add(off)
                });
                prop_assert_eq!(
                    mask_runs(lanes, &addrs, size),
                    reference_lane_runs(lanes, &addrs, size)
                );
            }
        }
    }

    #[test]
    fn tmem_full_height_rect_is_one_run_per_quarter() {
        let runs: Vec<_> = tmem_runs(rect(0, 128, 8, 256)).collect();
        assert_eq!(runs.len(), 4);
        for (q, &(s, e)) in runs.iter().enumerate() {
            let base = q as u64 * QUARTER_CELLS;
            assert_eq!((s, e), (base + 8 * 32, base + 264 * 32));
        }
    }

    #[test]
    fn tmem_warp_quarter_rect_is_one_run() {
        assert_eq!(
            tmem_runs(rect(32, 32, 4, 64)).collect::<Vec<_>>(),
            vec![(QUARTER_CELLS + 4 * 32, QUARTER_CELLS + 68 * 32)]
        );
        assert_eq!(
            tmem_region(0, QUARTER_CELLS + 4 * 32, QUARTER_CELLS + 68 * 32),
            Region::Tmem {
                cta: 0,
                lanes: 32..64,
                cols: 4..68
            }
        );
    }

    #[test]
    fn tmem_runs_cover_exactly_the_rect_cells() {
        // Reference: enumerate (lane, col) cells and map them one by one.
        for &(lane, lanes, col, cols) in &[
            (0, 128, 0, 3),
            (16, 48, 5, 2),
            (40, 8, 1, 4),
            (96, 64, 7, 1),
        ] {
            let mut want: Vec<u64> = Vec::new();
            for l in lane..(lane + lanes).min(128) {
                for c in col..col + cols {
                    let l = l as u64;
                    want.push((l / 32) * QUARTER_CELLS + c as u64 * 32 + l % 32);
                }
            }
            want.sort();
            let mut got: Vec<u64> = tmem_runs(rect(lane, lanes, col, cols))
                .flat_map(|(s, e)| s..e)
                .collect();
            got.sort();
            assert_eq!(got, want, "rect {:?}", (lane, lanes, col, cols));
        }
    }

    /// Two one-warp CTAs (0 and 1) of a pair: `.cta_group::2` alloc halves of columns 0..32.
    fn pair_allocated() -> (RaceDetector, WarpId, WarpId) {
        let (mut d, w0, w1) = two_warps();
        // Rank 1 arrives late: rank 0's half is reported first.
        d.tmem_alloc(w0, 0, Some(1), 0..32, SpanToken(5));
        d.tmem_alloc(w1, 1, Some(0), 0..32, SpanToken(5));
        (d, w0, w1)
    }

    fn rules(d: &RaceDetector) -> Vec<&'static str> {
        d.findings().iter().map(|r| r.rule.id).collect()
    }

    #[test]
    fn pair_dealloc_without_sync_after_the_peer_alloc_is_tm0201() {
        let (mut d, w0, w1) = pair_allocated();
        d.tmem_dealloc(w0, 0, Some(1), 0..32, SpanToken(9));
        d.tmem_dealloc(w1, 1, Some(0), 0..32, SpanToken(9));
        // One finding per pair of instructions (both halves name the same two lines).
        assert_eq!(rules(&d), ["TM0201"]);
        let r = &d.findings()[0];
        assert_eq!((r.first.agent, r.first.warp), (Agent::Alloc, w1));
        assert_eq!(
            (r.second.agent, r.second.span),
            (Agent::Dealloc, SpanToken(9))
        );
    }

    #[test]
    fn pair_dealloc_after_a_cluster_barrier_is_silent() {
        let (mut d, w0, w1) = pair_allocated();
        for w in [w0, w1] {
            d.arrive(w, SyncKey::ClusterBarrier, Sem::Ordering);
        }
        d.sync_complete(SyncKey::ClusterBarrier);
        for w in [w0, w1] {
            d.wait(w, SyncKey::ClusterBarrier, Sem::Ordering);
            d.tmem_dealloc(w, w.0, Some(w.0 ^ 1), 0..32, SpanToken(9));
        }
        assert!(d.findings().is_empty(), "{:?}", d.findings());
    }

    #[test]
    fn pair_dealloc_after_a_fenced_relaxed_barrier_is_silent() {
        let (mut d, w0, w1) = pair_allocated();
        for w in [w0, w1] {
            d.fence(w, Fence::TcBeforeThreadSync);
            d.arrive(w, SyncKey::ClusterBarrier, Sem::Relaxed);
        }
        d.sync_complete(SyncKey::ClusterBarrier);
        for w in [w0, w1] {
            d.wait(w, SyncKey::ClusterBarrier, Sem::Relaxed);
            d.fence(w, Fence::TcAfterThreadSync);
            d.tmem_dealloc(w, w.0, Some(w.0 ^ 1), 0..32, SpanToken(9));
        }
        assert!(d.findings().is_empty(), "{:?}", d.findings());
    }

    #[test]
    fn pair_dealloc_after_an_unfenced_relaxed_barrier_is_tm0201() {
        // A .relaxed cluster barrier without the tcgen05 fences orders neither the peer's
        // alloc half nor its TMEM accesses before the dealloc.
        let (mut d, w0, w1) = pair_allocated();
        for w in [w0, w1] {
            d.arrive(w, SyncKey::ClusterBarrier, Sem::Relaxed);
        }
        d.sync_complete(SyncKey::ClusterBarrier);
        for w in [w0, w1] {
            d.wait(w, SyncKey::ClusterBarrier, Sem::Relaxed);
            d.tmem_dealloc(w, w.0, Some(w.0 ^ 1), 0..32, SpanToken(9));
        }
        // One finding per pair of instructions: both halves name the same two lines.
        assert_eq!(rules(&d), ["TM0201"]);
        assert_eq!(d.findings()[0].first.warp, w1);
        assert_eq!(d.findings()[0].first.agent, Agent::Alloc);
    }

    /// Warp 1 reads the accumulator with tcgen05.ld, waits for it (wait::ld) and hands over
    /// to warp 0 through a `.relaxed` mbarrier (`fence_before`/`fence_after`: the tcgen05
    /// fences around it); warp 0 deallocates.
    fn relaxed_handoff_then_dealloc(fence_before: bool, fence_after: bool) -> Vec<&'static str> {
        let (mut d, w0, w1) = two_warps();
        d.tmem_alloc(w0, 0, None, 0..32, SpanToken(1));
        let bar = SyncKey::CtaBarrier { cta: 0, id: 0 };
        for w in [w0, w1] {
            d.arrive(w, bar, Sem::Ordering);
        }
        d.sync_complete(bar);
        d.wait(w1, bar, Sem::Ordering);
        let ld = d.issue(w1, OpKind::Ld, SpanToken(3));
        d.op_access(ld, Place::Tmem(rect(32, 32, 0, 32)), AccessKind::Read);
        d.complete(ld);
        d.wait_ld(w1);
        if fence_before {
            d.fence(w1, Fence::TcBeforeThreadSync);
        }
        let mb = SyncKey::Mbarrier { cta: 0, offset: 8 };
        d.arrive(w1, mb, Sem::Relaxed);
        d.sync_complete(mb);
        d.wait(w0, mb, Sem::Relaxed);
        if fence_after {
            d.fence(w0, Fence::TcAfterThreadSync);
        }
        d.tmem_dealloc(w0, 0, None, 0..32, SpanToken(9));
        rules(&d)
    }

    #[test]
    fn dealloc_after_a_relaxed_handoff_needs_fence_after_thread_sync() {
        // Canonical pattern 4 (§9.7.16.6.4.4) with the dealloc as the consumer: silent.
        assert!(relaxed_handoff_then_dealloc(true, true).is_empty());
        // The completed load is published without fence::before (see observe_tc), but the
        // relaxed wait orders nothing for the dealloc without fence::after.
        assert!(relaxed_handoff_then_dealloc(false, true).is_empty());
        assert_eq!(relaxed_handoff_then_dealloc(true, false), ["TM0204"]);
        assert_eq!(relaxed_handoff_then_dealloc(false, false), ["TM0204"]);
    }

    #[test]
    fn an_alloc_half_reported_after_the_peer_dealloc_is_checked_against_it() {
        // Rank 1's alloc half is reported when its warp leaves the rendezvous, after rank 0
        // already deallocated: still a finding at the dealloc.
        let (mut d, w0, w1) = two_warps();
        d.tmem_alloc(w0, 0, Some(1), 0..32, SpanToken(5));
        d.tmem_dealloc(w0, 0, Some(1), 0..32, SpanToken(9));
        assert!(d.findings().is_empty());
        d.tmem_alloc(w1, 1, Some(0), 0..32, SpanToken(6));
        assert_eq!(rules(&d), ["TM0201"]);
        let r = &d.findings()[0];
        assert_eq!((r.first.span, r.second.span), (SpanToken(6), SpanToken(9)));
    }

    #[test]
    fn pair_dealloc_while_the_peer_mma_may_still_write_is_tm0201() {
        let (mut d, w0, w1) = pair_allocated();
        for w in [w0, w1] {
            d.arrive(w, SyncKey::ClusterBarrier, Sem::Ordering);
        }
        d.sync_complete(SyncKey::ClusterBarrier);
        for w in [w0, w1] {
            d.wait(w, SyncKey::ClusterBarrier, Sem::Ordering);
        }
        // Rank 1 issues a cta_group::2 mma writing both CTAs' columns, and never waits.
        let mma = d.issue(
            w1,
            OpKind::Mma {
                cta_group: 2,
                accum: 0,
            },
            SpanToken(7),
        );
        for cta in [0, 1] {
            d.op_access(
                mma,
                Place::Tmem(TmemRect {
                    cta,
                    ..rect(0, 128, 0, 32)
                }),
                AccessKind::Write,
            );
        }
        d.tmem_dealloc(w0, 0, Some(1), 0..32, SpanToken(9));
        assert_eq!(rules(&d), ["TM0201"]);
        assert_eq!(d.findings()[0].first.agent, Agent::Mma);
    }

    #[test]
    fn dealloc_racing_another_warps_unwaited_load_is_tm0204() {
        let (mut d, w0, w1) = two_warps();
        d.tmem_alloc(w0, 0, None, 0..32, SpanToken(1));
        let bar = SyncKey::CtaBarrier { cta: 0, id: 0 };
        let ld = d.issue(w1, OpKind::Ld, SpanToken(3));
        d.op_access(ld, Place::Tmem(rect(32, 32, 0, 32)), AccessKind::Read);
        d.complete(ld);
        for w in [w0, w1] {
            d.arrive(w, bar, Sem::Ordering);
        }
        d.sync_complete(bar);
        d.wait(w0, bar, Sem::Ordering);
        // No tcgen05.wait::ld before the barrier: the load may still read the freed columns.
        d.tmem_dealloc(w0, 0, None, 0..32, SpanToken(9));
        assert_eq!(rules(&d), ["TM0204"]);
        assert_eq!(d.findings()[0].first.span, SpanToken(3));
    }

    /// Warp 1 stores and loads its lane quarter and waits for both; warp 0, which has issued
    /// no tcgen05 op yet, stores to its own quarter and deallocates, never synchronising with
    /// warp 1 (triton-lang/triton PR #7994). Warp 0's store must not take over the op slot of
    /// warp 1's completed store: its own wait::st would then cover warp 1's records.
    #[test]
    fn dealloc_after_an_unsynchronised_completed_load_is_tm0204_despite_slot_reuse() {
        let (mut d, w0, w1) = two_warps();
        d.tmem_alloc(w0, 0, None, 0..32, SpanToken(1));
        let bar = SyncKey::CtaBarrier { cta: 0, id: 0 };
        for w in [w0, w1] {
            d.arrive(w, bar, Sem::Ordering);
        }
        d.sync_complete(bar);
        d.wait(w1, bar, Sem::Ordering);
        d.wait(w0, bar, Sem::Ordering);
        let st = d.issue(w1, OpKind::St, SpanToken(2));
        d.op_access(st, Place::Tmem(rect(32, 32, 0, 1)), AccessKind::Write);
        d.complete(st);
        d.wait_st(w1);
        let ld = d.issue(w1, OpKind::Ld, SpanToken(3));
        d.op_access(ld, Place::Tmem(rect(32, 32, 0, 1)), AccessKind::Read);
        d.complete(ld);
        d.wait_ld(w1);
        let st0 = d.issue(w0, OpKind::St, SpanToken(4));
        d.op_access(st0, Place::Tmem(rect(0, 32, 0, 1)), AccessKind::Write);
        d.complete(st0);
        d.wait_st(w0);
        d.tmem_dealloc(w0, 0, None, 0..32, SpanToken(9));
        assert_eq!(rules(&d), ["TM0204"]);
    }

    #[test]
    fn dealloc_after_wait_ld_and_a_barrier_is_silent_and_alloc_orders_no_access() {
        let (mut d, w0, w1) = two_warps();
        d.tmem_alloc(w0, 0, None, 0..32, SpanToken(1));
        let bar = SyncKey::CtaBarrier { cta: 0, id: 0 };
        for w in [w0, w1] {
            d.arrive(w, bar, Sem::Ordering);
        }
        d.sync_complete(bar);
        d.wait(w1, bar, Sem::Ordering);
        // The epilogue's load after the alloc is not made racy by the alloc.
        let ld = d.issue(w1, OpKind::Ld, SpanToken(3));
        d.op_access(ld, Place::Tmem(rect(32, 32, 0, 32)), AccessKind::Read);
        d.complete(ld);
        d.wait_ld(w1);
        d.arrive(w1, bar, Sem::Ordering);
        d.arrive(w0, bar, Sem::Ordering);
        d.sync_complete(bar);
        d.wait(w0, bar, Sem::Ordering);
        d.tmem_dealloc(w0, 0, None, 0..32, SpanToken(9));
        assert!(d.findings().is_empty(), "{:?}", d.findings());
    }

    /// Warp 0 stores 64 bytes of shared memory to global with a `.bulk_group` copy and
    /// commits its group.
    fn bulk_store(d: &mut RaceDetector, span: u32) -> OpId {
        let w = WarpId(0);
        d.add_warp(w);
        let op = d.issue(w, OpKind::Bulk, SpanToken(span));
        let src = MemSpace::Shared { cta: 0 };
        d.op_access(op, mem(src, 0, 64), AccessKind::Read);
        let dst = mem(MemSpace::Global, 0x1000, 64);
        d.op_access(op, dst, AccessKind::Write);
        d.complete(op);
        d.bulk_group_add(w, op);
        d.bulk_commit(w);
        op
    }

    fn mem(space: MemSpace, addr: u64, len: u64) -> Place {
        Place::Mem { space, addr, len }
    }

    fn smem_write(d: &mut RaceDetector) {
        let s = MemSpace::Shared { cta: 0 };
        d.access(
            WarpId(0),
            s,
            0,
            4,
            AccessKind::Write,
            MemOrder::Weak,
            SpanToken(20),
        );
    }

    fn global_read(d: &mut RaceDetector) {
        let g = MemSpace::Global;
        d.access(
            WarpId(0),
            g,
            0x1000,
            4,
            AccessKind::Read,
            MemOrder::Weak,
            SpanToken(21),
        );
    }

    #[test]
    fn bulk_source_reused_before_wait_group_read_is_tm0209() {
        let mut d = RaceDetector::new();
        bulk_store(&mut d, 10);
        smem_write(&mut d);
        assert_eq!(rules(&d), ["TM0209"]);
        assert_eq!(d.findings()[0].first.span, SpanToken(10));
    }

    #[test]
    fn wait_group_read_completes_the_reads_only() {
        let mut d = RaceDetector::new();
        bulk_store(&mut d, 10);
        d.bulk_wait(WarpId(0), 0, true);
        smem_write(&mut d);
        assert!(d.findings().is_empty(), "{:?}", d.findings());
        global_read(&mut d);
        assert_eq!(rules(&d), ["TM0213"]);
        d.bulk_wait(WarpId(0), 0, false);
        let mut d2 = RaceDetector::new();
        bulk_store(&mut d2, 10);
        d2.bulk_wait(WarpId(0), 0, false);
        smem_write(&mut d2);
        global_read(&mut d2);
        assert!(d2.findings().is_empty(), "{:?}", d2.findings());
    }

    #[test]
    fn wait_group_n_leaves_the_n_newest_groups_pending() {
        let mut d = RaceDetector::new();
        bulk_store(&mut d, 10);
        let s = MemSpace::Shared { cta: 0 };
        // a second group reading other bytes (64..128)
        let op = d.issue(WarpId(0), OpKind::Bulk, SpanToken(11));
        d.op_access(op, mem(s, 64, 64), AccessKind::Read);
        d.complete(op);
        d.bulk_group_add(WarpId(0), op);
        d.bulk_commit(WarpId(0));
        d.bulk_wait(WarpId(0), 1, true);
        smem_write(&mut d); // bytes 0..4: the older group, waited
        assert!(d.findings().is_empty(), "{:?}", d.findings());
        d.access(
            WarpId(0),
            s,
            64,
            4,
            AccessKind::Write,
            MemOrder::Weak,
            SpanToken(22),
        );
        assert_eq!(rules(&d), ["TM0209"]);
        assert_eq!(d.findings()[0].first.span, SpanToken(11));
    }

    /// Lane 0 of warp 0 stores shared bytes 0..64 to global 0x1000 with a `.bulk_group` copy
    /// and commits; lane `waiter` then waits for all its groups and warp 0 writes the source
    /// and reads the destination.
    fn per_thread_bulk_wait(waiter: u32) -> Vec<&'static str> {
        let mut d = RaceDetector::new();
        let w = WarpId(0);
        d.add_warp(w);
        let op = d.issue(w, OpKind::Bulk, SpanToken(10));
        let src = mem(MemSpace::Shared { cta: 0 }, 0, 64);
        d.op_access(op, src, AccessKind::Read);
        let dst = mem(MemSpace::Global, 0x1000, 64);
        d.op_access(op, dst, AccessKind::Write);
        d.complete(op);
        d.bulk_group_add_lanes(w, 1, op);
        d.bulk_commit_lanes(w, 1);
        // The waiting lane commits its own (empty) group too, as a warp-wide commit would.
        d.bulk_commit_lanes(w, 1 << waiter);
        d.bulk_wait_lanes(w, 1 << waiter, 0, false);
        global_read(&mut d);
        smem_write(&mut d);
        rules(&d)
    }

    #[test]
    fn bulk_groups_are_per_thread() {
        // PTX ISA §9.7.9.27.2: wait_group waits for the executing thread's groups. Lane 1
        // waiting on its own groups does not complete lane 0's copy.
        assert_eq!(per_thread_bulk_wait(1), ["TM0213", "TM0209"]);
        // Lane 0 waiting on its own group does.
        assert!(per_thread_bulk_wait(0).is_empty());
    }

    /// Warp 0's lanes 0..8 stage global 0x1000..0x1080 into shared 0..128 with one non-bulk
    /// `cp.async` and commit; `observe` runs warp 0's group events, then both warps meet at a
    /// barrier and warp 1 reads shared bytes 64..68 (lane 4's copy).
    fn cp_async_then_barrier_read(
        observe: impl Fn(&mut RaceDetector, WarpId),
    ) -> Vec<&'static str> {
        let mut d = RaceDetector::new();
        let (w0, w1) = (WarpId(0), WarpId(1));
        d.add_warp(w0);
        d.add_warp(w1);
        let op = d.issue(w0, OpKind::CpAsync, SpanToken(10));
        let dst = mem(MemSpace::Shared { cta: 0 }, 0, 128);
        d.op_access(op, dst, AccessKind::Write);
        let src = mem(MemSpace::Global, 0x1000, 128);
        d.op_access(op, src, AccessKind::Read);
        d.complete(op);
        d.cp_async_add_lanes(w0, 0xff, op);
        d.cp_async_commit_lanes(w0, u32::MAX);
        observe(&mut d, w0);
        let bar = SyncKey::CtaBarrier { cta: 0, id: 0 };
        d.arrive(w0, bar, Sem::Ordering);
        d.arrive(w1, bar, Sem::Ordering);
        d.sync_complete(bar);
        d.wait(w0, bar, Sem::Ordering);
        d.wait(w1, bar, Sem::Ordering);
        d.access(
            w1,
            MemSpace::Shared { cta: 0 },
            64,
            4,
            AccessKind::Read,
            MemOrder::Weak,
            SpanToken(30),
        );
        rules(&d)
    }

    #[test]
    fn cp_async_read_by_another_warp_needs_the_issuers_wait_group() {
        // no wait: the copy may still be writing (PTX ISA §9.7.9.25.3)
        assert_eq!(cp_async_then_barrier_read(|_, _| {}), ["TM0213"]);
        // cp.async.wait_group 0 by every lane, then bar.sync: ordered; no proxy fence needed
        // (cp.async writes through the generic proxy)
        assert!(
            cp_async_then_barrier_read(|d, w| d.cp_async_wait_lanes(w, u32::MAX, 0)).is_empty()
        );
        // wait_group 1 leaves the most recent group (this one) pending
        assert_eq!(
            cp_async_then_barrier_read(|d, w| d.cp_async_wait_lanes(w, u32::MAX, 1)),
            ["TM0213"]
        );
        // only lane 4 (the copier of the bytes read) waiting is enough for those bytes
        assert!(cp_async_then_barrier_read(|d, w| d.cp_async_wait_lanes(w, 1 << 4, 0)).is_empty());
        // lanes 8..32 issued nothing: their waits observe nothing
        assert_eq!(
            cp_async_then_barrier_read(|d, w| d.cp_async_wait_lanes(w, !0xff, 0)),
            ["TM0213"]
        );
        // cp.async.mbarrier.arrive observes the thread's copies, committed or not
        assert!(cp_async_then_barrier_read(|d, w| d.cp_async_arrive_lanes(w, u32::MAX)).is_empty());
    }

    /// `cp.async` of shared bytes 0..128 by warp 0, its `wait_group 0`, then `fenced` (warp
    /// 0's fence or none), a barrier, and warp 1's `tcgen05.mma` reading bytes 64..96 (the
    /// async proxy).
    fn cp_async_then_mma_read(fenced: bool) -> Vec<&'static str> {
        let mut d = RaceDetector::new();
        let (w0, w1) = (WarpId(0), WarpId(1));
        d.add_warp(w0);
        d.add_warp(w1);
        let op = d.issue(w0, OpKind::CpAsync, SpanToken(10));
        d.op_access(
            op,
            mem(MemSpace::Shared { cta: 0 }, 0, 128),
            AccessKind::Write,
        );
        d.op_access(op, mem(MemSpace::Global, 0x1000, 128), AccessKind::Read);
        d.complete(op);
        d.cp_async_add_lanes(w0, u32::MAX, op);
        d.cp_async_commit_lanes(w0, u32::MAX);
        d.cp_async_wait_lanes(w0, u32::MAX, 0);
        if fenced {
            d.fence(w0, Fence::ProxyAsync);
        }
        let bar = SyncKey::CtaBarrier { cta: 0, id: 0 };
        d.arrive(w0, bar, Sem::Ordering);
        d.arrive(w1, bar, Sem::Ordering);
        d.sync_complete(bar);
        d.wait(w0, bar, Sem::Ordering);
        d.wait(w1, bar, Sem::Ordering);
        let mma = d.issue(
            w1,
            OpKind::Mma {
                cta_group: 1,
                accum: 0,
            },
            SpanToken(30),
        );
        d.op_access(
            mma,
            mem(MemSpace::Shared { cta: 0 }, 64, 32),
            AccessKind::Read,
        );
        rules(&d)
    }

    #[test]
    fn cp_async_staged_mma_operand_needs_a_proxy_fence() {
        // cp.async writes through the generic proxy; tcgen05.mma reads through the async
        // proxy: the wait orders the two, only fence.proxy.async makes the bytes visible
        // (Triton's `cp.async.wait_group; bar.sync; fence.proxy.async; bar.sync; mma`)
        assert_eq!(cp_async_then_mma_read(false), ["TM0208"]);
        assert!(cp_async_then_mma_read(true).is_empty());
    }

    #[test]
    fn bulk_and_cp_async_groups_are_separate_sequences() {
        // cp.async.bulk.wait_group does not wait for cp.async groups (PTX ISA §9.7.9.25.3.2)
        assert_eq!(
            cp_async_then_barrier_read(|d, w| {
                d.bulk_commit_lanes(w, u32::MAX);
                d.bulk_wait_lanes(w, u32::MAX, 0, false);
            }),
            ["TM0213"]
        );
    }

    #[test]
    fn a_warp_wide_commit_and_wait_observe_every_lanes_copies() {
        let mut d = RaceDetector::new();
        let w = WarpId(0);
        d.add_warp(w);
        for lane in [0u32, 5] {
            let op = d.issue(w, OpKind::Bulk, SpanToken(10));
            let src = mem(MemSpace::Shared { cta: 0 }, 64 * lane as u64, 64);
            d.op_access(op, src, AccessKind::Read);
            d.complete(op);
            d.bulk_group_add_lanes(w, 1 << lane, op);
        }
        d.bulk_commit_lanes(w, u32::MAX);
        d.bulk_wait_lanes(w, u32::MAX, 0, true);
        for lane in [0u64, 5] {
            d.access(
                w,
                MemSpace::Shared { cta: 0 },
                64 * lane,
                64,
                AccessKind::Write,
                MemOrder::Weak,
                SpanToken(20),
            );
        }
        assert!(d.findings().is_empty(), "{:?}", d.findings());
    }

    #[test]
    fn a_copy_never_committed_is_never_observed() {
        let mut d = RaceDetector::new();
        let w = WarpId(0);
        d.add_warp(w);
        let op = d.issue(w, OpKind::Bulk, SpanToken(10));
        let s = MemSpace::Shared { cta: 0 };
        d.op_access(op, mem(s, 0, 64), AccessKind::Read);
        d.complete(op);
        d.bulk_group_add(w, op);
        d.bulk_wait(w, 0, false); // no commit_group: nothing to wait for
        smem_write(&mut d);
        assert_eq!(rules(&d), ["TM0209"]);
    }

    #[test]
    fn mma_completion_implies_its_pipelined_cp_completed() {
        // cp by warp 0, fences + barrier, mma by warp 1 (pipelined), commit, warp 0 waits for
        // the commit: the cp's columns may be deallocated.
        let (mut d, w0, w1) = two_warps();
        let cp = d.issue(
            w0,
            OpKind::Cp {
                cta_group: 1,
                shape_4x256b: false,
            },
            SpanToken(2),
        );
        d.op_access(cp, Place::Tmem(rect(0, 128, 32, 8)), AccessKind::Write);
        let bar = SyncKey::CtaBarrier { cta: 0, id: 0 };
        for w in [w0, w1] {
            d.fence(w, Fence::TcBeforeThreadSync);
            d.arrive(w, bar, Sem::Ordering);
        }
        d.sync_complete(bar);
        d.wait(w1, bar, Sem::Ordering);
        d.fence(w1, Fence::TcAfterThreadSync);
        let mma = d.issue(
            w1,
            OpKind::Mma {
                cta_group: 1,
                accum: 0,
            },
            SpanToken(3),
        );
        d.op_access(mma, Place::Tmem(rect(0, 128, 32, 8)), AccessKind::Read);
        d.op_access(mma, Place::Tmem(rect(0, 128, 0, 32)), AccessKind::Write);
        let c = d.commit(w1, 1);
        d.complete(cp);
        d.complete(mma);
        let mb = SyncKey::Mbarrier { cta: 0, offset: 0 };
        d.commit_fire(c, &[mb]);
        d.sync_complete(mb);
        d.wait(w0, mb, Sem::Ordering);
        d.tmem_dealloc(w0, 0, None, 0..64, SpanToken(9));
        assert!(d.findings().is_empty(), "{:?}", d.findings());
    }

    #[test]
    fn slots_are_recycled_once_everyone_observed_completion() {
        let (mut d, w0, w1) = two_warps();
        let mb = SyncKey::Mbarrier { cta: 0, offset: 0 };
        for _ in 0..100 {
            let op = d.issue(w0, OpKind::Bulk, SpanToken(1));
            d.complete(op);
            d.op_arrive(op, mb);
            d.sync_complete(mb);
            d.wait(w0, mb, Sem::Ordering);
            d.wait(w1, mb, Sem::Ordering);
        }
        assert!(d.stats().op_slots <= 2, "{:?}", d.stats());
        assert_eq!(d.stats().forced_reuses, 0);
    }

    #[test]
    fn slots_are_not_recycled_while_a_live_warp_has_not_observed() {
        let mut d = RaceDetector::new();
        d.add_warp(WarpId(0));
        d.add_warp(WarpId(1));
        for _ in 0..10 {
            let op = d.issue(WarpId(0), OpKind::Bulk, SpanToken(1));
            d.complete(op);
            d.observe(WarpId(0), op);
        }
        assert_eq!(d.stats().op_slots, 10);
        d.warp_exit(WarpId(1));
        let op = d.issue(WarpId(0), OpKind::Bulk, SpanToken(1));
        d.complete(op);
        assert_eq!(
            d.stats().op_slots,
            10,
            "an exited warp no longer pins slots"
        );
    }

    /// A retired warp's state is dropped (the memory of wide grids) without ordering it
    /// before anything: the new occupant of its CTA index still races with what it wrote to
    /// global memory, and an op it issued may still complete.
    #[test]
    fn retired_warps_free_their_state_and_order_nothing() {
        let mut d = RaceDetector::new();
        d.add_warp(WarpId(0));
        d.access(
            WarpId(0),
            MemSpace::Global,
            0x100,
            4,
            AccessKind::Write,
            MemOrder::Weak,
            SpanToken(1),
        );
        let op = d.issue(WarpId(0), OpKind::Bulk, SpanToken(2));
        d.bulk_group_add(WarpId(0), op);
        d.bulk_commit(WarpId(0));
        d.retire_warp(WarpId(0));
        d.reset_cta(0);
        assert!(d.warps[0].is_none(), "the retired warp's clocks are freed");
        d.complete(op);
        d.add_warp(WarpId(8));
        d.access(
            WarpId(8),
            MemSpace::Global,
            0x100,
            4,
            AccessKind::Read,
            MemOrder::Weak,
            SpanToken(3),
        );
        assert_eq!(d.findings().len(), 1, "{:?}", d.findings());
    }

    /// The warp-wide cp.async-group queue (`cp_async::WarpGroups`) against the per-lane
    /// queues it stands for (`with_per_lane_cp_groups`): random streams of copies added by
    /// any lanes (a new op or one added before), commits, `wait_group n`, `wait_all` and
    /// `cp.async.mbarrier.arrive` by any lanes of two warps, completions and barriers (which
    /// let slots be reused, so the order ops are observed in matters), long runs of commits
    /// (past the eviction bound). After every event both detectors must hold the same
    /// warps' views, the same op slots (references, completion clocks), the same queue of
    /// retired slots and the same counters.
    mod cp_group_props {
        use super::*;
        use proptest::prelude::*;

        #[derive(Clone, Debug)]
        enum Ev {
            Issue {
                w: u32,
                lanes: u32,
                span: u32,
            },
            Add {
                w: u32,
                lanes: u32,
                which: usize,
            },
            /// `count` new ops in a row (a group of more than 16 ops).
            Many {
                w: u32,
                lanes: u32,
                count: u32,
            },
            Commit {
                w: u32,
                lanes: u32,
                times: u32,
            },
            Wait {
                w: u32,
                lanes: u32,
                n: u32,
            },
            WaitAll {
                w: u32,
                lanes: u32,
            },
            Arrive {
                w: u32,
                lanes: u32,
            },
            Complete {
                which: usize,
            },
            Bar,
        }

        fn lanes() -> impl Strategy<Value = u32> {
            prop_oneof![
                6 => Just(u32::MAX),
                1 => Just(0xffu32),
                1 => Just(0xffff_0000u32),
                1 => (0u32..32).prop_map(|l| 1u32 << l),
                1 => any::<u32>(),
                1 => Just(0u32),
            ]
        }

        fn ev() -> impl Strategy<Value = Ev> {
            let w = 0u32..2;
            prop_oneof![
                4 => (w.clone(), lanes(), 0u32..6)
                    .prop_map(|(w, lanes, span)| Ev::Issue { w, lanes, span }),
                1 => (w.clone(), lanes(), any::<usize>())
                    .prop_map(|(w, lanes, which)| Ev::Add { w, lanes, which }),
                1 => (w.clone(), lanes(), 1u32..24)
                    .prop_map(|(w, lanes, count)| Ev::Many { w, lanes, count }),
                3 => (w.clone(), lanes(), prop_oneof![4 => Just(1u32), 1 => 1u32..80])
                    .prop_map(|(w, lanes, times)| Ev::Commit { w, lanes, times }),
                3 => (w.clone(), lanes(), 0u32..4).prop_map(|(w, lanes, n)| Ev::Wait { w, lanes, n }),
                1 => (w.clone(), lanes()).prop_map(|(w, lanes)| Ev::WaitAll { w, lanes }),
                1 => (w.clone(), lanes()).prop_map(|(w, lanes)| Ev::Arrive { w, lanes }),
                1 => any::<usize>().prop_map(|which| Ev::Complete { which }),
                1 => Just(Ev::Bar),
            ]
        }

        fn apply(d: &mut RaceDetector, ops: &mut Vec<OpId>, e: &Ev) {
            let bar = SyncKey::CtaBarrier { cta: 0, id: 0 };
            match *e {
                Ev::Issue { w, lanes, span } => {
                    ops.push(d.cp_async_issue(WarpId(w), lanes, SpanToken(span)));
                }
                Ev::Add { w, lanes, which } => {
                    let op = if ops.is_empty() || which % 3 == 0 {
                        let op = d.issue(WarpId(w), OpKind::CpAsync, SpanToken(50));
                        ops.push(op);
                        op
                    } else {
                        ops[which % ops.len()]
                    };
                    d.cp_async_add_lanes(WarpId(w), lanes, op);
                }
                Ev::Many { w, lanes, count } => {
                    for i in 0..count {
                        let op = d.issue(WarpId(w), OpKind::CpAsync, SpanToken(60 + i));
                        ops.push(op);
                        d.cp_async_add_lanes(WarpId(w), lanes, op);
                    }
                }
                Ev::Commit { w, lanes, times } => {
                    for _ in 0..times {
                        d.cp_async_commit_lanes(WarpId(w), lanes);
                    }
                }
                Ev::Wait { w, lanes, n } => d.cp_async_wait_lanes(WarpId(w), lanes, n),
                Ev::WaitAll { w, lanes } => {
                    d.cp_async_commit_lanes(WarpId(w), lanes);
                    d.cp_async_wait_lanes(WarpId(w), lanes, 0);
                }
                Ev::Arrive { w, lanes } => d.cp_async_arrive_lanes(WarpId(w), lanes),
                Ev::Complete { which } => {
                    if !ops.is_empty() {
                        d.complete(ops[which % ops.len()]);
                    }
                }
                Ev::Bar => {
                    for w in 0..2 {
                        d.arrive(WarpId(w), bar, Sem::Ordering);
                    }
                    d.sync_complete(bar);
                    for w in 0..2 {
                        d.wait(WarpId(w), bar, Sem::Ordering);
                    }
                }
            }
        }

        /// What the two representations must agree on.
        fn state(d: &RaceDetector) -> String {
            let views: Vec<_> = d
                .warps
                .iter()
                .flatten()
                .map(|ws| (ws.v.gen().clone(), ws.v.pf().clone(), ws.v.tc().clone()))
                .collect();
            format!("{views:?}\n{:?}\n{:?}\n{:?}", d.actors, d.retired, d.stats)
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(1024))]
            #[test]
            fn warp_wide_groups_match_per_lane_groups(
                evs in proptest::collection::vec(ev(), 1..120),
            ) {
                let mut fast = RaceDetector::new();
                let mut slow = RaceDetector::with_per_lane_cp_groups();
                let (mut fops, mut sops) = (Vec::new(), Vec::new());
                for d in [&mut fast, &mut slow] {
                    d.add_warp(WarpId(0));
                    d.add_warp(WarpId(1));
                }
                for (i, e) in evs.iter().enumerate() {
                    apply(&mut fast, &mut fops, e);
                    apply(&mut slow, &mut sops, e);
                    prop_assert_eq!(&fops, &sops);
                    prop_assert_eq!(state(&fast), state(&slow), "after event {}: {:?}", i, e);
                }
            }
        }
    }
}
