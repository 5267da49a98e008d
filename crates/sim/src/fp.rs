//! The one place where float semantics enter the engine: a thin adapter over the numerics
//! crate (`tmemu_num::ops`), which owns PTX arithmetic (roundings, ftz, sat, NaN rules,
//! approximations). [`supported_f32`] / [`supported_f64`] tell the loader which forms exist,
//! so anything else is refused at load time.

use tmemu_num::ops::approx;
use tmemu_num::ops::float as nf;
use tmemu_num::ops::{FloatMods, MinMaxMods, Rounding};

use crate::program::{FMods, FUnOp, Rnd};

#[inline(always)]
fn rounding(r: Rnd) -> Rounding {
    match r {
        Rnd::Rz => Rounding::Rz,
        Rnd::Rm => Rounding::Rm,
        Rnd::Rp => Rounding::Rp,
        _ => Rounding::Rn,
    }
}

/// The numerics crate's modifiers of an engine float form.
#[inline(always)]
pub fn mods(m: FMods) -> FloatMods {
    FloatMods::new(rounding(m.rnd), m.ftz, m.sat)
}

#[inline(always)]
pub fn add32(x: u32, y: u32, m: FMods) -> u32 {
    nf::f32_add(x, y, mods(m))
}

#[inline(always)]
pub fn mul32(x: u32, y: u32, m: FMods) -> u32 {
    nf::f32_mul(x, y, mods(m))
}

#[inline(always)]
pub fn div32(x: u32, y: u32, m: FMods) -> u32 {
    match m.rnd {
        Rnd::Approx => approx::f32_div_approx(x, y, m.ftz),
        Rnd::Full => approx::f32_div_full(x, y, m.ftz),
        _ => nf::f32_div(x, y, mods(m)),
    }
}

#[inline(always)]
pub fn fma32(x: u32, y: u32, z: u32, m: FMods) -> u32 {
    nf::f32_fma(x, y, z, mods(m))
}

#[inline(always)]
pub fn min32(x: u32, y: u32, m: FMods, nan: bool) -> u32 {
    nf::f32_min(
        x,
        y,
        MinMaxMods {
            ftz: m.ftz,
            nan,
            xorsign_abs: false,
        },
    )
}

#[inline(always)]
pub fn max32(x: u32, y: u32, m: FMods, nan: bool) -> u32 {
    nf::f32_max(
        x,
        y,
        MinMaxMods {
            ftz: m.ftz,
            nan,
            xorsign_abs: false,
        },
    )
}

/// min/max.xorsign.abs (`max` selects which)
pub fn minmax_xorsign32(x: u32, y: u32, m: FMods, nan: bool, max: bool) -> u32 {
    let mm = MinMaxMods {
        ftz: m.ftz,
        nan,
        xorsign_abs: true,
    };
    if max {
        nf::f32_max(x, y, mm)
    } else {
        nf::f32_min(x, y, mm)
    }
}

/// copysign.f32 d, a, b: magnitude of b, sign of a
pub fn copysign32(a: u32, b: u32) -> u32 {
    nf::f32_copysign(a, b)
}

/// [`un32`] over a warp's lanes, with the operation matched once outside the lane loop.
pub fn un32_lanes(op: FUnOp, a: &[u32; 32], m: FMods, r: &mut [u32; 32]) {
    #[inline(always)]
    fn each(a: &[u32; 32], r: &mut [u32; 32], f: impl Fn(u32) -> u32) {
        for l in 0..32 {
            r[l] = f(a[l]);
        }
    }
    let approx_ = m.rnd == Rnd::Approx;
    let ftz = m.ftz;
    match op {
        FUnOp::Neg => each(a, r, |x| nf::f32_neg(x, ftz)),
        FUnOp::Abs => each(a, r, |x| nf::f32_abs(x, ftz)),
        FUnOp::Sqrt if approx_ => each(a, r, |x| approx::f32_sqrt_approx(x, ftz)),
        FUnOp::Sqrt => each(a, r, |x| nf::f32_sqrt(x, mods(m))),
        FUnOp::Rcp if approx_ => each(a, r, |x| approx::f32_rcp_approx(x, ftz)),
        FUnOp::Rcp => each(a, r, |x| nf::f32_rcp(x, mods(m))),
        FUnOp::Rsqrt => each(a, r, |x| approx::f32_rsqrt_approx(x, ftz)),
        FUnOp::Ex2 => approx::f32_ex2_approx_lanes(a, ftz, r),
        FUnOp::Lg2 => each(a, r, |x| approx::f32_lg2_approx(x, ftz)),
        FUnOp::Sin => each(a, r, |x| approx::f32_sin_approx(x, ftz)),
        FUnOp::Cos => each(a, r, |x| approx::f32_cos_approx(x, ftz)),
        FUnOp::Tanh => each(a, r, approx::f32_tanh_approx),
    }
}

pub fn un32(op: FUnOp, x: u32, m: FMods) -> u32 {
    let approx_ = m.rnd == Rnd::Approx;
    match op {
        FUnOp::Neg => nf::f32_neg(x, m.ftz),
        FUnOp::Abs => nf::f32_abs(x, m.ftz),
        FUnOp::Sqrt if approx_ => approx::f32_sqrt_approx(x, m.ftz),
        FUnOp::Sqrt => nf::f32_sqrt(x, mods(m)),
        FUnOp::Rcp if approx_ => approx::f32_rcp_approx(x, m.ftz),
        FUnOp::Rcp => nf::f32_rcp(x, mods(m)),
        FUnOp::Rsqrt => approx::f32_rsqrt_approx(x, m.ftz),
        FUnOp::Ex2 => approx::f32_ex2_approx(x, m.ftz),
        FUnOp::Lg2 => approx::f32_lg2_approx(x, m.ftz),
        FUnOp::Sin => approx::f32_sin_approx(x, m.ftz),
        FUnOp::Cos => approx::f32_cos_approx(x, m.ftz),
        FUnOp::Tanh => approx::f32_tanh_approx(x),
    }
}

#[inline(always)]
pub fn add64(x: u64, y: u64, m: FMods) -> u64 {
    nf::f64_add(x, y, rounding(m.rnd))
}

#[inline(always)]
pub fn mul64(x: u64, y: u64, m: FMods) -> u64 {
    nf::f64_mul(x, y, rounding(m.rnd))
}

#[inline(always)]
pub fn div64(x: u64, y: u64, m: FMods) -> u64 {
    nf::f64_div(x, y, rounding(m.rnd))
}

#[inline(always)]
pub fn fma64(x: u64, y: u64, z: u64, m: FMods) -> u64 {
    nf::f64_fma(x, y, z, rounding(m.rnd))
}

const MM64: MinMaxMods = MinMaxMods {
    ftz: false,
    nan: false,
    xorsign_abs: false,
};

pub fn min64(x: u64, y: u64, nan: bool) -> u64 {
    nf::f64_min(x, y, MinMaxMods { nan, ..MM64 })
}

pub fn max64(x: u64, y: u64, nan: bool) -> u64 {
    nf::f64_max(x, y, MinMaxMods { nan, ..MM64 })
}

pub fn un64(op: FUnOp, x: u64, m: FMods) -> u64 {
    match op {
        FUnOp::Neg => nf::f64_neg(x),
        FUnOp::Abs => nf::f64_abs(x),
        FUnOp::Sqrt => nf::f64_sqrt(x, rounding(m.rnd)),
        FUnOp::Rsqrt => approx::f64_rsqrt_approx(x),
        FUnOp::Rcp if m.rnd == Rnd::Approx => approx::f64_rcp_approx_ftz(x),
        FUnOp::Rcp => nf::f64_div(1.0f64.to_bits(), x, rounding(m.rnd)),
        _ => unreachable!("loader admitted an f64 {op:?} the numerics crate does not provide"),
    }
}

/// Whether an f32 op/rounding/modifier combination is executable.
pub fn supported_f32(op: &str, m: FMods) -> bool {
    let exact = matches!(m.rnd, Rnd::Rn | Rnd::Rz | Rnd::Rm | Rnd::Rp);
    match op {
        "neg" | "abs" | "min" | "max" | "copysign" => true,
        "add" | "sub" | "mul" | "fma" | "mad" => exact,
        "div" => exact || matches!(m.rnd, Rnd::Approx | Rnd::Full),
        "sqrt" | "rcp" => exact || m.rnd == Rnd::Approx,
        "rsqrt" | "ex2" | "lg2" | "sin" | "cos" => m.rnd == Rnd::Approx && !m.sat,
        "tanh" => m.rnd == Rnd::Approx && !m.sat && !m.ftz,
        _ => false,
    }
}

/// copysign.f64 d, a, b: magnitude of b, sign of a
pub fn copysign64(a: u64, b: u64) -> u64 {
    nf::f64_copysign(a, b)
}

/// Whether an f64 op is executable (f64 has no `.sat`; `.ftz` exists only on approximations).
pub fn supported_f64(op: &str, m: FMods) -> bool {
    let exact = matches!(m.rnd, Rnd::Rn | Rnd::Rz | Rnd::Rm | Rnd::Rp);
    match op {
        "neg" | "abs" | "min" | "max" | "copysign" => true,
        // the two f64 approximations the H100 recording covers (rcp exists only as
        // `.approx.ftz.f64`); tmemu-num returns them correctly rounded
        "rcp" | "rsqrt" if m.rnd == Rnd::Approx => !m.sat && m.ftz == (op == "rcp"),
        "add" | "sub" | "mul" | "fma" | "mad" | "div" | "sqrt" | "rcp" => exact && !m.sat && !m.ftz,
        // rcp.approx.ftz.f64 (the only approximate f64 form, always .ftz): libdevice's seed
        // for the Newton steps of f64 division, pow, erf, tanh
        "rcp_approx" => m.rnd == Rnd::Approx && m.ftz && !m.sat,
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
    fn adapter_reaches_the_numerics_crate() {
        // values checked by hand against IEEE 754: 1 + 2^-24 rounds to 1 (tie to even) in RN,
        // up to 1 + 2^-23 in RP
        let one = 1.0f32.to_bits();
        let tiny = 2f32.powi(-24).to_bits();
        assert_eq!(add32(one, tiny, RN), one);
        assert_eq!(add32(one, tiny, FMods { rnd: Rnd::Rp, ..RN }), one + 1);
        // fma is fused: (1+2^-23)*(1-2^-23) - 1 = -2^-46 exactly, not 0
        let a = 0x3f80_0001;
        let b = 0x3f7f_fffe;
        assert_eq!(
            f32::from_bits(fma32(a, b, (-1.0f32).to_bits(), RN)),
            -(2f32.powi(-46))
        );
        // ex2.approx of an exact power is exact
        assert_eq!(
            un32(
                FUnOp::Ex2,
                3.0f32.to_bits(),
                FMods {
                    rnd: Rnd::Approx,
                    ..RN
                }
            ),
            8.0f32.to_bits()
        );
    }
}
