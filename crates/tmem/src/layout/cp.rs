//! `tcgen05.cp`: shared memory → TMEM (data-movement.md §5; PTX ISA 9.1 §9.7.16.9).
//!
//! The source is read as rows of 16-byte chunks through a K-major shared-memory descriptor
//! (row `i`, chunk `j` at [`crate::desc::OperandLayout::chunk_address`]`(i, j)`: 8-row groups
//! SBO apart, chunk 1 LBO away without swizzle or 16 bytes on inside a swizzle row). Each
//! chunk lands, byte order kept, in 4 consecutive columns `C0 + 4j ..` of the lanes listed
//! by [`CpForm::chunks`]: byte `b` of the chunk → bits `8(b%4)..` of column `C0 + 4j + b/4`.
//! DERIVED from CUTLASS's UTCCP traits; the ISA has no figure.
//!
//! Decompression (`.b8x16.b6x16_p32`, `.b8x16.b4x16_p64`) turns each 16-byte source chunk
//! (12 resp. 8 bytes of dense 6/4-bit elements, then padding) into 16 one-byte containers.
//! **UNCONFIRMED** where in the byte the value sits; we put it in the low bits with zero
//! padding above — the placement `ldmatrix` uses for the same source formats (PTX ISA
//! §9.7.14.5.15; CUTLASS notes ldmatrix's fp4 lands in bits 0..3). [`crate::mma`] reads
//! 4/6-bit operands from TMEM with the same placement, so cp → mma is consistent.
//!
//! `.cta_group::2` writes the same cells in both CTAs of the pair. **UNCONFIRMED** which
//! shared memory feeds the peer: we read each CTA's own shared memory at the same descriptor,
//! as `tcgen05.mma.cta_group::2` does for its operands (mma.md §9); the engine applies
//! [`CpForm::chunks`] once per CTA of the group.

use super::LayoutError;
use crate::desc::{Major, OperandLayout, SmemDescriptor};
use tmemu_num::narrow::{unpack_b4x16, unpack_b6x16};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpShape {
    S128x256b,
    S4x256b,
    S128x128b,
    S64x128b,
    S32x128b,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpMulticast {
    None,
    Warpx2_02_13,
    Warpx2_01_23,
    Warpx4,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpSrcFormat {
    /// Plain copy.
    Plain,
    /// `.b8x16.b6x16_p32`.
    B6x16P32,
    /// `.b8x16.b4x16_p64`.
    B4x16P64,
}

/// One validated `tcgen05.cp` form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CpForm {
    pub shape: CpShape,
    pub multicast: CpMulticast,
    pub src: CpSrcFormat,
}

/// One 16-byte source chunk and where it lands (lanes relative to L0, first column relative
/// to C0; the chunk fills 4 columns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpChunk {
    pub row: u32,
    pub chunk: u32,
    lanes: [u32; 4],
    nlanes: u8,
    pub column: u32,
}

impl CpChunk {
    pub fn lanes(&self) -> &[u32] {
        &self.lanes[..self.nlanes as usize]
    }
}

impl CpForm {
    /// Shape ↔ multicast legality (data-movement.md §5.2; rule TM0406).
    pub fn new(
        shape: CpShape,
        multicast: CpMulticast,
        src: CpSrcFormat,
    ) -> Result<Self, LayoutError> {
        let ok = match shape {
            CpShape::S128x256b | CpShape::S128x128b | CpShape::S4x256b => {
                multicast == CpMulticast::None
            }
            CpShape::S64x128b => matches!(
                multicast,
                CpMulticast::Warpx2_02_13 | CpMulticast::Warpx2_01_23
            ),
            CpShape::S32x128b => multicast == CpMulticast::Warpx4,
        };
        if !ok {
            return Err(LayoutError::CpShapeMulticast);
        }
        Ok(CpForm {
            shape,
            multicast,
            src,
        })
    }

    /// Source rows.
    pub fn rows(&self) -> u32 {
        match self.shape {
            CpShape::S128x256b | CpShape::S128x128b => 128,
            CpShape::S4x256b => 4,
            CpShape::S64x128b => 64,
            CpShape::S32x128b => 32,
        }
    }

    /// 16-byte chunks per source row.
    pub fn chunks_per_row(&self) -> u32 {
        match self.shape {
            CpShape::S128x256b | CpShape::S4x256b => 2,
            _ => 1,
        }
    }

    /// TMEM columns written from C0.
    pub fn columns(&self) -> u32 {
        4 * self.chunks_per_row()
    }

    /// Destination lanes (relative to L0) of source row `i`.
    ///
    /// `.4x256b`: **UNCONFIRMED** in the ISA text (no figure). We take rows 0..3 → lanes
    /// L0, L0+32, L0+64, L0+96 — one row per warp quarter. Two independent readings agree on
    /// this: CUTLASS' UTCCP traits (a "refresh of the last 4 lanes of each subpartition") and
    /// Apache TVM TIRx's tcgen05.cp table ("0, 32, 64, 96 relative to the origin"); the literal
    /// "4 consecutive lanes" reading has no user. A hardware test settles it.
    pub fn dest_lanes(&self, i: u32) -> ([u32; 4], u8) {
        match self.multicast {
            CpMulticast::None if self.shape == CpShape::S4x256b => ([32 * i, 0, 0, 0], 1),
            CpMulticast::None => ([i, 0, 0, 0], 1),
            CpMulticast::Warpx2_02_13 => ([i, 64 + i, 0, 0], 2),
            CpMulticast::Warpx2_01_23 => {
                if i < 32 {
                    ([i, 32 + i, 0, 0], 2)
                } else {
                    ([32 + i, 64 + i, 0, 0], 2)
                }
            }
            CpMulticast::Warpx4 => ([i, 32 + i, 64 + i, 96 + i], 4),
        }
    }

    /// Every source chunk with its destination, row-major.
    pub fn chunks(&self) -> impl Iterator<Item = CpChunk> + '_ {
        let per_row = self.chunks_per_row();
        (0..self.rows() * per_row).map(move |x| {
            let (row, chunk) = (x / per_row, x % per_row);
            let (lanes, nlanes) = self.dest_lanes(row);
            CpChunk {
                row,
                chunk,
                lanes,
                nlanes,
                column: 4 * chunk,
            }
        })
    }

    /// The 16 bytes that land in TMEM for a 16-byte source chunk.
    #[inline]
    pub fn convert(&self, src: &[u8; 16]) -> [u8; 16] {
        match self.src {
            CpSrcFormat::Plain => *src,
            CpSrcFormat::B6x16P32 => {
                let mut packed = [0u8; 12];
                packed.copy_from_slice(&src[..12]);
                unpack_b6x16(&packed)
            }
            CpSrcFormat::B4x16P64 => {
                let mut packed = [0u8; 8];
                packed.copy_from_slice(&src[..8]);
                unpack_b4x16(&packed)
            }
        }
    }

    /// The 4 cells (columns `column .. column+3`) a converted chunk fills.
    #[inline]
    pub fn chunk_cells(bytes: &[u8; 16]) -> [u32; 4] {
        core::array::from_fn(|c| {
            u32::from_le_bytes([
                bytes[4 * c],
                bytes[4 * c + 1],
                bytes[4 * c + 2],
                bytes[4 * c + 3],
            ])
        })
    }

    /// Performs the copy into one CTA's TMEM (`tmem`: 128 × 512 cells, lane-major) from that
    /// CTA's shared memory `smem` (its `.shared::cta` window, offset 0 = address 0).
    /// For `.cta_group::2` call it once per CTA of the pair (see the module notes).
    /// Checks the descriptor (sm_100a rules), the source bounds and the TMEM bounds before
    /// writing anything.
    pub fn execute(
        &self,
        smem: &[u8],
        s_desc: u64,
        taddr: u32,
        tmem: &mut [u32],
    ) -> Result<(), LayoutError> {
        let desc = SmemDescriptor::decode(s_desc).map_err(LayoutError::Desc)?;
        desc.check_sm100().map_err(LayoutError::Desc)?;
        let layout = OperandLayout::new(desc, Major::K);
        let (l0, c0) = (taddr >> 16, taddr & 0xFFFF);
        // Highest destination lane relative to L0, over every source row.
        let max_lane = (0..self.rows())
            .flat_map(|i| {
                let (lanes, n) = self.dest_lanes(i);
                lanes.into_iter().take(n as usize)
            })
            .max()
            .unwrap_or(0);
        if l0 + max_lane >= 128 || c0 + self.columns() > 512 {
            return Err(LayoutError::OutOfRange {
                lane: l0 + max_lane,
                column: c0 + self.columns() - 1,
            });
        }
        for ch in self.chunks() {
            let addr = layout.chunk_address(ch.row, ch.chunk);
            if smem.get(addr as usize..addr as usize + 16).is_none() {
                return Err(LayoutError::SmemOutOfBounds { addr });
            }
        }
        for ch in self.chunks() {
            let a = layout.chunk_address(ch.row, ch.chunk) as usize;
            let bytes: &[u8; 16] = smem[a..a + 16].try_into().expect("checked above");
            let cells = Self::chunk_cells(&self.convert(bytes));
            for &lane in ch.lanes() {
                let at = ((l0 + lane) * 512 + c0 + ch.column) as usize;
                tmem[at..at + 4].copy_from_slice(&cells);
            }
        }
        Ok(())
    }
}
