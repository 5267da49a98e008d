//! Dense shadow memory for shared and global memory: one cell id per byte, in pages; bytes
//! with the same id share one shadow state. Generic over the state: the detector keeps two
//! of these per memory, a write plane and a read plane (`crate::planes`, session 6); the
//! one-state form (`DenseShadow<Cell>`) is what the tests below hold to the run-length map.
//!
//! Why: the run-length [`ShadowMap`] costs a few B-tree descents, splits and merges per
//! access (~60 % of a checked run on the corpus' GEMMs, perf, session 3), and shared memory
//! is small and densely used. Here an access of `[start, end)` is a linear scan of `end - start`
//! ids: adjacent bytes of equal state are one *group*, the check runs once per group, and the
//! result is stored for the group's bytes — in place when the group holds every byte of its
//! id (the common case: a warp re-reads what one instruction wrote), else under a new id (or
//! the id of an equal neighbour). No hashing, no per-access allocation.
//!
//! **Same answers as [`ShadowMap`], exactly.** Groups are the maximal runs of equal state
//! inside the access (adjacent bytes with different ids are compared once, at the id change),
//! which is what the run-length map's runs clipped to the access are, so the check closure is
//! called with the same `(start, end, cell)` sequence. `tests::same_calls_as_the_run_map` and
//! the proptest `crates/race/tests/dense_vs_runs.rs` hold the two to that on random streams.
//!
//! Memory: 128-byte pages. A page whose bytes all hold one id is just that id (a coalesced
//! warp access, a TMA box, an mma operand or a fresh page costs O(1) per page, not per byte);
//! it gets an array of `u32` ids per byte only when a partial access splits it. Pages come
//! in chunks of 64 (8 KiB of addresses); chunk numbers below [`LOW_CHUNKS`] (shared memory:
//! offsets below 8 MiB) are found by a direct table, others (global addresses) through a hash
//! map with a one-chunk cache. An id is freed when no byte holds it any more (byte counts per
//! id).
//! TMEM keeps the run-length map: its accesses are whole rectangles (an mma's accumulator is
//! four runs of 8192 cells), which a run map handles in O(1) and a dense one in O(cells).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use smallvec::SmallVec;

use crate::access::{check_cell, Check};
use crate::detector::Conflict;
use crate::planes::PlaneShadow;
use crate::shadow::{Cell, ShadowMap};

/// 128-byte pages: a warp's coalesced 32 × 4-byte access, a TMA box row and an mma operand
/// row each cover whole pages, which then stay uniform (no id array at all).
const PAGE_BITS: u32 = 7;
const PAGE: usize = 1 << PAGE_BITS;
/// Pages are allocated and looked up in chunks of this many (8 KiB of addresses, 1 KiB of
/// page table: an SM group touches global buffers sparsely, and a 64 KiB chunk per touched
/// row cost softmax_bench2048's check 43 MB: 189 MB resident against 146 MB).
const CHUNK_BITS: u32 = 6;
const CHUNK_PAGES: usize = 1 << CHUNK_BITS;
/// Chunks found through the direct table (chunk numbers below this; 8 MiB of offsets).
const LOW_CHUNKS: u64 = 1024;
/// The id of the never-accessed state (`Cell::default()`); never freed or changed.
pub(crate) const NEVER: CellId = 0;
const NO_PAGE: u32 = u32::MAX;

pub(crate) type CellId = u32;
type Ids = Box<[CellId; PAGE]>;

/// Runs a page holds inline before it falls back to one id per byte.
const INLINE_RUNS: usize = 4;

/// One page of ids: a few runs inline (a fresh or uniform page is one run; a page split by
/// lane accesses of 16 to 64 bytes is 2 to 4), or one id per byte when more runs are needed.
/// Inline runs keep the shadow of sparsely touched global memory at 24 bytes per page instead
/// of 512 (matmul_fp16_bench1024: every 128-byte page of A and B is split by 64-byte warp
/// reads).
enum Page {
    /// Run `i` holds bytes `[starts[i], starts[i + 1])` (the last one to the page end) with id
    /// `ids[i]`; `starts[0] == 0`, adjacent runs have different ids, `1 <= n <= INLINE_RUNS`.
    Runs {
        n: u8,
        starts: [u8; INLINE_RUNS],
        ids: [CellId; INLINE_RUNS],
    },
    Bytes(Ids),
}

/// Where run `i` of the `n` inline runs starting at `starts` ends (the page's end for the last).
#[inline(always)]
fn run_end(starts: &[u8; INLINE_RUNS], n: usize, i: usize) -> usize {
    if i + 1 < n {
        starts[i + 1] as usize
    } else {
        PAGE
    }
}

impl Page {
    fn uniform(id: CellId) -> Page {
        Page::Runs {
            n: 1,
            starts: [0; INLINE_RUNS],
            ids: [id; INLINE_RUNS],
        }
    }

    /// The id of byte `off` and where its run of equal ids ends, at most at `hi`.
    #[inline]
    fn run_at(&self, off: usize, hi: usize) -> (CellId, usize) {
        match self {
            Page::Runs { n, starts, ids } => {
                let n = *n as usize;
                let mut i = 0;
                while i + 1 < n && starts[i + 1] as usize <= off {
                    i += 1;
                }
                (ids[i], run_end(starts, n, i).min(hi))
            }
            Page::Bytes(b) => {
                let id = b[off];
                let mut j = off + 1;
                // Eight ids per step (a compare the compiler vectorises: a lane's 16- or
                // 64-byte range is 2 to 8 steps instead of 16 to 64), then one by one.
                while j + 8 <= hi && b[j..j + 8].iter().fold(true, |all, &x| all & (x == id)) {
                    j += 8;
                }
                while j < hi && b[j] == id {
                    j += 1;
                }
                (id, j)
            }
        }
    }

    /// Whether every byte of the page holds `id` (one run).
    #[inline(always)]
    fn is_uniform(&self, id: CellId) -> bool {
        matches!(self, Page::Runs { n: 1, ids, .. } if ids[0] == id)
    }

    #[cfg(test)]
    fn id_at(&self, off: usize) -> CellId {
        self.run_at(off, off + 1).0
    }
}

/// The whole pages from `pos`, the start of page `pn`, to `end`, but no further than the end of
/// `pn`'s chunk (whose pages are consecutive in the page table).
#[inline(always)]
fn chunk_pages_from(pn: u64, pos: u64, end: u64) -> usize {
    (((end - pos) >> PAGE_BITS) as usize).min(CHUNK_PAGES - (pn as usize & (CHUNK_PAGES - 1)))
}

/// The Fx hash (rustc's), for the page table of global memory (keys are page numbers).
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher(u64);

const FX_K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(FX_K);
    }
    // One step per integer, not per byte (derived `Hash` of the detector's keys: enum
    // discriminants and u32 fields).
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn write_isize(&mut self, i: isize) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

pub(crate) type FxBuild = BuildHasherDefault<FxHasher>;

struct Entry<C> {
    cell: C,
    /// Bytes holding this id.
    refs: u64,
    /// The owner's tag ([`DenseShadow::mark`]); 0 for a fresh or freed id.
    mark: u32,
}

/// Adjacent bytes of equal state within one access: `parts` are the ids (all of equal state)
/// and how many of the group's bytes each holds.
#[derive(Clone, Copy)]
struct Group {
    start: u64,
    end: u64,
    first_part: u32,
    parts: u32,
}

/// Byte-granular dense shadow of one memory (see the module docs).
pub(crate) struct DenseShadow<C = Cell> {
    /// Chunk number → index in `pages` of its first page (`NO_PAGE`: never touched), for
    /// chunk numbers below [`LOW_CHUNKS`]; grown on demand.
    low: Vec<u32>,
    high: HashMap<u64, u32, FxBuild>,
    /// The last chunk found through `high`: (chunk number, index of its first page).
    high_hit: (u64, u32),
    pages: Vec<Page>,
    /// Id arrays of pages that became uniform again, for reuse.
    spare: Vec<Ids>,
    cells: Vec<Entry<C>>,
    free: Vec<CellId>,
    /// Scratch of the access being processed (kept to avoid allocations per access).
    groups: Vec<Group>,
    parts: Vec<(CellId, u64)>,
    /// Transitions of this access (or batch, [`DenseShadow::batch`]): a group whose state is
    /// that of `.0` ends in the state of `.1` (see [`DenseShadow::update`]).
    memo: Vec<(CellId, CellId)>,
    /// Whether `memo` outlives one `update` (the ranges of one warp-instruction).
    batch: bool,
    /// Where a new state is built (keeps a spilled read set's buffer between accesses).
    scratch: C,
    /// The end and new id of the last group of this `update` that got a new id.
    last: Option<(u64, CellId)>,
    /// The id the last [`DenseShadow::assign`] stored (shared by the ranges of a batch).
    assigned: Option<CellId>,
}

impl<C: Default> Default for DenseShadow<C> {
    fn default() -> Self {
        DenseShadow {
            low: Vec::new(),
            high: HashMap::default(),
            high_hit: (u64::MAX, NO_PAGE),
            pages: Vec::new(),
            spare: Vec::new(),
            cells: vec![Entry {
                cell: C::default(),
                refs: 0,
                mark: 0,
            }],
            free: Vec::new(),
            groups: Vec::new(),
            parts: Vec::new(),
            memo: Vec::new(),
            batch: false,
            scratch: C::default(),
            last: None,
            assigned: None,
        }
    }
}

impl<C: Default> DenseShadow<C> {
    /// Forgets every byte's state (as a new shadow) but keeps the buffers: the page table, the
    /// split pages' id arrays (to `spare`), the ids' entries and the scratch. A fresh shadow's
    /// first touches page-faulted its buffers in: ~4 000 faults, ~10 % of
    /// matmul_fp16_div16_bench1024's checked run in time, which the instruction count does
    /// not see (perf.md, session 14).
    pub(crate) fn forget_all(&mut self) {
        self.low.clear();
        self.high.clear();
        self.high_hit = (u64::MAX, NO_PAGE);
        for p in self.pages.drain(..) {
            if let Page::Bytes(b) = p {
                self.spare.push(b);
            }
        }
        self.cells.truncate(1);
        self.cells[0] = Entry {
            cell: C::default(),
            refs: 0,
            mark: 0,
        };
        self.free.clear();
        self.groups.clear();
        self.parts.clear();
        self.memo.clear();
        self.batch = false;
        self.scratch = C::default();
        self.last = None;
        self.assigned = None;
    }

    /// Page table entries and id entries this shadow holds room for (what a pooled shadow
    /// keeps; [`MemShadow::recycle`]).
    pub(crate) fn capacity(&self) -> usize {
        self.pages.capacity() + self.cells.capacity() + self.spare.len() * PAGE
    }
}

impl<C: Default + Clone + PartialEq> DenseShadow<C> {
    /// Ids in use (the memory measure that `ShadowMap::runs` is for runs).
    pub fn states(&self) -> usize {
        self.cells.len() - 1 - self.free.len()
    }

    /// Index of the page holding page number `pn`, creating its chunk (all `NEVER`) on first
    /// touch.
    ///
    /// Every access looks up each of its pages 2-4 times (a plane's groups, update and fill,
    /// then the other plane's; a write's two groups walks are one, [`groups_both`]). The hit
    /// of a touched chunk is inlined and short; the rest (growing the table, a new chunk, the
    /// hashed table) is out of line, so the hit pays no register spills for the cold path
    /// (~28 → ~8 instructions a lookup; session 7).
    #[inline(always)]
    fn page_index(&mut self, pn: u64) -> usize {
        let (cn, within) = (pn >> CHUNK_BITS, (pn as usize) & (CHUNK_PAGES - 1));
        if cn < LOW_CHUNKS {
            if let Some(&base) = self.low.get(cn as usize) {
                if base != NO_PAGE {
                    return base as usize + within;
                }
            }
        } else if self.high_hit.0 == cn {
            return self.high_hit.1 as usize + within;
        }
        self.chunk_base(cn) as usize + within
    }

    /// The first page of chunk `cn` when the inlined hit of [`DenseShadow::page_index`]
    /// misses: the direct table grown or a chunk created, or the hashed table.
    #[cold]
    #[inline(never)]
    fn chunk_base(&mut self, cn: u64) -> u32 {
        if cn < LOW_CHUNKS {
            let i = cn as usize;
            if i >= self.low.len() {
                self.low.resize(i + 1, NO_PAGE);
            }
            if self.low[i] == NO_PAGE {
                self.low[i] = self.new_chunk();
            }
            return self.low[i];
        }
        let base = match self.high.get(&cn) {
            Some(&i) => i,
            None => {
                let i = self.new_chunk();
                self.high.insert(cn, i);
                i
            }
        };
        self.high_hit = (cn, base);
        base
    }

    /// Appends a chunk of uniform `NEVER` pages; returns the index of its first page.
    fn new_chunk(&mut self) -> u32 {
        let base = self.pages.len() as u32;
        if self.pages.capacity() - self.pages.len() < CHUNK_PAGES {
            // Room for 32 chunks at first (256 KiB of addresses: a CTA's shared memory
            // whole), then doubling: grown chunk by chunk from one, each of a shadow's five
            // doublings copied the table (~7 M host instructions of
            // matmul_fp16_div16_bench1024's checked run: 64 CTAs, two planes each).
            self.pages.reserve(self.pages.len().max(32 * CHUNK_PAGES));
        }
        // From a constant: a page built by `Page::uniform` went through a stack slot that
        // was stored in one width and reloaded in another, a stalled store forward per page
        // (~3 ms of matmul_fp16_div16_bench1024's checked run, 2 816 chunks).
        const NEVER_PAGE: Page = Page::Runs {
            n: 1,
            starts: [0; INLINE_RUNS],
            ids: [NEVER; INLINE_RUNS],
        };
        self.pages.extend((0..CHUNK_PAGES).map(|_| NEVER_PAGE));
        base
    }

    // always: `groups` called it out of line once its whole-page window made it larger
    #[inline(always)]
    fn same_state(&self, a: CellId, b: CellId) -> bool {
        a == b || self.cells[a as usize].cell == self.cells[b as usize].cell
    }

    /// Calls `f(start, end, cell)` once per maximal run of equal state in `[start, end)`, in
    /// address order, and stores what `f` leaves in the cell for the run's bytes.
    ///
    /// `f` returns whether what it did is a function of the cell alone (the detector's check
    /// found no conflict: the new state depends only on the old one, and nothing else was
    /// recorded). Then a later run of the same access (or [batch](DenseShadow::batch)) whose
    /// state is held by the same id gets the same result without calling `f`: a warp's
    /// scattered per-lane bytes (a transposed read, a swizzled store) or the interleaved
    /// states of a split page cost one `f` per distinct state, and their bytes share one new
    /// id instead of one id each.
    pub fn update(&mut self, start: u64, end: u64, mut f: impl FnMut(u64, u64, &mut C) -> bool) {
        if start >= end {
            return;
        }
        if !self.batch {
            self.memo.clear();
        }
        self.last = None;
        if let Some(id) = self.single_id(start, end) {
            self.apply(start, end, &[(id, end - start)], None, &mut f);
            return;
        }
        let mut groups = std::mem::take(&mut self.groups);
        let mut parts = std::mem::take(&mut self.parts);
        groups.clear();
        parts.clear();
        // Pass 1: the groups, by scanning ids page by page; at an id change the two states
        // are compared (a group may hold several ids of equal state).
        let mut pos = start;
        while pos < end {
            let pn = pos >> PAGE_BITS;
            let base = pn << PAGE_BITS;
            let pi = self.page_index(pn);
            // Whole pages holding only the last part's id (an mma operand's tile, its pages
            // read alike): the group and the part grow a page at a time, one compare per page
            // to the end of the chunk, where the walk below looks each page up and takes its
            // run (the same groups and parts; 128 pages per 16 KiB operand read).
            if let Some(&(last, _)) = parts.last().filter(|_| pos == base) {
                let room = chunk_pages_from(pn, pos, end);
                let k = (self.pages[pi..pi + room].iter())
                    .take_while(|p| p.is_uniform(last))
                    .count();
                if k > 0 {
                    let bytes = (k as u64) << PAGE_BITS;
                    groups.last_mut().expect("a group holds the last part").end += bytes;
                    parts.last_mut().expect("nonempty").1 += bytes;
                    pos += bytes;
                    continue;
                }
            }
            // Saturating: the last page of the address space ends at u64::MAX (exclusive).
            let page_end = base.saturating_add(PAGE as u64).min(end);
            let (lo, hi) = ((pos - base) as usize, (page_end - base) as usize);
            let mut i = lo;
            while i < hi {
                let (id, j) = self.pages[pi].run_at(i, hi);
                let (s, e) = (base + i as u64, base + j as u64);
                let joins = match parts.last() {
                    Some(&(last, _)) => self.same_state(last, id),
                    None => false,
                };
                if joins {
                    let g = groups.last_mut().expect("a group holds the last part");
                    g.end = e;
                    match parts.last_mut() {
                        Some(p) if p.0 == id => p.1 += e - s,
                        _ => {
                            parts.push((id, e - s));
                            g.parts += 1;
                        }
                    }
                } else {
                    groups.push(Group {
                        start: s,
                        end: e,
                        first_part: parts.len() as u32,
                        parts: 1,
                    });
                    parts.push((id, e - s));
                }
                i = j;
            }
            pos = page_end;
        }
        // Pass 2: the check per group, then its new state over the group's bytes.
        for g in &groups {
            let first = g.first_part as usize;
            self.apply(
                g.start,
                g.end,
                &parts[first..first + g.parts as usize],
                None,
                &mut f,
            );
        }
        self.groups = groups;
        self.parts = parts;
    }

    /// [`DenseShadow::update`] of `[start, end)` when its bytes all hold `id` and lie in page
    /// `pi` (what [`one_page_both`] found): the same transition, without looking the page up
    /// again for the run or for the fill.
    pub fn update_one(
        &mut self,
        pi: usize,
        start: u64,
        end: u64,
        id: CellId,
        mut f: impl FnMut(u64, u64, &mut C) -> bool,
    ) {
        if !self.batch {
            self.memo.clear();
        }
        self.last = None;
        self.apply(start, end, &[(id, end - start)], Some(pi), &mut f);
    }

    /// The ids of `[start, end)` when they lie in one page and are all one id: the access is
    /// one group of one part (most thread accesses: a lane's bytes, a warp's coalesced range).
    #[inline]
    fn single_id(&mut self, start: u64, end: u64) -> Option<CellId> {
        let pn = start >> PAGE_BITS;
        if (end - 1) >> PAGE_BITS != pn {
            return None;
        }
        let pi = self.page_index(pn);
        let off = (start & (PAGE as u64 - 1)) as usize;
        let hi = off + (end - start) as usize;
        let (id, j) = self.pages[pi].run_at(off, hi);
        (j == hi).then_some(id)
    }

    /// The maximal runs of equal state in `[start, end)`, each as `(start, end, id)` with an
    /// id holding the run's state ([`DenseShadow::state`]), in address order: the runs
    /// [`DenseShadow::update`] calls `f` for, without changing anything.
    ///
    /// Returns the id when every byte holds that one id (what [`DenseShadow::assign`] and
    /// [`DenseShadow::clear`] can then skip looking up).
    pub fn groups(
        &mut self,
        start: u64,
        end: u64,
        out: &mut Vec<(u64, u64, CellId)>,
    ) -> Option<CellId> {
        self.runs::<true>(start, end, out)
    }

    /// The maximal runs of one id in `[start, end)`, in address order: [`DenseShadow::groups`]
    /// without joining adjacent ids of equal state, for a caller whose answer for two adjacent
    /// runs of equal state is the one for their union (a read's check of the write plane:
    /// the conflicts of the second continue the first's in `out`, `Check::conflicts`). Why:
    /// an operand read of a tile that `cp.async` wrote meets one id per copy, 32 to 64, and
    /// each id change compared the two states (~30 host instructions).
    pub fn id_runs(&mut self, start: u64, end: u64, out: &mut Vec<(u64, u64, CellId)>) {
        self.runs::<false>(start, end, out);
    }

    /// [`DenseShadow::groups`] (`MERGE`: adjacent runs of equal state joined) or
    /// [`DenseShadow::id_runs`].
    #[inline(always)]
    fn runs<const MERGE: bool>(
        &mut self,
        start: u64,
        end: u64,
        out: &mut Vec<(u64, u64, CellId)>,
    ) -> Option<CellId> {
        out.clear();
        if start >= end {
            return None;
        }
        if let Some(id) = self.single_id(start, end) {
            out.push((start, end, id));
            return Some(id);
        }
        // Whether every byte so far holds the first byte's id (a TMA box or an mma operand
        // over many pages that one earlier access left under one id).
        let mut one = (None, true);
        let mut pos = start;
        while pos < end {
            let pn = pos >> PAGE_BITS;
            let base = pn << PAGE_BITS;
            let page_end = base.saturating_add(PAGE as u64).min(end);
            let pi = self.page_index(pn);
            // Whole pages whose single id is the last run's (an mma operand read of a tile
            // that `cp.async` copies of 256 or 512 bytes wrote: 2 or 4 pages per copy): the
            // run grows a page at a time to the end of the chunk, as `groups_page` would grow
            // it (and `one` stays, as in `groups_both`), without a lookup and a run per page
            // (~44 host instructions a page, 128 pages an operand).
            // (tested on this page first: pages split by lane stores, matmul_fp16_bench1024's
            // operands, must not pay for the window)
            if let Some(&(_, _, last)) = out.last().filter(|g| self.pages[pi].is_uniform(g.2)) {
                if pos == base {
                    let room = chunk_pages_from(pn, pos, end);
                    let k = (self.pages[pi..pi + room].iter())
                        .take_while(|p| p.is_uniform(last))
                        .count();
                    if k > 0 {
                        pos += (k as u64) << PAGE_BITS;
                        out.last_mut().expect("nonempty").1 = pos;
                        continue;
                    }
                }
            }
            self.groups_page::<MERGE>(pi, base, pos, page_end, out, &mut one);
            pos = page_end;
        }
        one.0.filter(|_| one.1)
    }

    /// [`DenseShadow::groups`] over `[pos, page_end)` of page `pi` (whose first byte is
    /// `base`): the runs appended to `out`; `one`: the first id, and whether every byte so
    /// far held it.
    #[inline(always)]
    fn groups_page<const MERGE: bool>(
        &self,
        pi: usize,
        base: u64,
        pos: u64,
        page_end: u64,
        out: &mut Vec<(u64, u64, CellId)>,
        one: &mut (Option<CellId>, bool),
    ) {
        let (lo, hi) = ((pos - base) as usize, (page_end - base) as usize);
        let mut i = lo;
        while i < hi {
            let (id, j) = self.pages[pi].run_at(i, hi);
            let e = base + j as u64;
            match one.0 {
                None => one.0 = Some(id),
                Some(o) => one.1 &= o == id,
            }
            match out.last_mut() {
                Some(g) if g.2 == id || MERGE && self.same_state(g.2, id) => g.1 = e,
                _ => out.push((base + i as u64, e, id)),
            }
            i = j;
        }
    }

    /// The page of page number `pn` without creating it (tests: the planes' tables agree).
    #[cfg(debug_assertions)]
    fn lookup(&self, pn: u64) -> Option<usize> {
        let (cn, within) = (pn >> CHUNK_BITS, (pn as usize) & (CHUNK_PAGES - 1));
        let base = if cn < LOW_CHUNKS {
            *self.low.get(cn as usize)?
        } else {
            *self.high.get(&cn)?
        };
        (base != NO_PAGE).then_some(base as usize + within)
    }

    /// The state an id holds.
    #[inline]
    pub fn state(&self, id: CellId) -> &C {
        &self.cells[id as usize].cell
    }

    /// The tag the owner last set on `id` ([`DenseShadow::set_mark`]); 0 when none was set
    /// since the id was allocated.
    #[inline]
    pub fn mark(&self, id: CellId) -> u32 {
        self.cells[id as usize].mark
    }

    /// Tags `id` with `m` (an id freed and allocated again starts at 0).
    #[inline]
    pub fn set_mark(&mut self, id: CellId, m: u32) {
        self.cells[id as usize].mark = m;
    }

    /// Sets every id's tag back to 0.
    pub fn clear_marks(&mut self) {
        for e in &mut self.cells {
            e.mark = 0;
        }
    }

    /// Every byte of `[start, end)` takes the state `value`, whatever it held (a weak write's
    /// new write state): one pass, no per-group transition. In place when the range is every
    /// byte of one id; the id assigned last in this batch is reused when it holds `value`.
    /// `one`: the id every byte holds, when the caller knows (else it is looked up).
    pub fn assign(&mut self, start: u64, end: u64, value: &C, one: Option<CellId>) {
        self.assign_in(None, start, end, value, one);
    }

    /// [`DenseShadow::assign`], from page `pi` when the caller knows that it holds every byte,
    /// or that the range is whole pages of one chunk from `pi` on (then `one` must be the id
    /// they all hold, as [`one_page_both`] and [`pages_both`] find them).
    pub fn assign_in(
        &mut self,
        pi: Option<usize>,
        start: u64,
        end: u64,
        value: &C,
        one: Option<CellId>,
    ) {
        if start >= end {
            return;
        }
        let n = end - start;
        let one = one.or_else(|| self.single_id(start, end));
        if let Some(id) = one {
            if id != NEVER && self.cells[id as usize].refs == n {
                self.cells[id as usize].cell.clone_from(value);
                self.forget(id);
                self.assigned = Some(id);
                return;
            }
            if self.cells[id as usize].cell == *value {
                return;
            }
        }
        let new = match self.assigned {
            Some(id)
                if self.batch
                    && self.cells[id as usize].refs > 0
                    && self.cells[id as usize].cell == *value =>
            {
                id
            }
            _ => {
                let mut cell = std::mem::take(&mut self.scratch);
                cell.clone_from(value);
                let id = self.alloc(&mut cell);
                self.scratch = cell;
                id
            }
        };
        // Counted before the old ids are released, so `new` survives when it also held
        // some of the bytes.
        self.cells[new as usize].refs += n;
        match one {
            Some(id) => {
                self.unref(id, n);
                self.fill_in(pi, start, end, new);
            }
            None => self.refill(start, end, new),
        }
        self.assigned = Some(new);
    }

    /// Drops the references of the bytes of `[start, end)` to their ids and stores `id` there
    /// (counted by the caller), page by page in one walk.
    fn refill(&mut self, start: u64, end: u64, id: CellId) {
        let mut pos = start;
        while pos < end {
            let pn = pos >> PAGE_BITS;
            let base = pn << PAGE_BITS;
            let page_end = base.saturating_add(PAGE as u64).min(end);
            let pi = self.page_index(pn);
            let (lo, hi) = ((pos - base) as usize, (page_end - base) as usize);
            let mut i = lo;
            while i < hi {
                let (old, j) = self.pages[pi].run_at(i, hi);
                self.unref(old, (j - i) as u64);
                i = j;
            }
            self.fill_page(pi, lo, hi, id);
            pos = page_end;
        }
    }

    /// Every byte of `[start, end)` back to the never-accessed state (`C::default()`).
    /// `one`: the id every byte holds, when the caller knows (else it is looked up).
    pub fn clear(&mut self, start: u64, end: u64, one: Option<CellId>) {
        self.clear_in(None, start, end, one);
    }

    /// [`DenseShadow::clear`], from page `pi` as for [`DenseShadow::assign_in`] (then `one`
    /// must be the id they all hold).
    pub fn clear_in(&mut self, pi: Option<usize>, start: u64, end: u64, one: Option<CellId>) {
        if start >= end {
            return;
        }
        if let Some(id) = one.or_else(|| self.single_id(start, end)) {
            if id != NEVER {
                self.unref(id, end - start);
                self.fill_in(pi, start, end, NEVER);
            }
            return;
        }
        self.refill(start, end, NEVER);
    }

    /// The check of one group `[s, e)` (its bytes hold the ids of `own`, all of one state,
    /// with their byte counts) and its new state over the group's bytes; `pi`: the page that
    /// holds all of them, when the caller knows it.
    fn apply(
        &mut self,
        s: u64,
        e: u64,
        own: &[(CellId, u64)],
        pi: Option<usize>,
        f: &mut impl FnMut(u64, u64, &mut C) -> bool,
    ) {
        let n = e - s;
        let rep = own[0].0;
        if let Some(&(_, new)) = self.memo.iter().find(|m| m.0 == rep) {
            // The same transition as an earlier group of this access.
            if !(own.len() == 1 && rep == new) {
                self.cells[new as usize].refs += n;
                for &(id, k) in own {
                    self.unref(id, k);
                }
                self.fill_in(pi, s, e, new);
                self.last = Some((e, new));
            }
            return;
        }
        if own.len() == 1 && rep != NEVER && self.cells[rep as usize].refs == n {
            // The group is every byte of its id: update the state in place. No other byte
            // holds `rep`, so there is nothing to remember.
            f(s, e, &mut self.cells[rep as usize].cell);
            self.forget(rep);
            return;
        }
        // The new state is built in the scratch cell (no allocation when the reads fit
        // inline or the scratch's spilled buffer is large enough).
        let mut cell = std::mem::take(&mut self.scratch);
        cell.clone_from(&self.cells[rep as usize].cell);
        let pure = f(s, e, &mut cell);
        if cell == self.cells[rep as usize].cell {
            if pure {
                self.memo.push((rep, rep));
            }
            self.scratch = cell;
            return;
        }
        // The previous group's new id, when it ends here and holds the same state, keeps equal
        // adjacent states under one id (an op reading bytes of per-byte states that its read
        // makes equal again). Only the group just done is compared: looking up and comparing
        // both neighbours of every scattered lane byte cost more than it saved.
        let new = match self.last {
            Some((end, id)) if end == s && self.cells[id as usize].cell == cell => id,
            _ => self.alloc(&mut cell),
        };
        self.scratch = cell;
        self.cells[new as usize].refs += n;
        for &(id, k) in own {
            self.unref(id, k);
        }
        self.fill_in(pi, s, e, new);
        self.last = Some((e, new));
        // `rep` freed (its last bytes moved) cannot come again in this access.
        if pure && (rep == NEVER || self.cells[rep as usize].refs > 0) {
            self.memo.push((rep, new));
        }
    }

    /// A new id holding `cell` (swapped in: `cell` is left with a default state).
    fn alloc(&mut self, cell: &mut C) -> CellId {
        match self.free.pop() {
            Some(id) => {
                std::mem::swap(&mut self.cells[id as usize].cell, cell);
                id
            }
            None => {
                self.cells.push(Entry {
                    cell: std::mem::take(cell),
                    refs: 0,
                    mark: 0,
                });
                (self.cells.len() - 1) as CellId
            }
        }
    }

    fn unref(&mut self, id: CellId, n: u64) {
        if id == NEVER {
            return;
        }
        let e = &mut self.cells[id as usize];
        e.refs -= n;
        if e.refs == 0 {
            e.cell = C::default();
            e.mark = 0;
            self.free.push(id);
            self.forget(id);
        }
    }

    /// Drops the remembered transitions from or to `id` (its state changed, or it was freed
    /// and may be reused for another state).
    #[inline]
    fn forget(&mut self, id: CellId) {
        if !self.memo.is_empty() {
            self.memo.retain(|m| m.0 != id && m.1 != id);
        }
    }

    /// Starts (`true`) or ends a batch: the `update`s until the batch ends are one access
    /// (the disjoint ranges of one warp-instruction, checked under one record and one view),
    /// so they share the transitions `f` reported as functions of the cell.
    pub fn batch(&mut self, on: bool) {
        self.batch = on;
        self.memo.clear();
    }

    /// [`DenseShadow::fill`], from page `pi` when the caller knows that the range's pages are
    /// `pi`, `pi + 1`, ... (one page, or whole pages of one chunk: [`pages_both`]).
    #[inline]
    fn fill_in(&mut self, pi: Option<usize>, start: u64, end: u64, id: CellId) {
        match pi {
            Some(pi) => {
                let lo = (start & (PAGE as u64 - 1)) as usize;
                let hi = lo + (end - start) as usize;
                if hi <= PAGE {
                    self.fill_page(pi, lo, hi, id);
                } else {
                    self.fill_whole_pages(pi, lo, hi, id);
                }
            }
            None => self.fill(start, end, id),
        }
    }

    /// Bytes `[lo, hi)` of the pages from `pi` on (offsets from the start of page `pi`, whole
    /// pages: `lo` and `hi` multiples of [`PAGE`]) take `id`, without a lookup.
    #[inline(never)]
    fn fill_whole_pages(&mut self, pi: usize, lo: usize, hi: usize, id: CellId) {
        debug_assert!(
            lo.is_multiple_of(PAGE) && hi.is_multiple_of(PAGE),
            "whole pages"
        );
        for p in &mut self.pages[pi + lo / PAGE..pi + hi / PAGE] {
            if let Page::Bytes(b) = std::mem::replace(p, Page::uniform(id)) {
                self.spare.push(b);
            }
        }
    }

    /// Inlined (as it was before [`DenseShadow::fill_pages`] existed): out of line, each of
    /// matmul_fp16_bench1024's 520 k lane-store clears paid a call.
    #[inline(always)]
    fn fill(&mut self, start: u64, end: u64, id: CellId) {
        let mut pos = start;
        while pos < end {
            let pn = pos >> PAGE_BITS;
            let base = pn << PAGE_BITS;
            if pos == base && end - pos >= 2 * PAGE as u64 {
                pos = self.fill_pages(pn, end, id);
                continue;
            }
            // Saturating: the last page of the address space ends at u64::MAX (exclusive).
            let page_end = base.saturating_add(PAGE as u64).min(end);
            let pi = self.page_index(pn);
            let (lo, hi) = ((pos - base) as usize, (page_end - base) as usize);
            self.fill_page(pi, lo, hi, id);
            pos = page_end;
        }
    }

    /// [`DenseShadow::fill`] of the whole pages from page number `pn` to the end of its chunk
    /// or the last whole page before `end`, with one lookup (what `fill_page` does to each);
    /// returns where it stopped. Out of line, so that `fill` stays small.
    #[inline(never)]
    fn fill_pages(&mut self, pn: u64, end: u64, id: CellId) -> u64 {
        let pos = pn << PAGE_BITS;
        let pi = self.page_index(pn);
        let room = chunk_pages_from(pn, pos, end);
        for p in &mut self.pages[pi..pi + room] {
            if let Page::Bytes(b) = std::mem::replace(p, Page::uniform(id)) {
                self.spare.push(b);
            }
        }
        pos + ((room as u64) << PAGE_BITS)
    }

    /// Bytes `[lo, hi)` of page `pi` take `id`.
    ///
    /// The fast paths are inline and the general merge out of line: its run list made the
    /// frame of every call large (saving and restoring registers was ~35 host instructions
    /// of each of a warp's 64-byte stores on matmul_fp16_bench1024, which take a fast path).
    fn fill_page(&mut self, pi: usize, lo: usize, hi: usize, id: CellId) {
        if lo == 0 && hi == PAGE {
            if let Page::Bytes(b) = std::mem::replace(&mut self.pages[pi], Page::uniform(id)) {
                self.spare.push(b);
            }
            return;
        }
        match &mut self.pages[pi] {
            Page::Bytes(b) => b[lo..hi].fill(id),
            // Fast paths (same result as the general merge: the runs are canonical, adjacent
            // runs holding different ids): a uniform page split once (the first partial access
            // of a fresh page), and a fill of exactly one existing run, merged with its
            // neighbours where they hold `id` (a warp's store that clears the other half of a
            // page's read plane makes it uniform again).
            Page::Runs { n, starts, ids } if *n == 1 => {
                let u = ids[0];
                if u == id {
                    return;
                }
                let (k, st, is): (u8, [u8; INLINE_RUNS], [CellId; INLINE_RUNS]) = if lo == 0 {
                    (2, [0, hi as u8, 0, 0], [id, u, NEVER, NEVER])
                } else if hi == PAGE {
                    (2, [0, lo as u8, 0, 0], [u, id, NEVER, NEVER])
                } else {
                    (3, [0, lo as u8, hi as u8, 0], [u, id, u, NEVER])
                };
                (*n, *starts, *ids) = (k, st, is);
            }
            Page::Runs { n, starts, ids } => {
                let k = *n as usize;
                let end_of = |i: usize| run_end(starts, k, i);
                let Some(i) = (0..k).find(|&i| starts[i] as usize == lo && end_of(i) == hi) else {
                    return self.fill_runs(pi, lo, hi, id);
                };
                let merge = (i > 0 && ids[i - 1] == id) || (i + 1 < k && ids[i + 1] == id);
                ids[i] = id;
                if merge {
                    // drop each run that holds its predecessor's id
                    let mut m = 1;
                    for j in 1..k {
                        if ids[j] != ids[m - 1] {
                            (starts[m], ids[m]) = (starts[j], ids[j]);
                            m += 1;
                        }
                    }
                    *n = m as u8;
                }
            }
        }
    }

    /// [`DenseShadow::fill_page`] of a page of runs where `[lo, hi)` is not exactly one run.
    #[inline(never)]
    fn fill_runs(&mut self, pi: usize, lo: usize, hi: usize, id: CellId) {
        let Page::Runs { n, starts, ids } = &self.pages[pi] else {
            unreachable!("a page of runs");
        };
        // The new runs: the old ones before `lo`, `[lo, hi)`, the old ones from `hi` (at most
        // 2 * INLINE_RUNS + 1), equal neighbours merged.
        let mut out: SmallVec<[(usize, CellId); 2 * INLINE_RUNS + 1]> = SmallVec::new();
        let mut push = |start: usize, rid: CellId| match out.last() {
            Some(&(_, last)) if last == rid => {}
            _ => out.push((start, rid)),
        };
        let n = *n as usize;
        let end_of = |i: usize| run_end(starts, n, i);
        for i in 0..n {
            if (starts[i] as usize) < lo {
                push(starts[i] as usize, ids[i]);
            }
        }
        push(lo, id);
        for i in 0..n {
            let (s, e) = (starts[i] as usize, end_of(i));
            if e > hi {
                push(s.max(hi), ids[i]);
            }
        }
        if out.len() <= INLINE_RUNS {
            let mut st = [0u8; INLINE_RUNS];
            let mut is = [NEVER; INLINE_RUNS];
            for (k, &(s, rid)) in out.iter().enumerate() {
                st[k] = s as u8;
                is[k] = rid;
            }
            self.pages[pi] = Page::Runs {
                n: out.len() as u8,
                starts: st,
                ids: is,
            };
        } else {
            let mut b = self.spare.pop().unwrap_or_else(|| Box::new([NEVER; PAGE]));
            for (k, &(s, rid)) in out.iter().enumerate() {
                let e = out.get(k + 1).map_or(PAGE, |r| r.0);
                b[s..e].fill(rid);
            }
            self.pages[pi] = Page::Bytes(b);
        }
    }

    /// The state of one byte (tests).
    #[cfg(test)]
    pub fn cell_at(&mut self, addr: u64) -> C {
        let pi = self.page_index(addr >> PAGE_BITS);
        let id = self.pages[pi].id_at((addr & (PAGE as u64 - 1)) as usize);
        self.cells[id as usize].cell.clone()
    }
}

/// The page index and each shadow's id of `[start, end)` when it lies in one page and each
/// shadow holds one id over all of it (a lane's bytes; a transposed one-byte read is 32 such
/// ranges): one page lookup for both, kept for [`DenseShadow::update_one`]. The chunks are
/// created in both, as by [`groups_both`], whose page-table agreement this relies on.
#[inline]
pub(crate) fn one_page_both<A, B>(
    a: &mut DenseShadow<A>,
    b: &mut DenseShadow<B>,
    start: u64,
    end: u64,
) -> Option<(usize, CellId, CellId)>
where
    A: Default + Clone + PartialEq,
    B: Default + Clone + PartialEq,
{
    let pn = start >> PAGE_BITS;
    if start >= end || (end - 1) >> PAGE_BITS != pn {
        return None;
    }
    let pages = a.pages.len();
    let pi = a.page_index(pn);
    if a.pages.len() != pages {
        new_chunk_in_both(b, pn, pi);
    }
    #[cfg(debug_assertions)]
    assert_eq!(b.lookup(pn), Some(pi), "the planes' page tables disagree");
    let off = (start & (PAGE as u64 - 1)) as usize;
    let hi = off + (end - start) as usize;
    let (ia, ja) = a.pages[pi].run_at(off, hi);
    let (ib, jb) = b.pages[pi].run_at(off, hi);
    (ja == hi && jb == hi).then_some((pi, ia, ib))
}

/// The first page's index and each shadow's id of `[start, end)` when it is whole pages of
/// one chunk and every page holds one id in each shadow, the same one throughout (a
/// `cp.async` of 256 or 512 bytes rewriting a pipeline stage: the last copy's write state
/// and the operands' read set over all its pages): one lookup and one compare a page, kept
/// for [`DenseShadow::assign_in`] and [`DenseShadow::clear_in`]. [`groups_both`] finds the
/// same single run in each shadow, but clipped run by run, and the stores after it looked
/// every page up again (~400 of the ~1 000 host instructions of each such write on
/// matmul_fp16_div16_bench1024, perf.md session 15). Chunks are created in both shadows, as
/// by [`groups_both`], whose page-table agreement this relies on.
#[inline]
pub(crate) fn pages_both<A, B>(
    a: &mut DenseShadow<A>,
    b: &mut DenseShadow<B>,
    start: u64,
    end: u64,
) -> Option<(usize, CellId, CellId)>
where
    A: Default + Clone + PartialEq,
    B: Default + Clone + PartialEq,
{
    let mask = PAGE as u64 - 1;
    if start >= end || start & mask != 0 || end & mask != 0 {
        return None;
    }
    let pn = start >> PAGE_BITS;
    let k = ((end - start) >> PAGE_BITS) as usize;
    if k > CHUNK_PAGES - (pn as usize & (CHUNK_PAGES - 1)) {
        return None;
    }
    let pages = a.pages.len();
    let pi = a.page_index(pn);
    if a.pages.len() != pages {
        new_chunk_in_both(b, pn, pi);
    }
    #[cfg(debug_assertions)]
    assert_eq!(b.lookup(pn), Some(pi), "the planes' page tables disagree");
    let (Page::Runs { n: 1, ids: ia, .. }, Page::Runs { n: 1, ids: ib, .. }) =
        (&a.pages[pi], &b.pages[pi])
    else {
        return None;
    };
    let (ia, ib) = (ia[0], ib[0]);
    let same = (a.pages[pi + 1..pi + k].iter())
        .zip(&b.pages[pi + 1..pi + k])
        .all(|(x, y)| x.is_uniform(ia) && y.is_uniform(ib));
    same.then_some((pi, ia, ib))
}

/// [`DenseShadow::groups`] of two shadows of one memory in one walk, one page lookup per page
/// for both (a write's write and read planes, `crate::planes`).
///
/// The page found in `a` is used in `b`: both shadows must have created their chunks in the
/// same order, so that their page tables agree. The planes do: every access walks its pages
/// in address order in the write plane and then in the read plane (here both at once), and
/// a chunk `a` creates here is created in `b` at once; then its index must agree (checked),
/// and debug builds check every page.
pub(crate) fn groups_both<A, B>(
    a: &mut DenseShadow<A>,
    b: &mut DenseShadow<B>,
    start: u64,
    end: u64,
    ga: &mut Vec<(u64, u64, CellId)>,
    gb: &mut Vec<(u64, u64, CellId)>,
) -> (Option<CellId>, Option<CellId>)
where
    A: Default + Clone + PartialEq,
    B: Default + Clone + PartialEq,
{
    ga.clear();
    gb.clear();
    if start >= end {
        return (None, None);
    }
    // One page (most accesses): one lookup, then each plane's first run, as `single_id`.
    let pn = start >> PAGE_BITS;
    if (end - 1) >> PAGE_BITS == pn {
        let pages = a.pages.len();
        let pi = a.page_index(pn);
        if a.pages.len() != pages {
            new_chunk_in_both(b, pn, pi);
        }
        #[cfg(debug_assertions)]
        assert_eq!(b.lookup(pn), Some(pi), "the planes' page tables disagree");
        let off = (start & (PAGE as u64 - 1)) as usize;
        let hi = off + (end - start) as usize;
        let (ia, ja) = a.pages[pi].run_at(off, hi);
        let (ib, jb) = b.pages[pi].run_at(off, hi);
        if ja == hi && jb == hi {
            ga.push((start, end, ia));
            gb.push((start, end, ib));
            return (Some(ia), Some(ib));
        }
    }
    let (mut oa, mut ob) = ((None, true), (None, true));
    let mut pos = start;
    while pos < end {
        let pn = pos >> PAGE_BITS;
        let base = pn << PAGE_BITS;
        // Saturating: the last page of the address space ends at u64::MAX (exclusive).
        let page_end = base.saturating_add(PAGE as u64).min(end);
        let pages = a.pages.len();
        let pi = a.page_index(pn);
        if a.pages.len() != pages {
            new_chunk_in_both(b, pn, pi);
        }
        #[cfg(debug_assertions)]
        assert_eq!(b.lookup(pn), Some(pi), "the planes' page tables disagree");
        // Whole pages whose single id in each plane is that plane's last group's (a
        // `cp.async` tile rewritten: the last copy's write state and the operand's read set
        // over every page): both groups grow a page at a time to the end of the chunk, as
        // `groups_page` would grow them (and `oa`, `ob` stay: a page of the last group's id
        // keeps "every byte one id" as it was).
        if let (Some(&(_, _, la)), Some(&(_, _, lb))) = (ga.last(), gb.last()) {
            if pos == base {
                let room = chunk_pages_from(pn, pos, end);
                let k = (a.pages[pi..pi + room].iter())
                    .zip(&b.pages[pi..pi + room])
                    .take_while(|(x, y)| x.is_uniform(la) && y.is_uniform(lb))
                    .count();
                if k > 0 {
                    pos += (k as u64) << PAGE_BITS;
                    ga.last_mut().expect("nonempty").1 = pos;
                    gb.last_mut().expect("nonempty").1 = pos;
                    continue;
                }
            }
        }
        a.groups_page::<true>(pi, base, pos, page_end, ga, &mut oa);
        b.groups_page::<true>(pi, base, pos, page_end, gb, &mut ob);
        pos = page_end;
    }
    (oa.0.filter(|_| oa.1), ob.0.filter(|_| ob.1))
}

/// `b`'s part of a chunk the other shadow just created at page `pi` (see [`groups_both`]).
#[cold]
#[inline(never)]
fn new_chunk_in_both<B: Default + Clone + PartialEq>(b: &mut DenseShadow<B>, pn: u64, pi: usize) {
    let pj = b.page_index(pn);
    assert_eq!(pj, pi, "the planes' page tables disagree");
}

/// Shadow memory of one byte-addressed memory as the detector holds it: dense, with separate
/// write and read planes (the default, `crate::planes`), or the run-length map as a reference
/// for differential tests (`RaceDetector::with_reference_shadow`).
pub(crate) enum MemShadow {
    Dense(Box<PlaneShadow>),
    Runs(ShadowMap),
}

/// Dense shadows a thread keeps for its next SM groups ([`MemShadow::recycle`]): at most this
/// many (an SM group holds its CTAs' shared memories and global memory)...
const POOLED_SHADOWS: usize = 8;
/// ... each of at most this many page table, id and split-page entries together (the page
/// table of 8 MiB of addresses is 1.5 MiB; an id's entry is 64-72 bytes, so at most ~4.5 MiB
/// a shadow): a shadow of a larger footprint is freed, so what a thread keeps after a launch
/// stays bounded (div16's shadows: ~2 300 entries each).
const POOLED_CAPACITY: usize = 1 << 16;

thread_local! {
    /// Cleared dense shadows of finished SM groups, for the thread's next ones: their buffers
    /// are already faulted in (`DenseShadow::forget_all`).
    /// (Boxed as `MemShadow::Dense` holds them: a shadow moves between the two as a pointer.)
    #[allow(clippy::vec_box)]
    static POOL: std::cell::RefCell<Vec<Box<PlaneShadow>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl MemShadow {
    pub fn new(reference: bool) -> Self {
        if reference {
            MemShadow::Runs(ShadowMap::default())
        } else {
            let pooled = POOL.with(|p| p.borrow_mut().pop());
            MemShadow::Dense(pooled.unwrap_or_default())
        }
    }

    /// Forgets every access (a new CTA takes the memory), keeping the representation and,
    /// dense, its buffers.
    pub fn reset(&mut self) {
        match self {
            MemShadow::Dense(d) => d.forget_all(),
            MemShadow::Runs(m) => *m = ShadowMap::default(),
        }
    }

    /// Gives a dense shadow's buffers to the thread's next [`MemShadow::new`] (cleared: the
    /// same as a new one to every access); the run-length map is dropped.
    pub fn recycle(self) {
        if let MemShadow::Dense(mut d) = self {
            if d.capacity() <= POOLED_CAPACITY {
                POOL.with(|p| {
                    let mut p = p.borrow_mut();
                    if p.len() < POOLED_SHADOWS {
                        d.forget_all();
                        p.push(d);
                    }
                });
            }
        }
    }

    /// Starts or ends a batch of updates that are one access (see [`DenseShadow::batch`]);
    /// the run-length map has nothing to share.
    pub fn batch(&mut self, on: bool) {
        if let MemShadow::Dense(d) = self {
            d.batch(on);
        }
    }

    /// Runs (reference) or ids in use (dense): a measure of shadow memory in use.
    pub fn runs(&self) -> usize {
        match self {
            MemShadow::Dense(d) => d.states(),
            MemShadow::Runs(m) => m.runs(),
        }
    }
}

impl Default for MemShadow {
    fn default() -> Self {
        MemShadow::new(false)
    }
}

/// What `check_range` needs of a shadow: the access checked against the state of every byte
/// or cell of `[start, end)` and recorded, with the conflicts in `out` exactly as
/// [`check_cell`] called once per maximal run of equal state, in address order, records
/// them (how the state is stored and shared is the shadow's business).
pub(crate) trait Shadow {
    fn check(&mut self, start: u64, end: u64, c: &Check<'_, '_>, out: &mut Vec<Conflict>);
}

impl Shadow for ShadowMap {
    #[inline]
    fn check(&mut self, start: u64, end: u64, c: &Check<'_, '_>, out: &mut Vec<Conflict>) {
        ShadowMap::update(self, start, end, |s, e, cell| {
            check_cell(c, s, e, cell, out);
        })
    }
}

impl Shadow for MemShadow {
    #[inline]
    fn check(&mut self, start: u64, end: u64, c: &Check<'_, '_>, out: &mut Vec<Conflict>) {
        match self {
            MemShadow::Dense(d) => d.check(start, end, c, out),
            MemShadow::Runs(m) => Shadow::check(m, start, end, c, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{ActorIdx, Stamp};
    use crate::event::{Agent, SpanToken, WarpId};
    use crate::shadow::Rec;

    fn rec(actor: u32, time: u32) -> Rec {
        Rec {
            stamp: Stamp {
                actor: ActorIdx(actor),
                time,
            },
            span: SpanToken(actor),
            warp: WarpId(actor),
            agent: Agent::Thread,
            strong: false,
            scope: crate::shadow::Scope::WIDE,
            cta_group: 0,
            pipe: 0,
        }
    }

    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
    }

    /// A read-or-write step applied to a cell, depending only on the cell (as the detector's
    /// check does): writes replace, reads accumulate up to three readers.
    fn step(c: &mut Cell, r: Rec, write: bool) {
        if write {
            c.write = Some(r);
            c.reads.clear();
        } else if !c.reads.contains(&r) {
            if c.reads.len() == 3 {
                c.reads.remove(0);
            }
            c.reads.push(r);
        }
    }

    #[test]
    fn same_calls_as_the_run_map() {
        // Both shadows see the same random accesses (in and across page and chunk boundaries,
        // in the direct table and in the hashed range); the calls of `f` must be identical.
        for (seed, base) in [
            (1u64, 0u64),
            (7, 4096 - 300),
            (13, 65536 - 1500),
            (99, 0x7f00_0000_0000 - 1500),
        ] {
            let mut d = DenseShadow::<Cell>::default();
            let mut m = ShadowMap::default();
            let mut rng = Lcg(seed);
            for t in 0..3000u32 {
                // Mostly short accesses, some over many whole pages (uniform pages split
                // and made uniform again).
                let s = base + rng.next() % 2800;
                let long = rng.next().is_multiple_of(8);
                let e = s + 1 + rng.next() % if long { 2500 } else { 90 };
                let r = rec((rng.next() % 4) as u32, 1 + t % 3);
                let write = rng.next().is_multiple_of(3);
                let mut cd = Vec::new();
                d.update(s, e, |a, b, c| {
                    cd.push((a, b, c.clone()));
                    step(c, r, write);
                    false
                });
                let mut cm = Vec::new();
                m.update(s, e, |a, b, c| {
                    cm.push((a, b, c.clone()));
                    step(c, r, write);
                });
                assert_eq!(cd, cm, "seed {seed} step {t}: [{s}, {e})");
                // `groups` of a range (often whole pages, often many): the maximal runs of
                // equal state, byte by byte
                let gs = base + rng.next() % 2800;
                let ge = gs + 1 + rng.next() % if long { 2800 } else { 300 };
                let mut got = Vec::new();
                let one = d.groups(gs, ge, &mut got);
                let got: Vec<_> = got
                    .iter()
                    .map(|g| (g.0, g.1, d.state(g.2).clone()))
                    .collect();
                let mut want: Vec<(u64, u64, Cell)> = Vec::new();
                for a in gs..ge {
                    let c = d.cell_at(a);
                    match want.last_mut() {
                        Some(w) if w.2 == c => w.1 = a + 1,
                        _ => want.push((a, a + 1, c)),
                    }
                }
                assert_eq!(got, want, "seed {seed} step {t}: groups [{gs}, {ge})");
                if let Some(id) = one {
                    assert!(want.len() == 1 && want[0].2 == *d.state(id));
                }
            }
            for a in base..base + 5400 {
                let want = m.runs_in(a, a + 1).first().map(|r| r.2.clone());
                assert_eq!(Some(d.cell_at(a)).filter(|c| *c != Cell::default()), want);
            }
            // Freed states are recycled: far fewer live states than updates.
            assert!(d.states() < 3000, "{}", d.states());
        }
    }

    /// A shadow cleared by `forget_all` (what the thread's pool hands out) against a new one:
    /// after random accesses to the first, the same stream on both must make the same calls
    /// and leave the same bytes, ids in use and id numbering.
    #[test]
    fn forgotten_shadow_is_a_new_one() {
        let stream = |d: &mut DenseShadow<Cell>, seed: u64, base: u64| {
            let mut calls = Vec::new();
            let mut rng = Lcg(seed);
            for t in 0..1500u32 {
                let s = base + rng.next() % 2800;
                let long = rng.next().is_multiple_of(8);
                let e = s + 1 + rng.next() % if long { 2500 } else { 90 };
                let r = rec((rng.next() % 4) as u32, 1 + t % 3);
                let write = rng.next().is_multiple_of(3);
                // (the batch is set after the update: a stream starts in the state the
                // shadow is in)
                d.update(s, e, |a, b, c| {
                    calls.push((a, b, c.clone()));
                    step(c, r, write);
                    t % 7 != 0
                });
                d.batch(rng.next().is_multiple_of(5));
            }
            calls
        };
        for (seed, base) in [
            (3u64, 0u64),
            (11, 65536 - 1500),
            (17, 0x7f00_0000_0000 - 1500),
        ] {
            let mut used = DenseShadow::<Cell>::default();
            // the first stream elsewhere too: chunks in both tables
            stream(&mut used, seed + 1, base);
            stream(&mut used, seed + 2, base ^ 0x7f00_0000_0000);
            // forgotten in the middle of a batch, with its transitions memoised
            used.batch(true);
            used.update(base, base + 3000, |_, _, c| {
                step(c, rec(5, 9), true);
                true
            });
            used.forget_all();
            let mut fresh = DenseShadow::<Cell>::default();
            assert_eq!(used.states(), 0);
            let (a, b) = (
                stream(&mut used, seed, base),
                stream(&mut fresh, seed, base),
            );
            assert_eq!(a, b, "seed {seed}");
            assert_eq!(used.states(), fresh.states());
            assert_eq!(used.cells.len(), fresh.cells.len());
            for x in (base..base + 5400).chain(0x7f00_0000_0000 - 1500..0x7f00_0000_0000 + 3000) {
                assert_eq!(used.cell_at(x), fresh.cell_at(x), "seed {seed} byte {x}");
            }
        }
    }

    /// `fill_page`'s fast paths against the general merge (`fill_runs`) and a byte model:
    /// random fills of one page, each applied by both to a copy of the same page, must leave
    /// the same canonical runs (adjacent runs of different ids) and the model's bytes.
    #[test]
    fn page_fills_match_the_general_merge() {
        fn canonical(p: &Page) -> Vec<(usize, CellId)> {
            match p {
                Page::Runs { n, starts, ids } => {
                    let n = *n as usize;
                    assert_eq!(starts[0], 0);
                    for i in 1..n {
                        assert!(starts[i - 1] < starts[i] && ids[i - 1] != ids[i], "{i}");
                    }
                    (0..n).map(|i| (starts[i] as usize, ids[i])).collect()
                }
                Page::Bytes(b) => {
                    let mut out: Vec<(usize, CellId)> = Vec::new();
                    for (k, &id) in b.iter().enumerate() {
                        if out.last().is_none_or(|l| l.1 != id) {
                            out.push((k, id));
                        }
                    }
                    out
                }
            }
        }
        let mut rng = Lcg(5);
        for _ in 0..200 {
            let mut fast = DenseShadow::<Cell>::default();
            let mut slow = DenseShadow::<Cell>::default();
            let pi = fast.page_index(0);
            assert_eq!(slow.page_index(0), pi);
            let mut model = [NEVER; PAGE];
            for _ in 0..40 {
                // ids from a small set (neighbours often equal); ranges often on run edges
                let id = (rng.next() % 3) as CellId;
                let (a, b) = match rng.next() % 3 {
                    0 => {
                        let runs = canonical(&fast.pages[pi]);
                        let i = (rng.next() as usize) % runs.len();
                        (runs[i].0, runs.get(i + 1).map_or(PAGE, |r| r.0))
                    }
                    1 => (
                        16 * (rng.next() as usize % 8),
                        16 * (1 + rng.next() as usize % 8),
                    ),
                    _ => (rng.next() as usize % PAGE, rng.next() as usize % (PAGE + 1)),
                };
                let (lo, hi) = (a.min(b), a.max(b));
                if lo == hi {
                    continue;
                }
                fast.fill_page(pi, lo, hi, id);
                match &slow.pages[pi] {
                    Page::Runs { .. } if !(lo == 0 && hi == PAGE) => slow.fill_runs(pi, lo, hi, id),
                    _ => slow.fill_page(pi, lo, hi, id),
                }
                model[lo..hi].fill(id);
                let got = canonical(&fast.pages[pi]);
                assert_eq!(got, canonical(&slow.pages[pi]), "[{lo}, {hi}) <- {id}");
                for (k, &(s, id)) in got.iter().enumerate() {
                    let e = got.get(k + 1).map_or(PAGE, |r| r.0);
                    assert!(model[s..e].iter().all(|&m| m == id), "[{s}, {e})");
                }
            }
        }
    }

    #[test]
    fn many_hashed_chunks_keep_their_own_pages() {
        // Accesses spread over 24 chunks of the hashed range, in random order, so the
        // one-chunk cache `high_hit` misses on most and the hash map answers (the other
        // tests stay within one or two chunks): each byte must keep its own state.
        const CHUNK: u64 = (PAGE * CHUNK_PAGES) as u64;
        let base = 0x7f00_0000_0000u64;
        let mut d = DenseShadow::<Cell>::default();
        let mut m = ShadowMap::default();
        let mut rng = Lcg(5);
        for t in 0..3000u32 {
            let s = base + (rng.next() % 24) * CHUNK + rng.next() % (CHUNK - 200);
            let e = s + 1 + rng.next() % 200;
            let r = rec((rng.next() % 4) as u32, 1 + t % 3);
            let write = rng.next().is_multiple_of(3);
            let mut cd = Vec::new();
            d.update(s, e, |a, b, c| {
                cd.push((a, b, c.clone()));
                step(c, r, write);
                false
            });
            let mut cm = Vec::new();
            m.update(s, e, |a, b, c| {
                cm.push((a, b, c.clone()));
                step(c, r, write);
            });
            assert_eq!(cd, cm, "step {t}: [{s:#x}, {e:#x})");
        }
        for k in 0..24 {
            for a in (base + k * CHUNK..base + (k + 1) * CHUNK).step_by(37) {
                let want = m.runs_in(a, a + 1).first().map(|r| r.2.clone());
                assert_eq!(Some(d.cell_at(a)).filter(|c| *c != Cell::default()), want);
            }
        }
    }

    #[test]
    fn shared_transitions_leave_the_run_maps_states() {
        // Steps that depend on the cell alone (`f` returns true): batches of scattered lane
        // ranges (disjoint, in address order, as `access_lanes` makes them). The dense shadow
        // may skip calls, never states: every byte ends as in the run map.
        for seed in [3u64, 17, 40] {
            let mut d = DenseShadow::<Cell>::default();
            let mut m = ShadowMap::default();
            let mut rng = Lcg(seed);
            let (mut calls_dense, mut calls_runs) = (0, 0);
            for t in 0..400u32 {
                let r = rec((rng.next() % 4) as u32, 1 + t % 3);
                let write = rng.next().is_multiple_of(3);
                let base = rng.next() % 2000;
                let len = 1 + rng.next() % 8;
                let stride = len + rng.next() % 40;
                d.batch(true);
                for lane in 0..32u64 {
                    let s = base + lane * stride;
                    d.update(s, s + len, |_, _, c| {
                        calls_dense += 1;
                        step(c, r, write);
                        true
                    });
                    m.update(s, s + len, |_, _, c| {
                        calls_runs += 1;
                        step(c, r, write);
                    });
                }
                d.batch(false);
            }
            assert!(calls_dense < calls_runs, "{calls_dense} {calls_runs}");
            for a in 0..4000 {
                let want = m.runs_in(a, a + 1).first().map(|r| r.2.clone());
                assert_eq!(
                    Some(d.cell_at(a)).filter(|c| *c != Cell::default()),
                    want,
                    "seed {seed} byte {a}"
                );
            }
        }
    }

    #[test]
    fn states_are_freed_when_no_byte_holds_them() {
        let mut d = DenseShadow::<Cell>::default();
        for t in 1..100u32 {
            d.update(0, 128, |_, _, c| {
                step(c, rec(0, t), true);
                false
            });
        }
        assert_eq!(d.states(), 1);
        d.update(64, 128, |_, _, c| {
            step(c, rec(1, 1), true);
            false
        });
        assert_eq!(d.states(), 2);
        assert_eq!(d.cells.len(), 3, "ids are reused");
    }
}
