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
    /// Cells of each SM of the group (lane-major, 128 × 512), allocated on first use.
    tmem: Vec<Option<Box<[u32]>>>,
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
            tmem: (0..csize).map(|_| None).collect(),
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
    /// is unspecified; zero is one possible content).
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
            self.flush_mma(rank, cols);
        }
        tmem_cells(&mut self.tmem, rank)
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
    /// the MMA executor, which flushes what it reads itself.
    pub(crate) fn tmem_raw(&mut self, rank: usize) -> &mut [u32] {
        tmem_cells(&mut self.tmem, rank)
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

fn tmem_cells(tmem: &mut [Option<Box<[u32]>>], rank: usize) -> &mut [u32] {
    tmem[rank].get_or_insert_with(|| vec![0u32; (LANES * COLUMNS) as usize].into_boxed_slice())
}

/// The group's cells by SM, for flushing K-fused MMA panels.
struct Cells<'a>(&'a mut [Option<Box<[u32]>>]);

impl crate::exec::mma::RankCells for Cells<'_> {
    fn cells(&mut self, rank: usize) -> &mut [u32] {
        tmem_cells(self.0, rank)
    }
}
