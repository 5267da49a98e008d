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
///
/// The element type is matched once per operand, not per chunk: each format gets its own
/// monomorphised chunk loop ([`gather_chunks`]) whose decoder writes a fixed-size array, so
/// the f16/bf16/tf32 conversions vectorise and the narrow formats are one table lookup per
/// byte (e2m1 pairs: one lookup per byte for both nibbles).
pub fn gather_smem(
    smem: &[u8],
    layout: &OperandLayout,
    fmt: OperandFormat,
    rows: u32,
    k: u32,
    order: GatherOrder,
    out: &mut [f32],
) -> Result<(), MmaError> {
    let ld = match order {
        GatherOrder::RowsByK => k,
        GatherOrder::KByRows => rows,
    };
    gather_smem_strided(smem, layout, fmt, rows, k, order, ld as usize, out)
}

/// [`gather_smem`] into a matrix with leading dimension `ld`: element (row, kk) at
/// `out[row * ld + kk]` (`RowsByK`, `ld` ≥ k) or `out[kk * ld + row]` (`KByRows`, `ld` ≥
/// rows), the other elements of `out` untouched: a K-fused panel appends an instruction's
/// operands in place this way.
#[allow(clippy::too_many_arguments)]
pub fn gather_smem_strided(
    smem: &[u8],
    layout: &OperandLayout,
    fmt: OperandFormat,
    rows: u32,
    k: u32,
    order: GatherOrder,
    ld: usize,
    out: &mut [f32],
) -> Result<(), MmaError> {
    let g = Gather {
        smem,
        layout,
        rows,
        k,
        order,
        ld,
    };
    match fmt.elem {
        ElemType::Tf32 => g.run::<4>(out, |c, o| {
            for (e, o) in o.iter_mut().enumerate() {
                let w = u32::from_le_bytes([c[4 * e], c[4 * e + 1], c[4 * e + 2], c[4 * e + 3]]);
                *o = f32::from_bits(w & !0x1FFF);
            }
        }),
        ElemType::F16 => {
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("f16c") {
                // SAFETY: the CPU has F16C (and so AVX), detected just now.
                return unsafe { g.run_f16c(out) };
            }
            g.run::<8>(out, |c, o| {
                for (e, o) in o.iter_mut().enumerate() {
                    *o = f16_to_f32(u16::from_le_bytes([c[2 * e], c[2 * e + 1]]));
                }
            })
        }
        ElemType::Bf16 => g.run::<8>(out, |c, o| {
            for (e, o) in o.iter_mut().enumerate() {
                *o = f32::from_bits(u32::from(u16::from_le_bytes([c[2 * e], c[2 * e + 1]])) << 16);
            }
        }),
        ElemType::U8 => g.run::<16>(out, |c, o| {
            for (o, &b) in o.iter_mut().zip(c) {
                *o = f32::from(b);
            }
        }),
        ElemType::S8 => g.run::<16>(out, |c, o| {
            for (o, &b) in o.iter_mut().zip(c) {
                *o = f32::from(b as i8);
            }
        }),
        ElemType::E4m3 | ElemType::E5m2 => {
            let t = fmt.narrow().unwrap().table();
            g.run::<16>(out, |c, o| {
                for (o, &b) in o.iter_mut().zip(c) {
                    *o = t[b as usize];
                }
            })
        }
        ElemType::E2m3 | ElemType::E3m2 => {
            let t = fmt.narrow().unwrap().table();
            g.run::<16>(out, |c, o| {
                let v = unpack_b6x16(c[..12].try_into().unwrap());
                for (o, &b) in o.iter_mut().zip(&v) {
                    *o = t[b as usize];
                }
            })
        }
        ElemType::E2m1 if fmt.per_chunk() == 32 => {
            // Both nibbles of a byte in one lookup: low nibble first.
            let t = fmt.narrow().unwrap().table();
            let pairs: [[f32; 2]; 256] = core::array::from_fn(|b| [t[b & 0xF], t[b >> 4]]);
            g.run::<32>(out, |c, o| {
                for (o, &b) in o.chunks_exact_mut(2).zip(c) {
                    o.copy_from_slice(&pairs[b as usize]);
                }
            })
        }
        ElemType::E2m1 => {
            let t = fmt.narrow().unwrap().table();
            g.run::<16>(out, |c, o| {
                let v = unpack_b4x16(c[..8].try_into().unwrap());
                for (o, &b) in o.iter_mut().zip(&v) {
                    *o = t[b as usize];
                }
            })
        }
    }
}

/// One shared-memory gather: where the operand is and how the output is ordered.
struct Gather<'a> {
    smem: &'a [u8],
    layout: &'a OperandLayout,
    rows: u32,
    k: u32,
    order: GatherOrder,
    /// Leading dimension of the output (see [`gather_smem_strided`]).
    ld: usize,
}

impl Gather<'_> {
    /// The f16 gather with the conversion in one F16C instruction per chunk
    /// (`vcvtph2ps`): exact for every f16 code like [`f16_to_f32`] (subnormals become
    /// normal f32, infinities stay infinite); a signalling NaN comes out quieted, which no
    /// MMA result can tell apart (an f32 product of a NaN is the quiet NaN either way).
    /// Tested against [`f16_to_f32`] over all 2^16 codes (`tests::f16c_equals_f16_to_f32`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx,f16c")]
    unsafe fn run_f16c(&self, out: &mut [f32]) -> Result<(), MmaError> {
        use std::arch::x86_64::{_mm256_cvtph_ps, _mm256_storeu_ps, _mm_loadu_si128};
        self.run::<8>(out, |c, o| {
            // SAFETY: 16 readable bytes in, 8 writable f32 out; F16C is enabled here.
            unsafe {
                let h = _mm_loadu_si128(c.as_ptr().cast());
                _mm256_storeu_ps(o.as_mut_ptr(), _mm256_cvtph_ps(h));
            }
        })
    }

    /// Walks the operand's 16-byte chunks (`T` elements each) and decodes each with
    /// `decode` into its place in `out`.
    #[inline(always)]
    fn run<const T: usize>(
        &self,
        out: &mut [f32],
        decode: impl Fn(&[u8; 16], &mut [f32; T]),
    ) -> Result<(), MmaError> {
        let (rows, k, layout) = (self.rows, self.k, self.layout);
        let t = T as u32;
        let ld = self.ld;
        let (rs, ks, inner_extent) = match self.order {
            GatherOrder::RowsByK => (ld, 1, k as usize),
            GatherOrder::KByRows => (1, ld, rows as usize),
        };
        assert!(ld >= inner_extent, "leading dimension below the extent");
        if rows == 0 || k == 0 {
            return Ok(());
        }
        assert!(
            out.len() > (rows as usize - 1) * rs + (k as usize - 1) * ks,
            "output too small"
        );
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
        let inner_terms = &inner_terms[..n_inner as usize];
        // Every swizzle XORs address bits 4..6 with higher bits, so a chunk stays inside the
        // 128-byte line of its unswizzled address: when the highest unswizzled address's
        // line is in bounds and no sum wraps, every chunk is, and the loop skips the
        // per-chunk check (the checked loop below reports the first faulting chunk).
        // Chunks must also be 16-byte aligned (descriptors encode addresses in 16-byte
        // units, but the fields are public).
        let (mut max_outer, mut bits) = (0, start);
        // the outer terms too, for the fast loops (at most 256 rows: M or N of one CTA)
        let mut outer_terms = [0u32; 256];
        let tabled = n_outer as usize <= outer_terms.len();
        if tabled {
            let terms = &mut outer_terms[..n_outer as usize];
            layout.outer_terms(terms);
            max_outer = terms.iter().copied().max().unwrap_or(0);
            bits |= terms.iter().fold(0, |acc, &t| acc | t);
        } else {
            for o in 0..n_outer {
                let t = layout.outer_term(o);
                max_outer = max_outer.max(t);
                bits |= t;
            }
        }
        let outer_terms = &outer_terms[..if tabled { n_outer as usize } else { 0 }];
        let max_inner = inner_terms.iter().copied().max().unwrap_or(0);
        bits |= inner_terms.iter().fold(0, |acc, &t| acc | t);
        let top = u64::from(start) + u64::from(max_outer) + u64::from(max_inner);
        let in_bounds = bits % 16 == 0 && top < 1 << 32 && (top | 127) < self.smem.len() as u64;
        // (row, kk) of a chunk's first element advance by (1, 0) per outer and (0, T) per
        // inner step (K-major), or (T, 0) and (0, 1) (MN-major); the chunk's elements run
        // along K (K-major) or along rows (MN-major).
        let (outer_step, inner_step, elem_step) = match layout.major {
            Major::K => (rs, T * ks, ks),
            Major::MN => (T * rs, ks, rs),
        };
        let swz = |a: u32| (a ^ (((a >> 7) & mask) << shift)) as usize;
        if in_bounds && tabled && elem_step == 1 {
            // The common case (K-major gathered by rows, MN-major by K, into any leading
            // dimension): each chunk's elements are contiguous in `out`. The longer of the
            // two chunk dimensions runs innermost, so a K-major operand of few K chunks per
            // row (2 for f16 at K = 16) or an MN-major one of few row chunks pays no per-row
            // loop setup.
            let (long, long_step, short, short_step) = if n_outer as usize >= inner_terms.len() {
                (outer_terms, outer_step, inner_terms, inner_step)
            } else {
                (inner_terms, inner_step, outer_terms, outer_step)
            };
            let (src, dst) = (self.smem.as_ptr(), out.as_mut_ptr());
            if let Some(d) = atom_period(long, mask) {
                #[cfg(test)]
                ATOM_GATHERS.with(|c| c.set(c.get() + 1));
                // Whole swizzle atoms: the long dimension repeats every 8 chunks `d` bytes
                // further on, and `d` is a multiple of the swizzle's period, so chunk
                // 8·g + j of the long dimension lies at `phys[j] + g·d`: the swizzle of
                // the first 8 (a fixed permutation within each atom) computed once per
                // short index instead of once per chunk.
                for (s, &st) in short.iter().enumerate() {
                    let base = start.wrapping_add(st);
                    let phys: [usize; 8] = std::array::from_fn(|j| swz(base.wrapping_add(long[j])));
                    for g in 0..long.len() / 8 {
                        let (gd, o) = (g * d, s * short_step + 8 * g * long_step);
                        for (j, &pj) in phys.iter().enumerate() {
                            // SAFETY: `pj + gd` is the address the loop below computes for
                            // chunk 8·g + j (`atom_period`), inside `smem` as shown there;
                            // the output offset is that loop's too.
                            unsafe {
                                let chunk = &*(src.add(pj + gd) as *const [u8; 16]);
                                let o = &mut *(dst.add(o + j * long_step) as *mut [f32; T]);
                                decode(chunk, o);
                            }
                        }
                    }
                }
                return Ok(());
            }
            for (s, &st) in short.iter().enumerate() {
                let base = start.wrapping_add(st);
                for (l, &lt) in long.iter().enumerate() {
                    // (the same wrapping sum start + outer term + inner term as below)
                    let addr = swz(base.wrapping_add(lt));
                    // SAFETY: `in_bounds` showed that the 128-byte line of every chunk
                    // address, hence the chunk (16-aligned within it), lies in `smem`; the
                    // last element of chunk (outer, inner) is at (n_outer - 1)·outer_step +
                    // (n_inner - 1)·inner_step + T - 1 = (rows - 1)·rs + (k - 1)·ks at most,
                    // which the length assertion above keeps inside `out`.
                    unsafe {
                        let chunk = &*(src.add(addr) as *const [u8; 16]);
                        let o = &mut *(dst.add(s * short_step + l * long_step) as *mut [f32; T]);
                        decode(chunk, o);
                    }
                }
            }
            return Ok(());
        }
        let mut buf = [0f32; T];
        for outer in 0..n_outer {
            let base = start.wrapping_add(layout.outer_term(outer));
            let row_o = outer as usize * outer_step;
            for (inner, &term) in inner_terms.iter().enumerate() {
                let addr = swz(base.wrapping_add(term));
                let chunk: &[u8; 16] = self
                    .smem
                    .get(addr..addr + 16)
                    .and_then(|s| s.try_into().ok())
                    .ok_or(MmaError::SmemOutOfBounds { addr: addr as u32 })?;
                let o = row_o + inner * inner_step;
                if elem_step == 1 {
                    let dst: &mut [f32; T] = (&mut out[o..o + T]).try_into().unwrap();
                    decode(chunk, dst);
                } else {
                    decode(chunk, &mut buf);
                    for (e, &v) in buf.iter().enumerate() {
                        out[o + e * elem_step] = v;
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
thread_local! {
    /// Gathers that took the whole-atom loop, so tests can tell it ran.
    static ATOM_GATHERS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The byte step `d` with which a gather's long dimension of chunk address terms repeats
/// in groups of 8 (`terms[l + 8] == terms[l] + d` exactly, for every `l`) when the
/// swizzle commutes with adding it: `d` a multiple of `128 · (mask + 1)`, so that adding
/// it leaves the address bits the swizzle reads (7 and up, `mask`'s width of them) and
/// writes (4..7) alone, or any `d` with no swizzle (`mask` 0). Then the swizzled address of
/// term `8·g + j` is that of term `j` plus `g·d`. K-major operands repeat every 8 rows by
/// SBO; MN-major ones every 8 chunks of MN (by LBO, or SBO unswizzled) or 8 rows of K (by
/// SBO): a multiple of 1024 B in the canonical layouts. `None` when the terms are not whole
/// groups of 8 or do not repeat so (the per-chunk loop then runs).
#[inline]
fn atom_period(terms: &[u32], mask: u32) -> Option<usize> {
    let n = terms.len();
    if n < 8 || !n.is_multiple_of(8) {
        return None;
    }
    if n == 8 {
        return Some(0);
    }
    let d = terms[8].checked_sub(terms[0])?;
    let steady = terms.iter().zip(&terms[8..]).fold(true, |ok, (&a, &b)| {
        ok & (b >= a) & (b.wrapping_sub(a) == d)
    });
    let commutes = mask == 0 || d % (128 * (mask + 1)) == 0;
    (steady && commutes).then_some(d as usize)
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

/// [`gather_operand`] into a matrix with leading dimension `ld` ([`gather_smem_strided`]).
#[allow(clippy::too_many_arguments)]
pub fn gather_operand_strided(
    smem: &[u8],
    desc_raw: u64,
    major: Major,
    fmt: OperandFormat,
    operand: char,
    rows: u32,
    k: u32,
    order: GatherOrder,
    ld: usize,
    out: &mut [f32],
) -> Result<(), MmaError> {
    let desc = SmemDescriptor::decode(desc_raw)?;
    desc.check_sm100()?;
    InstrDescriptor::check_operand_swizzle(fmt.elem, major, desc.swizzle, operand)?;
    gather_smem_strided(
        smem,
        &OperandLayout::new(desc, major),
        fmt,
        rows,
        k,
        order,
        ld,
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
    gather_scales_tmem_from(tmem, taddr, 0, rows, nsf, sf_id, ty, out)
}

/// [`gather_scales_tmem`] for rows `first .. first + rows` of the scale matrix (placed by
/// their index in the whole matrix), written to `out` from row 0. A `cta_group::2` MMA
/// scales each CTA's half of B's N columns with the rows of scale_B that carry those
/// columns' global indices: each CTA's TMEM holds scale_B for the whole N (DERIVED: CUTLASS's
/// 2-SM block-scaled mainloop copies the full-N scale tile into both CTAs, and Triton's
/// Gluon 2-CTA block-scaled example broadcasts the B scales to both CTAs while it splits the
/// A scales; both are tested on Blackwell).
#[allow(clippy::too_many_arguments)]
pub fn gather_scales_tmem_from(
    tmem: &[u32],
    taddr: u32,
    first: u32,
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
    for i in 0..rows {
        let r = first + i;
        let (lane, col) = (l0 + r % 32, c0 + r / 32);
        if lane >= 128 || col >= 512 {
            return Err(MmaError::TmemOutOfRange { lane, column: col });
        }
        let cell = tmem[(lane * 512 + col) as usize].to_le_bytes();
        for j in 0..nsf {
            out[(i * nsf + j) as usize] = fmt.decode(cell[(u32::from(sf_id) + j) as usize]);
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
    assert!(
        m.len() >= rows * k && scales.len() >= rows * nsf && block * nsf == k,
        "block scales: matrix or scale vector too small, or K not a multiple of the blocks"
    );
    // Contiguous runs times one scalar (RowsByK) or times a strided scale column (KByRows),
    // so both loops vectorise; no division per element.
    match order {
        GatherOrder::RowsByK => {
            for (row, sf) in m[..rows * k]
                .chunks_exact_mut(k)
                .zip(scales.chunks_exact(nsf))
            {
                for (run, &s) in row.chunks_exact_mut(block).zip(sf) {
                    run.iter_mut().for_each(|x| *x *= s);
                }
            }
        }
        GatherOrder::KByRows => {
            // One scale column per block, made contiguous once (M/N ≤ 256 rows).
            let mut col_scale = [0f32; 256];
            for (kk, col) in m[..rows * k].chunks_exact_mut(rows).enumerate() {
                let j = kk / block;
                if rows > col_scale.len() {
                    for (r, x) in col.iter_mut().enumerate() {
                        *x *= scales[r * nsf + j];
                    }
                    continue;
                }
                if kk % block == 0 {
                    for (r, s) in col_scale[..rows].iter_mut().enumerate() {
                        *s = scales[r * nsf + j];
                    }
                }
                for (x, &s) in col.iter_mut().zip(&col_scale[..rows]) {
                    *x *= s;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::desc::Swizzle;

    /// The per-chunk reference: `decode_chunk` (the element-by-element decoder) on the chunk
    /// at `chunk_address`, each element placed by its (row, k).
    fn reference(
        smem: &[u8],
        layout: &OperandLayout,
        fmt: OperandFormat,
        rows: u32,
        k: u32,
        order: GatherOrder,
    ) -> Vec<f32> {
        let t = fmt.per_chunk();
        let mut out = vec![f32::NAN; (rows * k) as usize];
        let (n_outer, n_inner) = match layout.major {
            Major::K => (rows, k / t),
            Major::MN => (rows / t, k),
        };
        for outer in 0..n_outer {
            for inner in 0..n_inner {
                let a = layout.chunk_address(outer, inner) as usize;
                let mut buf = [0f32; 32];
                fmt.decode_chunk(smem[a..a + 16].try_into().unwrap(), &mut buf);
                for e in 0..t {
                    let (row, kk) = match layout.major {
                        Major::K => (outer, inner * t + e),
                        Major::MN => (outer * t + e, inner),
                    };
                    let at = match order {
                        GatherOrder::RowsByK => row * k + kk,
                        GatherOrder::KByRows => kk * rows + row,
                    };
                    out[at as usize] = buf[e as usize];
                }
            }
        }
        out
    }

    fn layout(major: Major, swizzle: Swizzle, start: u32) -> OperandLayout {
        let (lbo, sbo) = match major {
            Major::K => (16, 1024),
            Major::MN => (8192, 1024),
        };
        OperandLayout::new(
            SmemDescriptor {
                start,
                lbo,
                sbo,
                base_offset: 0,
                lbo_absolute: false,
                swizzle,
            },
            major,
        )
    }

    /// Every format, both major orders, both gather orders, every swizzle: the fast
    /// (bounds proven once) and the checked loop both equal the per-chunk reference, bit
    /// for bit (NaN codes included).
    #[test]
    fn gather_equals_per_chunk_reference() {
        let mut x = 0x1234_5678_9abc_def0u64;
        let smem: Vec<u8> = (0..0x14000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let formats = [
            (ElemType::F16, MmaKind::F16, 16),
            (ElemType::Bf16, MmaKind::F16, 16),
            (ElemType::Tf32, MmaKind::Tf32, 8),
            (ElemType::E4m3, MmaKind::F8f6f4, 32),
            (ElemType::E5m2, MmaKind::F8f6f4, 32),
            (ElemType::E2m3, MmaKind::F8f6f4, 32),
            (ElemType::E3m2, MmaKind::F8f6f4, 32),
            (ElemType::E2m1, MmaKind::F8f6f4, 32),
            (ElemType::U8, MmaKind::I8, 32),
            (ElemType::S8, MmaKind::I8, 32),
            (ElemType::E2m1, MmaKind::MxF4, 64),
        ];
        let swizzles = [
            Swizzle::None,
            Swizzle::B32,
            Swizzle::B64,
            Swizzle::B128,
            Swizzle::B128Atom32,
        ];
        for (elem, kind, k) in formats {
            let fmt = OperandFormat { elem, kind };
            for major in [Major::K, Major::MN] {
                for sw in swizzles {
                    if major == Major::K && sw == Swizzle::B128Atom32 {
                        continue;
                    }
                    // start 0x40: not line-aligned; 0x13000: operand runs past the end.
                    for start in [0u32, 0x40, 0x13000] {
                        let l = layout(major, sw, start);
                        for order in [GatherOrder::RowsByK, GatherOrder::KByRows] {
                            let rows = 128;
                            let mut got = vec![0f32; (rows * k) as usize];
                            let r = gather_smem(&smem, &l, fmt, rows, k, order, &mut got);
                            let t = fmt.per_chunk();
                            let (n_outer, n_inner) = match major {
                                Major::K => (rows, k / t),
                                Major::MN => (rows / t, k),
                            };
                            let fits = (0..n_outer).all(|o| {
                                (0..n_inner)
                                    .all(|i| l.chunk_address(o, i) as usize + 16 <= smem.len())
                            });
                            if r.is_err() {
                                assert!(
                                    matches!(r, Err(MmaError::SmemOutOfBounds { .. })),
                                    "{r:?}"
                                );
                                assert!(!fits, "{elem:?} {major:?} {sw:?} start {start:#x}");
                                continue;
                            }
                            let want = reference(&smem, &l, fmt, rows, k, order);
                            // f16 signalling NaNs may come out quieted (the F16C path)
                            let quiet = |x: f32| {
                                if elem == ElemType::F16 && x.is_nan() {
                                    x.to_bits() | 0x0040_0000
                                } else {
                                    x.to_bits()
                                }
                            };
                            let same = got.iter().zip(&want).all(|(&a, &b)| quiet(a) == quiet(b));
                            assert!(
                                same,
                                "{elem:?} {kind:?} {major:?} {sw:?} start {start:#x} {order:?}"
                            );
                            // strided (a K panel's slot: leading dimension above the
                            // extent, at an offset): the same elements, nothing else written
                            let (inner_n, outer_n) = match order {
                                GatherOrder::RowsByK => (k as usize, rows as usize),
                                GatherOrder::KByRows => (rows as usize, k as usize),
                            };
                            let ld = inner_n + 24;
                            let mut wide = vec![-7.0f32; outer_n * ld + 8];
                            gather_smem_strided(&smem, &l, fmt, rows, k, order, ld, &mut wide[8..])
                                .unwrap();
                            for (i, &w) in wide.iter().enumerate() {
                                let (o, c) = ((i.max(8) - 8) / ld, (i.max(8) - 8) % ld);
                                if i >= 8 && c < inner_n {
                                    let g = want[o * inner_n + c];
                                    assert!(
                                        quiet(w) == quiet(g),
                                        "strided {elem:?} {major:?} {sw:?} {start:#x} {order:?}"
                                    );
                                } else {
                                    assert_eq!(w, -7.0, "strided: outside the window");
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The whole-atom loop (`atom_period`) against the per-chunk reference, bit for bit:
    /// every swizzle, both major orders and gather orders, starts on and off the 1024-byte
    /// atom (off it by 32 B: the second K step of a 128-byte swizzled tile, as Triton's MMAs
    /// advance), strides that repeat by a multiple of the swizzle's period (the atom loop) and
    /// that do not (the per-chunk loop), 8 to 256 rows, F16C and generic decoders, packed
    /// and strided outputs.
    #[test]
    fn atom_gather_equals_per_chunk_reference() {
        let mut x = 0x0bad_cafe_1234_5678u64;
        let smem: Vec<u8> = (0..0x40000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let formats = [
            (ElemType::F16, MmaKind::F16),
            (ElemType::Bf16, MmaKind::F16),
            (ElemType::E4m3, MmaKind::F8f6f4),
            (ElemType::Tf32, MmaKind::Tf32),
        ];
        let swizzles = [
            Swizzle::None,
            Swizzle::B32,
            Swizzle::B64,
            Swizzle::B128,
            Swizzle::B128Atom32,
        ];
        let quiet = |e: ElemType, x: f32| {
            if e == ElemType::F16 && x.is_nan() {
                x.to_bits() | 0x0040_0000
            } else {
                x.to_bits()
            }
        };
        let (mut atom, mut chunked) = (0, 0);
        for (elem, kind) in formats {
            let fmt = OperandFormat { elem, kind };
            let t = fmt.per_chunk();
            for major in [Major::K, Major::MN] {
                for sw in swizzles {
                    if major == Major::K && sw == Swizzle::B128Atom32 {
                        continue;
                    }
                    for start in [0u32, 0x20, 0x60, 0x3e0, 0x400, 0x1230] {
                        for (lbo, sbo) in [
                            (16, 1024),
                            (8192, 1024),
                            (4096, 2048),
                            (1024, 512),
                            (128, 256),
                            (2048, 1152),
                        ] {
                            for rows in [8u32, 24, 128, 256] {
                                // K: two chunks per row (one MMA's K) or eight
                                for kc in [2u32, 8] {
                                    let k = kc * t;
                                    if major == Major::MN && rows % t != 0 {
                                        continue;
                                    }
                                    let l = OperandLayout::new(
                                        SmemDescriptor {
                                            start,
                                            lbo,
                                            sbo,
                                            base_offset: 0,
                                            lbo_absolute: false,
                                            swizzle: sw,
                                        },
                                        major,
                                    );
                                    for order in [GatherOrder::RowsByK, GatherOrder::KByRows] {
                                        let what = format!(
                                            "{elem:?} {major:?} {sw:?} start {start:#x} lbo {lbo} sbo {sbo} rows {rows} k {k} {order:?}"
                                        );
                                        let before = ATOM_GATHERS.with(|c| c.get());
                                        let mut got = vec![0f32; (rows * k) as usize];
                                        gather_smem(&smem, &l, fmt, rows, k, order, &mut got)
                                            .unwrap();
                                        match ATOM_GATHERS.with(|c| c.get()) - before {
                                            0 => chunked += 1,
                                            _ => atom += 1,
                                        }
                                        let want = reference(&smem, &l, fmt, rows, k, order);
                                        let same = got
                                            .iter()
                                            .zip(&want)
                                            .all(|(&a, &b)| quiet(elem, a) == quiet(elem, b));
                                        assert!(same, "{what}");
                                        let (inner_n, outer_n) = match order {
                                            GatherOrder::RowsByK => (k as usize, rows as usize),
                                            GatherOrder::KByRows => (rows as usize, k as usize),
                                        };
                                        let ld = inner_n + 8;
                                        let mut wide = vec![-7.0f32; outer_n * ld + 4];
                                        gather_smem_strided(
                                            &smem,
                                            &l,
                                            fmt,
                                            rows,
                                            k,
                                            order,
                                            ld,
                                            &mut wide[4..],
                                        )
                                        .unwrap();
                                        for (i, &w) in wide.iter().enumerate().skip(4) {
                                            let (o, c) = ((i - 4) / ld, (i - 4) % ld);
                                            if c < inner_n {
                                                let g = want[o * inner_n + c];
                                                assert!(
                                                    quiet(elem, w) == quiet(elem, g),
                                                    "strided {what}"
                                                );
                                            } else {
                                                assert_eq!(w, -7.0, "strided, outside: {what}");
                                            }
                                        }
                                        assert!(wide[..4].iter().all(|&w| w == -7.0), "{what}");
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // both loops ran, each many times
        assert!(
            atom > 500 && chunked > 500,
            "atom {atom}, per chunk {chunked}"
        );
    }

    /// The f16 gather (F16C where the CPU has it) equals [`f16_to_f32`] for every code, a
    /// signalling NaN possibly quieted; and a strided gather writes exactly the elements of
    /// its window.
    #[test]
    fn f16c_equals_f16_to_f32() {
        // 65536 codes as a K-major, unswizzled 512 × 128 operand: row r, element kk at core
        // matrix (r / 8, kk / 8), LBO = 128 B between K chunks, SBO = 16 · 128 B between
        // 8-row groups (so every chunk address is distinct)
        let (rows, k) = (512u32, 128u32);
        let mut smem = vec![0u8; (rows * k * 2) as usize];
        let l = OperandLayout::new(
            SmemDescriptor {
                start: 0,
                lbo: 128,
                sbo: 128 * 16,
                base_offset: 0,
                lbo_absolute: false,
                swizzle: Swizzle::None,
            },
            Major::K,
        );
        for r in 0..rows {
            for kk in 0..k {
                let code = (r * k + kk) as u16;
                let a = l.chunk_address(r, kk / 8) as usize + (kk % 8) as usize * 2;
                smem[a..a + 2].copy_from_slice(&code.to_le_bytes());
            }
        }
        let fmt = OperandFormat {
            elem: ElemType::F16,
            kind: MmaKind::F16,
        };
        let mut got = vec![0f32; (rows * k) as usize];
        gather_smem(&smem, &l, fmt, rows, k, GatherOrder::RowsByK, &mut got).unwrap();
        for (code, g) in got.iter().enumerate() {
            let want = f16_to_f32(code as u16);
            let ok = g.to_bits() == want.to_bits()
                || (want.is_nan() && g.to_bits() == want.to_bits() | 0x0040_0000);
            assert!(ok, "f16 {code:#06x}: {g:?} vs {want:?}");
        }
        // strided: 512 rows × 128 into a 200-wide matrix at column 40
        let ld = 200usize;
        let mut wide = vec![-7.0f32; rows as usize * ld];
        gather_smem_strided(
            &smem,
            &l,
            fmt,
            rows,
            k,
            GatherOrder::RowsByK,
            ld,
            &mut wide[40..],
        )
        .unwrap();
        for r in 0..rows as usize {
            for c in 0..ld {
                let w = wide[r * ld + c];
                if (40..40 + k as usize).contains(&c) {
                    let g = got[r * k as usize + c - 40];
                    assert!(w.to_bits() == g.to_bits(), "({r}, {c})");
                } else {
                    assert_eq!(w, -7.0, "({r}, {c}) outside the window");
                }
            }
        }
    }

    #[test]
    fn block_scales_both_orders() {
        let (rows, k, nsf) = (8u32, 64u32, 4u32);
        let base: Vec<f32> = (0..rows * k).map(|i| i as f32 + 0.5).collect();
        let scales: Vec<f32> = (0..rows * nsf).map(|i| (i % 7) as f32 - 3.0).collect();
        for order in [GatherOrder::RowsByK, GatherOrder::KByRows] {
            let mut m = base.clone();
            apply_block_scales(&mut m, rows, k, order, &scales, nsf);
            for r in 0..rows {
                for kk in 0..k {
                    let at = match order {
                        GatherOrder::RowsByK => r * k + kk,
                        GatherOrder::KByRows => kk * rows + r,
                    } as usize;
                    let s = scales[(r * nsf + kk / (k / nsf)) as usize];
                    assert_eq!(m[at], base[at] * s, "{order:?} ({r}, {kk})");
                }
            }
        }
    }
}
