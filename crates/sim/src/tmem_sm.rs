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
    pub fn tmem_mut(&mut self, rank: usize) -> &mut [u32] {
        self.tmem[rank]
            .get_or_insert_with(|| vec![0u32; (LANES * COLUMNS) as usize].into_boxed_slice())
    }
}
