//! The `.approx` instructions (PTX ISA §9.7.3): rcp, sqrt, rsqrt, ex2, lg2, sin, cos, tanh,
//! div.approx and div.full.
//!
//! tmemu returns the correctly rounded result (computed in f64) with the special values the
//! ISA specifies. The hardware's results differ by a few ulp: the measured H100 bounds are
//! asserted in `tests/num/ops_vs_h100.rs` and listed in docs/arch/num.md. A kernel whose output
//! depends on the exact bits of an approximation is not portable across GPU generations
//! either, so tmemu does not try to reproduce the MUFU tables.

use super::float::{ftz32, is_nan32, NAN32};

#[inline]
fn f(a: u32) -> f64 {
    f32::from_bits(a) as f64
}

#[inline]
fn input(a: u32, ftz: bool) -> f64 {
    if ftz {
        f(ftz32(a))
    } else {
        f(a)
    }
}

#[inline]
fn out(x: f64, ftz: bool) -> u32 {
    if x.is_nan() {
        return NAN32;
    }
    let b = (x as f32).to_bits();
    if ftz {
        ftz32(b)
    } else {
        b
    }
}

/// rcp.approx.f32: 1/x; ±0 -> ±inf, ±inf -> ±0.
#[inline]
pub fn f32_rcp_approx(a: u32, ftz: bool) -> u32 {
    out(1.0 / input(a, ftz), ftz)
}

/// sqrt.approx.f32: negative -> NaN, -0 -> -0.
#[inline]
pub fn f32_sqrt_approx(a: u32, ftz: bool) -> u32 {
    out(input(a, ftz).sqrt(), ftz)
}

/// rsqrt.approx.f32: ±0 -> ±inf, negative -> NaN, +inf -> +0.
#[inline]
pub fn f32_rsqrt_approx(a: u32, ftz: bool) -> u32 {
    let x = input(a, ftz);
    if x == 0.0 {
        return out(f64::INFINITY.copysign(x), ftz);
    }
    out(1.0 / x.sqrt(), ftz)
}

/// ex2.approx.f32: -inf -> +0, +inf -> +inf.
#[inline]
pub fn f32_ex2_approx(a: u32, ftz: bool) -> u32 {
    out(input(a, ftz).exp2(), ftz)
}

/// `d[l] = f32_ex2_approx(a[l], ftz)` for every lane.
///
/// Lanes with an input in [-126, 127] (normal f32 results) take a branch-free polynomial the
/// compiler vectorises: 2^x = 2^n * 2^f, n = nearest integer, |f| <= 1/2, 2^f by its Taylor
/// series to degree 13 (truncation < 1e-17) in f64, a few f64 ulp from the exact value.
/// Rounding that to f32 gives the same bits as rounding libm's `exp2` (within 1 ulp) unless
/// the exact value lies within a few f64 ulp of an f32 rounding midpoint; a lane whose f64
/// result has its 29 dropped bits within 64 of the midpoint pattern therefore falls back to
/// the scalar function, as does every lane outside the range or NaN. `lanes_tests` checks
/// the equality (and, in an ignored test, over every f32 input: passed 2026-11-23).
///
/// On x86-64 with AVX2 the same code runs four f64 lanes per instruction (selected once per
/// call; without `fma` in the feature list nothing is contracted, so the bits are the same).
#[inline]
pub fn f32_ex2_approx_lanes(a: &[u32; 32], ftz: bool, d: &mut [u32; 32]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the feature was detected at run time.
            unsafe { ex2_lanes_avx2(a, ftz, d) };
            return;
        }
    }
    ex2_lanes(a, ftz, d)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn ex2_lanes_avx2(a: &[u32; 32], ftz: bool, d: &mut [u32; 32]) {
    ex2_lanes(a, ftz, d)
}

#[inline(always)]
fn ex2_lanes(a: &[u32; 32], ftz: bool, d: &mut [u32; 32]) {
    const C: [f64; 14] = {
        let ln2 = std::f64::consts::LN_2;
        let mut c = [1.0f64; 14];
        let mut k = 1;
        while k < 14 {
            c[k] = c[k - 1] * ln2 / k as f64;
            k += 1;
        }
        c
    };
    const SHIFT: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52: adding it rounds to an integer
                                                // Stage by stage over all 32 lanes (structure of arrays), so the 13 dependent
                                                // multiply-adds of one lane overlap with the other lanes' instead of forming one long
                                                // latency chain per lane; each lane's operations and their order are unchanged.
    let mut f = [0f64; 32];
    let mut n = [0i64; 32];
    let mut bad = [false; 32];
    for l in 0..32 {
        let x = input(a[l], ftz);
        let ok = (-126.0..=127.0).contains(&x);
        let xc = if ok { x } else { 0.0 };
        let t = xc + SHIFT;
        n[l] = (t.to_bits() as i64).wrapping_sub(SHIFT.to_bits() as i64); // round(xc)
        f[l] = xc - (t - SHIFT);
        bad[l] = !ok;
    }
    let mut p = [C[13]; 32];
    let mut k = 13;
    while k > 0 {
        k -= 1;
        for l in 0..32 {
            p[l] = p[l] * f[l] + C[k];
        }
    }
    let mut slow = 0u32;
    for l in 0..32 {
        // 2^n * p with p in [0.70, 1.42]: add n to the exponent field
        let y = f64::from_bits((p[l].to_bits() as i64).wrapping_add(n[l] << 52) as u64);
        let dropped = y.to_bits() & 0x1fff_ffff;
        let near_mid = dropped.abs_diff(0x1000_0000) <= 64;
        slow |= ((bad[l] | near_mid) as u32) << l;
        d[l] = (y as f32).to_bits();
    }
    while slow != 0 {
        let l = slow.trailing_zeros() as usize;
        slow &= slow - 1;
        d[l] = f32_ex2_approx(a[l], ftz);
    }
}

/// lg2.approx.f32: ±0 -> -inf, negative -> NaN, +inf -> +inf.
#[inline]
pub fn f32_lg2_approx(a: u32, ftz: bool) -> u32 {
    let x = input(a, ftz);
    if x == 0.0 {
        return out(f64::NEG_INFINITY, ftz);
    }
    out(x.log2(), ftz)
}

/// sin.approx.f32: ±inf -> NaN; -0 -> -0.
#[inline]
pub fn f32_sin_approx(a: u32, ftz: bool) -> u32 {
    out(input(a, ftz).sin(), ftz)
}

/// cos.approx.f32: ±inf -> NaN.
#[inline]
pub fn f32_cos_approx(a: u32, ftz: bool) -> u32 {
    out(input(a, ftz).cos(), ftz)
}

/// tanh.approx.f32: ±inf -> ±1. Subnormal inputs are returned unchanged (tanh x = x there).
#[inline]
pub fn f32_tanh_approx(a: u32) -> u32 {
    if is_nan32(a) {
        return NAN32;
    }
    out(f(a).tanh(), false)
}

/// div.approx.f32: a * (1/b) where the reciprocal of |b| in (2^126, 2^128] is a subnormal
/// that the hardware flushes: the ISA documents d = 0 for such b (a finite).
#[inline]
pub fn f32_div_approx(a: u32, b: u32, ftz: bool) -> u32 {
    let (x, y) = (input(a, ftz), input(b, ftz));
    let ay = y.abs();
    if ay > 2f64.powi(126) && ay.is_finite() {
        // The flushed reciprocal is ±0: finite a gives ±0, infinite a gives NaN.
        return out(x * 0.0f64.copysign(y), ftz);
    }
    out(x / y, ftz)
}

/// div.full.f32: full-range approximate division (max 2 ulp error in the ISA); returned
/// correctly rounded.
#[inline]
pub fn f32_div_full(a: u32, b: u32, ftz: bool) -> u32 {
    out(input(a, ftz) / input(b, ftz), ftz)
}

/// `d[l] = f32_div_full(a[l], b[l], ftz)` for every lane.
///
/// Without `.ftz` this is one native f32 division per lane, which the compiler vectorises: the
/// f64 quotient of two f32 values rounded to f32 equals the correctly rounded f32 quotient
/// (53 >= 2 * 24 + 2, so the double rounding is innocuous, Figueroa 1995), and NaNs are
/// canonicalised as `out` does. `lanes_tests` checks bit-identity with the scalar function.
#[inline]
pub fn f32_div_full_lanes(a: &[u32; 32], b: &[u32; 32], ftz: bool, d: &mut [u32; 32]) {
    if ftz {
        for l in 0..32 {
            d[l] = f32_div_full(a[l], b[l], true);
        }
    } else {
        for l in 0..32 {
            let q = f32::from_bits(a[l]) / f32::from_bits(b[l]);
            d[l] = if q.is_nan() { NAN32 } else { q.to_bits() };
        }
    }
}

/// rcp.approx.ftz.f64 (PTX ISA §9.7.3.14): "extract the most-significant 32 bits of .f64
/// operand a in 1.11.20 IEEE floating-point format (i.e., ignore the least-significant 32 bits
/// of a)", compute the reciprocal "using the most-significant 20 bits of the mantissa", place it
/// in 1.11.20 format in the upper word and "zero the least significant 32 mantissa bits"; NaN
/// gives 0x7fffffff00000000, subnormal inputs and results are flushed to sign-preserving zero.
/// The approximation itself is ours: the reciprocal of the truncated input rounded to 20
/// mantissa bits (nearest even); the H100's is within the relative bound in
/// `tmemu_testkit::h100`. Before session 7 this took all 64 bits, so a NaN whose payload is
/// only in the low word came out NaN where the ISA (and the H100) give the reciprocal of ±inf.
#[inline]
pub fn f64_rcp_approx_ftz(a: u64) -> u64 {
    let x = f64::from_bits(a & 0xffff_ffff_0000_0000);
    if x.is_nan() {
        return 0x7fff_ffff_0000_0000;
    }
    let x = if x.is_subnormal() {
        0.0f64.copysign(x)
    } else {
        x
    };
    let bits = (1.0 / x).to_bits();
    // to 1.11.20, nearest even; a carry moves into the exponent (up to infinity) as it should
    let (hi, lo) = (bits >> 32, bits & 0xffff_ffff);
    let hi = if lo > 0x8000_0000 || (lo == 0x8000_0000 && hi & 1 == 1) {
        hi + 1
    } else {
        hi
    };
    let r = f64::from_bits(hi << 32);
    if r.is_subnormal() {
        0.0f64.copysign(r).to_bits()
    } else {
        r.to_bits()
    }
}

/// rsqrt.approx.f64: 1/sqrt(x), returned correctly rounded.
#[inline]
pub fn f64_rsqrt_approx(a: u64) -> u64 {
    let x = f64::from_bits(a);
    let r = if x == 0.0 {
        f64::INFINITY.copysign(x)
    } else {
        1.0 / x.sqrt()
    };
    if r.is_nan() {
        super::float::NAN64
    } else {
        r.to_bits()
    }
}

#[cfg(test)]
mod lanes_tests {
    use super::*;

    /// Specials, subnormals, quotients that overflow or underflow into the subnormal range,
    /// and random bit patterns.
    fn operand(s: &mut u64, i: usize) -> u32 {
        const SPECIAL: [u32; 14] = [
            0,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_1234,
            0x7f80_0001,
            0x0000_0001,
            0x8000_0001,
            0x007f_ffff,
            0x0080_0000,
            0x7f7f_ffff,
            0x3f80_0000,
            0xbf80_0000,
        ];
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        match i % 4 {
            0 => SPECIAL[(*s >> 40) as usize % SPECIAL.len()],
            1 => (*s as u32 & 0x807f_ffff) | (0x3f00_0000 + ((*s >> 32) as u32 % 4) * 0x0080_0000),
            2 => *s as u32 & 0x80ff_ffff,
            _ => *s as u32,
        }
    }

    #[test]
    fn ex2_lanes_equal_scalar() {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        for round in 0..40_000usize {
            let mut a = [0u32; 32];
            for (l, v) in a.iter_mut().enumerate() {
                *v = if l % 2 == 0 {
                    operand(&mut s, round + l)
                } else {
                    // spread over the polynomial's range and a little beyond
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    let u = (s >> 11) as f64 / (1u64 << 53) as f64;
                    ((u * 270.0 - 135.0) as f32).to_bits()
                };
            }
            for ftz in [false, true] {
                let mut d = [0u32; 32];
                f32_ex2_approx_lanes(&a, ftz, &mut d);
                for l in 0..32 {
                    assert_eq!(d[l], f32_ex2_approx(a[l], ftz), "ex2 {:#x} ftz={ftz}", a[l]);
                }
            }
        }
    }

    /// Every f32 input, in chunks of 32 (about a minute in release:
    /// `cargo test --release -p tmemu-num -- --ignored ex2_lanes_exhaustive`).
    #[test]
    #[ignore]
    fn ex2_lanes_exhaustive() {
        let mut a = [0u32; 32];
        let mut d = [0u32; 32];
        for hi in 0..(1u64 << 27) {
            for (l, v) in a.iter_mut().enumerate() {
                *v = (hi as u32) << 5 | l as u32;
            }
            f32_ex2_approx_lanes(&a, false, &mut d);
            for l in 0..32 {
                assert_eq!(d[l], f32_ex2_approx(a[l], false), "ex2 {:#x}", a[l]);
            }
        }
    }

    #[test]
    fn div_full_lanes_equal_scalar() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..40_000usize {
            let (mut a, mut b) = ([0u32; 32], [0u32; 32]);
            for l in 0..32 {
                a[l] = operand(&mut s, round + l);
                b[l] = operand(&mut s, round + 3 * l + 1);
            }
            for ftz in [false, true] {
                let mut d = [0u32; 32];
                f32_div_full_lanes(&a, &b, ftz, &mut d);
                for l in 0..32 {
                    assert_eq!(
                        d[l],
                        f32_div_full(a[l], b[l], ftz),
                        "div.full {:#x} / {:#x} ftz={ftz}",
                        a[l],
                        b[l]
                    );
                }
            }
        }
    }
}
