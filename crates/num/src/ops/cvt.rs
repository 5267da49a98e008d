//! `cvt` and `cvt.pack` (PTX ISA §9.7.9.21, §9.7.9.22): conversions between integer, f16,
//! bf16, tf32, f32, f64 and the narrow f8 formats, with every rounding and saturation modifier.
//!
//! - float -> integer: rounds with `.rni/.rzi/.rmi/.rpi`, always saturates to the destination
//!   range, NaN gives 0.
//! - integer -> float and float -> narrower float: `.rn/.rz/.rm/.rp` (and `.rna` for tf32).
//! - `.sat` on a float destination clamps to [0.0, 1.0] (NaN -> 0); on an integer destination
//!   it clamps to the range. `.satfinite` clamps infinities and overflow to ±MAX (NaN stays
//!   NaN where the format has one). `.relu` clamps negatives to +0.
//! - Packed destinations take two sources; the first (`a`) goes to the upper half.
//! - Integer results of signed destination types are returned sign-extended to 64 bits (the
//!   H100 sign-extends `cvt.s8.*` into a 32-bit register); unsigned ones zero-extended. The
//!   engine truncates to the register width.
//! - NaN (unspecified by the ISA, measured on the H100): float -> integer gives 0 from f16/f32
//!   sources into <= 32-bit destinations, and the pattern 1 << (bits - 1) from f64 sources or
//!   into 64-bit destinations. f64 -> f32/f16 keeps the sign and top payload bits (quietened);
//!   f16 -> f32 and f32 -> f16/bf16 give the canonical NaN; bf16 -> f32 is exact (bits << 16).

use super::float::{self, ftz32, FloatMods, NAN32};
use super::half::{f32_to_f16_rne, HalfKind, NAN16};
use super::int::IntTy;
use super::round::{self, round_to, Format};
use super::types::{OpError, Rounding, ScalarType};
use crate::narrow::NarrowFormat;

/// Modifiers of `cvt`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CvtMods {
    /// The rounding modifier (`Rn` when none is written).
    pub rnd: Rounding,
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
    pub satfinite: bool,
}

impl CvtMods {
    pub fn rnd(rnd: Rounding) -> CvtMods {
        CvtMods {
            rnd,
            ..CvtMods::default()
        }
    }
}

/// Exact value of a float source (f16/bf16/tf32/f32/f64/e4m3/e5m2) given as bits.
#[inline]
fn float_value(src: ScalarType, a: u64, ftz: bool) -> Result<f64, OpError> {
    Ok(match src {
        ScalarType::F32 | ScalarType::Tf32 => {
            let a = a as u32;
            f32::from_bits(if ftz { ftz32(a) } else { a }) as f64
        }
        ScalarType::F64 => f64::from_bits(a),
        ScalarType::F16 => {
            let k = HalfKind::F16;
            k.to_f64(if ftz { k.ftz(a as u16) } else { a as u16 })
        }
        ScalarType::Bf16 => HalfKind::Bf16.to_f64(a as u16),
        ScalarType::E4m3 => NarrowFormat::E4m3.decode(a as u8) as f64,
        ScalarType::E5m2 => NarrowFormat::E5m2.decode(a as u8) as f64,
        _ => return Err(OpError::Unsupported("cvt from this source type")),
    })
}

/// cvt with one source: `dst` and `src` are the instruction's types, `a` the source bits.
#[inline]
pub fn cvt(dst: ScalarType, src: ScalarType, a: u64, m: CvtMods) -> Result<u64, OpError> {
    use ScalarType as T;
    let src_int = src.is_integer();
    let dst_int = dst.is_integer();
    match (dst_int, src_int) {
        (true, true) => {
            let dt = IntTy::of(dst)?;
            Ok(sext(dt, int_to_int(dt, IntTy::of(src)?, a, m.sat)))
        }
        (true, false) => {
            let x = float_value(src, a, m.ftz)?;
            let dt = IntTy::of(dst)?;
            if x.is_nan() {
                let wide = src == T::F64 || dt.bits == 64;
                return Ok(if wide {
                    sext(dt, 1u64 << (dt.bits - 1))
                } else {
                    0
                });
            }
            Ok(sext(dt, float_to_int(dt, x, m.rnd)))
        }
        (false, true) => {
            let st = IntTy::of(src)?;
            let v = st.val(a);
            int_to_float(dst, v, m)
        }
        (false, false) => {
            let x = float_value(src, a, m.ftz)?;
            if x.is_nan() && !m.sat {
                if let Some(n) = nan_convert(dst, src, a, m) {
                    return Ok(n);
                }
            }
            if m.rnd.is_integer() {
                // Round to an integral value in the same (float) type: cvt.rni.f32.f32.
                if dst != src {
                    return Err(OpError::Illegal(
                        "integer rounding between different float types",
                    ));
                }
                let r = round_integral(x, m.rnd);
                return float_to_float(
                    dst,
                    r,
                    0.0,
                    CvtMods {
                        rnd: Rounding::Rn,
                        ..m
                    },
                );
            }
            float_to_float(dst, x, 0.0, m)
        }
    }
}

/// The result of converting a NaN between float types, where it is not the destination's
/// canonical NaN (see the module notes; measured on the H100).
fn nan_convert(dst: ScalarType, src: ScalarType, a: u64, m: CvtMods) -> Option<u64> {
    use ScalarType as T;
    Some(match (dst, src) {
        (T::F64, T::F32) if m.ftz => 0x7fff_ffff_e000_0000,
        (T::F64, T::F32) | (T::F64, T::F16) | (T::F64, T::Bf16) => {
            float_value(src, a, false).ok()?.to_bits() | 0x0008_0000_0000_0000
        }
        (T::F32, T::F64) => float::nan64_to_f32(a) as u64,
        (T::F16, T::F64) => ((a >> 48) & 0x8000) | 0x7e00 | ((a >> 42) & 0x3ff),
        (T::Bf16, T::F64) => ((a >> 48) & 0x8000) | 0x7fc0 | ((a >> 45) & 0x7f),
        (T::F32, T::Bf16) => (a & 0xffff) << 16,
        // cvt.rna.tf32.f32 rounds a NaN's bits like a number's (add half an ulp, truncate: a
        // signaling NaN with a low payload becomes infinity); .rn/.rz give the canonical NaN
        // truncated to tf32.
        (T::Tf32, T::F32) if m.rnd == Rounding::Rna => {
            ((a as u32).wrapping_add(0x1000) & 0xffff_e000) as u64
        }
        (T::Tf32, T::F32) => 0x7fff_e000,
        _ => return None,
    })
}

/// Sign-extends a result of a signed type to 64 bits.
#[inline]
fn sext(t: IntTy, x: u64) -> u64 {
    if t.signed {
        t.val(x) as u64
    } else {
        x
    }
}

/// Sign/zero-extends then truncates, or saturates with `.sat`.
#[inline]
pub fn int_to_int(dst: IntTy, src: IntTy, a: u64, sat: bool) -> u64 {
    let v = src.val(a);
    if sat {
        dst.sat(v)
    } else {
        dst.wrap(v)
    }
}

/// Round to an integral value in f64 with an integer rounding mode.
#[inline]
pub fn round_integral(x: f64, rnd: Rounding) -> f64 {
    match rnd.float_mode() {
        Rounding::Rz => x.trunc(),
        Rounding::Rm => x.floor(),
        Rounding::Rp => x.ceil(),
        Rounding::Rna => x.round(),
        _ => x.round_ties_even(),
    }
}

/// Float -> integer: round, saturate to the range; NaN -> 0.
#[inline]
pub fn float_to_int(dst: IntTy, x: f64, rnd: Rounding) -> u64 {
    if x.is_nan() {
        return 0;
    }
    let r = round_integral(x, rnd);
    if r <= dst.min() as f64 {
        return dst.wrap(dst.min());
    }
    if r >= dst.max() as f64 {
        return dst.wrap(dst.max());
    }
    dst.wrap(r as i128)
}

/// Integer -> float with rounding (exact value v).
#[inline]
pub fn int_to_float(dst: ScalarType, v: i128, m: CvtMods) -> Result<u64, OpError> {
    let hi = v as f64; // round to nearest
    let lo = (v - hi as i128) as f64; // its sign is all the rounding needs
    float_to_float(dst, hi, lo, m)
}

fn fmt_of(dst: ScalarType) -> Option<Format> {
    Some(match dst {
        ScalarType::F32 => round::F32,
        ScalarType::F64 => round::F64,
        ScalarType::F16 => round::F16,
        ScalarType::Bf16 => round::BF16,
        ScalarType::Tf32 => round::TF32,
        _ => return None,
    })
}

/// Rounds the exact value `hi + lo` to a float destination with cvt's modifiers.
#[inline]
pub fn float_to_float(dst: ScalarType, hi: f64, lo: f64, m: CvtMods) -> Result<u64, OpError> {
    let fmt = fmt_of(dst).ok_or(OpError::Unsupported("cvt to this float type"))?;
    if m.rnd == Rounding::Rs {
        return Err(OpError::Unsupported("cvt.rs (stochastic rounding)"));
    }
    let nan_bits: u64 = match dst {
        ScalarType::F64 => float::NAN64,
        ScalarType::F32 | ScalarType::Tf32 => NAN32 as u64,
        _ => NAN16 as u64,
    };
    if hi.is_nan() {
        return Ok(if m.sat {
            0
        } else if dst == ScalarType::F64 {
            nan64_of(hi)
        } else {
            nan_bits
        });
    }
    let mut r =
        if m.rnd == Rounding::Rn && lo == 0.0 && dst == ScalarType::F16 && (hi as f32) as f64 == hi
        {
            // Round-to-nearest of an f32: the `half` crate's f32 conversion is correctly rounded
            // (checked against APFloat in tests/ops_float.rs); its f64 one rounds twice.
            super::half::f16_to_f32(super::half::f32_to_f16_rne(hi as f32)) as f64
        } else {
            round_to(fmt, hi, lo, m.rnd)
        };
    if m.satfinite && r.is_infinite() {
        r = fmt.max().copysign(r);
    }
    if m.ftz {
        r = fmt.flush(r);
    }
    if m.relu && (r < 0.0 || (r == 0.0 && r.is_sign_negative())) {
        r = 0.0;
    }
    if m.sat {
        r = if r.is_sign_negative() {
            0.0
        } else {
            r.min(1.0)
        };
    }
    Ok(match dst {
        ScalarType::F64 => r.to_bits(),
        ScalarType::F32 | ScalarType::Tf32 => (r as f32).to_bits() as u64,
        _ => round::encode(fmt, r),
    })
}

#[inline]
fn nan64_of(x: f64) -> u64 {
    x.to_bits() | 0x0008_0000_0000_0000
}

/// cvt.frnd.f32.f64 and friends, by bits, for the engine's hot path.
#[inline]
pub fn f64_to_f32(a: u64, rnd: Rounding, ftz: bool, sat: bool) -> u32 {
    float::f64_to_f32(a, FloatMods { rnd, ftz, sat })
}

/// cvt with two f32 sources packed into one destination, the first source (`a`) in the upper
/// part: f16x2 / bf16x2 (16 bits each), e4m3x2 / e5m2x2 (bytes), e2m3x2 / e3m2x2 (6 bits in
/// the low bits of each byte), e2m1x2 (nibbles), ue8m0x2 (bytes; `.rz` or `.rp`). The f8/f6/f4
/// forms require `.rn.satfinite`; ue8m0x2 takes `.satfinite` as an option.
#[inline]
pub fn cvt_pack_f32(dst: ScalarType, a: u32, b: u32, m: CvtMods) -> Result<u32, OpError> {
    if dst == ScalarType::F16x2 && m == CvtMods::default() {
        // plain `.rn` (Triton's epilogue): the bit-level f32 → f16 rounding, which is what
        // `float_to_float` computes for this form (test `f16x2_rn_fast_path_equals_general`)
        return Ok(((f32_to_f16_rne(f32::from_bits(a)) as u32) << 16)
            | f32_to_f16_rne(f32::from_bits(b)) as u32);
    }
    use crate::narrow::{encode_ue8m0, pack_e2m1x2, pack_f6x2, Ue8m0Rounding};
    let narrow = |nf: NarrowFormat| -> Result<(u8, u8), OpError> {
        if m.rnd != Rounding::Rn {
            return Err(OpError::Illegal("f8/f6/f4 conversions round with .rn only"));
        }
        let enc = |x: u32| nf.encode_satfinite(f32::from_bits(x), m.relu);
        Ok((enc(a), enc(b)))
    };
    Ok(match dst {
        ScalarType::F16x2 | ScalarType::Bf16x2 => {
            let t = if dst == ScalarType::F16x2 {
                ScalarType::F16
            } else {
                ScalarType::Bf16
            };
            let one = |x: u32| float_to_float(t, f(x), 0.0, m).map(|v| v as u32);
            (one(a)? << 16) | one(b)?
        }
        ScalarType::E4m3x2 => {
            let (x, y) = narrow(NarrowFormat::E4m3)?;
            ((x as u32) << 8) | y as u32
        }
        ScalarType::E5m2x2 => {
            let (x, y) = narrow(NarrowFormat::E5m2)?;
            ((x as u32) << 8) | y as u32
        }
        ScalarType::E2m3x2 => {
            let (x, y) = narrow(NarrowFormat::E2m3)?;
            pack_f6x2(x, y) as u32
        }
        ScalarType::E3m2x2 => {
            let (x, y) = narrow(NarrowFormat::E3m2)?;
            pack_f6x2(x, y) as u32
        }
        ScalarType::E2m1x2 => {
            let (x, y) = narrow(NarrowFormat::E2m1)?;
            pack_e2m1x2(x, y) as u32
        }
        ScalarType::Ue8m0x2 => {
            let r = match m.rnd {
                Rounding::Rz => Ue8m0Rounding::Rz,
                Rounding::Rp => Ue8m0Rounding::Rp,
                _ => return Err(OpError::Illegal("cvt to ue8m0x2 rounds with .rz or .rp")),
            };
            let enc = |x: u32| encode_ue8m0(f32::from_bits(x), r, m.satfinite) as u32;
            (enc(a) << 8) | enc(b)
        }
        _ => return Err(OpError::Unsupported("cvt to this packed type from f32")),
    })
}

/// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d, a: each f16 half to f8, upper to upper.
#[inline]
pub fn cvt_f8x2_from_f16x2(dst: ScalarType, a: u32, relu: bool) -> Result<u16, OpError> {
    let nf = match dst {
        ScalarType::E4m3x2 => NarrowFormat::E4m3,
        ScalarType::E5m2x2 => NarrowFormat::E5m2,
        _ => return Err(OpError::Unsupported("cvt to this packed type from f16x2")),
    };
    let one = |h: u16| nf.encode_satfinite(HalfKind::F16.to_f64(h) as f32, relu) as u16;
    Ok((one((a >> 16) as u16) << 8) | one(a as u16))
}

/// cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2,e2m3x2,e3m2x2,e2m1x2} d, a: each element widened to f16
/// (exact), the upper element to the upper half. `a` holds the packed source (16 bits, or 8
/// for e2m1x2).
#[inline]
pub fn cvt_f16x2_from_f8x2(src: ScalarType, a: u16, relu: bool) -> Result<u32, OpError> {
    cvt_x2_from_narrow_x2(ScalarType::F16x2, src, a, relu)
}

/// `cvt.rn{.relu}.{f16x2,bf16x2}.<narrow>x2 d, a`: [`cvt_f16x2_from_f8x2`] with the destination
/// pair's type. bf16x2 is taken from every narrow pair (`cvt.rn{.relu}.bf16x2.{e4m3x2,e5m2x2,
/// e2m3x2,e3m2x2,e2m1x2}`: ptxas 13.5 accepts all five for sm_100a from PTX ISA 9.2 on, "Feature
/// 'cvt.bf16x2.e4m3x2' requires PTX ISA .version 9.2"; Triton 3.9 emits the e2m1x2 and e4m3x2
/// forms to upcast mxfp4 / mxfp8 operands of a bf16 `dot_scaled`): read as the f16x2 form with
/// bf16 halves, which is exact since every e4m3, e5m2, e2m3, e3m2 and e2m1 value is a bf16
/// (at most 3 fraction bits, magnitudes 2^-16..57344).
pub fn cvt_x2_from_narrow_x2(
    dst: ScalarType,
    src: ScalarType,
    a: u16,
    relu: bool,
) -> Result<u32, OpError> {
    let half = match (dst, src) {
        (ScalarType::F16x2, _) => ScalarType::F16,
        (ScalarType::Bf16x2, _) => ScalarType::Bf16,
        _ => {
            return Err(OpError::Unsupported(
                "cvt to this pair from a packed narrow type",
            ))
        }
    };
    let (nf, hi, lo) = match src {
        ScalarType::E4m3x2 => (NarrowFormat::E4m3, (a >> 8) as u8, a as u8),
        ScalarType::E5m2x2 => (NarrowFormat::E5m2, (a >> 8) as u8, a as u8),
        ScalarType::E2m3x2 => (
            NarrowFormat::E2m3,
            ((a >> 8) & 0x3f) as u8,
            (a & 0x3f) as u8,
        ),
        ScalarType::E3m2x2 => (
            NarrowFormat::E3m2,
            ((a >> 8) & 0x3f) as u8,
            (a & 0x3f) as u8,
        ),
        ScalarType::E2m1x2 => (NarrowFormat::E2m1, ((a >> 4) & 0xf) as u8, (a & 0xf) as u8),
        _ => return Err(OpError::Unsupported("cvt to f16x2 from this packed type")),
    };
    let one = |code: u8| -> u32 {
        let x = nf.decode(code) as f64;
        let m = CvtMods {
            relu,
            ..CvtMods::default()
        };
        float_to_float(half, x, 0.0, m).unwrap_or(NAN16 as u64) as u32
    };
    Ok((one(hi) << 16) | one(lo))
}

/// cvt.rn.bf16x2.ue8m0x2 d, a: each scale byte to bf16 (exact: 2^(code-127) is a bf16; 0xff is
/// NaN), the upper byte to the upper half.
#[inline]
pub fn cvt_bf16x2_from_ue8m0x2(a: u16) -> u32 {
    let one = |code: u8| -> u32 {
        if code == 0xff {
            return NAN16 as u32;
        }
        let x = NarrowFormat::Ue8m0.decode(code) as f64;
        float_to_float(ScalarType::Bf16, x, 0.0, CvtMods::default()).unwrap_or(NAN16 as u64) as u32
    };
    (one((a >> 8) as u8) << 16) | one(a as u8)
}

/// cvt.frnd3{.satfinite}.ue8m0x2.bf16x2 d, a: each bf16 half of `a` to a ue8m0 scale (`.rz`
/// or `.rp`), the upper half to the upper byte.
#[inline]
pub fn cvt_ue8m0x2_from_bf16x2(a: u32, m: CvtMods) -> Result<u16, OpError> {
    use crate::narrow::{encode_ue8m0, Ue8m0Rounding};
    let r = match m.rnd {
        Rounding::Rz => Ue8m0Rounding::Rz,
        Rounding::Rp => Ue8m0Rounding::Rp,
        _ => return Err(OpError::Illegal("cvt to ue8m0x2 rounds with .rz or .rp")),
    };
    let one = |h: u32| encode_ue8m0(f32::from_bits(h << 16), r, m.satfinite) as u16;
    Ok((one(a >> 16) << 8) | one(a & 0xffff))
}

/// cvt.pack.sat.{u16,s16}.s32 d, a, b: d = {sat(a), sat(b)} with a in the upper half;
/// cvt.pack.sat.{u8,s8}.s32.b32 d, a, b, c: d = {c[15:0], sat(a), sat(b)} (a in byte 1).
#[inline]
pub fn cvt_pack_sat(dst: IntTy, a: u32, b: u32, c: Option<u32>) -> u32 {
    let s = |x: u32| dst.sat(x as i32 as i128) as u32;
    match (dst.bits, c) {
        (16, _) => (s(a) << 16) | s(b),
        (_, c) => (c.unwrap_or(0) << 16) | (s(a) << 8) | s(b),
    }
}

#[inline]
fn f(x: u32) -> f64 {
    f32::from_bits(x) as f64
}

/// `cvt.rs{.relu}{.satfinite}.bf16x2.f32 d, a, b, rbits` (sm_100a, PTX 8.7): stochastic
/// rounding. The ISA (§9.7.9.21, rounding modifiers): "the result is rounded in the direction
/// toward zero or away from zero based on the carry out of the integer addition of the supplied
/// random bits (rbits) to the truncated off (discarded) bits of mantissa from the input". For
/// bf16 every finite f32 (subnormals included, bf16 shares f32's exponent range) discards
/// exactly its low 16 bits, and `rbits` gives 16 random bits per element: the upper half for
/// `a` (the upper half of `d`), the lower half for `b`. NaN gives the canonical NaN, as the
/// `.rn` forms do; `.satfinite` turns an infinite result into ±MAX; `.relu` clamps negatives
/// (and -0) to +0, also as the `.rn` forms do.
#[inline]
pub fn cvt_rs_bf16x2_f32(a: u32, b: u32, rbits: u32, relu: bool, satfinite: bool) -> u32 {
    let one = |x: u32, r: u16| -> u32 {
        let sign = (x >> 16) as u16 & 0x8000;
        let mag = x & 0x7fff_ffff;
        if mag > 0x7f80_0000 {
            return NAN16 as u32;
        }
        // an infinity has no discarded bits, so no carry; a finite magnitude's carry out of
        // bit 15 moves it one bf16 step away from zero (into infinity from MAX)
        let mut h = ((mag + r as u32) >> 16) as u16;
        if h == 0x7f80 && satfinite {
            h = 0x7f7f;
        }
        if relu && sign != 0 {
            return 0;
        }
        (sign | h) as u32
    };
    (one(a, (rbits >> 16) as u16) << 16) | one(b, rbits as u16)
}

#[cfg(test)]
mod fast_path_tests {
    use super::*;

    /// `cvt.rn.f16x2.f32` takes the bit-level rounding; it must equal the general
    /// `float_to_float` route on every kind of f32: each exponent with random mantissas, the
    /// f16 rounding boundaries (normal/subnormal edge, overflow at 65520), zeros, infinities
    /// and NaNs.
    #[test]
    fn f16x2_rn_fast_path_equals_general() {
        let general =
            |x: u32| float_to_float(ScalarType::F16, f(x), 0.0, CvtMods::default()).unwrap() as u32;
        let mut inputs = vec![
            0u32,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x7f80_0001,
            0xffff_ffff,
            65520f32.to_bits(),
            65519.996f32.to_bits(),
            65504f32.to_bits(),
            6.1035156e-5f32.to_bits(),
            2.9802322e-8f32.to_bits(),
            5.9604645e-8f32.to_bits(),
        ];
        let mut z = 0x1234_5678_9abc_def0u64;
        for e in 0..256u32 {
            for _ in 0..400 {
                z = z
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let man = (z >> 41) as u32 & 0x7f_ffff;
                // mantissas near a rounding tie of f16 (13 dropped bits) and random ones
                let tie = (man & !0x1fff) | 0x1000;
                for m in [man, tie, tie - 1, tie + 1] {
                    let x = (e << 23) | (m & 0x7f_ffff);
                    inputs.push(x);
                    inputs.push(x | 0x8000_0000);
                }
            }
        }
        for &x in &inputs {
            let y = x.rotate_left(7);
            let fast = cvt_pack_f32(ScalarType::F16x2, x, y, CvtMods::default()).unwrap();
            assert_eq!(fast, (general(x) << 16) | general(y), "{x:#x} {y:#x}");
        }
    }
}
