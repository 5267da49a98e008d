//! Hang-report queries: which warps are blocked in the allocator and on what.

use super::{Life, TmemAllocator};
use crate::alloc::{Allocation, CtaId, Origin, SmId, WarpId};

/// What a blocked warp waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockedOn {
    /// An alloc of `ncols` waits for columns (on its SM, or on both SMs of a pair).
    Columns { ncols: u32 },
    /// A `.cta_group::2` collective waits for the peer CTA's warp.
    Peer { peer: CtaId },
}

/// A warp blocked in the allocator, for hang reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocked {
    pub cta: CtaId,
    pub warp: WarpId,
    /// Origin of the instruction it is blocked in.
    pub origin: Origin,
    pub on: BlockedOn,
}

/// Where the peer of a warp blocked in a pair collective is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerState {
    Resident,
    /// Exited at this origin without performing the collective.
    Exited(Origin),
    /// No record (never launched, or forgotten after exit).
    Unknown,
}

/// Why one blocked warp cannot go on: what a hang report prints for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    pub blocked: Blocked,
    /// SM of the blocked warp's CTA.
    pub sm: SmId,
    /// Column waits: the live allocations on that SM (who holds the columns).
    pub holders: Vec<Allocation>,
    /// Column waits: requests ahead of this one in that SM's FIFO.
    pub ahead: Vec<Blocked>,
    /// Peer waits: where the peer is.
    pub peer: Option<PeerState>,
}

impl TmemAllocator {
    /// Every warp blocked in the allocator: requests waiting for columns in arrival order,
    /// then warps waiting for their pair peer.
    pub fn blocked(&self) -> Vec<Blocked> {
        let mut out = Vec::new();
        for req in &self.waiters {
            for m in req.members() {
                out.push(Blocked {
                    cta: m.cta,
                    warp: m.warp,
                    origin: m.origin,
                    on: BlockedOn::Columns { ncols: req.ncols },
                });
            }
        }
        for (&cta, rec) in self.ctas.iter() {
            for h in rec.halves.iter().filter(|h| h.waiting) {
                out.push(Blocked {
                    cta,
                    warp: h.warp,
                    origin: h.origin,
                    on: BlockedOn::Peer {
                        peer: rec.peer.unwrap_or(CtaId(u32::MAX)),
                    },
                });
            }
        }
        out
    }

    /// [`blocked`](Self::blocked), each with what it waits on: the holders of its SM's
    /// columns and the requests ahead of it, or its peer's state.
    pub fn explain_blocked(&self) -> Vec<Explanation> {
        let all = self.blocked();
        all.iter()
            .enumerate()
            .map(|(i, b)| {
                let sm = self.sm_of(b.cta).unwrap_or(SmId(u32::MAX));
                let mut e = Explanation {
                    blocked: *b,
                    sm,
                    holders: Vec::new(),
                    ahead: Vec::new(),
                    peer: None,
                };
                match b.on {
                    BlockedOn::Columns { .. } => {
                        e.holders = self.holders(sm).copied().collect();
                        e.ahead = all[..i]
                            .iter()
                            .filter(|a| {
                                matches!(a.on, BlockedOn::Columns { .. })
                                    && a.cta != b.cta
                                    && self.sm_of(a.cta) == Some(sm)
                            })
                            .copied()
                            .collect();
                    }
                    BlockedOn::Peer { peer } => {
                        e.peer = Some(match self.ctas.get(&peer).map(|r| r.life) {
                            Some(Life::Resident) => PeerState::Resident,
                            Some(Life::Exited(at)) => PeerState::Exited(at),
                            None => PeerState::Unknown,
                        });
                    }
                }
                e
            })
            .collect()
    }
}
