//! The observer seam: the engine steps, observers watch.
//!
//! `run` uses [`NoObserver`], whose empty inlined methods compile to nothing; the checker and
//! the race detector (later issues) implement [`Observer`] and see the same execution.

use crate::program::Space;

/// Where an event happened.
#[derive(Clone, Copy, Debug)]
pub struct At {
    pub cluster: u32,
    pub cta: u32,
    pub warp: u32,
    pub pc: u32,
    /// Lanes that executed (after the guard).
    pub lanes: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Read,
    Write,
    Atomic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierEvent {
    /// bar.sync/arrive: lanes arrived at CTA barrier `id`.
    CtaArrive {
        id: u32,
    },
    CtaComplete {
        id: u32,
    },
    ClusterArrive,
    ClusterComplete,
    /// mbarrier at a shared offset of CTA `owner` changed phase.
    MbarPhase {
        owner: u32,
        offset: u32,
        phase: u32,
    },
    Fence,
}

pub trait Observer {
    #[inline(always)]
    fn instruction(&mut self, _at: At) {}
    #[inline(always)]
    fn memory(
        &mut self,
        _at: At,
        _lane: u32,
        _space: Space,
        _addr: u64,
        _size: u32,
        _kind: AccessKind,
    ) {
    }
    #[inline(always)]
    fn barrier(&mut self, _at: At, _ev: BarrierEvent) {}
    /// Whether `memory` wants per-lane events (lets the engine skip building them).
    #[inline(always)]
    fn wants_memory(&self) -> bool {
        false
    }
}

/// The observer of `run`: watches nothing, costs nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl Observer for NoObserver {}
