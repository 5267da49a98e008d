//! The event vocabulary the engine speaks to the detector: who, where, what kind, how ordered.
//! Plain data, no PTX text: the engine translates instructions into these.

/// A warp of the detector's domain, numbered densely by the engine (e.g. `cta * warps_per_cta
/// + warp`). One clock per warp: see the crate docs for why per-lane clocks are not needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WarpId(pub u32);

/// Warp ids of one CTA instance share `id / WARP_IDS_PER_CTA`: an engine numbers warps
/// `cta_slot * WARP_IDS_PER_CTA + warp` (a CTA has at most 32 warps), so the detector can tell
/// two CTAs apart without a table. Meant for the same-instruction write exemption, which holds
/// within one CTA only (Triton's uniform store: docs/arch/bugs.md, "Documented misses"); the
/// check crate's observer numbers warps this way (its `MAX_WARPS` = 32 ids per CTA).
pub const WARP_IDS_PER_CTA: u32 = 32;

impl WarpId {
    /// Whether both warps belong to the same CTA instance (see [`WARP_IDS_PER_CTA`]).
    #[inline]
    pub fn same_cta(self, other: WarpId) -> bool {
        self.0 / WARP_IDS_PER_CTA == other.0 / WARP_IDS_PER_CTA
    }
}

/// Opaque instruction identity supplied by the engine (e.g. the instruction index), echoed in
/// findings so the engine can map it back to file:line:col.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SpanToken(pub u32);

/// Byte-addressed memories checked by the detector. Shared memory is keyed by the CTA that owns
/// it (a distributed-shared access names the peer CTA), so `Shared { cta }` covers both
/// `.shared::cta` and `.shared::cluster`. `cta` is the CTA's index within the detector's
/// domain (its `%cluster_ctarank`): small and dense, since shadow maps are indexed by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemSpace {
    Shared { cta: u32 },
    Global,
}

/// A rectangle of TMEM cells (32-bit each) of one CTA (domain-local index, as in
/// [`MemSpace::Shared`]): `lanes` × `cols`, clipped to 128 lanes and the 16-bit column field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TmemRect {
    pub cta: u32,
    pub lane: u32,
    pub lanes: u32,
    pub col: u32,
    pub cols: u32,
}

/// Where an access lands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    Mem {
        space: MemSpace,
        addr: u64,
        len: u64,
    },
    Tmem(TmemRect),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    Read,
    Write,
}

/// Memory-model strength of a thread's ordinary access (PTX memory consistency model, §8).
/// `Weak` is a plain `ld`/`st`; the others are morally strong (`.relaxed`, `.volatile`,
/// `.acquire`, `.release`, `atom`, `red`): two strong accesses form a data race only when they
/// are not morally strong, a scope of one not including the other's thread (the scope comes
/// with the order as a `Strength`; a bare order is `.gpu`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemOrder {
    Weak,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
}

impl MemOrder {
    pub fn is_strong(self) -> bool {
        self != MemOrder::Weak
    }
    fn releases(self) -> bool {
        matches!(self, MemOrder::Release | MemOrder::AcqRel)
    }
    fn acquires(self) -> bool {
        matches!(self, MemOrder::Acquire | MemOrder::AcqRel)
    }
    pub(crate) fn flags(self) -> (bool, bool) {
        (self.releases(), self.acquires())
    }
}

/// Who performs an access. Thread accesses are `Thread` (or `AllocAddr`, the shared-memory
/// store of `tcgen05.alloc`); the others are asynchronous operations with an actor of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Agent {
    Thread,
    /// The address `tcgen05.alloc` writes into shared memory (a weak store).
    AllocAddr,
    Mma,
    Cp,
    Shift,
    TcLd,
    TcSt,
    /// `cp.async.bulk{.tensor}` in either direction (TMA).
    Bulk,
    /// The non-bulk `cp.async` (global to shared, generic proxy).
    CpAsync,
    /// One CTA's `tcgen05.alloc` of an allocation (for `.cta_group::2`, its half of the
    /// collective): the start of the allocation's lifetime.
    Alloc,
    /// One CTA's `tcgen05.dealloc`: the end of the lifetime, a write of every cell of the
    /// freed columns (both CTAs' cells for `.cta_group::2`).
    Dealloc,
}

impl Agent {
    pub fn name(self) -> &'static str {
        match self {
            Agent::Thread => "a thread access",
            Agent::AllocAddr => "the tcgen05.alloc address store",
            Agent::Mma => "tcgen05.mma",
            Agent::Cp => "tcgen05.cp",
            Agent::Shift => "tcgen05.shift",
            Agent::TcLd => "tcgen05.ld",
            Agent::TcSt => "tcgen05.st",
            Agent::Bulk => "cp.async.bulk",
            Agent::CpAsync => "cp.async",
            Agent::Alloc => "tcgen05.alloc",
            Agent::Dealloc => "tcgen05.dealloc",
        }
    }

    /// Shared/global accesses of these agents go through the async proxy.
    pub fn is_async_proxy(self) -> bool {
        matches!(self, Agent::Mma | Agent::Cp | Agent::Bulk)
    }

    /// Asynchronous tcgen05 operations ordered by `tcgen05.fence` (PTX ISA §9.7.16.6.1).
    pub fn is_tcgen05(self) -> bool {
        matches!(
            self,
            Agent::Mma | Agent::Cp | Agent::Shift | Agent::TcLd | Agent::TcSt
        )
    }
}

/// What an asynchronous operation is, as far as ordering is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// `tcgen05.mma*`. `accum` identifies accumulator address and shape (any injective
    /// encoding the engine likes): mma→mma is pipelined only for the same value.
    Mma {
        cta_group: u8,
        accum: u64,
    },
    /// `tcgen05.cp`; `shape_4x256b` marks `.4x256b`, the only cp shape pipelined after shift.
    Cp {
        cta_group: u8,
        shape_4x256b: bool,
    },
    Shift {
        cta_group: u8,
    },
    Ld,
    St,
    /// A bulk copy (TMA load or store, `cp.async.bulk{.tensor}`); completes through an
    /// mbarrier complete_tx or a bulk async-group wait.
    Bulk,
    /// The non-bulk `cp.async` of one warp-instruction (its lanes' copies); an access of the
    /// generic proxy (PTX ISA §9.7.9.25.3: no proxy fence is needed to read what it wrote)
    /// that completes through the thread's `cp.async.wait_group`/`wait_all` or
    /// `cp.async.mbarrier.arrive`.
    CpAsync,
}

impl OpKind {
    pub fn agent(self) -> Agent {
        match self {
            OpKind::Mma { .. } => Agent::Mma,
            OpKind::Cp { .. } => Agent::Cp,
            OpKind::Shift { .. } => Agent::Shift,
            OpKind::Ld => Agent::TcLd,
            OpKind::St => Agent::TcSt,
            OpKind::Bulk => Agent::Bulk,
            OpKind::CpAsync => Agent::CpAsync,
        }
    }

    pub(crate) fn cta_group(self) -> u8 {
        match self {
            OpKind::Mma { cta_group, .. }
            | OpKind::Cp { cta_group, .. }
            | OpKind::Shift { cta_group } => cta_group,
            _ => 0,
        }
    }

    /// Tracked by `tcgen05.commit` (PTX ISA §9.7.16.12.1).
    pub(crate) fn committable(self) -> bool {
        matches!(
            self,
            OpKind::Mma { .. } | OpKind::Cp { .. } | OpKind::Shift { .. }
        )
    }

    /// The per-record pipeline key: mma's accumulator, cp's 4x256b flag, else 0.
    pub(crate) fn pipe_key(self) -> u64 {
        match self {
            OpKind::Mma { accum, .. } => accum,
            OpKind::Cp { shape_4x256b, .. } => shape_4x256b as u64,
            _ => 0,
        }
    }
}

/// Release side of a synchronisation (`mbarrier.arrive`, `barrier.cluster.arrive`, `bar`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sem {
    /// `.release` arrive or `.acquire` wait (the defaults; `bar.sync` is both).
    Ordering,
    /// `.relaxed`: orders no memory, but still a thread synchronisation with which
    /// tcgen05 fences compose (PTX ISA §9.7.16.6.3, canonical patterns §9.7.16.6.4.3–4).
    Relaxed,
}

/// A synchronisation object: everything arrivals release into and waits acquire from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SyncKey {
    /// `bar.sync`/`bar.arrive`/`barrier.cta` named barrier `id` of CTA `cta`.
    CtaBarrier { cta: u32, id: u32 },
    /// `barrier.cluster` of the domain.
    ClusterBarrier,
    /// The mbarrier at shared offset `offset` of CTA `cta`.
    Mbarrier { cta: u32, offset: u32 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fence {
    /// `fence.proxy.async{.space}`: bridges generic and async proxy (bulk-copies.md §9).
    ProxyAsync,
    /// `fence.acq_rel`/`fence.sc`/`membar`: release and acquire fence for strong accesses.
    AcqRel,
    /// `tcgen05.fence::before_thread_sync` (PTX ISA §9.7.16.11.1).
    TcBeforeThreadSync,
    /// `tcgen05.fence::after_thread_sync`.
    TcAfterThreadSync,
    /// `fence.mbarrier_init.release.cluster`: a release fence (as `AcqRel`) whose warp's
    /// later relaxed arrivals also release its earlier `mbarrier.init`s (PTX ISA §9.7.13.4:
    /// with `barrier.cluster.arrive.relaxed` + `wait`, the inits become visible to the
    /// cluster).
    MbarInit,
}
