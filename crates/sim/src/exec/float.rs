//! Float instructions. Arithmetic semantics come from [`crate::fp`] (the adapter over the
//! numerics crate); this file only runs the lane loops.

use std::mem::MaybeUninit;

use super::{Flow, Warp};
use crate::fp;
use crate::program::{FMods, FOp, FUnOp, Inst, Rnd};
use tmemu_num::ops::approx;
use tmemu_num::ops::float as nf;

#[inline(always)]
fn bin_f32(op: FOp, m: FMods, x: u32, y: u32) -> u32 {
    match op {
        FOp::Add => fp::add32(x, y, m),
        // not add(x, -y): negating a NaN operand would flip the sign of the propagated NaN
        FOp::Sub => nf::f32_sub(x, y, fp::mods(m)),
        FOp::Mul => fp::mul32(x, y, m),
        FOp::Div => fp::div32(x, y, m),
        FOp::Min => fp::min32(x, y, m, false),
        FOp::Max => fp::max32(x, y, m, false),
        FOp::MinNan => fp::min32(x, y, m, true),
        FOp::MaxNan => fp::max32(x, y, m, true),
        FOp::MinXorsign => fp::minmax_xorsign32(x, y, m, false, false),
        FOp::MaxXorsign => fp::minmax_xorsign32(x, y, m, false, true),
        FOp::MinXorsignNan => fp::minmax_xorsign32(x, y, m, true, false),
        FOp::MaxXorsignNan => fp::minmax_xorsign32(x, y, m, true, true),
        FOp::Copysign => fp::copysign32(x, y),
    }
}

#[inline(always)]
fn bin_f64(op: FOp, m: FMods, x: u64, y: u64) -> u64 {
    match op {
        FOp::Add => fp::add64(x, y, m),
        // not add(x, -y): negating a NaN operand would flip the sign of the propagated NaN
        FOp::Sub => nf::f64_sub(x, y, fp::mods(m).rnd),
        FOp::Mul => fp::mul64(x, y, m),
        FOp::Div => fp::div64(x, y, m),
        FOp::Min => fp::min64(x, y, false),
        FOp::Max => fp::max64(x, y, false),
        FOp::MinNan => fp::min64(x, y, true),
        FOp::MaxNan => fp::max64(x, y, true),
        FOp::Copysign => fp::copysign64(x, y),
        FOp::MinXorsign | FOp::MaxXorsign | FOp::MinXorsignNan | FOp::MaxXorsignNan => {
            unreachable!("loader refuses xorsign on f64")
        }
    }
}

// f32x2 registers as 64 f32 values: on a little-endian target the `[u64; 32]` array is the
// `[u32; 64]` array of lane 0 low, lane 0 high, lane 1 low, ... (same size, and u32 needs
// no more alignment than u64).
#[cfg(not(target_endian = "little"))]
compile_error!("tmemu-sim assumes a little-endian host");

#[inline(always)]
fn as_halves(v: &[u64; 32]) -> &[u32; 64] {
    // SAFETY: both are 256 plain bytes with no invalid bit patterns, and u32 needs no more
    // alignment than u64; the view borrows `v` (no copy).
    unsafe { &*(v as *const [u64; 32] as *const [u32; 64]) }
}

#[inline(always)]
fn from_halves(v: [u32; 64]) -> [u64; 32] {
    // SAFETY: as in `as_halves`; the result is a fresh, u64-aligned value.
    unsafe { std::mem::transmute::<[u32; 64], [u64; 32]>(v) }
}

#[inline(always)]
fn first(v: &[u32; 64]) -> &[u32; 32] {
    v.first_chunk().unwrap()
}

#[inline(always)]
fn second(v: &[u32; 64]) -> &[u32; 32] {
    v.last_chunk().unwrap()
}

#[inline(always)]
fn first_mut(v: &mut [u32]) -> &mut [u32; 32] {
    v.first_chunk_mut().unwrap()
}

pub(super) fn exec(w: &mut Warp, mask: u32, inst: &Inst) -> Flow {
    match *inst {
        Inst::F32Bin { op, m, d, a, b } => {
            let (mut t0_0, mut t0_1) = (MaybeUninit::uninit(), MaybeUninit::uninit());
            let (a, b) = (w.src(a, &mut t0_0), w.src(b, &mut t0_1));
            let mut r = [0u32; 32];
            // dispatch outside the lane loop so each loop is monomorphic; the common forms
            // go to the numerics crate's 32-lane entry points (vectorised `.rn` fast path)
            match op {
                FOp::Add => nf::f32_add_lanes(a, b, fp::mods(m), &mut r),
                FOp::Sub => nf::f32_sub_lanes(a, b, fp::mods(m), &mut r),
                FOp::Mul => nf::f32_mul_lanes(a, b, fp::mods(m), &mut r),
                FOp::Div if m.rnd == Rnd::Full => approx::f32_div_full_lanes(a, b, m.ftz, &mut r),
                _ => {
                    for l in 0..32 {
                        r[l] = bin_f32(op, m, a[l], b[l]);
                    }
                }
            }
            w.set(d, mask, &r);
        }
        Inst::F32Max3 { op, m, d, a, b, c } => {
            let (mut t1_0, mut t1_1, mut t1_2) = (
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
            );
            let (a, b, c) = (
                w.src(a, &mut t1_0),
                w.src(b, &mut t1_1),
                w.src(c, &mut t1_2),
            );
            let mut r = [0u32; 32];
            for l in 0..32 {
                r[l] = bin_f32(op, m, bin_f32(op, m, a[l], b[l]), c[l]);
            }
            w.set(d, mask, &r);
        }
        Inst::F32Fma { m, d, a, b, c } => {
            let (mut t2_0, mut t2_1, mut t2_2) = (
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
            );
            let (a, b, c) = (
                w.src(a, &mut t2_0),
                w.src(b, &mut t2_1),
                w.src(c, &mut t2_2),
            );
            let mut r = [0u32; 32];
            nf::f32_fma_lanes(a, b, c, fp::mods(m), &mut r);
            w.set(d, mask, &r);
        }
        Inst::F32Un { op, m, d, a } => {
            let mut t3_0 = MaybeUninit::uninit();
            let a = w.src(a, &mut t3_0);
            let mut r = [0u32; 32];
            fp::un32_lanes(op, a, m, &mut r);
            w.set(d, mask, &r);
        }
        Inst::F64Bin { op, m, d, a, b } => {
            let (mut t4_0, mut t4_1) = (MaybeUninit::uninit(), MaybeUninit::uninit());
            let (a, b) = (w.src(a, &mut t4_0), w.src(b, &mut t4_1));
            let mut r = [0u64; 32];
            for l in 0..32 {
                r[l] = bin_f64(op, m, a[l], b[l]);
            }
            w.set(d, mask, &r);
        }
        Inst::F64Fma { m, d, a, b, c } => {
            let (mut t5_0, mut t5_1, mut t5_2) = (
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
            );
            let (a, b, c) = (
                w.src(a, &mut t5_0),
                w.src(b, &mut t5_1),
                w.src(c, &mut t5_2),
            );
            let mut r = [0u64; 32];
            for l in 0..32 {
                r[l] = fp::fma64(a[l], b[l], c[l], m);
            }
            w.set(d, mask, &r);
        }
        Inst::F64Un { op, m, d, a } => {
            let mut t6_0 = MaybeUninit::uninit();
            let a = w.src(a, &mut t6_0);
            let mut r = [0u64; 32];
            for l in 0..32 {
                r[l] = fp::un64(op, a[l], m);
            }
            w.set(d, mask, &r);
        }
        Inst::F32x2Bin { op, m, d, a, b } if matches!(op, FOp::Add | FOp::Sub | FOp::Mul) => {
            // split into halves so each half runs through the 32-lane entry points
            // elementwise, so the 64 halves can run in any grouping: two calls over the
            // register arrays seen as 64 f32 values (no split and join per lane)
            let (mut ta, mut tb) = (MaybeUninit::uninit(), MaybeUninit::uninit());
            let (a, b) = (as_halves(w.src(a, &mut ta)), as_halves(w.src(b, &mut tb)));
            let mut r = [0u32; 64];
            let f = match op {
                FOp::Add => nf::f32_add_lanes,
                FOp::Sub => nf::f32_sub_lanes,
                _ => nf::f32_mul_lanes,
            };
            let (r0, r1) = r.split_at_mut(32);
            f(first(a), first(b), fp::mods(m), first_mut(r0));
            f(second(a), second(b), fp::mods(m), first_mut(r1));
            w.set(d, mask, &from_halves(r));
        }
        Inst::F32x2Bin { op, m, d, a, b } => {
            let (mut t7_0, mut t7_1) = (MaybeUninit::uninit(), MaybeUninit::uninit());
            let (a, b) = (w.src(a, &mut t7_0), w.src(b, &mut t7_1));
            let mut r = [0u64; 32];
            for l in 0..32 {
                let lo = bin_f32(op, m, a[l] as u32, b[l] as u32);
                let hi = bin_f32(op, m, (a[l] >> 32) as u32, (b[l] >> 32) as u32);
                r[l] = lo as u64 | (hi as u64) << 32;
            }
            w.set(d, mask, &r);
        }
        Inst::F32x2Fma { m, d, a, b, c } => {
            let (mut ta, mut tb, mut tc) = (
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
            );
            let (a, b, c) = (
                as_halves(w.src(a, &mut ta)),
                as_halves(w.src(b, &mut tb)),
                as_halves(w.src(c, &mut tc)),
            );
            let mut r = [0u32; 64];
            let (r0, r1) = r.split_at_mut(32);
            nf::f32_fma_lanes(first(a), first(b), first(c), fp::mods(m), first_mut(r0));
            nf::f32_fma_lanes(second(a), second(b), second(c), fp::mods(m), first_mut(r1));
            w.set(d, mask, &from_halves(r));
        }
        Inst::SetpHalf(ref h) => {
            let (mut t8_0, mut t8_1) = (MaybeUninit::uninit(), MaybeUninit::uninit());
            let (a, b) = (w.src(h.a, &mut t8_0), w.src(h.b, &mut t8_1));
            let cmp = |x: u32, y: u32| {
                tmemu_num::ops::half::half_cmp(h.kind, h.op, x as u16, y as u16, h.ftz)
            };
            let (mut lo, mut hi) = (0u32, 0u32);
            for l in 0..32 {
                lo |= (cmp(a[l], b[l]) as u32) << l;
                if h.x2 {
                    hi |= (cmp(a[l] >> 16, b[l] >> 16) as u32) << l;
                }
            }
            let comb = |w: &Warp, v: u32| match h.comb {
                None => v,
                Some((op, c)) => {
                    let c = w.pred(c);
                    match op {
                        crate::program::BoolOp::And => v & c,
                        crate::program::BoolOp::Or => v | c,
                        crate::program::BoolOp::Xor => v ^ c,
                    }
                }
            };
            let (pv, qv) = if h.x2 {
                (comb(w, lo), comb(w, hi))
            } else {
                (comb(w, lo), comb(w, !lo))
            };
            w.set_pred(h.p, mask, pv);
            if let Some(q) = h.q {
                w.set_pred(q, mask, qv);
            }
        }
        Inst::Testp { op, f64, p, a } => {
            let mut bits = 0u32;
            for l in 0..32 {
                let v = w.read_any(a, l);
                let t = if f64 {
                    tmemu_num::ops::float::f64_testp(op, v)
                } else {
                    tmemu_num::ops::float::f32_testp(op, v as u32)
                };
                bits |= (t as u32) << l;
            }
            w.set_pred(p, mask, bits);
        }
        Inst::Half(ref h) => {
            let (mut t9_0, mut t9_1, mut t9_2) = (
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
            );
            let (a, b, c) = (
                w.src(h.a, &mut t9_0),
                w.src(h.b, &mut t9_1),
                w.src(h.c, &mut t9_2),
            );
            let mut r = [0u32; 32];
            for l in 0..32 {
                r[l] = if h.x2 {
                    tmemu_num::ops::half::eval_half_x2(h.kind, h.op, a[l], b[l], c[l], h.m)
                } else {
                    tmemu_num::ops::half::eval_half(
                        h.kind,
                        h.op,
                        a[l] as u16,
                        b[l] as u16,
                        c[l] as u16,
                        h.m,
                    ) as u32
                };
            }
            w.set(h.d, mask, &r);
        }
        Inst::Mixed(ref x) => {
            let (mut t10_0, mut t10_1, mut t10_2) = (
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
            );
            let (a, b, c) = (
                w.src(x.a, &mut t10_0),
                w.src(x.b, &mut t10_1),
                w.src(x.c, &mut t10_2),
            );
            let widen = |v: u32| -> u32 {
                if x.bf16 {
                    (v & 0xffff) << 16
                } else {
                    half::f16::from_bits(v as u16).to_f32().to_bits()
                }
            };
            let mut r = [0u32; 32];
            for l in 0..32 {
                r[l] = if x.fma {
                    fp::fma32(widen(a[l]), widen(b[l]), c[l], x.m)
                } else {
                    bin_f32(x.op, x.m, widen(a[l]), c[l])
                };
            }
            w.set(x.d, mask, &r);
        }
        _ => unreachable!("float::exec() called with {inst:?}"),
    }
    Flow::Next
}

#[allow(dead_code)]
fn _unused(_: FUnOp) {}
