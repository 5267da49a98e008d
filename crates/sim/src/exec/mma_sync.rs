//! Warp-level `mma.sync.aligned` (PTX ISA 9.1 §9.7.14.5.14, "Warp-level matrix multiply-
//! accumulate"): D = A·B + C, with the fragments of A (M×K), B (K×N), C and D (M×N) spread over
//! the registers of the 32 lanes. What Triton emits on sm_100a when a dot does not take the
//! tcgen05 path (small tiles, fp64, int8, ...), and what CUDA's inline PTX and CUTLASS SM80
//! kernels emit.
//!
//! **Fragment layouts** (§9.7.14.5.14's figures; g = lane / 4, t = lane % 4, p = elements per
//! 32-bit register, 1 for f64 registers; element 0 of a register in its low bits):
//! - A, M = 16: register i holds row g + 8·(i mod 2), columns t·p + 4p·(i div 2) + e;
//!   M = 8 (one register): row g, columns t·p + e.
//! - B: register i holds rows (k) t·p + 4p·i + e, column g.
//! - C/D with one element a register (f32, s32, f64): M = 16: register i holds row
//!   g + 8·(i div 2), column 2t + (i mod 2); M = 8: row g, column 2t + i.
//!   f16 (two a register): register i holds row g + 8·i, columns 2t, 2t + 1.
//!
//! Every layout was checked bit for bit against an H100 (tests/corpus/mma_sync_h100).
//!
//! **Numerics** (docs/arch/mma-sync.md has the evidence; all fitted to the H100 recording with
//! zero mismatches, and assumed unchanged on sm_100a, whose SASS uses the same HMMA/IMMA/DMMA
//! instructions — DERIVED, no Blackwell hardware to check):
//! - f16/bf16/tf32 with f32 or f16 accumulators (HMMA): the products are exact; every term (C
//!   and each nonzero product) is aligned to the largest *nominal* exponent E among them (for a
//!   product the sum of the operands' exponent fields, subnormals counting as the minimum
//!   exponent; the significand product may reach 2^(E+1)) and truncated toward zero to a
//!   multiple of 2^(E−25); the truncated terms are summed exactly and the sum is rounded toward
//!   zero to f32 (an f32 result) or to nearest-even to f16 (an f16 result). A sum of 2^128 or
//!   more is ±Inf. Any NaN operand, Inf·0 or Inf − Inf gives the canonical NaN. tf32 operands
//!   are f32 registers whose low 13 bits the tensor core ignores.
//! - e4m3/e5m2 (no native mma.sync on sm_90a or sm_100a: ptxas converts to f16 and issues two
//!   f16 HMMAs, then adds C): P = HMMA(k mod 4 ∈ {0,1}, C = 0), P = HMMA(k mod 4 ∈ {2,3}, P),
//!   D = C + P rounded to nearest (FADD / HADD2).
//! - f64 (DMMA): a chain of fused multiply-adds in ascending k starting from C, each rounded to
//!   nearest (NaN payloads as `fma.rn.f64`).
//! - Integers: exact; `.satfinite` clamps to the s32 range, otherwise the sum wraps.
//!   b1: Σ popc(a AND/XOR b) + C, wrapping.

use super::{Ctx, Flow, Warp, FULL};
use crate::error::rules;
use crate::observer::Observer;
use crate::program::Any;
use tmemu_num::narrow::{decode_e4m3, decode_e5m2};
use tmemu_num::ops::float::{f32_add, f64_fma, f64_to_f32, NAN32};
use tmemu_num::ops::half::{eval_half, f32_to_f16_rne, HalfKind, HalfMods, HalfOp, NAN16};
use tmemu_num::ops::round::pow2;
use tmemu_num::ops::{FloatMods, Rounding};

/// The element type of A or B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    F16,
    Bf16,
    Tf32,
    E4m3,
    E5m2,
    F64,
    S8,
    U8,
    S4,
    U4,
    B1,
}

impl Elem {
    /// Bits of one element in its register.
    pub fn bits(self) -> u32 {
        match self {
            Elem::F16 | Elem::Bf16 => 16,
            Elem::Tf32 => 32,
            Elem::F64 => 64,
            Elem::E4m3 | Elem::E5m2 | Elem::S8 | Elem::U8 => 8,
            Elem::S4 | Elem::U4 => 4,
            Elem::B1 => 1,
        }
    }
    /// Elements per register (f64: one per 64-bit register).
    pub fn per_reg(self) -> usize {
        if self == Elem::F64 {
            1
        } else {
            (32 / self.bits()) as usize
        }
    }
    pub fn is_int(self) -> bool {
        matches!(self, Elem::S8 | Elem::U8 | Elem::S4 | Elem::U4 | Elem::B1)
    }
}

/// The accumulator (C and D) type; the ISA requires C's type to equal D's for every form
/// modelled here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accum {
    F32,
    F16,
    F64,
    S32,
}

impl Accum {
    /// Elements per register.
    pub fn per_reg(self) -> usize {
        if self == Accum::F16 {
            2
        } else {
            1
        }
    }
}

/// The bit operation of the `.b1` forms (`.and.popc` / `.xor.popc`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BitOp {
    And,
    Xor,
}

/// One decoded `mma.sync.aligned` (boxed in `Inst::MmaSync`).
#[derive(Clone, Debug)]
pub struct MmaSyncInst {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a_ty: Elem,
    pub b_ty: Elem,
    pub acc: Accum,
    pub satfinite: bool,
    pub bitop: BitOp,
    /// Destination registers (R32, R64 or Sink), then the A, B and C sources (registers or
    /// immediates), each of the count the shape and types require.
    pub d: Vec<Any>,
    pub a: Vec<Any>,
    pub b: Vec<Any>,
    pub c: Vec<Any>,
}

impl MmaSyncInst {
    /// Registers per operand (A, B, C/D) the shape and types need.
    pub fn reg_counts(m: usize, n: usize, k: usize, a: Elem, acc: Accum) -> (usize, usize, usize) {
        let per = a.per_reg();
        let na = m * k / (32 * per);
        let nb = k * n / (32 * per);
        let nc = m * n / (32 * acc.per_reg());
        (na, nb, nc)
    }
}

/// (row, column) of element `e` of A's register `i` in lane `lane`.
#[inline]
pub fn a_coord(m: usize, per: usize, i: usize, lane: usize, e: usize) -> (usize, usize) {
    let (g, t) = (lane >> 2, lane & 3);
    if m == 8 {
        (g, t * per + e)
    } else {
        (g + 8 * (i % 2), t * per + e + 4 * per * (i / 2))
    }
}

/// (row k, column n) of element `e` of B's register `i` in lane `lane`.
#[inline]
pub fn b_coord(per: usize, i: usize, lane: usize, e: usize) -> (usize, usize) {
    let (g, t) = (lane >> 2, lane & 3);
    (t * per + e + 4 * per * i, g)
}

/// (row, column) of element `e` of C's or D's register `i` in lane `lane`.
#[inline]
pub fn cd_coord(m: usize, per: usize, i: usize, lane: usize, e: usize) -> (usize, usize) {
    let (g, t) = (lane >> 2, lane & 3);
    if per == 2 {
        (g + 8 * i, 2 * t + e)
    } else if m == 8 {
        (g, 2 * t + i)
    } else {
        (g + 8 * (i / 2), 2 * t + (i % 2))
    }
}

#[inline]
fn read(w: &Warp, o: Any, lane: usize) -> u64 {
    match o {
        Any::R32(r) => u64::from(w.r32[r as usize][lane]),
        Any::R64(r) => w.r64[r as usize][lane],
        Any::Imm(v) => v,
        Any::Sink => 0,
    }
}

pub(super) fn exec<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    i: &MmaSyncInst,
) -> Flow {
    if mask != FULL & w.live || mask == 0 {
        if mask != 0 {
            let pc = w.cur_pc;
            cx.diag(
                w,
                pc,
                mask,
                rules::DIVERGENT_ALIGNED,
                format!("mma.sync.aligned executed by a subset of the warp (lanes {mask:#010x})"),
            );
        }
        return Flow::Next;
    }
    let d = compute(i, |o, lane| read(w, o, lane));
    for (r, dst) in i.d.iter().enumerate() {
        match *dst {
            Any::R32(reg) => {
                let v: [u32; 32] = std::array::from_fn(|l| d[r][l] as u32);
                w.set(reg, mask, &v);
            }
            Any::R64(reg) => w.set(reg, mask, &d[r]),
            _ => {}
        }
    }
    Flow::Next
}

/// Largest element counts of A (m16n8k256 b1), B (k256 × n8) and C/D (16 × 8), and of the
/// decoded float elements (m16n8k32 fp8): the per-instruction scratch lives on the stack.
const MAX_A: usize = 16 * 256;
const MAX_B: usize = 256 * 8;
const MAX_C: usize = 16 * 8;
const MAX_FA: usize = 16 * 32;
const MAX_FB: usize = 32 * 8;
/// Most D registers of a modelled form (four f32/s32/f64 of m16n8).
pub const MAX_D_REGS: usize = 4;

/// The D register words (`[register][lane]`, the first `i.d.len()` meaningful) of one
/// `mma.sync`, given a reader of operand words: the whole instruction without the warp, so
/// tests can drive it directly. Allocation-free.
pub fn compute(i: &MmaSyncInst, word: impl Fn(Any, usize) -> u64) -> [[u64; 32]; MAX_D_REGS] {
    let (m, n, k) = (i.m, i.n, i.k);
    let (pa, pb, pc) = (i.a_ty.per_reg(), i.b_ty.per_reg(), i.acc.per_reg());
    let (ba, bb) = (i.a_ty.bits(), i.b_ty.bits());
    let field = |w: u64, bits: u32, e: usize| -> u64 {
        if bits >= 64 {
            w
        } else {
            (w >> (bits as usize * e)) & ((1u64 << bits) - 1)
        }
    };
    // element bit patterns: A m×k row-major, B as n×k (column-major), C m×n row-major
    let mut a = [0u64; MAX_A];
    let mut b = [0u64; MAX_B];
    let mut c = [0u64; MAX_C];
    for (r, &o) in i.a.iter().enumerate() {
        for lane in 0..32 {
            let w = word(o, lane);
            for e in 0..pa {
                let (row, col) = a_coord(m, pa, r, lane, e);
                a[row * k + col] = field(w, ba, e);
            }
        }
    }
    for (r, &o) in i.b.iter().enumerate() {
        for lane in 0..32 {
            let w = word(o, lane);
            for e in 0..pb {
                let (kk, col) = b_coord(pb, r, lane, e);
                b[col * k + kk] = field(w, bb, e);
            }
        }
    }
    let cbits = if i.acc == Accum::F16 { 16 } else { 64 };
    for (r, &o) in i.c.iter().enumerate() {
        for lane in 0..32 {
            let w = word(o, lane);
            for e in 0..pc {
                let (row, col) = cd_coord(m, pc, r, lane, e);
                c[row * n + col] = field(w, cbits, e);
            }
        }
    }
    let mut dm = [0u64; MAX_C];
    dot_all(i, &a[..m * k], &b[..k * n], &c[..m * n], &mut dm[..m * n]);
    let mut out = [[0u64; 32]; MAX_D_REGS];
    for (r, regs) in out.iter_mut().enumerate().take(i.d.len()) {
        for (lane, word) in regs.iter_mut().enumerate() {
            for e in 0..pc {
                let (row, col) = cd_coord(m, pc, r, lane, e);
                *word |= dm[row * n + col] << (16 * e);
            }
        }
    }
    out
}

/// D (m×n element bits) of one block from A (m×k row-major), B (n×k, column-major) and C
/// (m×n): the arithmetic of [`compute`] without the fragments, for exec/wmma.rs, which tiles
/// its shapes into blocks of mma.sync's sizes.
pub(crate) fn dot_block(i: &MmaSyncInst, a: &[u64], b: &[u64], c: &[u64], d: &mut [u64]) {
    dot_all(i, a, b, c, d)
}

/// D (m×n element bits) from A (m×k), B (n×k, column-major) and C (m×n).
fn dot_all(i: &MmaSyncInst, a: &[u64], b: &[u64], c: &[u64], d: &mut [u64]) {
    let (m, n, k) = (i.m, i.n, i.k);
    if i.a_ty.is_int() {
        for r in 0..m {
            for col in 0..n {
                let (ar, bc) = (&a[r * k..][..k], &b[col * k..][..k]);
                let s: i64 = if i.a_ty == Elem::B1 {
                    ar.iter()
                        .zip(bc)
                        .map(|(&x, &y)| match i.bitop {
                            BitOp::And => (x & y) as i64,
                            BitOp::Xor => (x ^ y) as i64,
                        })
                        .sum()
                } else {
                    ar.iter()
                        .zip(bc)
                        .map(|(&x, &y)| int_value(i.a_ty, x) * int_value(i.b_ty, y))
                        .sum()
                };
                let s = s + i64::from(c[r * n + col] as u32 as i32);
                let s = if i.satfinite {
                    s.clamp(i64::from(i32::MIN), i64::from(i32::MAX))
                } else {
                    s
                };
                d[r * n + col] = u64::from(s as u32);
            }
        }
        return;
    }
    if i.a_ty == Elem::F64 {
        for r in 0..m {
            for col in 0..n {
                let mut acc = c[r * n + col];
                for kk in 0..k {
                    acc = f64_fma(a[r * k + kk], b[col * k + kk], acc, Rounding::Rn);
                }
                d[r * n + col] = acc;
            }
        }
        return;
    }
    let mut da = [Num::ZERO; MAX_FA];
    let mut db = [Num::ZERO; MAX_FB];
    for (x, &bits) in da.iter_mut().zip(a) {
        *x = Num::of(i.a_ty, bits);
    }
    for (x, &bits) in db.iter_mut().zip(b) {
        *x = Num::of(i.b_ty, bits);
    }
    let fp8 = matches!(i.a_ty, Elem::E4m3 | Elem::E5m2);
    for r in 0..m {
        for col in 0..n {
            let (ar, bc) = (&da[r * k..][..k], &db[col * k..][..k]);
            let cv = c[r * n + col];
            d[r * n + col] = if fp8 {
                // ptxas's emulation: two f16 HMMAs over k mod 4 ∈ {0,1} then {2,3}, C added last
                let half = |lo: bool, acc: u64| {
                    let p = (0..k)
                        .filter(move |kk| (kk % 4 < 2) == lo)
                        .map(|kk| (ar[kk], bc[kk]));
                    hmma(p, acc, i.acc)
                };
                let p = half(false, half(true, 0));
                match i.acc {
                    Accum::F16 => u64::from(eval_half(
                        HalfKind::F16,
                        HalfOp::Add,
                        p as u16,
                        cv as u16,
                        0,
                        HalfMods::default(),
                    )),
                    _ => u64::from(f32_add(cv as u32, p as u32, FloatMods::RN)),
                }
            } else {
                let finite = |x: &Num| matches!(x.class, Class::Finite | Class::Zero);
                if ar.iter().all(finite) && bc.iter().all(finite) {
                    hmma_finite(ar, bc, cv, i.acc)
                } else {
                    hmma(ar.iter().copied().zip(bc.iter().copied()), cv, i.acc)
                }
            };
        }
    }
}

fn int_value(t: Elem, x: u64) -> i64 {
    match t {
        Elem::S8 => i64::from(x as u8 as i8),
        Elem::S4 => ((x as i64) << 60) >> 60,
        _ => x as i64,
    }
}

/// A decoded float element: class, sign, significand, exponent (value = sig · 2^exp) and the
/// nominal exponent the tensor core aligns by (the exponent field; subnormals the minimum).
#[derive(Clone, Copy, Debug)]
struct Num {
    class: Class,
    neg: bool,
    sig: u64,
    exp: i32,
    nominal: i32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Zero,
    Finite,
    Inf,
    Nan,
}

impl Num {
    const ZERO: Num = Num {
        class: Class::Zero,
        neg: false,
        sig: 0,
        exp: 0,
        nominal: 0,
    };

    /// Decodes an IEEE-style pattern with `e` exponent and `mb` mantissa bits.
    fn ieee(x: u64, e: u32, mb: u32) -> Num {
        let neg = x >> (e + mb) & 1 != 0;
        let ef = (x >> mb) & ((1 << e) - 1);
        let mf = x & ((1 << mb) - 1);
        let bias = (1i32 << (e - 1)) - 1;
        let (class, sig, exp) = if ef == (1 << e) - 1 {
            (if mf != 0 { Class::Nan } else { Class::Inf }, 0, 0)
        } else if ef == 0 {
            let c = if mf == 0 { Class::Zero } else { Class::Finite };
            (c, mf, 1 - bias - mb as i32)
        } else {
            (Class::Finite, mf | 1 << mb, ef as i32 - bias - mb as i32)
        };
        let nominal = if class == Class::Zero {
            ZERO_NOMINAL
        } else if ef == 0 {
            1 - bias
        } else {
            ef as i32 - bias
        };
        Num {
            class,
            neg,
            sig,
            exp,
            nominal,
        }
    }

    fn of(t: Elem, x: u64) -> Num {
        match t {
            Elem::F16 => Num::ieee(x, 5, 10),
            Elem::Bf16 => Num::ieee(x, 8, 7),
            // the tensor core reads the top 19 bits of a tf32 operand's f32 register
            Elem::Tf32 => Num::ieee(x & 0xffff_e000, 8, 23),
            // fp8 is converted to f16 (exactly) before the f16 HMMA
            Elem::E4m3 => Num::ieee(u64::from(f32_to_f16_rne(decode_e4m3(x as u8))), 5, 10),
            Elem::E5m2 => Num::ieee(u64::from(f32_to_f16_rne(decode_e5m2(x as u8))), 5, 10),
            _ => unreachable!("integer and f64 elements take other paths"),
        }
    }
}

/// One HMMA dot product: Σ a·b + c under the truncating alignment described in the module
/// notes; `c` and the result are f32 bits (or f16 bits for an f16 accumulator).
fn hmma(prods: impl Iterator<Item = (Num, Num)>, c: u64, acc: Accum) -> u64 {
    let cn = if acc == Accum::F16 {
        Num::ieee(c, 5, 10)
    } else {
        Num::ieee(c & 0xffff_ffff, 8, 23)
    };
    let (nan, inf) = if acc == Accum::F16 {
        (u64::from(NAN16), 0x7c00u64)
    } else {
        (u64::from(NAN32), 0x7f80_0000u64)
    };
    // specials first: NaN anywhere, Inf·0, Inf − Inf
    let mut inf_sign: Option<bool> = None;
    let mut is_nan = cn.class == Class::Nan;
    if cn.class == Class::Inf {
        inf_sign = Some(cn.neg);
    }
    // one pass: specials, the largest nominal exponent, and each finite term (significand with
    // its sign, exponent) gathered for the cut below; at most 32 products and C
    let mut terms = [(0i64, 0i32); 33];
    let mut nt = 0;
    let mut e_max = i32::MIN;
    if cn.class == Class::Finite {
        e_max = cn.nominal;
        terms[0] = (
            if cn.neg {
                -(cn.sig as i64)
            } else {
                cn.sig as i64
            },
            cn.exp,
        );
        nt = 1;
    }
    for (x, y) in prods {
        if x.class == Class::Finite && y.class == Class::Finite {
            e_max = e_max.max(x.nominal + y.nominal);
            // f16/bf16/tf32 significands have at most 11 bits: the product fits easily
            let p = (x.sig * y.sig) as i64;
            terms[nt] = (if x.neg ^ y.neg { -p } else { p }, x.exp + y.exp);
            nt += 1;
            continue;
        }
        match (x.class, y.class) {
            (Class::Nan, _) | (_, Class::Nan) => is_nan = true,
            (Class::Inf, Class::Zero) | (Class::Zero, Class::Inf) => is_nan = true,
            (Class::Inf, _) | (_, Class::Inf) => {
                let s = x.neg ^ y.neg;
                if inf_sign.is_some_and(|t| t != s) {
                    is_nan = true;
                }
                inf_sign = Some(s);
            }
            _ => {}
        }
    }
    if is_nan {
        return nan;
    }
    if let Some(neg) = inf_sign {
        return inf | if neg { sign_bit(acc) } else { 0 };
    }
    if nt == 0 {
        return 0; // every term zero
    }
    // the quantum every term is cut to (toward zero): 2^(E − 25)
    let q = e_max - 25;
    let mut sum: i64 = 0;
    for &(v, exp) in &terms[..nt] {
        let sh = exp - q;
        let mag = v.unsigned_abs();
        let cut = if sh >= 0 {
            // at most 2^(E+2) / 2^q = 2^27: no overflow
            (mag << sh) as i64
        } else if sh > -64 {
            (mag >> -sh) as i64
        } else {
            0
        };
        sum += if v < 0 { -cut } else { cut };
    }
    finish(sum, q, acc)
}

/// The nominal exponent of a zero: far below any real one, so that a zero product never sets
/// the alignment and the branch-free path below can include it (its significand is 0).
const ZERO_NOMINAL: i32 = -(1 << 20);

/// [`hmma`] when no A or B element is NaN or Inf (the common case): the same arithmetic
/// without per-term branches on the element classes.
fn hmma_finite(ar: &[Num], bc: &[Num], c: u64, acc: Accum) -> u64 {
    let cn = if acc == Accum::F16 {
        Num::ieee(c, 5, 10)
    } else {
        Num::ieee(c & 0xffff_ffff, 8, 23)
    };
    if matches!(cn.class, Class::Nan | Class::Inf) {
        return hmma(ar.iter().copied().zip(bc.iter().copied()), c, acc);
    }
    let mut e_max = cn.nominal;
    for (x, y) in ar.iter().zip(bc) {
        e_max = e_max.max(x.nominal + y.nominal);
    }
    if e_max < ZERO_NOMINAL / 2 {
        return 0; // every term zero
    }
    let q = e_max - 25;
    // a zero term has significand 0, so clamping its (meaningless) shift changes nothing; a
    // nonzero term shifts left by at most 27 (its value is below 2^(E+2))
    let cut = |sig: u64, exp: i32, neg: bool| -> i64 {
        let sh = exp - q;
        let v = if sh >= 0 {
            (sig << sh.min(40)) as i64
        } else {
            (sig >> (-sh).min(63)) as i64
        };
        if neg {
            -v
        } else {
            v
        }
    };
    let mut sum = cut(cn.sig, cn.exp, cn.neg);
    for (x, y) in ar.iter().zip(bc) {
        sum += cut(x.sig * y.sig, x.exp + y.exp, x.neg ^ y.neg);
    }
    finish(sum, q, acc)
}

/// The cut sum `sum · 2^q` rounded to the accumulator: toward zero to f32 (±Inf from 2^128 on),
/// to nearest-even to f16; a zero sum is +0.
fn finish(sum: i64, q: i32, acc: Accum) -> u64 {
    let inf = if acc == Accum::F16 {
        0x7c00u64
    } else {
        0x7f80_0000u64
    };
    if sum == 0 {
        return 0;
    }
    // sum · 2^q is exact in f64: |sum| < 2^32 and q lies well inside f64's exponent range
    let v = sum as f64 * pow2(q);
    match acc {
        Accum::F16 => u64::from(HalfKind::F16.round(v, 0.0, Rounding::Rn)),
        _ => {
            if v.abs() >= pow2(128) {
                return inf | if v < 0.0 { sign_bit(acc) } else { 0 };
            }
            u64::from(f64_to_f32(
                v.to_bits(),
                FloatMods::new(Rounding::Rz, false, false),
            ))
        }
    }
}

fn sign_bit(acc: Accum) -> u64 {
    if acc == Accum::F16 {
        0x8000
    } else {
        0x8000_0000
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_cover_each_element_once() {
        // (m, k, A per-reg, number of A registers)
        for &(m, k, per) in &[
            (16, 16, 2),
            (16, 8, 1),
            (16, 32, 4),
            (8, 4, 1),
            (16, 256, 32),
        ] {
            let regs = m * k / (32 * per);
            let mut seen = vec![0u8; m * k];
            for i in 0..regs {
                for lane in 0..32 {
                    for e in 0..per {
                        let (r, c) = a_coord(m, per, i, lane, e);
                        seen[r * k + c] += 1;
                    }
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "A m{m} k{k} per{per}");
            let mut seen = vec![0u8; k * 8];
            for i in 0..k * 8 / (32 * per) {
                for lane in 0..32 {
                    for e in 0..per {
                        let (kk, c) = b_coord(per, i, lane, e);
                        seen[kk * 8 + c] += 1;
                    }
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "B k{k} per{per}");
        }
        for &(m, per) in &[(16, 1), (16, 2), (8, 1)] {
            let mut seen = vec![0u8; m * 8];
            for i in 0..m * 8 / (32 * per) {
                for lane in 0..32 {
                    for e in 0..per {
                        let (r, c) = cd_coord(m, per, i, lane, e);
                        seen[r * 8 + c] += 1;
                    }
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "C m{m} per{per}");
        }
    }

    fn f16(x: f32) -> Num {
        Num::ieee(u64::from(f32_to_f16_rne(x)), 5, 10)
    }

    #[test]
    fn hmma_truncates_terms_below_the_alignment_window() {
        // 1 + 2^-30 (one product) + 0: the small term lies below 2^(0-25): cut away
        let p = [
            (f16(1.0), f16(1.0)),
            (f16(2f32.powi(-15)), f16(2f32.powi(-15))),
        ];
        assert_eq!(
            hmma(p.iter().copied(), 0, Accum::F32),
            1f32.to_bits() as u64
        );
        // 1 - 2^-30: truncation toward zero of the negative term leaves 1 (not 1 - ulp)
        let p = [
            (f16(1.0), f16(1.0)),
            (f16(-(2f32.powi(-15))), f16(2f32.powi(-15))),
        ];
        assert_eq!(
            hmma(p.iter().copied(), 0, Accum::F32),
            1f32.to_bits() as u64
        );
        // within the window: 1 - 2^-24 is exact in the sum and representable in f32
        let p = [
            (f16(1.0), f16(1.0)),
            (f16(-(2f32.powi(-12))), f16(2f32.powi(-12))),
        ];
        assert_eq!(
            hmma(p.iter().copied(), 0, Accum::F32),
            (1.0f32 - 2f32.powi(-24)).to_bits() as u64
        );
        // the final rounding is toward zero: 1 + 2^-24 + 2^-25 → 1 + 0 (f32 ulp at 1 is 2^-23)
        let p = [
            (f16(1.0), f16(1.0)),
            (f16(2f32.powi(-12)), f16(2f32.powi(-12))),
            (f16(2f32.powi(-12)), f16(2f32.powi(-13))),
        ];
        assert_eq!(
            hmma(p.iter().copied(), 0, Accum::F32),
            1f32.to_bits() as u64
        );
    }

    #[test]
    fn hmma_specials() {
        let inf = Num::ieee(0x7c00, 5, 10);
        let zero = f16(0.0);
        let one = f16(1.0);
        assert_eq!(hmma([(inf, zero)].into_iter(), 0, Accum::F32), NAN32 as u64);
        assert_eq!(hmma([(inf, one)].into_iter(), 0, Accum::F32), 0x7f80_0000);
        let minf = Num::ieee(0xfc00, 5, 10);
        assert_eq!(
            hmma([(inf, one), (minf, one)].into_iter(), 0, Accum::F32),
            NAN32 as u64
        );
        assert_eq!(hmma([(minf, one)].into_iter(), 0, Accum::F16), 0xfc00);
        // f32 overflow of the sum gives Inf even though the rounding is toward zero
        let big = 0x7f7f_ffffu64; // f32 max
        assert_eq!(hmma([(one, one)].into_iter(), big, Accum::F32), big);
        // bf16 2^127 · 2 = 2^128: beyond f32's range
        let p = [(Num::ieee(0x7f00, 8, 7), Num::ieee(0x4000, 8, 7))];
        assert_eq!(hmma(p.into_iter(), 0, Accum::F32), 0x7f80_0000);
    }
}
