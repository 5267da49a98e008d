//! Halves of `.cta_group::2` collectives (PTX ISA §9.7.16.5 Table 46, §9.7.16.7.1): one warp
//! in each CTA of a pair performs the same alloc / dealloc / relinquish; the first to arrive
//! leaves a half that the peer's arrival completes.

use super::{Origin, WarpId};
use crate::geometry::TmemAddr;

/// The collective operation and the operands both halves must agree on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PairOp {
    Alloc { ncols: u32 },
    Dealloc { taddr: TmemAddr, ncols: u32 },
    Relinquish,
}

impl PairOp {
    pub(crate) fn name(self) -> &'static str {
        match self {
            PairOp::Alloc { .. } => "tcgen05.alloc",
            PairOp::Dealloc { .. } => "tcgen05.dealloc",
            PairOp::Relinquish => "tcgen05.relinquish_alloc_permit",
        }
    }

    #[cold]
    pub(crate) fn describe(self) -> String {
        match self {
            PairOp::Alloc { ncols } => format!("tcgen05.alloc of {ncols} columns"),
            PairOp::Dealloc { taddr, ncols } => {
                format!("tcgen05.dealloc of {ncols} columns at {taddr}")
            }
            PairOp::Relinquish => "tcgen05.relinquish_alloc_permit".to_string(),
        }
    }
}

/// One CTA's side of a collective whose peer side has not happened yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Half {
    pub(crate) warp: WarpId,
    pub(crate) origin: Origin,
    pub(crate) op: PairOp,
    /// The warp is blocked until the peer arrives (else it went on: eager dealloc/relinquish).
    pub(crate) waiting: bool,
}
