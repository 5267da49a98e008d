//! The one place where float semantics enter the engine.
//!
//! The numerics crate (`tmemu-num`) owns PTX arithmetic. Until its `ops` module offers a form,
//! the loader refuses that form (`unsupported`) instead of this crate growing a second
//! implementation; see [`supported_f32`] / [`supported_f64`]. What is here is only what IEEE 754
//! fixes exactly and the host computes exactly: round-to-nearest-even add/sub/mul/div/sqrt and
//! fused multiply-add (via `mul_add`, never `a*b+c`), plus PTX's flush-to-zero, saturation and
//! canonical-NaN conventions around them.
//!
//! Decisions on points the PTX text leaves open (UNCONFIRMED):
//! - f32 NaN results are the canonical NaN `0x7fffffff` (PTX ISA, "Floating-point data";
//!   NVIDIA hardware behaviour); f64 NaN results are passed through as the host made them.
//! - `min`/`max` order `-0.0` below `+0.0` (IEEE 754-2019 minimum/maximum), and return the
//!   non-NaN operand when exactly one is NaN (PTX ISA min/max).

use crate::program::{FMods, FUnOp, Rnd};

pub const CANON_NAN32: u32 = 0x7fff_ffff;

#[inline(always)]
fn ftz_in(x: u32, m: FMods) -> f32 {
    if m.ftz && x & 0x7f80_0000 == 0 {
        f32::from_bits(x & 0x8000_0000)
    } else {
        f32::from_bits(x)
    }
}

#[inline(always)]
fn out32(r: f32, m: FMods) -> u32 {
    let mut r = r;
    if m.sat {
        // NaN saturates to +0
        r = if r.is_nan() { 0.0 } else { r.clamp(0.0, 1.0) };
    }
    let b = r.to_bits();
    if r.is_nan() {
        CANON_NAN32
    } else if m.ftz && b & 0x7f80_0000 == 0 {
        b & 0x8000_0000
    } else {
        b
    }
}

#[inline(always)]
pub fn add32(x: u32, y: u32, m: FMods) -> u32 {
    out32(ftz_in(x, m) + ftz_in(y, m), m)
}

#[inline(always)]
pub fn mul32(x: u32, y: u32, m: FMods) -> u32 {
    out32(ftz_in(x, m) * ftz_in(y, m), m)
}

#[inline(always)]
pub fn div32(x: u32, y: u32, m: FMods) -> u32 {
    out32(ftz_in(x, m) / ftz_in(y, m), m)
}

#[inline(always)]
pub fn fma32(x: u32, y: u32, z: u32, m: FMods) -> u32 {
    out32(ftz_in(x, m).mul_add(ftz_in(y, m), ftz_in(z, m)), m)
}

#[inline(always)]
fn minmax32(x: u32, y: u32, m: FMods, nan: bool, max: bool) -> u32 {
    let (a, b) = (ftz_in(x, m), ftz_in(y, m));
    if a.is_nan() || b.is_nan() {
        if nan || (a.is_nan() && b.is_nan()) {
            return CANON_NAN32;
        }
        return out32(if a.is_nan() { b } else { a }, m);
    }
    let r = if a == b {
        // -0 vs +0: pick by sign bit
        let (sa, sb) = (a.to_bits() >> 31, b.to_bits() >> 31);
        if (sa > sb) == max {
            b
        } else {
            a
        }
    } else if (a < b) == max {
        b
    } else {
        a
    };
    out32(r, m)
}

#[inline(always)]
pub fn min32(x: u32, y: u32, m: FMods, nan: bool) -> u32 {
    minmax32(x, y, m, nan, false)
}

#[inline(always)]
pub fn max32(x: u32, y: u32, m: FMods, nan: bool) -> u32 {
    minmax32(x, y, m, nan, true)
}

pub fn un32(op: FUnOp, x: u32, m: FMods) -> u32 {
    match op {
        FUnOp::Neg => x ^ 0x8000_0000,
        FUnOp::Abs => x & 0x7fff_ffff,
        FUnOp::Sqrt => out32(ftz_in(x, m).sqrt(), m),
        // refused by the loader until tmemu-num provides them
        FUnOp::Rsqrt
        | FUnOp::Rcp
        | FUnOp::Ex2
        | FUnOp::Lg2
        | FUnOp::Sin
        | FUnOp::Cos
        | FUnOp::Tanh => {
            unreachable!("loader admitted an f32 {op:?} the numerics crate does not provide")
        }
    }
}

#[inline(always)]
pub fn add64(x: u64, y: u64, _m: FMods) -> u64 {
    (f64::from_bits(x) + f64::from_bits(y)).to_bits()
}

#[inline(always)]
pub fn mul64(x: u64, y: u64, _m: FMods) -> u64 {
    (f64::from_bits(x) * f64::from_bits(y)).to_bits()
}

#[inline(always)]
pub fn div64(x: u64, y: u64, _m: FMods) -> u64 {
    (f64::from_bits(x) / f64::from_bits(y)).to_bits()
}

#[inline(always)]
pub fn fma64(x: u64, y: u64, z: u64, _m: FMods) -> u64 {
    f64::from_bits(x)
        .mul_add(f64::from_bits(y), f64::from_bits(z))
        .to_bits()
}

fn minmax64(x: u64, y: u64, nan: bool, max: bool) -> u64 {
    let (a, b) = (f64::from_bits(x), f64::from_bits(y));
    if a.is_nan() || b.is_nan() {
        if nan || (a.is_nan() && b.is_nan()) {
            return f64::NAN.to_bits();
        }
        return if a.is_nan() { y } else { x };
    }
    if a == b {
        let (sa, sb) = (x >> 63, y >> 63);
        return if (sa > sb) == max { y } else { x };
    }
    if (a < b) == max {
        y
    } else {
        x
    }
}

pub fn min64(x: u64, y: u64, nan: bool) -> u64 {
    minmax64(x, y, nan, false)
}

pub fn max64(x: u64, y: u64, nan: bool) -> u64 {
    minmax64(x, y, nan, true)
}

pub fn un64(op: FUnOp, x: u64, _m: FMods) -> u64 {
    match op {
        FUnOp::Neg => x ^ (1 << 63),
        FUnOp::Abs => x & !(1 << 63),
        FUnOp::Sqrt => f64::from_bits(x).sqrt().to_bits(),
        _ => unreachable!("loader admitted an f64 {op:?} the numerics crate does not provide"),
    }
}

/// Whether an f32 op/rounding/modifier combination is executable today.
pub fn supported_f32(op: &str, m: FMods) -> bool {
    match op {
        "neg" | "abs" => true,
        "add" | "sub" | "mul" | "fma" | "mad" | "div" | "sqrt" => m.rnd == Rnd::Rn,
        "min" | "max" => true,
        _ => false,
    }
}

/// Whether an f64 op is executable today (f64 has no ftz; `.sat` is not defined for it).
pub fn supported_f64(op: &str, m: FMods) -> bool {
    match op {
        "neg" | "abs" | "min" | "max" => true,
        "add" | "sub" | "mul" | "fma" | "mad" | "div" | "sqrt" => m.rnd == Rnd::Rn && !m.sat,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RN: FMods = FMods {
        rnd: Rnd::Rn,
        ftz: false,
        sat: false,
    };

    #[test]
    fn nan_is_canonical_and_minmax_prefers_numbers() {
        let nan = 0x7fc0_0001;
        assert_eq!(add32(nan, 1.0f32.to_bits(), RN), CANON_NAN32);
        assert_eq!(min32(nan, 2.0f32.to_bits(), RN, false), 2.0f32.to_bits());
        assert_eq!(max32(nan, 2.0f32.to_bits(), RN, true), CANON_NAN32);
        assert_eq!(
            min32((-0.0f32).to_bits(), 0.0f32.to_bits(), RN, false),
            (-0.0f32).to_bits()
        );
        assert_eq!(
            max32((-0.0f32).to_bits(), 0.0f32.to_bits(), RN, false),
            0.0f32.to_bits()
        );
    }

    #[test]
    fn ftz_and_sat() {
        let m = FMods {
            rnd: Rnd::Rn,
            ftz: true,
            sat: true,
        };
        let sub = 1u32; // smallest subnormal
        assert_eq!(add32(sub, 0, m), 0);
        assert_eq!(add32(2.0f32.to_bits(), 0, m), 1.0f32.to_bits());
        // fma is fused: (1+2^-23)*(1-2^-23) - 1 = -2^-46 exactly, not 0
        let a = f32::from_bits(0x3f80_0001);
        let b = f32::from_bits(0x3f7f_fffe);
        let r = f32::from_bits(fma32(a.to_bits(), b.to_bits(), (-1.0f32).to_bits(), RN));
        assert_eq!(r as f64, (a as f64) * (b as f64) - 1.0);
    }
}
