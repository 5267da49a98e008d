//! `cvt`: every conversion goes through the numerics crate (`tmemu_num::ops::cvt`); the
//! loader asks [`supported`] first, so a form the numerics crate refuses is `unsupported` at
//! load time.

use tmemu_num::ops::cvt::{
    cvt_bf16x2_from_ue8m0x2, cvt_f8x2_from_f16x2, cvt_pack_f32, cvt_x2_from_narrow_x2,
};
use tmemu_num::ops::half::NAN16;
use tmemu_num::ops::{cvt as num_cvt, CvtMods, ScalarType};

use super::{Flow, Warp};
use crate::program::{Any, CvtInst, Inst};

/// `cvt{.relu}.f16x2.{e4m3x2,e5m2x2,e2m3x2,e3m2x2,e2m1x2}`: a packed narrow source widened to
/// f16x2, which the numerics crate provides as its own entry point (Triton emits it before an
/// f16 mma.sync for fp8 dots).
fn widen_f8x2(c: &CvtInst) -> bool {
    matches!(c.to, ScalarType::F16x2 | ScalarType::Bf16x2)
        && c.b.is_none()
        && cvt_x2_from_narrow_x2(c.to, c.from, 0, c.m.relu).is_ok()
}

/// The single-source packed forms with their own entry point in the numerics crate:
/// `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2` (Triton's f16 → fp8 cast on sm_90+) and
/// `cvt.rn.bf16x2.ue8m0x2` (MX scale bytes to bf16).
fn packed_one_source(c: &CvtInst) -> bool {
    use tmemu_num::ops::Rounding;
    if c.b.is_some() || c.m.rnd != Rounding::Rn || c.m.ftz || c.m.sat {
        return false;
    }
    match (c.to, c.from) {
        (ScalarType::E4m3x2 | ScalarType::E5m2x2, ScalarType::F16x2) => c.m.satfinite,
        (ScalarType::Bf16x2, ScalarType::Ue8m0x2) => !c.m.satfinite && !c.m.relu,
        _ => false,
    }
}

/// Whether the numerics crate executes this conversion (probed with a few source values).
pub fn supported(c: &CvtInst) -> bool {
    if widen_f8x2(c) || packed_one_source(c) {
        return true;
    }
    if c.b.is_some() {
        return c.from == ScalarType::F32
            && [0u32, 0x3f80_0000]
                .iter()
                .all(|&v| cvt_pack_f32(c.to, v, v, c.m).is_ok());
    }
    [0u64, 1, 0x3f80_0000]
        .iter()
        .all(|&v| num_cvt(c.to, c.from, v, c.m).is_ok())
}

/// `cvt.rn.f16x2.f32` of whole register arrays: `a` to the upper half, `b` to the lower, each
/// through the bit-level rounding `cvt_pack_f32` applies to this form (so the same bits).
/// With F16C (run-time detected) the hardware conversion does it, eight lanes an instruction;
/// otherwise, or when a lane is a NaN, the lane loop.
#[inline]
fn pack_f16x2_rn(a: &[u32; 32], b: &[u32; 32]) -> [u32; 32] {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("f16c") {
        // SAFETY: the CPU has F16C (and so AVX), detected just now.
        if let Some(r) = unsafe { pack_f16x2_rn_f16c(a, b) } {
            return r;
        }
    }
    pack_f16x2_rn_lanes(a, b)
}

/// `pack_f16x2_rn` by `vcvtps2ph`, which rounds to nearest even (immediate 0), gives f16
/// subnormals and overflows to infinity as `f16_rne_lane` does (MXCSR keeps Rust's default:
/// DAZ off, so an f32 subnormal rounds to a signed zero rather than being flushed first, the
/// same bits either way), but keeps a NaN's sign and payload where this form gives
/// the canonical NaN: a warp with a NaN lane returns `None`. Test
/// `f16c_pack_equals_the_lane_loop`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,f16c")]
unsafe fn pack_f16x2_rn_f16c(a: &[u32; 32], b: &[u32; 32]) -> Option<[u32; 32]> {
    use std::arch::x86_64::*;
    // a NaN is a magnitude above infinity's bits (a positive i32 compare)
    let (abs, inf) = (_mm_set1_epi32(0x7fff_ffff), _mm_set1_epi32(0x7f80_0000));
    let mut nan = _mm_setzero_si128();
    for i in 0..8 {
        let x = _mm_loadu_si128(a.as_ptr().add(4 * i).cast());
        let y = _mm_loadu_si128(b.as_ptr().add(4 * i).cast());
        nan = _mm_or_si128(nan, _mm_cmpgt_epi32(_mm_and_si128(x, abs), inf));
        nan = _mm_or_si128(nan, _mm_cmpgt_epi32(_mm_and_si128(y, abs), inf));
    }
    if _mm_movemask_epi8(nan) != 0 {
        return None;
    }
    let mut r = [0u32; 32];
    for i in 0..4 {
        let hx = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_loadu_ps(
            a.as_ptr().add(8 * i).cast(),
        ));
        let hy = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_loadu_ps(
            b.as_ptr().add(8 * i).cast(),
        ));
        // lane l's word: b's half low, a's half high
        _mm_storeu_si128(r.as_mut_ptr().add(8 * i).cast(), _mm_unpacklo_epi16(hy, hx));
        _mm_storeu_si128(
            r.as_mut_ptr().add(8 * i + 4).cast(),
            _mm_unpackhi_epi16(hy, hx),
        );
    }
    Some(r)
}

/// `pack_f16x2_rn` lane by lane (the definition the F16C path is tested against).
#[inline]
fn pack_f16x2_rn_lanes(a: &[u32; 32], b: &[u32; 32]) -> [u32; 32] {
    let mut r = [0u32; 32];
    for l in 0..32 {
        r[l] = (f16_rne_lane(a[l]) << 16) | f16_rne_lane(b[l]);
    }
    r
}

/// `f32_to_f16_rne` without a branch, so that the loop over 32 lanes vectorises (SSE2: four
/// lanes per instruction): every case is computed and the right one selected. The subnormal
/// case rounds `|x| * 2^24` (< 1024, exact) to an integer by adding 2^23 in f32, whose
/// round-to-nearest-even addition is the `round_ties_even` of the scalar function.
/// Equal to it on every input (test `f16_lane_equals_the_scalar_conversion`).
#[inline(always)]
fn f16_rne_lane(x: u32) -> u32 {
    let sign = (x >> 16) & 0x8000;
    let a = x & 0x7fff_ffff;
    let r = a.wrapping_sub(0x3800_0000);
    let normal = r.wrapping_add(0xfff).wrapping_add((r >> 13) & 1) >> 13;
    let sub = (f32::from_bits(a) * 16_777_216.0 + 8_388_608.0)
        .to_bits()
        .wrapping_sub(0x4b00_0000);
    let v = if a < 0x3880_0000 { sub } else { normal };
    let v = if a >= 0x477f_f000 { 0x7c00 } else { v } | sign;
    if a > 0x7f80_0000 {
        NAN16 as u32
    } else {
        v
    }
}

pub(super) fn exec(w: &mut Warp, mask: u32, c: &CvtInst) -> Flow {
    // Triton's epilogue form on registers: one pass over the arrays, no operand match per lane
    if let (ScalarType::F16x2, ScalarType::F32, Any::R32(d), Any::R32(a), Some(Any::R32(b))) =
        (c.to, c.from, c.d, c.a, c.b)
    {
        if c.m == CvtMods::default() {
            let r = pack_f16x2_rn(&w.r32[a as usize], &w.r32[b as usize]);
            w.set(d, mask, &r);
            return Flow::Next;
        }
    }
    let widen = widen_f8x2(c);
    let packed = packed_one_source(c);
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        let a = w.read_any(c.a, l);
        let r = match c.b {
            None if widen => {
                cvt_x2_from_narrow_x2(c.to, c.from, a as u16, c.m.relu).unwrap_or(0) as u64
            }
            None if packed && c.from == ScalarType::Ue8m0x2 => {
                u64::from(cvt_bf16x2_from_ue8m0x2(a as u16))
            }
            None if packed => u64::from(cvt_f8x2_from_f16x2(c.to, a as u32, c.m.relu).unwrap_or(0)),
            Some(b) => {
                let b = w.read_any(b, l);
                cvt_pack_f32(c.to, a as u32, b as u32, c.m).unwrap_or(0) as u64
            }
            // errors were ruled out at load time for this type pair and modifier set
            None => num_cvt(c.to, c.from, a, c.m).unwrap_or(0),
        };
        w.write_any(c.d, l, r);
    }
    Flow::Next
}

/// `cvt.rs{.relu}{.satfinite}.bf16x2.f32` (stochastic rounding with the `rbits` operand).
pub(super) fn exec_rs(w: &mut Warp, mask: u32, inst: &Inst) -> Flow {
    let Inst::CvtRsBf16x2 {
        d,
        a,
        b,
        rbits,
        relu,
        satfinite,
    } = *inst
    else {
        unreachable!("dispatched on CvtRsBf16x2")
    };
    let (a, b, r) = (w.get(a), w.get(b), w.get(rbits));
    let v: [u32; 32] = std::array::from_fn(|l| {
        tmemu_num::ops::cvt::cvt_rs_bf16x2_f32(a[l], b[l], r[l], relu, satfinite)
    });
    w.set(d, mask, &v);
    Flow::Next
}

/// `cvt.pack.sat` of two s32 values to 16- or 8-bit integers (the 8-bit forms keep `c`'s low
/// half above them).
pub(super) fn exec_pack_sat(w: &mut Warp, mask: u32, inst: &Inst) -> Flow {
    let Inst::CvtPackSat {
        d,
        a,
        b,
        c,
        bits,
        signed,
    } = *inst
    else {
        unreachable!("dispatched on CvtPackSat")
    };
    let ty = tmemu_num::ops::int::IntTy {
        bits: bits as u32,
        signed,
    };
    let (a, b, c) = (w.get(a), w.get(b), w.get(c));
    let v: [u32; 32] = std::array::from_fn(|l| {
        let c = (bits == 8).then_some(c[l]);
        tmemu_num::ops::cvt::cvt_pack_sat(ty, a[l], b[l], c)
    });
    w.set(d, mask, &v);
    Flow::Next
}

#[cfg(test)]
mod tests {
    use super::*;
    use tmemu_num::ops::Rounding;

    #[test]
    fn f16x2_array_pass_equals_the_per_lane_conversion() {
        // every exponent, mantissas with tie and near-tie low bits, specials and signs
        let mut xs: Vec<u32> = vec![0, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0001];
        let mut s = 0x1234_5678_u32;
        for e in 0..256u32 {
            for m in [0u32, 1, 0x0fff, 0x1000, 0x1001, 0x2000, 0x3000, 0x7f_ffff] {
                xs.push(e << 23 | m);
                xs.push(0x8000_0000 | e << 23 | m);
            }
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            xs.push(e << 23 | (s >> 9));
        }
        for w in xs.chunks(64) {
            let (mut a, mut b) = ([0u32; 32], [0u32; 32]);
            for (l, &x) in w.iter().enumerate() {
                if l < 32 {
                    a[l] = x;
                } else {
                    b[l - 32] = x;
                }
            }
            let got = pack_f16x2_rn(&a, &b);
            for l in 0..32 {
                let want = cvt_pack_f32(ScalarType::F16x2, a[l], b[l], CvtMods::default());
                assert_eq!(Ok(got[l]), want, "{:#x} {:#x}", a[l], b[l]);
            }
        }
    }

    /// f32 patterns for the f16 conversions: a stride through all 2^32, then every pattern
    /// within `radius` of each of `edges`, both signs.
    fn f32_patterns(stride: usize, edges: &[u32], radius: u32) -> Vec<u32> {
        let mut xs: Vec<u32> = (0..=u32::MAX).step_by(stride).collect();
        for &edge in edges {
            for d in 0..radius {
                for s in [0, 0x8000_0000] {
                    xs.push(s | edge.wrapping_add(d));
                    xs.push(s | edge.wrapping_sub(d));
                }
            }
        }
        xs
    }

    /// Where f32 → f16 changes case: zero, the smallest f16 subnormal (2^-24), 2^-15, the
    /// smallest f16 normal (2^-14), the largest f16 (65504), the overflow threshold (65520),
    /// infinity.
    const F16_EDGES: [u32; 7] = [
        0,
        0x3380_0000,
        0x3800_0000,
        0x3880_0000,
        0x477f_e000,
        0x477f_f000,
        0x7f80_0000,
    ];

    #[test]
    fn f16_lane_equals_the_scalar_conversion() {
        use tmemu_num::ops::half::f32_to_f16_rne;
        for x in f32_patterns(4099, &F16_EDGES, 8192) {
            assert_eq!(
                f16_rne_lane(x),
                f32_to_f16_rne(f32::from_bits(x)) as u32,
                "{x:#x}"
            );
        }
    }

    #[test]
    fn f16c_pack_equals_the_lane_loop() {
        #[cfg(target_arch = "x86_64")]
        {
            if !std::arch::is_x86_feature_detected!("f16c") {
                eprintln!("no F16C on this CPU: only the lane loop runs");
                return;
            }
            // the f16 edges plus f32's smallest subnormal and normal and half the smallest
            // f16 subnormal (2^-25), in the order the test always ran them, 32 lanes at a time
            let mut edges = vec![0, 1, 0x0080_0000, 0x3300_0000];
            edges.extend(&F16_EDGES[1..]);
            let xs = f32_patterns(1021, &edges, 4096);
            let (mut fast, mut nan_warps) = (0, 0);
            for (i, w) in xs.chunks_exact(64).enumerate() {
                let a: [u32; 32] = w[..32].try_into().unwrap();
                let mut b: [u32; 32] = w[32..].try_into().unwrap();
                if i % 2 == 0 {
                    b.rotate_left(i % 32);
                }
                let want = pack_f16x2_rn_lanes(&a, &b);
                // SAFETY: F16C detected above.
                match unsafe { pack_f16x2_rn_f16c(&a, &b) } {
                    Some(r) => {
                        fast += 1;
                        assert_eq!(r, want, "{a:x?} {b:x?}");
                    }
                    None => {
                        nan_warps += 1;
                        assert!(a.iter().chain(&b).any(|&x| x & 0x7fff_ffff > 0x7f80_0000));
                    }
                }
                assert_eq!(pack_f16x2_rn(&a, &b), want);
            }
            assert!(
                fast > 10_000 && nan_warps > 100,
                "{fast} fast, {nan_warps} NaN warps"
            );
        }
    }

    fn c(to: ScalarType, from: ScalarType, rnd: Rounding, sat: bool) -> CvtInst {
        CvtInst {
            to,
            from,
            m: CvtMods {
                rnd,
                sat,
                ..Default::default()
            },
            d: Any::R32(0),
            a: Any::R32(0),
            b: None,
        }
    }

    #[test]
    fn conversions_reach_the_numerics_crate() {
        let s = c(ScalarType::S32, ScalarType::F32, Rounding::Rzi, false);
        assert!(supported(&s));
        assert_eq!(
            num_cvt(s.to, s.from, (-2.7f32).to_bits() as u64, s.m).unwrap() as u32,
            (-2i32) as u32
        );
        let s = c(ScalarType::S8, ScalarType::S32, Rounding::Rn, true);
        assert_eq!(num_cvt(s.to, s.from, 300, s.m).unwrap() as u8, 127);
        let s = c(ScalarType::F32, ScalarType::F16, Rounding::Rn, false);
        assert_eq!(
            num_cvt(s.to, s.from, 0x3c00, s.m).unwrap(),
            1.0f32.to_bits() as u64
        );
    }
}
