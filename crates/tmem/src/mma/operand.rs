//! Gathering MMA operands into f32 matrices: A (M×K) and B (N×K), both row-major with K
//! contiguous, from shared memory through a descriptor, or A from TMEM; and block-scale
//! factors from TMEM.
//!
//! Element packing (mma.md §4 "Element packing", descriptors.md §2.1): every operand is a
//! sequence of 16-byte chunks holding `T` elements:
//! - tf32: 4 per chunk; the low 13 bits of the f32 pattern are dropped (hardware reads the
//!   top 19 bits — UNCONFIRMED whether it truncates or rounds; we truncate, as the tensor
//!   core ignores the low mantissa bits rather than rounding them (mma.md §10 suggestion));
//! - f16/bf16: 8; 8-bit types: 16;
//! - `.kind::f8f6f4`/`.kind::mxf8f6f4` 6-bit and 4-bit types: 16 per chunk in the padded
//!   smem formats `.b6x16_p32` (12 bytes of dense 6-bit values, 4 bytes padding) and
//!   `.b4x16_p64` (8 bytes of dense nibbles, 8 bytes padding) that TMA writes for them;
//! - `.kind::mxf4`/`.kind::mxf4nvf4` e2m1: 32 per chunk, two per byte, low nibble first
//!   (UNCONFIRMED order; the natural little-endian reading).
//!
//! In TMEM (A operand) elements pack along the columns of a lane, low bits first: 2 × 16-bit,
//! 4 × 8-bit (4/6-bit f8f6f4 values in the low bits of 8-bit containers, as
//! [`crate::layout::CpForm`] decompression writes them), 8 × e2m1 for mxf4.

use super::{DLayout, MmaError};
use crate::desc::{
    ElemType, InstrDescriptor, Major, MmaKind, OperandLayout, ScaleType, SmemDescriptor,
};
use tmemu_num::narrow::{unpack_b4x16, unpack_b6x16, NarrowFormat};

/// f16 → f32, exact for every code (subnormals, infinities, NaNs) and branch-free, so the
/// gather loop vectorises without relying on the F16C instruction set: place exponent and
/// mantissa in f32 position, rescale by 2^112 (exact: a power of two; an f16 subnormal is
/// an f32 subnormal before the multiply and a normal after it), and force the exponent to
/// all ones for Inf/NaN.
#[inline]
pub fn f16_to_f32(h: u16) -> f32 {
    let o = u32::from(h & 0x7FFF) << 13;
    let scaled = (f32::from_bits(o) * f32::from_bits(0x7780_0000)).to_bits(); // × 2^112
    let special = if o >= 0x0F80_0000 { 0x7F80_0000 } else { 0 };
    f32::from_bits(scaled | special | (u32::from(h & 0x8000) << 16))
}

/// Order of a gathered matrix in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GatherOrder {
    /// `out[row * k + kk]`: K contiguous (natural for K-major operands).
    RowsByK,
    /// `out[kk * rows + row]`: rows contiguous (natural for MN-major operands).
    KByRows,
}

/// Element type plus the kind that decides its packing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandFormat {
    pub elem: ElemType,
    pub kind: MmaKind,
}

impl OperandFormat {
    /// Elements per 16-byte shared-memory chunk.
    pub fn per_chunk(&self) -> u32 {
        match (self.elem, self.kind) {
            (ElemType::Tf32, _) => 4,
            (ElemType::F16 | ElemType::Bf16, _) => 8,
            (ElemType::E2m1, MmaKind::MxF4 | MmaKind::MxF4Nvf4) => 32,
            _ => 16,
        }
    }

    /// Bits one element takes in a TMEM cell.
    pub fn tmem_bits(&self) -> u32 {
        match (self.elem, self.kind) {
            (ElemType::Tf32, _) => 32,
            (ElemType::F16 | ElemType::Bf16, _) => 16,
            (ElemType::E2m1, MmaKind::MxF4 | MmaKind::MxF4Nvf4) => 4,
            _ => 8,
        }
    }

    fn narrow(&self) -> Option<NarrowFormat> {
        Some(match self.elem {
            ElemType::E4m3 => NarrowFormat::E4m3,
            ElemType::E5m2 => NarrowFormat::E5m2,
            ElemType::E2m3 => NarrowFormat::E2m3,
            ElemType::E3m2 => NarrowFormat::E3m2,
            ElemType::E2m1 => NarrowFormat::E2m1,
            _ => return None,
        })
    }

    /// Decodes a whole 16-byte chunk into `out[..per_chunk()]`.
    #[inline]
    pub fn decode_chunk(&self, c: &[u8; 16], out: &mut [f32; 32]) {
        match self.elem {
            ElemType::Tf32 => {
                for e in 0..4 {
                    let w =
                        u32::from_le_bytes([c[4 * e], c[4 * e + 1], c[4 * e + 2], c[4 * e + 3]]);
                    out[e] = f32::from_bits(w & !0x1FFF);
                }
            }
            ElemType::F16 => {
                for e in 0..8 {
                    out[e] = f16_to_f32(u16::from_le_bytes([c[2 * e], c[2 * e + 1]]));
                }
            }
            ElemType::Bf16 => {
                for e in 0..8 {
                    out[e] = f32::from_bits(
                        u32::from(u16::from_le_bytes([c[2 * e], c[2 * e + 1]])) << 16,
                    );
                }
            }
            ElemType::U8 => {
                for e in 0..16 {
                    out[e] = f32::from(c[e]);
                }
            }
            ElemType::S8 => {
                for e in 0..16 {
                    out[e] = f32::from(c[e] as i8);
                }
            }
            ElemType::E4m3 | ElemType::E5m2 => {
                let t = self.narrow().unwrap().table();
                for e in 0..16 {
                    out[e] = t[c[e] as usize];
                }
            }
            ElemType::E2m3 | ElemType::E3m2 => {
                let t = self.narrow().unwrap().table();
                let v = unpack_b6x16(c[..12].try_into().unwrap());
                for e in 0..16 {
                    out[e] = t[v[e] as usize];
                }
            }
            ElemType::E2m1 => {
                let t = self.narrow().unwrap().table();
                if self.per_chunk() == 32 {
                    for b in 0..16 {
                        out[2 * b] = t[(c[b] & 0xF) as usize];
                        out[2 * b + 1] = t[(c[b] >> 4) as usize];
                    }
                } else {
                    let v = unpack_b4x16(c[..8].try_into().unwrap());
                    for e in 0..16 {
                        out[e] = t[v[e] as usize];
                    }
                }
            }
        }
    }

    /// Decodes a chunk straight into `out` (`out.len() == per_chunk()`).
    #[inline]
    pub fn decode_chunk_into(&self, c: &[u8; 16], out: &mut [f32]) {
        match self.elem {
            ElemType::F16 => {
                for (e, o) in out.iter_mut().enumerate().take(8) {
                    *o = f16_to_f32(u16::from_le_bytes([c[2 * e], c[2 * e + 1]]));
                }
            }
            ElemType::Bf16 => {
                for (e, o) in out.iter_mut().enumerate().take(8) {
                    *o = f32::from_bits(
                        u32::from(u16::from_le_bytes([c[2 * e], c[2 * e + 1]])) << 16,
                    );
                }
            }
            _ => {
                let mut buf = [0f32; 32];
                self.decode_chunk(c, &mut buf);
                out.copy_from_slice(&buf[..out.len()]);
            }
        }
    }

    /// Decodes element `e` of a TMEM cell (`e < 32 / tmem_bits()`).
    #[inline]
    pub fn decode_cell(&self, cell: u32, e: u32) -> f32 {
        let bits = self.tmem_bits();
        let v = if bits == 32 {
            cell
        } else {
            (cell >> (e * bits)) & ((1 << bits) - 1)
        };
        match self.elem {
            ElemType::Tf32 => f32::from_bits(v & !0x1FFF),
            ElemType::F16 => f16_to_f32(v as u16),
            ElemType::Bf16 => f32::from_bits(v << 16),
            ElemType::U8 => v as f32,
            ElemType::S8 => f32::from(v as u8 as i8),
            _ => self.narrow().unwrap().decode(v as u8),
        }
    }
}

/// Gathers a `rows × k` operand from shared memory into `out` in `order`.
/// `rows` (MN-major) or `k` (K-major) must be a multiple of the chunk's element count.
pub fn gather_smem(
    smem: &[u8],
    layout: &OperandLayout,
    fmt: OperandFormat,
    rows: u32,
    k: u32,
    order: GatherOrder,
    out: &mut [f32],
) -> Result<(), MmaError> {
    let t = fmt.per_chunk();
    let tu = t as usize;
    let (rs, ks) = match order {
        GatherOrder::RowsByK => (k as usize, 1),
        GatherOrder::KByRows => (1, rows as usize),
    };
    assert!(out.len() >= (rows * k) as usize, "output too small");
    let mut buf = [0f32; 32];
    let (mask, shift) = layout.desc.swizzle.xor_params();
    let start = layout.desc.start;
    // The two address terms are separable (see OperandLayout::chunk_offset): hoist them.
    let (n_outer, n_inner) = match layout.major {
        Major::K => (rows, k / t),
        Major::MN => (rows / t, k),
    };
    let divisible = match layout.major {
        Major::K => k.is_multiple_of(t),
        Major::MN => rows.is_multiple_of(t),
    };
    if !divisible {
        return Err(MmaError::Unsupported(
            "operand extent not a multiple of the chunk width",
        ));
    }
    let mut inner_terms = [0u32; 256];
    if n_inner as usize > inner_terms.len() {
        return Err(MmaError::Unsupported("operand K extent above 256 chunks"));
    }
    for (i, x) in inner_terms[..n_inner as usize].iter_mut().enumerate() {
        *x = layout.inner_term(i as u32);
    }
    for outer in 0..n_outer {
        let base = start.wrapping_add(layout.outer_term(outer));
        for inner in 0..n_inner {
            let a = base.wrapping_add(inner_terms[inner as usize]);
            let addr = (a ^ (((a >> 7) & mask) << shift)) as usize;
            let chunk: &[u8; 16] = smem
                .get(addr..addr + 16)
                .and_then(|s| s.try_into().ok())
                .ok_or(MmaError::SmemOutOfBounds { addr: addr as u32 })?;
            // (row, kk) of the chunk's first element; the chunk runs along K (K-major) or
            // along rows (MN-major).
            let (row, kk, step) = match layout.major {
                Major::K => (outer as usize, (inner * t) as usize, ks),
                Major::MN => ((outer * t) as usize, inner as usize, rs),
            };
            let o = row * rs + kk * ks;
            if step == 1 {
                fmt.decode_chunk_into(chunk, &mut out[o..o + tu]);
            } else {
                fmt.decode_chunk(chunk, &mut buf);
                for e in 0..tu {
                    out[o + e * step] = buf[e];
                }
            }
        }
    }
    Ok(())
}

/// Decodes a raw shared-memory descriptor, checks it (sm_100a descriptor rules, and
/// Table 54's major-ness × swizzle rule for this element type), then gathers the operand
/// like [`gather_smem`]. `operand` ('A' or 'B') names it in errors.
#[allow(clippy::too_many_arguments)]
pub fn gather_operand(
    smem: &[u8],
    desc_raw: u64,
    major: Major,
    fmt: OperandFormat,
    operand: char,
    rows: u32,
    k: u32,
    order: GatherOrder,
    out: &mut [f32],
) -> Result<(), MmaError> {
    let desc = SmemDescriptor::decode(desc_raw)?;
    desc.check_sm100()?;
    InstrDescriptor::check_operand_swizzle(fmt.elem, major, desc.swizzle, operand)?;
    gather_smem(
        smem,
        &OperandLayout::new(desc, major),
        fmt,
        rows,
        k,
        order,
        out,
    )
}

/// Gathers A (`rows × k`) from TMEM at `taddr`: row i on the lane D's row i uses (same
/// datapath layout, "DP-address equivalence" — mma.md §9, DERIVED/UNCONFIRMED), K packed
/// along the columns. `tmem` is one CTA's 128 × 512 cells, lane-major.
pub fn gather_tmem(
    tmem: &[u32],
    taddr: u32,
    layout: DLayout,
    fmt: OperandFormat,
    rows: u32,
    k: u32,
    out: &mut [f32],
) -> Result<(), MmaError> {
    if !matches!(layout, DLayout::A | DLayout::D | DLayout::F) {
        return Err(MmaError::Unsupported("A in TMEM with this datapath layout"));
    }
    let per_cell = 32 / fmt.tmem_bits();
    let (l0, c0) = (taddr >> 16, taddr & 0xFFFF);
    for i in 0..rows {
        let (lane, _) = layout.cell(i, 0, 8);
        for kk in 0..k {
            let (lane, col) = (l0 + lane, c0 + kk / per_cell);
            if lane >= 128 || col >= 512 {
                return Err(MmaError::TmemOutOfRange { lane, column: col });
            }
            let cell = tmem[(lane * 512 + col) as usize];
            out[(i * k + kk) as usize] = fmt.decode_cell(cell, kk % per_cell);
        }
    }
    Ok(())
}

/// Gathers a block-scale matrix (`rows × nsf`, row-major) from TMEM (mma.md §6, DERIVED
/// from CUTLASS `tmem_sf_frg`, UNCONFIRMED against the ISA figures): row r = r0 + 32·r1 is
/// read from lane `L0 + r0` (the program must replicate it into all four lane quarters),
/// column `C0 + r1`, bytes `sf_id + j` for j < nsf. Bits 31..30 of `taddr` (where CUTLASS
/// keeps the SF ID) are ignored.
pub fn gather_scales_tmem(
    tmem: &[u32],
    taddr: u32,
    rows: u32,
    nsf: u32,
    sf_id: u8,
    ty: ScaleType,
    out: &mut [f32],
) -> Result<(), MmaError> {
    if u32::from(sf_id) + nsf > 4 {
        return Err(MmaError::Unsupported(
            "scale factor ID + vector size exceeds a cell",
        ));
    }
    let fmt = match ty {
        ScaleType::Ue8m0 => NarrowFormat::Ue8m0,
        ScaleType::Ue4m3 => NarrowFormat::Ue4m3,
    };
    let (l0, c0) = ((taddr >> 16) & 0x3FFF, taddr & 0xFFFF);
    for r in 0..rows {
        let (lane, col) = (l0 + r % 32, c0 + r / 32);
        if lane >= 128 || col >= 512 {
            return Err(MmaError::TmemOutOfRange { lane, column: col });
        }
        let cell = tmem[(lane * 512 + col) as usize].to_le_bytes();
        for j in 0..nsf {
            out[(r * nsf + j) as usize] = fmt.decode(cell[(u32::from(sf_id) + j) as usize]);
        }
    }
    Ok(())
}

/// Multiplies each K-block of each row of `m` (`rows × k` in `order`) by its scale
/// (`rows × nsf`, row-major; block size k / nsf). Exact for the formats involved except on f32 overflow/underflow:
/// a power-of-two ue8m0 scale only moves the exponent, and e4m3 × ue4m3 has 8 significant
/// bits.
pub fn apply_block_scales(
    m: &mut [f32],
    rows: u32,
    k: u32,
    order: GatherOrder,
    scales: &[f32],
    nsf: u32,
) {
    let (rows, k, nsf) = (rows as usize, k as usize, nsf as usize);
    let block = k / nsf;
    for r in 0..rows {
        for kk in 0..k {
            let at = match order {
                GatherOrder::RowsByK => r * k + kk,
                GatherOrder::KByRows => kk * rows + r,
            };
            m[at] *= scales[r * nsf + kk / block];
        }
    }
}
