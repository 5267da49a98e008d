//! Sparse A of `tcgen05.mma.sp` (PTX ISA 9.1 §9.7.16.10.8): A (M×K) is stored packed as
//! M×(K/2) and a metadata matrix in TMEM says where each stored element sits in its row. This
//! module expands the packed A into the dense M×K matrix the product uses.
//!
//! What is modelled, and the readings taken:
//! - **Granularity 2:4** (`.kind::f16`, `.kind::f8f6f4`, `.kind::i8`; §9.7.16.10.8.2–.3): each
//!   group of 4 consecutive K elements of a row holds 2 stored elements; its 4-bit metadata
//!   holds their two 2-bit indices, the first stored element's in bits 1..0 and the second's in
//!   bits 3..2 (the `mma.sp` encoding, §9.7.14.6). Indices that are equal (0b0000, 0b0101,
//!   0b1010, 0b1111) are invalid metadata in the ISA's `mma.sp` text: refused here (tmemu
//!   cannot say what the hardware computes).
//! - **Metadata order**: group g of a row is nibble g of the row's metadata bit string,
//!   low nibble first.
//! - **Metadata place in TMEM** (the ISA gives it only as figures, §9.7.16.10.8.4; DERIVED
//!   from CUTLASS `tmem_e_frg`, M = 128): with the metadata address at lane L0, column C0,
//!   - 8-bit kinds (K = 64: 16 nibbles = 64 bits per row): row m on lane L0 + m, columns
//!     C0 and C0 + 1, bit b of the row's string at column C0 + b/32, bit b%32;
//!   - `.kind::f16` (K = 32: 8 nibbles = 32 bits per row), one column C0: the row's first
//!     16 bits (K 0..16) on lane L0 + (m % 8) + 16·(m / 16), the next 16 (K 16..32) on that
//!     lane + 8, each in the cell's low half for rows with (m / 8) even and high half for
//!     rows with (m / 8) odd.
//! - Only sparsity selector 0, M = 128 with one CTA (datapath layout D), not `.ws`, not
//!   block-scaled, and not `.kind::tf32` (1:2) are modelled: what the selector picks and the
//!   other layouts are not stated in text, so those forms are `Unsupported` (incomplete).

use super::{DLayout, MmaError};
use crate::desc::{InstrDescriptor, MmaKind};

/// Where the metadata of one sparse MMA lives, decided from the instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetaLayout {
    /// `.kind::f16`: one column, rows interleaved over lanes and half-cells.
    F16,
    /// 8-bit kinds (`.kind::i8`, `.kind::f8f6f4`): two columns, lane = row.
    Bits8,
}

impl MetaLayout {
    /// The modelled layout for this sparse instruction, or why it is not modelled.
    pub fn select(idesc: &InstrDescriptor, layout: DLayout, ws: bool) -> Result<Self, MmaError> {
        if !idesc.sparse {
            return Err(MmaError::Unsupported("metadata of a dense MMA"));
        }
        if ws || layout != DLayout::D {
            return Err(MmaError::Unsupported(
                "sparse A other than M = 128 with .cta_group::1 (metadata layout not stated)",
            ));
        }
        if idesc.sparse_selector != 0 {
            return Err(MmaError::Unsupported("a non-zero sparsity selector"));
        }
        match idesc.kind {
            MmaKind::F16 => Ok(MetaLayout::F16),
            MmaKind::I8 | MmaKind::F8f6f4 => Ok(MetaLayout::Bits8),
            MmaKind::Tf32 => Err(MmaError::Unsupported("sparse .kind::tf32 (1:2 metadata)")),
            _ => Err(MmaError::Unsupported("sparse block-scaled kinds")),
        }
    }

    /// TMEM columns the metadata occupies from C0.
    pub fn columns(self) -> u32 {
        match self {
            MetaLayout::F16 => 1,
            MetaLayout::Bits8 => 2,
        }
    }

    /// (lane offset, column offset, bit) of nibble `g` of row `m`'s metadata.
    #[inline]
    pub fn nibble_at(self, m: u32, g: u32) -> (u32, u32, u32) {
        match self {
            MetaLayout::Bits8 => (m, g / 8, 4 * (g % 8)),
            MetaLayout::F16 => (
                (m % 8) + 8 * (g / 4) + 16 * (m / 16),
                0,
                16 * ((m / 8) % 2) + 4 * (g % 4),
            ),
        }
    }
}

/// Expands packed A (`rows × k/2`, K contiguous) into dense A (`rows × k`, K contiguous),
/// reading the metadata from `tmem` (one CTA's 128 × 512 cells, lane-major) at `meta_taddr`.
pub fn expand_sparse_a(
    tmem: &[u32],
    meta_taddr: u32,
    meta: MetaLayout,
    rows: u32,
    k: u32,
    packed: &[f32],
    out: &mut [f32],
) -> Result<(), MmaError> {
    let (l0, c0) = (meta_taddr >> 16, meta_taddr & 0xFFFF);
    let (rows_u, k_u) = (rows as usize, k as usize);
    assert!(
        packed.len() >= rows_u * k_u / 2 && out.len() >= rows_u * k_u,
        "sparse A buffers too small"
    );
    for m in 0..rows {
        let dense = &mut out[m as usize * k_u..(m as usize + 1) * k_u];
        dense.fill(0.0);
        let stored = &packed[m as usize * k_u / 2..(m as usize + 1) * k_u / 2];
        for g in 0..k / 4 {
            let (dl, dc, bit) = meta.nibble_at(m, g);
            let (lane, col) = (l0 + dl, c0 + dc);
            if lane >= 128 || col >= 512 {
                return Err(MmaError::TmemOutOfRange { lane, column: col });
            }
            let nib = (tmem[(lane * 512 + col) as usize] >> bit) & 0xF;
            let (i0, i1) = ((nib & 3) as usize, (nib >> 2) as usize);
            if i0 == i1 {
                return Err(MmaError::Unsupported(
                    "sparsity metadata with two equal indices (invalid in the ISA)",
                ));
            }
            let g = g as usize;
            dense[4 * g + i0] = stored[2 * g];
            dense[4 * g + i1] = stored[2 * g + 1];
        }
    }
    Ok(())
}
