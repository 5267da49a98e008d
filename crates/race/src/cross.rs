//! Global-memory races between SM groups, compared after the launch.
//!
//! Each SM group has its own [`crate::RaceDetector`] (vector clocks as long as the group's
//! warps), so two clusters on different groups never meet there. A detector over the whole
//! grid would make every clock as long as the grid's warps. Instead each group keeps a
//! [`GlobalLog`]: its non-atomic (and atomic) global accesses as byte ranges, each with the
//! place that made it and two bits that are all the cross-group ordering needs, and
//! [`cross_group_races`] compares the logs of all groups once the launch is over.
//!
//! # Ordering across groups (PTX ISA 9.1 §8)
//!
//! Two CTAs of different clusters share no barrier, no mbarrier and no shared memory: the
//! only happens-before between them goes through global memory, as a release pattern in one
//! thread synchronising with an acquire pattern in the other (§8, "Release and Acquire
//! Patterns": a release operation, or a fence followed by a strong write; an acquire
//! operation, or a strong read followed by a fence; morally strong at `.gpu`/`.sys` scope,
//! "Morally strong operations"; chained through "Causality Order"). `barrier.cluster` and
//! mbarriers reach no further than the cluster (sync.md §7), and `griddepcontrol` orders only
//! against *other* grids. So an access `a` of group A can be ordered before an access `b` of
//! group B only if
//!
//! - A performs a release pattern on global memory **after** `a` (in A's execution), and
//! - B performs an acquire pattern on global memory **before** `b`.
//!
//! A chain through a third group needs the same two events at its ends. The log keeps, per
//! access, whether an acquire came before it in its group (`acquired`) and whether a release
//! came after it (`released`, the prefix of the log before the group's last release): a
//! conflicting pair is reported only when **neither** direction can be ordered,
//! `!(a.released && b.acquired) && !(b.released && a.acquired)`. The group's execution order
//! stands in for happens-before inside the group (every hb edge inside a group goes forward
//! in its execution, so a `bar.sync` before another thread's release composes, as "Causality
//! Order" has it).
//!
//! Only what can reach another cluster counts ([`Reach`]): a release or acquire synchronises
//! only when its first (release) and last (acquire) operation are morally strong with each
//! other, i.e. each one's scope includes the other thread, and a thread of another cluster is
//! inside `.gpu`/`.sys` only. So a release is a strong global write at `.gpu`/`.sys` scope that
//! is `.release`/`.acq_rel`, or that follows a `.gpu`/`.sys` fence (`fence.sc`/`.acq_rel`,
//! `membar.gl`/`.sys`) or `.gpu`/`.sys` release operation of the group; an acquire is a
//! `.gpu`/`.sys` `.acquire`/`.acq_rel` access, or a `.gpu`/`.sys` fence or acquire operation
//! after a strong `.gpu`/`.sys` global read (`ld`, `atom`, `red`) of the group. `bar.sync`,
//! `barrier.cluster`, mbarriers and `.cta`/`.cluster` fences and atomics order nothing across
//! clusters. What stays over-approximated: locations are not matched (a release on one flag
//! and an acquire on another still count), so the comparison can miss a race in a kernel that
//! synchronises through global memory somewhere (documented in docs/arch/race.md), and never
//! reports one the model orders.
//!
//! # Conflicts
//!
//! As inside a group: a weak write conflicts with every access of another thread, a weak read
//! with a weak write; two strong accesses (one a write) race when they are not morally strong,
//! which between clusters means one of them is at `.cta`/`.cluster` scope (`conflict`), and
//! a weak read racing only strong writes is not reported (the atomicCAS-loop idiom). Strong
//! writes are looked up only in a launch where some group logged such a narrow strong access,
//! so the comparison of a launch without one costs what it did. Unlike inside a group, two plain writes
//! by the *same instruction* in different clusters are reported: the split-K that stores its
//! partials with `st.global` and two CTAs whose tiles overlap both write through the one
//! epilogue store. TMA reductions (`cp.reduce.async.bulk`) are atomic per element and are
//! logged as strong writes by the caller.
//!
//! # Cost
//!
//! Logging is one `Vec` push per warp-instruction (per run of consecutive lanes). When the log
//! doubles it is compacted: per class, overlapping ranges are cut so each byte keeps one
//! access, which bounds it by the bytes a group touches, not by the accesses. The comparison
//! sorts the weak writes of all groups once and looks every access up by binary search:
//! O(n log n) in the logged ranges. Writes of the same bytes by the same instruction in
//! several groups (every CTA storing to one tile) form a run that an access looks at once
//! per side, not once per group, until a pair is found.

use std::collections::HashSet;
use std::ops::Range;

use crate::dense::FxBuild;

use crate::event::{AccessKind, MemOrder, SpanToken};

/// How far a strong access, fence or release/acquire operation reaches (PTX ISA 9.1 §8,
/// "Scope", "Morally strong operations").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// `.cta` scope: morally strong only with threads of the same CTA.
    Cta,
    /// `.cluster` scope (and every barrier and mbarrier): morally strong only with threads of
    /// the same cluster. Neither this nor `Cta` synchronises anything between groups, and a
    /// strong access at either races a conflicting strong access of another cluster.
    Cluster,
    /// `.gpu` or `.sys` scope: includes the threads of every cluster of the grid.
    Grid,
}

impl Reach {
    /// Whether a strong access at this scope includes the thread of another access, given
    /// whether that thread is in the same CTA and in the same cluster (PTX ISA §8, "Scope").
    #[inline]
    pub fn includes(self, same_cta: bool, same_cluster: bool) -> bool {
        match self {
            Reach::Cta => same_cta,
            Reach::Cluster => same_cluster,
            Reach::Grid => true,
        }
    }
}

/// A global thread access's strength as the comparison needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strength {
    pub order: MemOrder,
    pub reach: Reach,
    /// A strong write that also reads (`atom`, `red`): it can start an acquire pattern.
    pub rmw: bool,
}

impl From<MemOrder> for Strength {
    /// At `.gpu` scope, as an `atom` without `.scope` is.
    fn from(order: MemOrder) -> Self {
        Strength {
            order,
            reach: Reach::Grid,
            rmw: true,
        }
    }
}

/// The reach of a memory instruction or fence from its opcode text
/// (`atom.relaxed.cta.global.inc.u32`, `membar.gl`), and whether it is a read-modify-write. PTX defaults: `atom`/`red` without
/// `.scope` are `.gpu`; `.volatile` is `.relaxed.sys` and `.mmio` is `.sys`. An opcode with no
/// scope the ISA would require is taken as `.gpu`: an unknown scope may only add silence.
pub fn opcode_reach(opcode: &str) -> (Reach, bool) {
    let mut it = opcode.split('.');
    let head = it.next().unwrap_or("");
    let rmw = matches!(head, "atom" | "red") || (head == "multimem" && opcode.contains(".red"));
    let mut reach = Reach::Grid;
    for m in it {
        match m {
            // `membar.cta`; `membar.gl`/`.sys` are `.gpu`/`.sys`
            "cta" => reach = Reach::Cta,
            "cluster" => reach = Reach::Cluster,
            "gpu" | "sys" | "gl" => reach = Reach::Grid,
            _ => {}
        }
    }
    (reach, rmw)
}

/// Where an access was made, in the caller's identities.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Site {
    pub span: SpanToken,
    /// The caller's CTA identity (e.g. an index into its table of CTAs of the group).
    pub cta: u32,
    /// Warp index within the CTA.
    pub warp: u32,
}

const WEAK_WRITE: u8 = 0;
const WEAK_READ: u8 = 1;
const STRONG_READ: u8 = 2;
const STRONG_WRITE: u8 = 3;
const KIND_MASK: u8 = 3;
/// An acquire pattern of the group came before the access.
const ACQUIRED: u8 = 4;
/// The access was made by an asynchronous bulk copy (TMA), not a thread.
const BULK: u8 = 8;
/// A strong access at `.cta`/`.cluster` scope: not morally strong with any access of another
/// cluster, so it races a conflicting strong access of another group too.
const NARROW: u8 = 16;

/// One logged range (32 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    start: u64,
    end: u64,
    span: u32,
    cta: u32,
    warp: u16,
    /// The lane of the byte at `start - delta`; with `stride` > 0, lanes `lane0..` accessed
    /// consecutive `stride`-byte elements from there.
    lane0: u8,
    stride: u8,
    class: u8,
    /// `start` minus the start of the original range (ranges are cut by compaction).
    delta: u16,
}

impl Entry {
    fn kind(&self) -> u8 {
        self.class & KIND_MASK
    }

    fn lane_at(&self, x: u64) -> u32 {
        if self.stride == 0 {
            return self.lane0 as u32;
        }
        let off = x - self.start + self.delta as u64;
        (self.lane0 as u64 + off / self.stride as u64).min(31) as u32
    }

    /// `self` without its bytes below `x` (`start < x < end`).
    fn cut_below(mut self, x: u64) -> Entry {
        let d = self.delta as u64 + (x - self.start);
        match u16::try_from(d) {
            Ok(d) => self.delta = d,
            // Beyond what lanes can span: name the first lane (only multi-KiB bulk ranges,
            // whose stride is 0, get here in practice).
            Err(_) => self.stride = 0,
        }
        self.start = x;
        self
    }
}

/// Below this many entries a log is never compacted.
const MIN_COMPACT: usize = 1 << 16;

/// One SM group's global accesses, in execution order, with the synchronisation events that
/// matter across groups (see the module docs).
#[derive(Clone, Debug)]
pub struct GlobalLog {
    entries: Vec<Entry>,
    /// `entries[..released]` have a release pattern of the group after them.
    released: usize,
    acquired: bool,
    /// A `.gpu`/`.sys` fence or release operation was executed: a later strong `.gpu`/`.sys`
    /// global write completes a release pattern.
    fenced: bool,
    /// A strong `.gpu`/`.sys` global read was executed: a later `.gpu`/`.sys` fence or acquire
    /// operation completes an acquire pattern.
    read_seen: bool,
    /// A strong access at `.cta`/`.cluster` scope was logged: only then are strong writes
    /// compared with strong accesses (without one, every pair of strong accesses of two
    /// groups is morally strong, and the comparison stays on the weak writes).
    narrow: bool,
    compact_at: usize,
}

impl Default for GlobalLog {
    fn default() -> Self {
        GlobalLog {
            entries: Vec::new(),
            released: 0,
            acquired: false,
            fenced: false,
            read_seen: false,
            narrow: false,
            compact_at: MIN_COMPACT,
        }
    }
}

fn class_of(kind: AccessKind, strong: bool, acquired: bool) -> u8 {
    let k = match (kind, strong) {
        (AccessKind::Write, false) => WEAK_WRITE,
        (AccessKind::Read, false) => WEAK_READ,
        (AccessKind::Read, true) => STRONG_READ,
        (AccessKind::Write, true) => STRONG_WRITE,
    };
    k | if acquired { ACQUIRED } else { 0 }
}

/// Whether two logged accesses of different groups (so of different clusters) conflict:
/// a weak write against anything; a strong write against a weak write, or against a strong
/// access when either one's scope is `.cta`/`.cluster` (PTX ISA §8, "Morally strong
/// operations": each scope must include the other thread, and only `.gpu`/`.sys` include a
/// thread of another cluster; "Conflict and Data-races"). A weak read racing only strong
/// writes is not reported (the atomicCAS-loop idiom).
#[inline]
fn conflict(a: &Entry, b: &Entry) -> bool {
    let (ka, kb) = (a.kind(), b.kind());
    if ka == WEAK_WRITE || kb == WEAK_WRITE {
        return true;
    }
    let strong = |k| k >= STRONG_READ;
    (ka == STRONG_WRITE || kb == STRONG_WRITE)
        && strong(ka)
        && strong(kb)
        && (a.class | b.class) & NARROW != 0
}

/// Whether the entry is looked up as a write in [`cross_group_races`]: the weak writes, and
/// the strong ones when some log holds a `.cta`/`.cluster` strong access.
#[inline]
fn is_write_side(e: &Entry, narrow: bool) -> bool {
    e.kind() == WEAK_WRITE || (narrow && e.kind() == STRONG_WRITE)
}

impl GlobalLog {
    pub fn new() -> Self {
        Self::default()
    }

    /// Ranges held (memory use; after compaction, at most a few per byte touched).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// One warp-instruction's global accesses: lane `lanes[i]` accessed `size` bytes at
    /// `addrs[i]` (atomics are `Write`s with a strong order). Consecutive lanes at consecutive
    /// addresses become one range.
    pub fn thread_access(
        &mut self,
        site: Site,
        lanes: &[u8],
        addrs: &[u64],
        size: u64,
        kind: AccessKind,
        strength: impl Into<Strength>,
    ) {
        let strength = strength.into();
        let class = self.class(kind, strength);
        let n = addrs.len().min(lanes.len());
        // One lane's contiguous elements (a vector access reports them lane by lane).
        let lane_run = |mut j: usize| -> (usize, u64) {
            let mut end = addrs[j].saturating_add(size);
            j += 1;
            while j < n && lanes[j] == lanes[j - 1] && addrs[j] == end {
                end = end.saturating_add(size);
                j += 1;
            }
            (j, end)
        };
        let mut i = 0;
        while i < n {
            let (start, lane0) = (addrs[i], lanes[i]);
            let (mut j, mut end) = lane_run(i);
            let per_lane = end - start;
            let mut merged = 1;
            // Following lanes whose elements continue the range with the same extent.
            while j < n && lanes[j] == lanes[j - 1].wrapping_add(1) && addrs[j] == end {
                let (k, e) = lane_run(j);
                if e - addrs[j] != per_lane {
                    break;
                }
                (j, end) = (k, e);
                merged += 1;
            }
            // Lanes reading the same element (a broadcast) add nothing.
            let dup = self.entries.last().is_some_and(|e| {
                e.start == start && e.end == end && e.span == site.span.0 && e.cta == site.cta
            });
            if !dup {
                self.push(Entry {
                    start,
                    end,
                    span: site.span.0,
                    cta: site.cta,
                    warp: site.warp.min(u16::MAX as u32) as u16,
                    lane0,
                    stride: if merged > 1 {
                        u8::try_from(per_lane).unwrap_or(0)
                    } else {
                        0
                    },
                    class,
                    delta: 0,
                });
            }
            i = j;
        }
        self.after_access(kind, strength);
    }

    /// [`Self::thread_access`] of one warp-instruction given as the engine's batch: lane `l`
    /// (bit `l` of `mask`) accessed `size` bytes at `addrs[l]`. The common coalesced case (a
    /// contiguous lane mask at consecutive addresses) is one range without a per-lane loop
    /// beyond the check.
    pub fn thread_access_lanes(
        &mut self,
        site: Site,
        mask: u32,
        addrs: &[u64; 32],
        size: u64,
        kind: AccessKind,
        strength: impl Into<Strength>,
    ) {
        let strength = strength.into();
        if mask == 0 {
            return;
        }
        let (lo, hi) = (mask.trailing_zeros(), 32 - mask.leading_zeros());
        if mask >> lo == u32::MAX >> (32 - (hi - lo)) {
            let a = &addrs[lo as usize..hi as usize];
            let base = a[0];
            let mut step = base;
            let mut ok = true;
            for &x in a {
                ok &= x == step;
                step = step.wrapping_add(size);
            }
            if ok && step > base {
                let n = a.len();
                let class = self.class(kind, strength);
                self.push(Entry {
                    start: base,
                    end: step,
                    span: site.span.0,
                    cta: site.cta,
                    warp: site.warp.min(u16::MAX as u32) as u16,
                    lane0: lo as u8,
                    stride: if n > 1 {
                        u8::try_from(size).unwrap_or(0)
                    } else {
                        0
                    },
                    class,
                    delta: 0,
                });
                self.after_access(kind, strength);
                return;
            }
        }
        let mut lanes = [0u8; 32];
        let mut buf = [0u64; 32];
        let mut n = 0;
        for l in lo..hi {
            if mask >> l & 1 != 0 {
                lanes[n] = l as u8;
                buf[n] = addrs[l as usize];
                n += 1;
            }
        }
        self.thread_access(site, &lanes[..n], &buf[..n], size, kind, strength);
    }

    /// A thread access's class (kind, ordering bit, scope bit); notes a narrow one.
    fn class(&mut self, kind: AccessKind, s: Strength) -> u8 {
        let strong = s.order.is_strong();
        let narrow = strong && s.reach != Reach::Grid;
        self.narrow |= narrow;
        class_of(kind, strong, self.acquired) | if narrow { NARROW } else { 0 }
    }

    /// The access's part in the group's synchronisation (after it is logged: a release write
    /// is itself ordered before what its acquirer does next; an acquire orders only what
    /// follows it). A strong access at `.cta`/`.cluster` scope is not morally strong with any
    /// thread of another cluster: it takes part in no pattern the comparison can use.
    fn after_access(&mut self, kind: AccessKind, s: Strength) {
        if !s.order.is_strong() || s.reach != Reach::Grid {
            return;
        }
        let (release, acquire) = s.order.flags();
        if kind == AccessKind::Write && (release || self.fenced) {
            self.released = self.entries.len();
        }
        // "A release operation followed by a strong write" is a release pattern as well.
        if release {
            self.fenced = true;
        }
        if acquire {
            self.acquired = true;
        }
        if kind == AccessKind::Read || s.rmw {
            self.read_seen = true;
        }
    }

    /// A global range read or written by an asynchronous copy issued by lane `lane` of the
    /// site's warp. `strong`: a TMA reduction (each element reduced atomically).
    pub fn op_access(
        &mut self,
        site: Site,
        lane: u8,
        addr: u64,
        len: u64,
        kind: AccessKind,
        strong: bool,
    ) {
        if len == 0 {
            return;
        }
        self.push(Entry {
            start: addr,
            end: addr.saturating_add(len),
            span: site.span.0,
            cta: site.cta,
            warp: site.warp.min(u16::MAX as u32) as u16,
            lane0: lane,
            stride: 0,
            class: class_of(kind, strong, self.acquired) | BULK,
            delta: 0,
        });
    }

    /// `fence.acq_rel`/`fence.sc`/`membar` at `reach`: at `.gpu`/`.sys` scope, completes an
    /// acquire pattern after a strong global read and makes later strong global writes release
    /// patterns; a `.cta`/`.cluster` fence orders nothing across clusters.
    pub fn fence(&mut self, reach: Reach) {
        if reach != Reach::Grid {
            return;
        }
        self.fenced = true;
        if self.read_seen {
            self.acquired = true;
        }
    }

    /// A release operation outside global memory (a release store or atomic on shared memory)
    /// at `reach`: at `.gpu`/`.sys` scope, a later strong global write completes a release
    /// pattern. Barriers and mbarriers reach no further than the cluster and are not passed.
    pub fn release_op(&mut self, reach: Reach) {
        if reach == Reach::Grid {
            self.fenced = true;
        }
    }

    /// An acquire operation outside global memory at `reach`: at `.gpu`/`.sys` scope, completes
    /// an acquire pattern after a strong global read.
    pub fn acquire_op(&mut self, reach: Reach) {
        if reach == Reach::Grid && self.read_seen {
            self.acquired = true;
        }
    }

    fn push(&mut self, e: Entry) {
        if self.entries.capacity() == 0 {
            // Skips the first doublings (each copies the whole log): 128 KiB, touched only as
            // it fills.
            self.entries.reserve(MIN_COMPACT / 16);
        }
        self.entries.push(e);
        if self.entries.len() >= self.compact_at {
            self.compact();
        }
    }

    /// Cuts overlapping ranges of one class so each byte keeps one access per class, the
    /// released prefix and the rest separately (their ordering bits differ).
    fn compact(&mut self) {
        let rest = self.entries.split_off(self.released);
        let mut done = normalize(std::mem::take(&mut self.entries));
        self.released = done.len();
        done.extend(normalize(rest));
        self.entries = done;
        self.compact_at = (self.entries.len() * 2).max(MIN_COMPACT);
    }

    /// The log's ranges with their cross-group ordering bits.
    fn items(&self, group: u32) -> impl Iterator<Item = Item> + '_ {
        self.entries.iter().enumerate().map(move |(i, &e)| Item {
            e,
            group,
            released: i < self.released,
        })
    }
}

/// Sorts by class and start and cuts each range to the bytes no earlier range of its class
/// (in that order) covers: every piece is still attributed to an access that made it.
fn normalize(mut v: Vec<Entry>) -> Vec<Entry> {
    v.sort_unstable_by_key(|e| (e.class, e.start, e.end));
    let mut out: Vec<Entry> = Vec::with_capacity(v.len());
    let mut cover: Option<(u8, u64)> = None;
    for e in v {
        if e.end <= e.start {
            continue;
        }
        let e = match cover {
            Some((c, end)) if c == e.class && e.start < end => {
                if e.end <= end {
                    continue;
                }
                e.cut_below(end)
            }
            _ => e,
        };
        cover = Some((e.class, e.end));
        out.push(e);
    }
    out
}

#[derive(Clone, Copy, Debug)]
struct Item {
    e: Entry,
    group: u32,
    released: bool,
}

impl Item {
    fn acquired(&self) -> bool {
        self.e.class & ACQUIRED != 0
    }

    fn access(&self, x: u64) -> CrossAccess {
        let kind = self.e.kind();
        CrossAccess {
            group: self.group,
            site: Site {
                span: SpanToken(self.e.span),
                cta: self.e.cta,
                warp: self.e.warp as u32,
            },
            lane: self.e.lane_at(x),
            kind: if kind == WEAK_WRITE || kind == STRONG_WRITE {
                AccessKind::Write
            } else {
                AccessKind::Read
            },
            strong: kind >= STRONG_READ,
            narrow: self.e.class & NARROW != 0,
            bulk: self.e.class & BULK != 0,
        }
    }
}

/// Whether some global synchronisation of the two groups could order the accesses (module
/// docs): then the pair is not reported.
fn may_be_ordered(a: &Item, b: &Item) -> bool {
    (a.released && b.acquired()) || (b.released && a.acquired())
}

/// One side of a cross-group race.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrossAccess {
    /// Index of the SM group (the log's position in the slice given to [`cross_group_races`]).
    pub group: u32,
    pub site: Site,
    /// The lane that accessed the first conflicting byte (the issuing lane for a bulk copy).
    pub lane: u32,
    pub kind: AccessKind,
    /// An atomic or other strong access.
    pub strong: bool,
    /// A strong access at `.cta`/`.cluster` scope (morally strong with no thread of another
    /// cluster).
    pub narrow: bool,
    /// Made by a bulk copy (TMA) the site issued.
    pub bulk: bool,
}

/// Two global accesses of different SM groups that no synchronisation of the launch can
/// order. `first` is the access of the lower-numbered group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrossRace {
    pub first: CrossAccess,
    pub second: CrossAccess,
    /// The global bytes both access (the overlap of the two ranges).
    pub bytes: Range<u64>,
}

/// Compares the logs of all SM groups of one launch (`logs[g]` is group `g`'s): every pair of
/// conflicting accesses of different groups that no global synchronisation can order, one per
/// pair of instructions (span, span), ordered by the groups, then the place.
pub fn cross_group_races(logs: &[&GlobalLog]) -> Vec<CrossRace> {
    if logs.len() < 2 {
        return Vec::new();
    }
    // The weak writes of every group (and the strong ones, when a strong access of some
    // group is not morally strong with other clusters), by start, with the running maximum
    // of their ends (the ranges of different groups may overlap: that is what is looked for).
    let narrow = logs.iter().any(|l| l.narrow);
    let mut writes: Vec<Item> = Vec::new();
    for (g, log) in logs.iter().enumerate() {
        writes.extend(log.items(g as u32).filter(|i| is_write_side(&i.e, narrow)));
    }
    if writes.is_empty() {
        return Vec::new();
    }
    writes.sort_unstable_by_key(|i| (i.e.start, i.group));
    // Runs of writes to the same bytes by the same instruction (consecutive after the sort,
    // groups ascending): when many groups store to one tile, an access overlaps a write of
    // every group, and the pair each reports is one finding per pair of instructions.
    // Looking the pair up once per run side instead of once per write keeps the comparison
    // near-linear in the groups.
    let mut runs: Vec<Range<usize>> = Vec::new();
    for (i, w) in writes.iter().enumerate() {
        match runs.last_mut() {
            Some(r)
                if {
                    let f = &writes[r.start].e;
                    (f.start, f.end, f.span) == (w.e.start, w.e.end, w.e.span)
                } =>
            {
                r.end = i + 1
            }
            _ => runs.push(i..i + 1),
        }
    }
    // The lookups read these compact copies, not `writes` (40 bytes an item): with thousands
    // of groups' writes the binary searches over `writes` missed the cache at every step.
    let bounds: Vec<(u64, u64, u32)> = runs
        .iter()
        .map(|r| {
            let e = &writes[r.start].e;
            (e.start, e.end, e.span)
        })
        .collect();
    let groups: Vec<u32> = writes.iter().map(|w| w.group).collect();
    let mut max_end = Vec::with_capacity(runs.len());
    let mut m = 0;
    for &(_, end, _) in &bounds {
        m = m.max(end);
        max_end.push(m);
    }
    // Accesses outside every write (the inputs of most kernels) need no lookup.
    let (lo, hi) = (writes[0].e.start, m);
    let mut seen: HashSet<(u32, u32), FxBuild> = HashSet::default();
    let mut out = Vec::new();
    let mut hits: Vec<usize> = Vec::new();
    for x in logs
        .iter()
        .enumerate()
        .flat_map(|(g, log)| log.items(g as u32))
    {
        if x.e.end <= lo || x.e.start >= hi {
            continue;
        }
        let x = &x;
        // The runs overlapping `x`, lowest address first (so a finding names the first
        // conflicting byte).
        hits.clear();
        let mut i = bounds.partition_point(|&(start, _, _)| start < x.e.end);
        while i > 0 && max_end[i - 1] > x.e.start {
            i -= 1;
            if bounds[i].1 > x.e.start {
                hits.push(i);
            }
        }
        for &r in hits.iter().rev() {
            // The writes of lower groups, then of higher ones: each side is one pair of
            // instructions, `(w, x)` below and `(x, w)` above; a side whose pair is reported
            // already is skipped before its groups are looked at. A write against another
            // write of the looked-up side is met twice (from each side): keep the visit from
            // the lower group's write.
            let span = bounds[r].2;
            for lower in [true, false] {
                if lower && is_write_side(&x.e, narrow) {
                    continue;
                }
                let key = if lower {
                    (span, x.e.span)
                } else {
                    (x.e.span, span)
                };
                if seen.contains(&key) {
                    continue;
                }
                let run = &writes[runs[r].clone()];
                let run_groups = &groups[runs[r].clone()];
                let split = run_groups.partition_point(|&g| g < x.group);
                let side = if lower {
                    &run[..split]
                } else {
                    &run[split + run_groups[split..].partition_point(|&g| g == x.group)..]
                };
                let Some(w) = side
                    .iter()
                    .find(|w| conflict(&x.e, &w.e) && !may_be_ordered(x, w))
                else {
                    continue;
                };
                seen.insert(key);
                let (a, b) = if lower { (w, x) } else { (x, w) };
                let lo = x.e.start.max(w.e.start);
                let hi = x.e.end.min(w.e.end);
                out.push(CrossRace {
                    first: a.access(lo),
                    second: b.access(lo),
                    bytes: lo..hi,
                });
            }
        }
    }
    out.sort_by_key(|r| {
        (
            r.first.group,
            r.second.group,
            r.second.site.span,
            r.first.site.span,
        )
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(span: u32) -> Site {
        Site {
            span: SpanToken(span),
            cta: 0,
            warp: 0,
        }
    }

    fn lanes() -> Vec<u8> {
        (0..32).collect()
    }

    fn coalesced(base: u64) -> Vec<u64> {
        (0..32).map(|l| base + 4 * l).collect()
    }

    fn store(log: &mut GlobalLog, span: u32, base: u64, order: MemOrder) {
        log.thread_access(
            site(span),
            &lanes(),
            &coalesced(base),
            4,
            AccessKind::Write,
            order,
        );
    }

    fn load(log: &mut GlobalLog, span: u32, base: u64, order: MemOrder) {
        log.thread_access(
            site(span),
            &lanes(),
            &coalesced(base),
            4,
            AccessKind::Read,
            order,
        );
    }

    /// The comparison before runs: every overlapping write of another group looked at one by
    /// one. The reference `cross_group_races` must agree with, finding for finding.
    fn per_write_reference(logs: &[&GlobalLog]) -> Vec<CrossRace> {
        let narrow = logs.iter().any(|l| l.narrow);
        let mut writes: Vec<Item> = Vec::new();
        for (g, log) in logs.iter().enumerate() {
            writes.extend(log.items(g as u32).filter(|i| is_write_side(&i.e, narrow)));
        }
        if logs.len() < 2 || writes.is_empty() {
            return Vec::new();
        }
        writes.sort_unstable_by_key(|i| (i.e.start, i.group));
        let mut seen: HashSet<(u32, u32)> = HashSet::new();
        let mut out = Vec::new();
        for x in logs
            .iter()
            .enumerate()
            .flat_map(|(g, log)| log.items(g as u32))
        {
            for w in writes
                .iter()
                .filter(|w| w.e.start < x.e.end && w.e.end > x.e.start)
            {
                if w.group == x.group
                    || (is_write_side(&x.e, narrow) && x.group > w.group)
                    || !conflict(&x.e, &w.e)
                {
                    continue;
                }
                if may_be_ordered(&x, w) {
                    continue;
                }
                let (a, b) = if w.group < x.group { (w, &x) } else { (&x, w) };
                if !seen.insert((a.e.span, b.e.span)) {
                    continue;
                }
                let lo = x.e.start.max(w.e.start);
                out.push(CrossRace {
                    first: a.access(lo),
                    second: b.access(lo),
                    bytes: lo..x.e.end.min(w.e.end),
                });
            }
        }
        out.sort_by_key(|r| {
            (
                r.first.group,
                r.second.group,
                r.second.site.span,
                r.first.site.span,
            )
        });
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        /// Many groups storing to the same tile (the wrong-tile-index bug), with reads, atomics
        /// and release/acquire patterns between them: the runs give the findings the per-write
        /// comparison gives.
        #[test]
        fn runs_find_what_the_per_write_comparison_finds(
            groups in 2usize..12,
            ops in proptest::collection::vec(
                (0usize..12, 0u8..9, 0u32..4, 0u64..6, proptest::prelude::any::<bool>()),
                1..80,
            ),
        ) {
            let mut logs: Vec<GlobalLog> = (0..groups).map(|_| GlobalLog::new()).collect();
            for &(g, op, span, row, mask_half) in &ops {
                let log = &mut logs[g % groups];
                let base = 0x1000 + 0x40 * row;
                let mask = if mask_half { 0xffff } else { u32::MAX };
                let addrs: [u64; 32] = std::array::from_fn(|l| base + 4 * l as u64);
                let scoped = |order, reach| Strength { order, reach, rmw: true };
                let (kind, strength) = match op {
                    0 | 1 => (AccessKind::Write, MemOrder::Weak.into()),
                    2 => (AccessKind::Read, MemOrder::Weak.into()),
                    3 => (AccessKind::Write, MemOrder::Relaxed.into()),
                    4 => {
                        log.fence(Reach::Grid);
                        continue;
                    }
                    // atomicAdd_block, atom.relaxed.cluster, ld.relaxed.cta
                    6 => (AccessKind::Write, scoped(MemOrder::Relaxed, Reach::Cta)),
                    7 => (AccessKind::Write, scoped(MemOrder::Relaxed, Reach::Cluster)),
                    8 => (AccessKind::Read, scoped(MemOrder::Relaxed, Reach::Cta)),
                    _ => {
                        log.acquire_op(Reach::Grid);
                        (AccessKind::Read, MemOrder::Relaxed.into())
                    }
                };
                log.thread_access_lanes(site(span), mask, &addrs, 4, kind, strength);
            }
            let refs: Vec<&GlobalLog> = logs.iter().collect();
            proptest::prop_assert_eq!(cross_group_races(&refs), per_write_reference(&refs));
        }
    }

    #[test]
    fn a_tile_every_group_stores_is_one_finding_per_pair_of_instructions() {
        // 64 groups store the same 4 rows with the same two instructions.
        let logs: Vec<GlobalLog> = (0..64)
            .map(|_| {
                let mut log = GlobalLog::new();
                for row in 0..4 {
                    store(
                        &mut log,
                        1 + row % 2,
                        0x4000 + 0x80 * row as u64,
                        MemOrder::Weak,
                    );
                }
                log
            })
            .collect();
        let refs: Vec<&GlobalLog> = logs.iter().collect();
        let r = cross_group_races(&refs);
        assert_eq!(r, per_write_reference(&refs));
        // (1, 1) and (2, 2); spans 1 and 2 never write the same bytes.
        assert_eq!(r.len(), 2, "{r:?}");
        assert!(r.iter().all(|r| (r.first.group, r.second.group) == (0, 1)));
    }

    #[test]
    fn plain_stores_of_two_groups_to_the_same_bytes_race() {
        let (mut a, mut b) = (GlobalLog::new(), GlobalLog::new());
        store(&mut a, 7, 0x1000, MemOrder::Weak);
        store(&mut b, 7, 0x1040, MemOrder::Weak);
        let r = cross_group_races(&[&a, &b]);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0].bytes, 0x1040..0x1080);
        assert_eq!((r[0].first.group, r[0].second.group), (0, 1));
        // Byte 0x1040 is lane 16 of group 0's store, lane 0 of group 1's.
        assert_eq!((r[0].first.lane, r[0].second.lane), (16, 0));
    }

    #[test]
    fn vector_elements_of_consecutive_lanes_are_one_range_with_their_lanes() {
        // ld.v4.u32: each lane's four elements, lane by lane, lanes 0..8 at 16-byte steps.
        let (mut a, mut b) = (GlobalLog::new(), GlobalLog::new());
        let lanes: Vec<u8> = (0..8).flat_map(|l| [l; 4]).collect();
        let addrs: Vec<u64> = (0..32).map(|e| 0x100 + 4 * e).collect();
        let site = site(1);
        a.thread_access(site, &lanes, &addrs, 4, AccessKind::Write, MemOrder::Weak);
        assert_eq!(a.len(), 1);
        store(&mut b, 2, 0x100 + 16 * 5 + 8, MemOrder::Weak);
        let r = cross_group_races(&[&a, &b]);
        assert_eq!(r.len(), 1, "{r:?}");
        // byte 0x158 is lane 5's third element
        assert_eq!(r[0].bytes.start, 0x158);
        assert_eq!(r[0].first.lane, 5);
    }

    #[test]
    fn engine_batches_give_the_same_ranges_as_lane_lists() {
        let mut addrs = [0u64; 32];
        for (l, a) in addrs.iter_mut().enumerate() {
            *a = 0x2000 + 4 * l as u64;
        }
        // Coalesced (fast path), a mask with holes, and scattered lanes (general path).
        let scattered: [u64; 32] = std::array::from_fn(|l| 0x2000 + 64 * (31 - l as u64));
        for (mask, addrs) in [(u32::MAX, addrs), (0b1011, addrs), (u32::MAX, scattered)] {
            let (mut fast, mut list) = (GlobalLog::new(), GlobalLog::new());
            fast.thread_access_lanes(site(1), mask, &addrs, 4, AccessKind::Write, MemOrder::Weak);
            let lanes: Vec<u8> = (0..32u8).filter(|l| mask >> l & 1 != 0).collect();
            let a: Vec<u64> = lanes.iter().map(|&l| addrs[l as usize]).collect();
            list.thread_access(site(1), &lanes, &a, 4, AccessKind::Write, MemOrder::Weak);
            assert_eq!(fast.entries, list.entries, "mask {mask:#x}");
        }
        let mut one = GlobalLog::new();
        one.thread_access_lanes(
            site(1),
            u32::MAX,
            &addrs,
            4,
            AccessKind::Read,
            MemOrder::Weak,
        );
        assert_eq!(one.len(), 1);
        assert_eq!(one.entries[0].lane_at(0x2000 + 4 * 7 + 2), 7);
    }

    #[test]
    fn disjoint_stores_and_shared_reads_are_silent() {
        let (mut a, mut b) = (GlobalLog::new(), GlobalLog::new());
        load(&mut a, 1, 0x0, MemOrder::Weak);
        load(&mut b, 1, 0x0, MemOrder::Weak);
        store(&mut a, 2, 0x1000, MemOrder::Weak);
        store(&mut b, 2, 0x1080, MemOrder::Weak);
        assert!(cross_group_races(&[&a, &b]).is_empty());
    }

    #[test]
    fn atomics_do_not_race_and_a_weak_read_of_atomics_is_not_reported() {
        let (mut a, mut b) = (GlobalLog::new(), GlobalLog::new());
        store(&mut a, 1, 0x0, MemOrder::Relaxed);
        store(&mut b, 1, 0x0, MemOrder::Relaxed);
        load(&mut b, 2, 0x0, MemOrder::Weak);
        assert!(cross_group_races(&[&a, &b]).is_empty());
        // A weak write against an atomic is a race.
        store(&mut b, 3, 0x0, MemOrder::Weak);
        let r = cross_group_races(&[&a, &b]);
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(r[0].first.strong && !r[0].second.strong);
    }

    #[test]
    fn strong_accesses_of_two_clusters_race_unless_both_scopes_are_gpu() {
        use AccessKind::{Read, Write};
        let (cta, cluster) = (Reach::Cta, Reach::Cluster);
        let sys = opcode_reach("st.volatile.global.u32").0;
        let cases = [
            // atomicAdd_block / .cluster atomics of two clusters on one counter
            ((Write, cta), (Write, cta), true),
            ((Write, cluster), (Write, cluster), true),
            // .gpu against .cta or .cluster, in either group
            ((Write, GPU), (Write, cta), true),
            ((Write, cta), (Write, GPU), true),
            ((Write, GPU), (Write, cluster), true),
            // a .cta strong read against a .gpu atomic, and the other way round
            ((Read, cta), (Write, GPU), true),
            ((Write, GPU), (Read, cta), true),
            // .gpu against .gpu, .sys (volatile) against .gpu: morally strong
            ((Write, GPU), (Write, GPU), false),
            ((Write, sys), (Write, GPU), false),
            // no write
            ((Read, cta), (Read, cta), false),
        ];
        for (i, &((ka, ra), (kb, rb), race)) in cases.iter().enumerate() {
            let (mut a, mut b) = (GlobalLog::new(), GlobalLog::new());
            flag(&mut a, 9, ka, strength(MemOrder::Relaxed, ra, true));
            flag(&mut b, 10, kb, strength(MemOrder::Relaxed, rb, true));
            let r = cross_group_races(&[&a, &b]);
            if race {
                assert_eq!(pairs(&r), [(9, 10)], "case {i}");
                assert!(r[0].first.strong && r[0].second.strong);
                assert!(r[0].first.narrow || r[0].second.narrow);
            } else {
                assert!(r.is_empty(), "case {i}: {r:?}");
            }
        }
        // a weak read of .cta atomics is not reported (the atomicCAS-loop idiom), a weak
        // write is
        let (mut a, mut b) = (GlobalLog::new(), GlobalLog::new());
        flag(&mut a, 9, Write, strength(MemOrder::Relaxed, cta, true));
        flag(&mut b, 10, Read, MemOrder::Weak.into());
        assert!(cross_group_races(&[&a, &b]).is_empty());
        flag(&mut b, 11, Write, MemOrder::Weak.into());
        assert_eq!(pairs(&cross_group_races(&[&a, &b])), [(9, 11)]);
    }

    #[test]
    fn a_read_of_another_groups_write_races_in_either_order() {
        let (mut a, mut b) = (GlobalLog::new(), GlobalLog::new());
        load(&mut a, 1, 0x100, MemOrder::Weak);
        store(&mut b, 2, 0x100, MemOrder::Weak);
        let r = cross_group_races(&[&a, &b]);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].first.kind, AccessKind::Read);
        assert_eq!(r[0].second.kind, AccessKind::Write);
    }

    /// Group a: data, then (fenced) release of a flag. Group b: acquire, then data.
    fn ticket(release_after: bool, acquire_before: bool) -> Vec<CrossRace> {
        let (mut a, mut b) = (GlobalLog::new(), GlobalLog::new());
        if !release_after {
            store(&mut a, 9, 0x9000, MemOrder::Release);
        }
        store(&mut a, 1, 0x100, MemOrder::Weak);
        if release_after {
            a.thread_access(
                site(9),
                &[0],
                &[0x9000],
                4,
                AccessKind::Write,
                MemOrder::Release,
            );
        }
        if acquire_before {
            b.thread_access(
                site(10),
                &[0],
                &[0x9000],
                4,
                AccessKind::Write,
                MemOrder::Acquire,
            );
        }
        load(&mut b, 2, 0x100, MemOrder::Weak);
        store(&mut b, 3, 0x100, MemOrder::Weak);
        if !acquire_before {
            b.thread_access(
                site(10),
                &[0],
                &[0x9000],
                4,
                AccessKind::Write,
                MemOrder::Acquire,
            );
        }
        cross_group_races(&[&a, &b])
    }

    #[test]
    fn release_after_and_acquire_before_may_order_the_pair() {
        assert!(ticket(true, true).is_empty());
        // Released before the write, or acquired after the read: nothing orders them.
        assert_eq!(ticket(false, true).len(), 2);
        assert_eq!(ticket(true, false).len(), 2);
    }

    #[test]
    fn a_relaxed_flag_needs_fences_on_both_sides() {
        let run = |fences: bool| {
            let (mut a, mut b) = (GlobalLog::new(), GlobalLog::new());
            store(&mut a, 1, 0x100, MemOrder::Weak);
            if fences {
                a.fence(Reach::Grid);
            }
            a.thread_access(
                site(9),
                &[0],
                &[0x9000],
                4,
                AccessKind::Write,
                MemOrder::Relaxed,
            );
            b.thread_access(
                site(10),
                &[0],
                &[0x9000],
                4,
                AccessKind::Read,
                MemOrder::Relaxed,
            );
            if fences {
                b.fence(Reach::Grid);
            }
            load(&mut b, 2, 0x100, MemOrder::Weak);
            cross_group_races(&[&a, &b])
        };
        assert!(run(true).is_empty());
        assert_eq!(run(false).len(), 1);
    }

    const CTA: Reach = Reach::Cta;
    const CLUSTER: Reach = Reach::Cluster;
    const GPU: Reach = Reach::Grid;

    fn strength(order: MemOrder, reach: Reach, rmw: bool) -> Strength {
        Strength { order, reach, rmw }
    }

    /// One thread's access of the ticket or flag at 0x9000.
    fn flag(log: &mut GlobalLog, span: u32, kind: AccessKind, s: Strength) {
        log.thread_access(site(span), &[0], &[0x9000], 4, kind, s);
    }

    /// The last-block reduction: group a stores its partial, `release` then takes the ticket
    /// `ticket_a`; group b takes `ticket_b`, runs `acquire`, then reads a's partial.
    fn last_block(
        release: impl FnOnce(&mut GlobalLog),
        ticket_a: Strength,
        ticket_b: Strength,
        acquire: impl FnOnce(&mut GlobalLog),
    ) -> Vec<CrossRace> {
        let (mut a, mut b) = (GlobalLog::new(), GlobalLog::new());
        store(&mut a, 1, 0x100, MemOrder::Weak);
        release(&mut a);
        flag(&mut a, 9, AccessKind::Write, ticket_a);
        flag(&mut b, 9, AccessKind::Write, ticket_b);
        acquire(&mut b);
        load(&mut b, 2, 0x100, MemOrder::Weak);
        cross_group_races(&[&a, &b])
    }

    /// The (first, second) spans of each finding.
    fn pairs(r: &[CrossRace]) -> Vec<(u32, u32)> {
        r.iter()
            .map(|r| (r.first.site.span.0, r.second.site.span.0))
            .collect()
    }

    /// The partial store (span 1) against the last CTA's sum (span 2), and the two tickets
    /// (span 9) against each other.
    const PARTIAL: (u32, u32) = (1, 2);
    const TICKETS: (u32, u32) = (9, 9);

    #[test]
    fn a_cta_scoped_ticket_between_gpu_fences_orders_nothing() {
        let fence = |l: &mut GlobalLog| l.fence(GPU);
        let gpu = strength(MemOrder::Relaxed, GPU, true);
        let cta = strength(MemOrder::Relaxed, CTA, true);
        assert!(last_block(fence, gpu, gpu, fence).is_empty());
        // atomicInc_block on either side: not morally strong with the other CTA's ticket, so
        // no pattern orders the partial, and the tickets themselves race
        assert_eq!(
            pairs(&last_block(fence, cta, gpu, fence)),
            [PARTIAL, TICKETS]
        );
        assert_eq!(
            pairs(&last_block(fence, gpu, cta, fence)),
            [PARTIAL, TICKETS]
        );
        assert_eq!(
            pairs(&last_block(fence, cta, cta, fence)),
            [PARTIAL, TICKETS]
        );
    }

    #[test]
    fn only_a_gpu_or_sys_fence_completes_a_pattern() {
        let ticket = strength(MemOrder::Relaxed, GPU, true);
        let gl = |l: &mut GlobalLog| l.fence(GPU);
        // membar.cta / fence.acq_rel.cluster on either side
        let cta = |l: &mut GlobalLog| l.fence(CTA);
        assert!(last_block(gl, ticket, ticket, gl).is_empty());
        assert_eq!(last_block(cta, ticket, ticket, gl).len(), 1);
        assert_eq!(last_block(gl, ticket, ticket, cta).len(), 1);
    }

    #[test]
    fn barriers_and_cluster_scoped_operations_are_no_release_or_acquire() {
        let ticket = strength(MemOrder::Relaxed, GPU, true);
        // what bar.sync, barrier.cluster or an mbarrier arrive/wait would be
        let rel = |l: &mut GlobalLog| l.release_op(CTA);
        let acq = |l: &mut GlobalLog| l.acquire_op(CTA);
        let gl = |l: &mut GlobalLog| l.fence(GPU);
        assert_eq!(last_block(rel, ticket, ticket, gl).len(), 1);
        assert_eq!(last_block(gl, ticket, ticket, acq).len(), 1);
        assert_eq!(last_block(rel, ticket, ticket, acq).len(), 1);
        // a .gpu release/acquire operation outside global memory does complete them
        let rel = |l: &mut GlobalLog| l.release_op(GPU);
        let acq = |l: &mut GlobalLog| l.acquire_op(GPU);
        assert!(last_block(rel, ticket, ticket, acq).is_empty());
    }

    #[test]
    fn an_acq_rel_ticket_synchronises_only_at_gpu_scope() {
        let none = |_: &mut GlobalLog| {};
        let gpu = strength(MemOrder::AcqRel, GPU, true);
        let cluster = strength(MemOrder::AcqRel, CLUSTER, true);
        assert!(last_block(none, gpu, gpu, none).is_empty());
        // atom.acq_rel.cluster between two clusters
        assert_eq!(
            pairs(&last_block(none, cluster, gpu, none)),
            [PARTIAL, TICKETS]
        );
        assert_eq!(
            pairs(&last_block(none, gpu, cluster, none)),
            [PARTIAL, TICKETS]
        );
        // relaxed without fences (Triton's sem="relaxed")
        let relaxed = strength(MemOrder::Relaxed, GPU, true);
        assert_eq!(last_block(none, relaxed, relaxed, none).len(), 1);
    }

    #[test]
    fn a_fence_is_an_acquire_only_after_a_gpu_read() {
        let gl = |l: &mut GlobalLog| l.fence(GPU);
        let ticket = strength(MemOrder::Relaxed, GPU, true);
        // the fence before the read is no acquire pattern
        let (mut a, mut b) = (GlobalLog::new(), GlobalLog::new());
        store(&mut a, 1, 0x100, MemOrder::Weak);
        a.fence(GPU);
        flag(&mut a, 9, AccessKind::Write, ticket);
        b.fence(GPU);
        flag(&mut b, 9, AccessKind::Read, ticket);
        load(&mut b, 2, 0x100, MemOrder::Weak);
        assert_eq!(cross_group_races(&[&a, &b]).len(), 1);
        // a .cta read, or a strong store (no read), then the fence: no acquire pattern either
        let cta_read = |l: &mut GlobalLog| {
            flag(
                l,
                10,
                AccessKind::Read,
                strength(MemOrder::Relaxed, CTA, false),
            );
            l.fence(GPU)
        };
        let gpu_store = |l: &mut GlobalLog| {
            flag(
                l,
                10,
                AccessKind::Write,
                strength(MemOrder::Relaxed, GPU, false),
            );
            l.fence(GPU)
        };
        let gpu_read = |l: &mut GlobalLog| {
            flag(
                l,
                10,
                AccessKind::Read,
                strength(MemOrder::Relaxed, GPU, false),
            );
            l.fence(GPU)
        };
        // b's ticket at .cta scope takes no part: only what `acquire` does counts (it races
        // a's ticket, and the .cta read of the flag races it too: span 10)
        let ignored = strength(MemOrder::Relaxed, CTA, true);
        assert_eq!(
            pairs(&last_block(gl, ticket, ignored, cta_read)),
            [PARTIAL, TICKETS, (9, 10)]
        );
        assert_eq!(
            pairs(&last_block(gl, ticket, ignored, gpu_store)),
            [PARTIAL, TICKETS]
        );
        assert_eq!(pairs(&last_block(gl, ticket, ignored, gpu_read)), [TICKETS]);
    }

    #[test]
    fn a_volatile_flag_with_gpu_fences_synchronises() {
        // ld.volatile / st.volatile are .relaxed.sys
        let (reach, rmw) = opcode_reach("st.volatile.global.u32");
        assert_eq!((reach, rmw), (GPU, false));
        let vol = strength(MemOrder::Relaxed, reach, rmw);
        let (mut a, mut b) = (GlobalLog::new(), GlobalLog::new());
        store(&mut a, 1, 0x100, MemOrder::Weak);
        a.fence(GPU);
        flag(&mut a, 9, AccessKind::Write, vol);
        flag(&mut b, 9, AccessKind::Read, vol);
        b.fence(GPU);
        load(&mut b, 2, 0x100, MemOrder::Weak);
        assert!(cross_group_races(&[&a, &b]).is_empty());
        // ld.relaxed.cta of the flag: no acquire pattern
        let mut c = GlobalLog::new();
        flag(
            &mut c,
            9,
            AccessKind::Read,
            strength(MemOrder::Relaxed, CTA, false),
        );
        c.fence(GPU);
        load(&mut c, 2, 0x100, MemOrder::Weak);
        // and it races the volatile store (.sys includes c's thread, .cta not a's)
        assert_eq!(pairs(&cross_group_races(&[&a, &c])), [PARTIAL, TICKETS]);
    }

    #[test]
    fn a_store_before_a_barrier_and_another_threads_release_is_released() {
        // t1's store, bar.sync, t0's .gpu release: causality order, the execution order of
        // the group stands in for it
        let (mut a, mut b) = (GlobalLog::new(), GlobalLog::new());
        a.thread_access(
            Site {
                span: SpanToken(1),
                cta: 0,
                warp: 1,
            },
            &lanes(),
            &coalesced(0x100),
            4,
            AccessKind::Write,
            MemOrder::Weak,
        );
        a.release_op(CTA); // the bar.sync, were the observer to pass it
        flag(
            &mut a,
            9,
            AccessKind::Write,
            strength(MemOrder::Release, GPU, false),
        );
        flag(
            &mut b,
            9,
            AccessKind::Read,
            strength(MemOrder::Acquire, GPU, false),
        );
        load(&mut b, 2, 0x100, MemOrder::Weak);
        assert!(cross_group_races(&[&a, &b]).is_empty());
    }

    #[test]
    fn opcode_scopes_follow_the_ptx_defaults() {
        for (op, reach, rmw) in [
            ("atom.global.add.u32", GPU, true), // no .scope: .gpu
            ("atom.relaxed.cta.global.inc.u32", CTA, true),
            ("atom.global.gpu.acq_rel.add.u32", GPU, true),
            ("atom.acq_rel.cluster.global.add.u32", CLUSTER, true),
            ("red.release.gpu.global.add.u32", GPU, true),
            ("red.global.add.f32", GPU, true),
            ("ld.acquire.gpu.global.u32", GPU, false),
            ("ld.relaxed.cta.global.u32", CTA, false),
            ("ld.volatile.global.u32", GPU, false),
            ("st.release.sys.global.u32", GPU, false),
            ("membar.gl", GPU, false),
            ("membar.sys", GPU, false),
            ("membar.cta", CTA, false),
            ("fence.sc.gpu", GPU, false),
            ("fence.acq_rel.sys", GPU, false),
            ("fence.acq_rel.cta", CTA, false),
            ("fence.acq_rel.cluster", CLUSTER, false),
            ("fence.mbarrier_init.release.cluster", CLUSTER, false),
            ("st.shared::cta.release.gpu.u32", GPU, false),
        ] {
            assert_eq!(opcode_reach(op), (reach, rmw), "{op}");
        }
    }

    #[test]
    fn compaction_keeps_every_conflict_and_bounds_the_log() {
        let (mut a, mut b) = (GlobalLog::new(), GlobalLog::new());
        // 100k warp-stores over the same 64 KiB: the log stays bounded by bytes touched.
        for i in 0..100_000u64 {
            store(&mut a, 1, (i % 512) * 128, MemOrder::Weak);
        }
        assert!(a.len() < 2 * MIN_COMPACT, "{}", a.len());
        load(&mut b, 2, 0x8000 + 4, MemOrder::Weak);
        let r = cross_group_races(&[&a, &b]);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0].first.lane, 1);
        assert_eq!(r[0].bytes.start, 0x8004);
    }

    #[test]
    fn tma_reductions_are_strong() {
        let (mut a, mut b) = (GlobalLog::new(), GlobalLog::new());
        a.op_access(site(4), 0, 0x0, 4096, AccessKind::Write, true);
        b.op_access(site(4), 0, 0x0, 4096, AccessKind::Write, true);
        assert!(cross_group_races(&[&a, &b]).is_empty());
        b.op_access(site(5), 0, 0x800, 4096, AccessKind::Write, false);
        let r = cross_group_races(&[&a, &b]);
        assert_eq!(r.len(), 1);
        assert!(r[0].second.bulk);
    }
}
