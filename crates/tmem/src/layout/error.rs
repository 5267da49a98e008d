//! Data-movement errors, each tied to a catalogued rule.

use crate::rules::{self, Rule};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// `.num` not allowed with this ld/st shape (nregs would exceed 128).
    ShapeNum { num: u32 },
    /// A touched lane lies outside the issuing warp's lane quarter.
    LaneQuarter { lane: u32, warp_quarter: u32 },
    /// A touched cell lies outside TMEM (lane >= 128 or column >= 512).
    OutOfRange { lane: u32, column: u32 },
    /// `tcgen05.cp` shape and multicast qualifier do not go together.
    CpShapeMulticast,
    /// `tcgen05.shift` lane field not a multiple of 32.
    ShiftLane { lane: u32 },
    /// A source chunk of `tcgen05.cp` lies outside the shared-memory window given
    /// (an engine-level out-of-bounds access, not a tcgen05 rule).
    SmemOutOfBounds { addr: u32 },
    /// The source descriptor is malformed.
    Desc(crate::desc::DescError),
}

impl LayoutError {
    /// The catalogued rule, if this error is a tcgen05 rule violation.
    pub fn rule(&self) -> Option<&'static Rule> {
        Some(match self {
            LayoutError::ShapeNum { .. } => &rules::LDST_VECTOR_LENGTH,
            LayoutError::LaneQuarter { .. } => &rules::LANE_QUARTER_VIOLATION,
            LayoutError::OutOfRange { .. } => &rules::ACCESS_UNALLOCATED_COLUMNS,
            LayoutError::CpShapeMulticast => &rules::CP_SHAPE_MULTICAST,
            LayoutError::ShiftLane { .. } => &rules::SHIFT_LANE_NOT_MULTIPLE_OF_32,
            LayoutError::Desc(e) => e.rule(),
            LayoutError::SmemOutOfBounds { .. } => return None,
        })
    }
}

impl core::fmt::Display for LayoutError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            LayoutError::ShapeNum { num } => {
                write!(f, ".x{num} is not allowed with this shape")
            }
            LayoutError::LaneQuarter { lane, warp_quarter } => write!(
                f,
                "lane {lane} is outside the warp's lane quarter {}..{}",
                warp_quarter * 32,
                warp_quarter * 32 + 31
            ),
            LayoutError::OutOfRange { lane, column } => {
                write!(f, "cell (lane {lane}, column {column}) is outside TMEM")
            }
            LayoutError::CpShapeMulticast => {
                write!(
                    f,
                    "tcgen05.cp shape and multicast qualifier do not go together"
                )
            }
            LayoutError::ShiftLane { lane } => {
                write!(f, "tcgen05.shift lane {lane} is not a multiple of 32")
            }
            LayoutError::SmemOutOfBounds { addr } => {
                write!(
                    f,
                    "tcgen05.cp source chunk at shared address {addr:#x} is out of bounds"
                )
            }
            LayoutError::Desc(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for LayoutError {}
