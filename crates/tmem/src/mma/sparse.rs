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
//! - **Granularity 1:2** (`.kind::tf32`, §9.7.16.10.8.1): each pair of consecutive K elements
//!   of a row holds one stored element. The ISA's sparse `mma.sp`/`wgmma.sp` text for `.tf32`:
//!   "the 4-bit index in the metadata indicates the position of the non-zero element in the
//!   two-wide chunk. 0b1110 and 0b0100 are the only meaningful values". Reading (DERIVED): the
//!   nibble is a 2:4 index pair over the pair's four 16-bit halves, so 0b0100 (halves 0, 1)
//!   places the stored element first and 0b1110 (halves 2, 3) second; any other nibble is
//!   refused. Metadata place: CUTLASS's `tmem_e_frg` TF32 atom for M = 128 is the f16 atom
//!   with each K element taking 2 bits instead of 1, so a pair's nibble sits exactly where the
//!   f16 layout puts group g's nibble ([`MetaLayout::Tf32`] uses [`MetaLayout::F16`]'s map
//!   with g = the pair index; K = 16 gives 8 nibbles = 32 bits per row, as for f16).
//! - Only sparsity selector 0, M = 128 with one CTA (datapath layout D, `.ws` included: its
//!   CUTLASS `tmem_e_frg_ws` M = 128 atoms equal the non-ws ones), and not block-scaled are
//!   modelled: what the selector picks and the other layouts are not stated
//!   in text (figures only: Figures 262-267 of §9.7.16.10.8.4), so those forms are
//!   `Unsupported` (incomplete).

use super::{DLayout, MmaError};
use crate::desc::{InstrDescriptor, MmaKind};

/// Where the metadata of one sparse MMA lives, decided from the instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetaLayout {
    /// `.kind::f16`: one column, rows interleaved over lanes and half-cells.
    F16,
    /// 8-bit kinds (`.kind::i8`, `.kind::f8f6f4`): two columns, lane = row.
    Bits8,
    /// `.kind::tf32` (1:2): the `F16` map, one nibble per pair of K elements.
    Tf32,
}

impl MetaLayout {
    /// The modelled layout for this sparse instruction, or why it is not modelled.
    /// `_ws`: whether the MMA is `.ws` (its M = 128 metadata is placed as the non-ws one's).
    pub fn select(idesc: &InstrDescriptor, layout: DLayout, _ws: bool) -> Result<Self, MmaError> {
        if !idesc.sparse {
            return Err(MmaError::Unsupported("metadata of a dense MMA"));
        }
        // `.ws` with M = 128 is datapath layout D too, and CUTLASS's `tmem_e_frg_ws` places
        // its metadata exactly as `tmem_e_frg` does for every kind (DERIVED): modelled.
        // `.ws` M = 64/32 (layouts E, G) are not.
        if layout != DLayout::D {
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
            MmaKind::Tf32 => Ok(MetaLayout::Tf32),
            _ => Err(MmaError::Unsupported("sparse block-scaled kinds")),
        }
    }

    /// TMEM columns the metadata occupies from C0.
    pub fn columns(self) -> u32 {
        match self {
            MetaLayout::F16 | MetaLayout::Tf32 => 1,
            MetaLayout::Bits8 => 2,
        }
    }

    /// (lane offset, column offset, bit) of nibble `g` of row `m`'s metadata (`g` counts
    /// groups of 4 K elements, or pairs for `Tf32`).
    #[inline]
    pub fn nibble_at(self, m: u32, g: u32) -> (u32, u32, u32) {
        match self {
            MetaLayout::Bits8 => (m, g / 8, 4 * (g % 8)),
            MetaLayout::F16 | MetaLayout::Tf32 => (
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
        if meta == MetaLayout::Tf32 {
            for g in 0..k / 2 {
                let nib = read_nibble(tmem, l0, c0, meta, m, g)?;
                let at = match nib {
                    0b0100 => 0,
                    0b1110 => 1,
                    _ => return Err(MmaError::Unsupported(
                        "tf32 sparsity metadata other than 0b0100 or 0b1110 (undefined in the ISA)",
                    )),
                };
                dense[2 * g as usize + at] = stored[g as usize];
            }
            continue;
        }
        for g in 0..k / 4 {
            let nib = read_nibble(tmem, l0, c0, meta, m, g)?;
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

/// Nibble `g` of row `m`'s metadata, from the metadata at (lane `l0`, column `c0`).
#[inline]
fn read_nibble(
    tmem: &[u32],
    l0: u32,
    c0: u32,
    meta: MetaLayout,
    m: u32,
    g: u32,
) -> Result<u32, MmaError> {
    let (dl, dc, bit) = meta.nibble_at(m, g);
    let (lane, col) = (l0 + dl, c0 + dc);
    if lane >= 128 || col >= 512 {
        return Err(MmaError::TmemOutOfRange { lane, column: col });
    }
    Ok((tmem[(lane * 512 + col) as usize] >> bit) & 0xF)
}
