//! Per-SM-group state of the tensor-core side: Tensor Memory of each SM of the group, the
//! column allocator, the queue of pending asynchronous tcgen05 operations, and the identities
//! handed to observers.
//!
//! An SM group has `cluster size` SMs; CTA rank `r` of every cluster resident in the group sits
//! on SM `r` (see `launch`), so co-resident CTAs of the same rank share that SM's 512 columns,
//! and the allocator's `SmId` is the rank. The allocator's `CtaId` is the CTA's global number
//! `cluster index × cluster size + rank`, never reused within a launch.

use std::collections::HashMap;

use tmemu_tmem::alloc::{self, CtaId, Done, SmId, TmemAllocator, WarpId};
use tmemu_tmem::geometry::{COLUMNS, LANES};

use crate::exec::tcgen05::queue::{AsyncPolicy, AsyncQueue};
use crate::observer::{AsyncId, CommitId};

/// State shared by every cluster resident in one SM group (one per `run_group`).
pub struct TcState {
    next_async: u64,
    next_commit: u64,
    /// The kernel uses tcgen05 (else nothing below is touched).
    pub enabled: bool,
    pub csize: u32,
    pub allocator: TmemAllocator,
    /// Cells of each SM of the group (lane-major, 128 × 512), allocated on first use and
    /// zeroed column by column at first access.
    tmem: Tmem,
    pub queue: AsyncQueue,
    pub policy: AsyncPolicy,
    /// Blocked allocator requests released by another warp's step, to be finished by the
    /// woken warp's next poll: (CTA, warp) → result.
    pub wakes: HashMap<(CtaId, WarpId), Done>,
    /// Incomplete `tcgen05.ld` / `tcgen05.st` of each warp (observer completion at
    /// `wait::ld` / `wait::st`): (CTA, warp, is_st) → ops.
    pub pending_ldst: HashMap<(CtaId, u32, bool), Vec<AsyncId>>,
    /// Scheduler rounds so far (the `Delayed` policy counts in rounds).
    pub round: u64,
    /// Register staging of tcgen05.ld/st (kept to avoid an allocation per instruction).
    pub scratch: Vec<[u32; 32]>,
    /// K-fused MMAs whose product is not yet in TMEM (`exec/mma/fuse.rs`): every TMEM access
    /// flushes the panels it overlaps first.
    pub mma_panels: crate::exec::mma::Panels,
}

impl Default for TcState {
    fn default() -> Self {
        TcState::new(false, 1, AsyncPolicy::Immediate, alloc::Config::default())
    }
}

impl TcState {
    pub fn new(
        enabled: bool,
        csize: u32,
        policy: AsyncPolicy,
        mut config: alloc::Config,
    ) -> TcState {
        config.sms = csize;
        TcState {
            next_async: 0,
            next_commit: 0,
            enabled,
            csize,
            allocator: TmemAllocator::new(config),
            tmem: Tmem {
                cells: (0..csize).map(|_| None).collect(),
                dirty: vec![[0; 8]; csize as usize],
            },
            queue: AsyncQueue::default(),
            policy,
            wakes: HashMap::new(),
            pending_ldst: HashMap::new(),
            round: 0,
            scratch: Vec::new(),
            mma_panels: Default::default(),
        }
    }

    /// A fresh identity for an asynchronous operation (unique in the group).
    pub fn async_id(&mut self) -> AsyncId {
        self.next_async += 1;
        AsyncId(self.next_async)
    }

    /// A fresh identity for a `tcgen05.commit`.
    pub fn commit_id(&mut self) -> CommitId {
        self.next_commit += 1;
        CommitId(self.next_commit)
    }

    /// The allocator's name for CTA `rank` of cluster `cluster`.
    pub fn cta_id(&self, cluster: u32, rank: u32) -> CtaId {
        CtaId(cluster * self.csize + rank)
    }

    pub fn sm_of_rank(rank: u32) -> SmId {
        SmId(rank)
    }

    /// The cells of SM `rank` of the group (zero at first use: TMEM content before any write
    /// is unspecified; zero is one possible content; see [`Tmem`]).
    /// Every pending K-fused MMA product of this SM is applied first (a reader that does not
    /// say which columns it touches sees them all); [`TcState::tmem_cols_mut`] applies only
    /// those overlapping its columns.
    pub fn tmem_mut(&mut self, rank: usize) -> &mut [u32] {
        self.tmem_cols_mut(rank, 0..COLUMNS)
    }

    /// The cells of SM `rank`, for an access to columns `cols` (of any lanes): the pending
    /// K-fused MMA products overlapping them are applied first.
    #[inline]
    pub fn tmem_cols_mut(&mut self, rank: usize, cols: std::ops::Range<u32>) -> &mut [u32] {
        if self.mma_panels.any() {
            self.flush_mma(rank, cols.clone());
        }
        self.tmem.cells(rank, cols)
    }

    /// Applies the pending K-fused MMA products whose D overlaps `cols` of SM `rank`.
    #[cold]
    pub fn flush_mma(&mut self, rank: usize, cols: std::ops::Range<u32>) {
        let TcState {
            mma_panels, tmem, ..
        } = self;
        mma_panels.flush_overlapping(rank, cols, &mut Cells(tmem));
    }

    /// The cells of SM `rank` as they are, pending K-fused products not applied: only for
    /// the async executors (MMA, cp, shift), which flush what they read themselves.
    pub(crate) fn tmem_raw(&mut self, rank: usize) -> &mut [u32] {
        self.tmem.cells(rank, 0..COLUMNS)
    }

    /// [`TcState::tmem_raw`] for an executor that touches only columns `cols` of the cells
    /// it is handed (each of its accesses through one of these calls): the MMA executor.
    pub(crate) fn tmem_raw_cols(&mut self, rank: usize, cols: std::ops::Range<u32>) -> &mut [u32] {
        self.tmem.cells(rank, cols)
    }

    /// The panels and a view of the cells, borrowed apart (the MMA executor appends to a
    /// panel and may flush others into the cells).
    pub(crate) fn panels_and_cells(
        &mut self,
    ) -> (
        &mut crate::exec::mma::Panels,
        impl crate::exec::mma::RankCells + '_,
    ) {
        (&mut self.mma_panels, Cells(&mut self.tmem))
    }
}

/// The group's TMEM: each SM's cells, and which columns are not yet zeroed.
///
/// TMEM starts zeroed (docs/arch/sim-tcgen05.md). Filling 256 KiB per SM group up front cost
/// ≈ 260 000 host instructions per CTA of a grid-sized launch, most of it for columns the
/// kernel never allocates; instead the cells come from a per-thread pool of earlier groups'
/// cells with every column marked dirty, and a column is zeroed (all 128 lanes) the first time
/// any accessor hands out cells for it. Every accessor names the columns it may touch, so no
/// program can see a dirty column: the contents are exactly those of zeroed cells.
struct Tmem {
    cells: Vec<Option<Box<[u32]>>>,
    /// Bit `c % 64` of word `c / 64`: column `c` of that SM still holds stale pool data.
    dirty: Vec<[u64; 8]>,
}

/// Cell arrays kept per thread between SM groups.
const POOL_KEPT: usize = 4;

thread_local! {
    static POOL: std::cell::RefCell<Vec<Box<[u32]>>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Tmem {
    /// The cells of SM `rank`, columns `cols` zeroed if they were dirty.
    #[inline]
    fn cells(&mut self, rank: usize, cols: std::ops::Range<u32>) -> &mut [u32] {
        let dirty = &mut self.dirty[rank];
        let cells =
            self.cells[rank].get_or_insert_with(|| match POOL.with(|p| p.borrow_mut().pop()) {
                Some(c) => {
                    *dirty = [u64::MAX; 8];
                    c
                }
                None => {
                    // most uses (an M = 128 MMA tile, a warpgroup's ld/st) span all 128
                    // lanes, so every page of the lane-major array: faulted in at once
                    tmemu_pages::zeroed::<u32>((LANES * COLUMNS) as usize).into_boxed_slice()
                }
            });
        if *dirty != [0; 8] {
            zero_dirty(cells, dirty, cols);
        }
        cells
    }
}

/// Zeroes the dirty columns of `cols` (clamped to the 512 columns) and marks them clean.
#[cold]
fn zero_dirty(cells: &mut [u32], dirty: &mut [u64; 8], cols: std::ops::Range<u32>) {
    let (s, e) = (cols.start.min(COLUMNS), cols.end.min(COLUMNS));
    if s >= e {
        return;
    }
    for w in s / 64..=(e - 1) / 64 {
        let lo = (w * 64).max(s) - w * 64;
        let hi = ((w + 1) * 64).min(e) - w * 64;
        let range = (u64::MAX >> (64 - (hi - lo))) << lo;
        let mut bits = dirty[w as usize] & range;
        dirty[w as usize] &= !range;
        while bits != 0 {
            let tz = bits.trailing_zeros();
            let run = (bits >> tz).trailing_ones();
            let c0 = (w * 64 + tz) as usize;
            for lane in 0..LANES as usize {
                let at = lane * COLUMNS as usize + c0;
                cells[at..at + run as usize].fill(0);
            }
            bits &= !((u64::MAX >> (64 - run)) << tz);
        }
    }
}

impl Drop for Tmem {
    fn drop(&mut self) {
        let _ = POOL.try_with(|p| {
            let mut p = p.borrow_mut();
            for c in self.cells.drain(..).flatten() {
                if p.len() < POOL_KEPT {
                    p.push(c);
                }
            }
        });
    }
}

/// The group's cells by SM, for flushing K-fused MMA panels.
struct Cells<'a>(&'a mut Tmem);

impl crate::exec::mma::RankCells for Cells<'_> {
    fn cells(&mut self, rank: usize, cols: std::ops::Range<u32>) -> &mut [u32] {
        self.0.cells(rank, cols)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lazily zeroed cells equal eagerly zeroed ones for any sequence of column accesses
    /// (each access writing its columns), starting from a pooled array of garbage.
    #[test]
    fn lazy_zeroing_equals_zeroed_cells() {
        let mut next = crate::xorshift64(0x9E37_79B9_7F4A_7C15u64);
        for round in 0..40 {
            let n = (LANES * COLUMNS) as usize;
            let mut lazy = Tmem {
                cells: vec![Some((0..n).map(|i| i as u32 ^ 0xDEAD_BEEF).collect())],
                dirty: vec![[u64::MAX; 8]],
            };
            let mut eager = vec![0u32; n];
            for step in 0..12 {
                let a = (next() % 600) as u32;
                let len = (next() % 140) as u32;
                let cols = a..a + len;
                let cells = lazy.cells(0, cols.clone());
                // what an accessor of these columns may see equals the zeroed model
                for lane in 0..LANES as usize {
                    for c in cols.start.min(COLUMNS)..cols.end.min(COLUMNS) {
                        let i = lane * COLUMNS as usize + c as usize;
                        assert_eq!(cells[i], eager[i], "round {round} step {step} col {c}");
                        let v = next() as u32;
                        cells[i] = v;
                        eager[i] = v;
                    }
                }
            }
            assert_eq!(lazy.cells(0, 0..COLUMNS), &eager[..], "round {round}");
            assert_eq!(lazy.dirty[0], [0; 8]);
            lazy.cells.clear();
        }
    }
}
