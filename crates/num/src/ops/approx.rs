//! The `.approx` instructions (PTX ISA §9.7.3): rcp, sqrt, rsqrt, ex2, lg2, sin, cos, tanh,
//! div.approx and div.full.
//!
//! tmemu returns the correctly rounded result (computed in f64) with the special values the
//! ISA specifies. The hardware's results differ by a few ulp: the measured H100 bounds are
//! asserted in `tests/ops_vs_h100.rs` and listed in docs/arch/num.md. A kernel whose output
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

/// rcp.approx.ftz.f64: a fast reciprocal (the H100's differs from the correctly rounded value
/// by up to 9.2e-7 relative); returned correctly rounded, subnormal inputs and results flushed.
#[inline]
pub fn f64_rcp_approx_ftz(a: u64) -> u64 {
    let x = f64::from_bits(a);
    let x = if x.is_subnormal() {
        0.0f64.copysign(x)
    } else {
        x
    };
    let r = 1.0 / x;
    let r = if r.is_subnormal() {
        0.0f64.copysign(r)
    } else {
        r
    };
    if r.is_nan() {
        super::float::NAN64
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
