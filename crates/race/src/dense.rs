//! Dense shadow memory for shared and global memory: one cell id per byte, in pages; bytes
//! with the same id share one shadow state.
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
const NEVER: CellId = 0;
const NO_PAGE: u32 = u32::MAX;

type CellId = u32;
type Ids = Box<[CellId; PAGE]>;

/// One page: every byte holds `uniform` while `ids` is `None`.
struct Page {
    uniform: CellId,
    ids: Option<Ids>,
}

impl Page {
    #[inline]
    fn id_at(&self, off: usize) -> CellId {
        match &self.ids {
            Some(ids) => ids[off],
            None => self.uniform,
        }
    }
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
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

type FxBuild = BuildHasherDefault<FxHasher>;

struct Entry {
    cell: Cell,
    /// Bytes holding this id.
    refs: u64,
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
pub(crate) struct DenseShadow {
    /// Chunk number → index in `pages` of its first page (`NO_PAGE`: never touched), for
    /// chunk numbers below [`LOW_CHUNKS`]; grown on demand.
    low: Vec<u32>,
    high: HashMap<u64, u32, FxBuild>,
    /// The last chunk found through `high`: (chunk number, index of its first page).
    high_hit: (u64, u32),
    pages: Vec<Page>,
    /// Id arrays of pages that became uniform again, for reuse.
    spare: Vec<Ids>,
    cells: Vec<Entry>,
    free: Vec<CellId>,
    /// Scratch of the access being processed (kept to avoid allocations per access).
    groups: Vec<Group>,
    parts: Vec<(CellId, u64)>,
}

impl Default for DenseShadow {
    fn default() -> Self {
        DenseShadow {
            low: Vec::new(),
            high: HashMap::default(),
            high_hit: (u64::MAX, NO_PAGE),
            pages: Vec::new(),
            spare: Vec::new(),
            cells: vec![Entry {
                cell: Cell::default(),
                refs: 0,
            }],
            free: Vec::new(),
            groups: Vec::new(),
            parts: Vec::new(),
        }
    }
}

impl DenseShadow {
    /// Ids in use (the memory measure that `ShadowMap::runs` is for runs).
    pub fn states(&self) -> usize {
        self.cells.len() - 1 - self.free.len()
    }

    /// Index of the page holding page number `pn`, creating its chunk (all `NEVER`) on first
    /// touch.
    #[inline]
    fn page_index(&mut self, pn: u64) -> usize {
        let (cn, within) = (pn >> CHUNK_BITS, (pn as usize) & (CHUNK_PAGES - 1));
        if cn < LOW_CHUNKS {
            let i = cn as usize;
            if i >= self.low.len() {
                self.low.resize(i + 1, NO_PAGE);
            }
            if self.low[i] == NO_PAGE {
                self.low[i] = self.new_chunk();
            }
            return self.low[i] as usize + within;
        }
        if self.high_hit.0 == cn {
            return self.high_hit.1 as usize + within;
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
        base as usize + within
    }

    /// Appends a chunk of uniform `NEVER` pages; returns the index of its first page.
    fn new_chunk(&mut self) -> u32 {
        let base = self.pages.len() as u32;
        self.pages.extend((0..CHUNK_PAGES).map(|_| Page {
            uniform: NEVER,
            ids: None,
        }));
        base
    }

    /// The id at `addr` if its page exists (no page is created).
    #[inline]
    fn peek(&self, addr: u64) -> Option<CellId> {
        let pn = addr >> PAGE_BITS;
        let (cn, within) = (pn >> CHUNK_BITS, (pn as usize) & (CHUNK_PAGES - 1));
        let base = if cn < LOW_CHUNKS {
            *self.low.get(cn as usize).filter(|&&i| i != NO_PAGE)?
        } else if self.high_hit.0 == cn {
            self.high_hit.1
        } else {
            *self.high.get(&cn)?
        };
        let page = &self.pages[base as usize + within];
        Some(page.id_at((addr & (PAGE as u64 - 1)) as usize))
    }

    #[inline]
    fn same_state(&self, a: CellId, b: CellId) -> bool {
        a == b || self.cells[a as usize].cell == self.cells[b as usize].cell
    }

    /// Calls `f(start, end, cell)` once per maximal run of equal state in `[start, end)`, in
    /// address order, and stores what `f` leaves in the cell for the run's bytes.
    pub fn update(&mut self, start: u64, end: u64, mut f: impl FnMut(u64, u64, &mut Cell)) {
        if start >= end {
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
            // Saturating: the last page of the address space ends at u64::MAX (exclusive).
            let page_end = base.saturating_add(PAGE as u64).min(end);
            let pi = self.page_index(pn);
            let (lo, hi) = ((pos - base) as usize, (page_end - base) as usize);
            let mut i = lo;
            while i < hi {
                let (id, j) = match &self.pages[pi].ids {
                    None => (self.pages[pi].uniform, hi),
                    Some(ids) => {
                        let id = ids[i];
                        let mut j = i + 1;
                        while j < hi && ids[j] == id {
                            j += 1;
                        }
                        (id, j)
                    }
                };
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
            let (s, e) = (g.start, g.end);
            let n = e - s;
            let first = g.first_part as usize;
            let own = &parts[first..first + g.parts as usize];
            let rep = own[0].0;
            if own.len() == 1 && rep != NEVER && self.cells[rep as usize].refs == n {
                // The group is every byte of its id: update the state in place.
                f(s, e, &mut self.cells[rep as usize].cell);
                continue;
            }
            let mut cell = self.cells[rep as usize].cell.clone();
            f(s, e, &mut cell);
            if cell == self.cells[rep as usize].cell {
                continue;
            }
            // An equal neighbour's id keeps equal adjacent states under one id.
            let neighbour = [s.checked_sub(1), Some(e)]
                .into_iter()
                .flatten()
                .filter_map(|a| self.peek(a))
                .find(|&id| id != NEVER && self.cells[id as usize].cell == cell);
            let new = match neighbour {
                Some(id) => id,
                None => self.alloc(cell),
            };
            self.cells[new as usize].refs += n;
            for &(id, k) in own {
                self.unref(id, k);
            }
            self.fill(s, e, new);
        }
        self.groups = groups;
        self.parts = parts;
    }

    fn alloc(&mut self, cell: Cell) -> CellId {
        match self.free.pop() {
            Some(id) => {
                self.cells[id as usize].cell = cell;
                id
            }
            None => {
                self.cells.push(Entry { cell, refs: 0 });
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
            e.cell = Cell::default();
            self.free.push(id);
        }
    }

    fn fill(&mut self, start: u64, end: u64, id: CellId) {
        let mut pos = start;
        while pos < end {
            let pn = pos >> PAGE_BITS;
            let base = pn << PAGE_BITS;
            // Saturating: the last page of the address space ends at u64::MAX (exclusive).
            let page_end = base.saturating_add(PAGE as u64).min(end);
            let pi = self.page_index(pn);
            let (lo, hi) = ((pos - base) as usize, (page_end - base) as usize);
            let page = &mut self.pages[pi];
            if lo == 0 && hi == PAGE {
                page.uniform = id;
                if let Some(ids) = page.ids.take() {
                    self.spare.push(ids);
                }
            } else {
                let ids = match &mut page.ids {
                    Some(ids) => ids,
                    None => {
                        // Split a uniform page: every byte gets the page's id first.
                        let mut ids = self.spare.pop().unwrap_or_else(|| Box::new([NEVER; PAGE]));
                        ids.fill(page.uniform);
                        page.ids.insert(ids)
                    }
                };
                ids[lo..hi].fill(id);
            }
            pos = page_end;
        }
    }

    /// The state of one byte (tests).
    #[cfg(test)]
    pub fn cell_at(&mut self, addr: u64) -> Cell {
        let pi = self.page_index(addr >> PAGE_BITS);
        let id = self.pages[pi].id_at((addr & (PAGE as u64 - 1)) as usize);
        self.cells[id as usize].cell.clone()
    }
}

/// Shadow memory of one byte-addressed memory as the detector holds it: dense (the default),
/// or the run-length map as a reference for differential tests
/// (`RaceDetector::with_reference_shadow`).
pub(crate) enum MemShadow {
    Dense(Box<DenseShadow>),
    Runs(ShadowMap),
}

impl MemShadow {
    pub fn new(reference: bool) -> Self {
        if reference {
            MemShadow::Runs(ShadowMap::default())
        } else {
            MemShadow::Dense(Box::default())
        }
    }

    /// Forgets every access (a new CTA takes the memory), keeping the representation.
    pub fn reset(&mut self) {
        *self = MemShadow::new(matches!(self, MemShadow::Runs(_)));
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

/// What `check_range` needs of a shadow: `f` once per maximal run of equal state.
pub(crate) trait Shadow {
    fn update(&mut self, start: u64, end: u64, f: impl FnMut(u64, u64, &mut Cell));
}

impl Shadow for ShadowMap {
    #[inline]
    fn update(&mut self, start: u64, end: u64, f: impl FnMut(u64, u64, &mut Cell)) {
        ShadowMap::update(self, start, end, f)
    }
}

impl Shadow for MemShadow {
    #[inline]
    fn update(&mut self, start: u64, end: u64, f: impl FnMut(u64, u64, &mut Cell)) {
        match self {
            MemShadow::Dense(d) => d.update(start, end, f),
            MemShadow::Runs(m) => m.update(start, end, f),
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
            let mut d = DenseShadow::default();
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
                });
                let mut cm = Vec::new();
                m.update(s, e, |a, b, c| {
                    cm.push((a, b, c.clone()));
                    step(c, r, write);
                });
                assert_eq!(cd, cm, "seed {seed} step {t}: [{s}, {e})");
            }
            for a in base..base + 5400 {
                let want = m.runs_in(a, a + 1).first().map(|r| r.2.clone());
                assert_eq!(Some(d.cell_at(a)).filter(|c| *c != Cell::default()), want);
            }
            // Freed states are recycled: far fewer live states than updates.
            assert!(d.states() < 3000, "{}", d.states());
        }
    }

    #[test]
    fn states_are_freed_when_no_byte_holds_them() {
        let mut d = DenseShadow::default();
        for t in 1..100u32 {
            d.update(0, 128, |_, _, c| step(c, rec(0, t), true));
        }
        assert_eq!(d.states(), 1);
        d.update(64, 128, |_, _, c| step(c, rec(1, 1), true));
        assert_eq!(d.states(), 2);
        assert_eq!(d.cells.len(), 3, "ids are reused");
    }
}
