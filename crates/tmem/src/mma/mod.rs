//! `tcgen05.mma` arithmetic on decoded operands (mma.md; PTX ISA 9.1 §9.7.16.10).
//!
//! Three steps, each usable alone by the engine:
//! 1. gather ([`gather_smem`], [`gather_tmem`], [`gather_scales_tmem`]): operands as f32
//!    matrices A (M×K) and B (N×K), decoded once;
//! 2. block scaling ([`apply_block_scales`]) for the `mx*` kinds;
//! 3. [`execute`]: D = ±A·Bᵀ (+ D·2^-sid) into the TMEM cells the datapath layout
//!    ([`DLayout`]) prescribes, rounded to the accumulator type.
//!
//! ## Rounding model (mma.md §10: the ISA leaves order, rounding and subnormals open)
//! - Products are exact in f32 for every kind: significands are at most 11 bits (f16),
//!   8 (bf16), 11 (tf32, truncated to 19 bits), 4 (e4m3) or less, so a product has at most
//!   22 significant bits. Block scales are powers of two (ue8m0) or 4-bit significands
//!   (ue4m3 × e2m1 ≤ 6 bits) and are folded into the operands exactly.
//! - The K products of one output are summed in f32 (with fused multiply-add where the CPU
//!   has it), then added once to the old D (scaled by 2^-sid), rounded to nearest even — the
//!   accumulation precision the ISA promises at least ("at least single precision",
//!   §9.7.14.5.14). Summation order is the GEMM kernel's; tests allow for that (K ≤ 128
//!   terms, so the difference to an exact sum is below K·2^-24·Σ|products|).
//! - f16 accumulators: the f32 result above is rounded once to f16 (RNE) and stored in the
//!   low 16 bits of the cell, high bits zero (UNCONFIRMED: the ISA says only "low 16 bits").
//! - `.kind::i8`: operands are integers ≤ 255 in magnitude, so every partial sum of up to
//!   K = 64 products is an integer below 2^24 and exact in f32; the sum is converted to i32
//!   and added to D wrapping, or saturating with the saturate bit (§9.7.14.5.14 semantics).
//! - No subnormal flushing; NaN/Inf propagate as in IEEE f32 arithmetic.
//!
//! Sparse (`.sp`) operands, the `.ashift` row shift and the `.ws` zero-column mask are not
//! modelled: callers get [`MmaError::Unsupported`] so a run can say "incomplete".

mod compute;
mod dlayout;
mod operand;

pub use compute::{execute, MmaRequest, MmaScratch};
pub use dlayout::{DBlock, DLayout};
pub use operand::{
    apply_block_scales, f16_to_f32, gather_operand, gather_scales_tmem, gather_smem, gather_tmem,
    GatherOrder, OperandFormat,
};

use crate::desc::DescError;
use crate::rules::{self, Rule};

/// Why an MMA cannot be executed as asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaError {
    Desc(DescError),
    /// The D (or A) lane field is not a legal alignment for the datapath layout.
    LaneAlign {
        lane: u32,
    },
    /// A 16-byte operand chunk lies outside the shared-memory window given.
    SmemOutOfBounds {
        addr: u32,
    },
    /// A TMEM cell outside 128 lanes × 512 columns.
    TmemOutOfRange {
        lane: u32,
        column: u32,
    },
    /// A form tmemu does not model (reported as an incomplete run, never as clean).
    Unsupported(&'static str),
}

impl MmaError {
    /// The catalogued rule, if this error is a rule violation (not a modelling gap).
    pub fn rule(&self) -> Option<&'static Rule> {
        match self {
            MmaError::Desc(e) => Some(e.rule()),
            MmaError::LaneAlign { .. } => Some(&rules::MMA_LANE_ALIGN),
            MmaError::TmemOutOfRange { .. } => Some(&rules::ACCESS_UNALLOCATED_COLUMNS),
            MmaError::SmemOutOfBounds { .. } | MmaError::Unsupported(_) => None,
        }
    }
}

impl From<DescError> for MmaError {
    fn from(e: DescError) -> Self {
        MmaError::Desc(e)
    }
}

impl core::fmt::Display for MmaError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            MmaError::Desc(e) => e.fmt(f),
            MmaError::LaneAlign { lane } => {
                write!(
                    f,
                    "D lane field {lane} is not allowed for this datapath layout"
                )
            }
            MmaError::SmemOutOfBounds { addr } => {
                write!(
                    f,
                    "operand chunk at shared address {addr:#x} is out of bounds"
                )
            }
            MmaError::TmemOutOfRange { lane, column } => {
                write!(
                    f,
                    "TMEM cell (lane {lane}, column {column}) is out of range"
                )
            }
            MmaError::Unsupported(what) => write!(f, "not modelled: {what}"),
        }
    }
}

impl std::error::Error for MmaError {}
