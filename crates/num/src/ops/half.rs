//! f16 and bf16 arithmetic, scalar and packed x2 (PTX ISA §9.7.4 "Half precision floating
//! point instructions"): add/sub/mul/fma (.rn, .ftz for f16, .sat, .relu), min/max (.NaN,
//! .xorsign.abs), neg/abs, ex2.approx and tanh.approx.
//!
//! Every result is computed exactly in f64 (a TwoSum error term where a sum is not exact) and
//! rounded once to the 16-bit format, so there is no double rounding.

use super::float::MinMaxMods;
use super::round::{self, round_to, two_sum, Format};
use super::types::Rounding;

/// Which 16-bit float format.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum HalfKind {
    F16,
    Bf16,
}

/// The canonical NaN of 16-bit float results.
pub const NAN16: u16 = 0x7fff;

impl HalfKind {
    #[inline]
    pub fn format(self) -> Format {
        match self {
            HalfKind::F16 => round::F16,
            HalfKind::Bf16 => round::BF16,
        }
    }

    /// Exact value of a 16-bit pattern.
    #[inline]
    pub fn to_f64(self, a: u16) -> f64 {
        match self {
            HalfKind::F16 => f16_to_f32(a) as f64,
            HalfKind::Bf16 => f32::from_bits((a as u32) << 16) as f64,
        }
    }

    #[inline]
    pub fn is_nan(self, a: u16) -> bool {
        match self {
            HalfKind::F16 => (a & 0x7fff) > 0x7c00,
            HalfKind::Bf16 => (a & 0x7fff) > 0x7f80,
        }
    }

    #[inline]
    pub fn is_subnormal(self, a: u16) -> bool {
        let exp_mask = match self {
            HalfKind::F16 => 0x7c00,
            HalfKind::Bf16 => 0x7f80,
        };
        a & exp_mask == 0 && a & 0x7fff != 0
    }

    #[inline]
    pub fn ftz(self, a: u16) -> u16 {
        if self.is_subnormal(a) {
            a & 0x8000
        } else {
            a
        }
    }

    /// Rounds the exact value `hi + lo` to this format's bits (NaN -> canonical NaN).
    #[inline]
    pub fn round(self, hi: f64, lo: f64, rnd: Rounding) -> u16 {
        if hi.is_nan() {
            return NAN16;
        }
        if rnd == Rounding::Rn {
            // Round to f32 with round-to-odd (a sticky last bit), then to nearest in 16 bits:
            // correct because f32 carries more than 2 extra bits (Boldo & Melquiond).
            if let Some(r) = f32_round_to_odd(hi, lo) {
                return match self {
                    HalfKind::F16 => f32_to_f16_rne(r),
                    HalfKind::Bf16 => f32_to_bf16_rne(r),
                };
            }
        }
        round::encode(self.format(), round_to(self.format(), hi, lo, rnd)) as u16
    }
}

/// The exact f32 value of an f16 bit pattern (NaN payloads kept).
#[inline]
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h & 0x8000) as u32) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    if exp == 0x1f {
        f32::from_bits(sign | 0x7f80_0000 | (man << 13))
    } else if exp == 0 {
        // Zero or subnormal: man * 2^-24, exact in f32.
        let v = man as f32 * (1.0 / 16_777_216.0);
        if sign != 0 {
            -v
        } else {
            v
        }
    } else {
        f32::from_bits(sign | ((exp + 112) << 23) | (man << 13))
    }
}

/// f32 to f16, round to nearest even (NaN gives the canonical NaN).
#[inline]
pub fn f32_to_f16_rne(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let a = b & 0x7fff_ffff;
    if a > 0x7f80_0000 {
        return NAN16;
    }
    if a >= 0x477f_f000 {
        // >= 65520 (halfway between 65504 and 2^16): infinity.
        return sign | 0x7c00;
    }
    if a >= 0x3880_0000 {
        // Normal in f16: rebias the exponent, round the 13 dropped bits to nearest even; a
        // carry moves into the exponent field as it should.
        let r = a - 0x3800_0000;
        let r = r + 0xfff + ((r >> 13) & 1);
        return sign | (r >> 13) as u16;
    }
    // Subnormal or zero in f16: round x * 2^24 (exact scaling) to an integer, ties to even.
    sign | (f32::from_bits(a) * 16_777_216.0).round_ties_even() as u16
}

/// f32 to bf16, round to nearest even (NaN gives the canonical NaN).
#[inline]
pub fn f32_to_bf16_rne(x: f32) -> u16 {
    let b = x.to_bits();
    if b & 0x7fff_ffff > 0x7f80_0000 {
        return NAN16;
    }
    ((b + 0x7fff + ((b >> 16) & 1)) >> 16) as u16
}

/// `hi + lo` (exact, `|lo|` <= half an f64 ulp of `hi`) rounded to f32 with round-to-odd, or
/// `None` where f32's range does not hold it with full precision (overflow, zero, or below the
/// normal range, where the caller's exact path takes over).
#[inline]
fn f32_round_to_odd(hi: f64, lo: f64) -> Option<f32> {
    let r = hi as f32;
    let rf = r as f64;
    if !r.is_finite() || rf.abs() < f32::MIN_POSITIVE as f64 {
        return None;
    }
    // hi - r is exact (Sterbenz); its sign, or else lo's, is the side of the true value.
    let d = hi - rf;
    let t = if d != 0.0 { d } else { lo };
    if t == 0.0 || r.to_bits() & 1 == 1 {
        return Some(r);
    }
    let away = (t > 0.0) == (r > 0.0);
    let bits = if away {
        r.to_bits() + 1
    } else {
        r.to_bits() - 1
    };
    Some(f32::from_bits(bits))
}

/// Modifiers of the half-precision arithmetic instructions.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct HalfMods {
    pub rnd: Rounding,
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
}

/// A decoded half-precision operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum HalfOp {
    Add,
    Sub,
    Mul,
    Fma,
    Min(MinMaxMods),
    Max(MinMaxMods),
    Neg,
    Abs,
    Ex2Approx,
    TanhApprox,
}

#[inline]
fn finish(k: HalfKind, hi: f64, lo: f64, m: HalfMods) -> u16 {
    let mut r = k.round(hi, lo, m.rnd);
    if m.ftz {
        r = k.ftz(r);
    }
    if k.is_nan(r) {
        return if m.sat { 0 } else { NAN16 };
    }
    if m.sat {
        if r & 0x8000 != 0 {
            r = 0;
        } else if k.to_f64(r) > 1.0 {
            r = k.round(1.0, 0.0, Rounding::Rn);
        }
    }
    if m.relu && r & 0x8000 != 0 {
        r = 0;
    }
    r
}

#[inline]
fn inp(k: HalfKind, a: u16, ftz: bool) -> f64 {
    k.to_f64(if ftz { k.ftz(a) } else { a })
}

/// Evaluates one 16-bit lane.
#[inline]
pub fn eval_half(k: HalfKind, op: HalfOp, a: u16, b: u16, c: u16, m: HalfMods) -> u16 {
    match op {
        HalfOp::Add | HalfOp::Sub => {
            let b = if op == HalfOp::Sub { b ^ 0x8000 } else { b };
            let (x, y) = (inp(k, a, m.ftz), inp(k, b, m.ftz));
            if k == HalfKind::F16 {
                // Exact in f64: f16 values span 2^-24 .. 2^16.
                return finish(k, x + y, 0.0, m);
            }
            let (s, e) = two_sum(x, y);
            finish(k, s, e, m)
        }
        HalfOp::Mul => finish(k, inp(k, a, m.ftz) * inp(k, b, m.ftz), 0.0, m),
        HalfOp::Fma => {
            let p = inp(k, a, m.ftz) * inp(k, b, m.ftz); // exact
            let z = inp(k, c, m.ftz);
            if !p.is_finite() || !z.is_finite() {
                return finish(k, p + z, 0.0, m);
            }
            let (s, e) = two_sum(p, z);
            finish(k, s, e, m)
        }
        HalfOp::Min(mm) => minmax(k, a, b, mm, true),
        HalfOp::Max(mm) => minmax(k, a, b, mm, false),
        // neg/abs are sign operations, except that a NaN becomes the canonical NaN (H100).
        HalfOp::Neg if k.is_nan(a) => NAN16,
        HalfOp::Abs if k.is_nan(a) => NAN16,
        HalfOp::Neg => a ^ 0x8000,
        HalfOp::Abs => a & 0x7fff,
        HalfOp::Ex2Approx => {
            let x = inp(k, a, m.ftz);
            let r = k.round(x.exp2(), 0.0, Rounding::Rn);
            if m.ftz {
                k.ftz(r)
            } else {
                r
            }
        }
        HalfOp::TanhApprox => k.round(inp(k, a, false).tanh(), 0.0, Rounding::Rn),
    }
}

/// Evaluates a packed x2 operation: each 16-bit half independently.
#[inline]
pub fn eval_half_x2(k: HalfKind, op: HalfOp, a: u32, b: u32, c: u32, m: HalfMods) -> u32 {
    let lo = eval_half(k, op, a as u16, b as u16, c as u16, m);
    let hi = eval_half(
        k,
        op,
        (a >> 16) as u16,
        (b >> 16) as u16,
        (c >> 16) as u16,
        m,
    );
    (lo as u32) | ((hi as u32) << 16)
}

fn minmax(k: HalfKind, a: u16, b: u16, mm: MinMaxMods, min: bool) -> u16 {
    let (a, b) = if mm.ftz { (k.ftz(a), k.ftz(b)) } else { (a, b) };
    let (na, nb) = (k.is_nan(a), k.is_nan(b));
    if na || nb {
        if mm.nan || (na && nb) {
            return NAN16;
        }
        let r = if na { b } else { a };
        return if mm.xorsign_abs {
            (r & 0x7fff) | ((a ^ b) & 0x8000)
        } else {
            r
        };
    }
    if mm.xorsign_abs {
        let (x, y) = (a & 0x7fff, b & 0x7fff);
        let r = if (x < y) == min { x } else { y };
        return r | ((a ^ b) & 0x8000);
    }
    let key = |x: u16| {
        if x & 0x8000 != 0 {
            -((x & 0x7fff) as i32) - 1
        } else {
            x as i32
        }
    };
    if (key(a) < key(b)) == min {
        a
    } else {
        b
    }
}

/// `setp`/`set` comparison of one 16-bit lane (`setp.f16x2` compares each half and writes two
/// predicates); `.ftz` flushes f16 subnormal inputs.
#[inline]
pub fn half_cmp(k: HalfKind, op: super::types::CmpOp, a: u16, b: u16, ftz: bool) -> bool {
    super::float::cmp_float(op, inp(k, a, ftz), inp(k, b, ftz))
}
