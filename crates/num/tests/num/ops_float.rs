//! f32/f16/bf16 arithmetic and conversions against an independent IEEE 754 implementation
//! (rustc_apfloat, LLVM's APFloat ported to Rust) in every rounding direction: edge values
//! (±0, subnormals, normal/subnormal boundary, overflow boundary, ±inf, NaN, halfway cases)
//! and pseudo-random bit patterns.

use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round};
use tmemu_num::ops::float::{self as fl, FloatMods};
use tmemu_num::ops::half::{eval_half, HalfKind, HalfMods, HalfOp};
use tmemu_num::ops::{cvt, CvtMods, Rounding, ScalarType as T};

const MODES: [(Rounding, Round); 4] = [
    (Rounding::Rn, Round::NearestTiesToEven),
    (Rounding::Rz, Round::TowardZero),
    (Rounding::Rm, Round::TowardNegative),
    (Rounding::Rp, Round::TowardPositive),
];

const EDGES32: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x807f_ffff,
    0x0080_0000,
    0x8080_0000,
    0x0080_0001,
    0x3f80_0000,
    0xbf80_0000,
    0x3f80_0001,
    0x3f7f_ffff,
    0x4000_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x7f7f_fffe,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0x3400_0000,
    0x3380_0000,
    0x3300_0000,
    0x4b80_0000,
    0x4b00_0001,
    0x0040_0000,
    0x0000_0003,
    0x3eaa_aaab,
    0x3fc0_0000,
    0x4040_0000,
    0x5f80_0000,
    0x1f80_0000,
    0x0100_0000,
    0x7e80_0000,
    0x3f00_0001,
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Mostly values whose sums, products and quotients land near each other's ulp, some raw.
    fn f32(&mut self) -> u32 {
        let r = self.next();
        match r % 8 {
            0 => EDGES32[(r >> 8) as usize % EDGES32.len()],
            1 | 2 => (r >> 16) as u32,
            3 => ((r >> 16) as u32 & 0x807f_ffff) | ((((r >> 48) % 8) as u32) << 23),
            _ => ((r >> 16) as u32 & 0x807f_ffff) | (((100 + (r >> 48) % 56) as u32) << 23),
        }
    }
}

fn pairs(n: usize) -> Vec<(u32, u32, u32)> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut v = Vec::new();
    for &a in EDGES32 {
        for &b in EDGES32 {
            v.push((a, b, EDGES32[(a ^ b) as usize % EDGES32.len()]));
        }
    }
    for _ in 0..n {
        let (a, b) = (rng.f32(), rng.f32());
        // Make some operands cancel or nearly: c close to -(a*b) for fma, b close to -a.
        let c = if rng.next().is_multiple_of(3) {
            ((-(f32::from_bits(a) * f32::from_bits(b))).to_bits())
                .wrapping_add((rng.next() % 5) as u32)
        } else {
            rng.f32()
        };
        let b = if rng.next().is_multiple_of(5) {
            (a ^ 0x8000_0000).wrapping_add((rng.next() % 3) as u32)
        } else {
            b
        };
        v.push((a, b, c));
    }
    v
}

fn same32(ours: u32, reference: Single) -> bool {
    let r = reference.to_bits() as u32;
    // The canonical NaN is ours to choose; IEEE only says "a NaN".
    if fl::is_nan32(r) {
        return fl::is_nan32(ours);
    }
    ours == r
}

fn s(x: u32) -> Single {
    Single::from_bits(x as u128)
}

#[test]
fn f32_add_sub_mul_div_fma_match_ieee_in_every_direction() {
    for (a, b, c) in pairs(60_000) {
        for (rnd, round) in MODES {
            let m = FloatMods {
                rnd,
                ftz: false,
                sat: false,
            };
            let cases = [
                ("add", fl::f32_add(a, b, m), s(a).add_r(s(b), round).value),
                ("sub", fl::f32_sub(a, b, m), s(a).sub_r(s(b), round).value),
                ("mul", fl::f32_mul(a, b, m), s(a).mul_r(s(b), round).value),
                ("div", fl::f32_div(a, b, m), s(a).div_r(s(b), round).value),
                (
                    "fma",
                    fl::f32_fma(a, b, c, m),
                    s(a).mul_add_r(s(b), s(c), round).value,
                ),
            ];
            for (op, ours, reference) in cases {
                assert!(
                    same32(ours, reference),
                    "{op}.{rnd:?}.f32 {a:#x} {b:#x} {c:#x}: ours {ours:#x}, IEEE {:#x}",
                    reference.to_bits()
                );
            }
        }
    }
}

/// sqrt has no APFloat reference; check the defining bracket exactly: for the rounded root r
/// and its neighbours, r*r and next*next are exact in f64 and compare with x exactly.
#[test]
fn f32_sqrt_is_correctly_rounded_in_every_direction() {
    let mut rng = Rng(12345);
    let mut inputs: Vec<u32> = EDGES32.iter().map(|&x| x & 0x7fff_ffff).collect();
    inputs.extend((0..200_000).map(|_| rng.f32() & 0x7fff_ffff));
    for x in inputs {
        let xf = f32::from_bits(x) as f64;
        if !xf.is_finite() || xf == 0.0 {
            continue;
        }
        for (rnd, _) in MODES {
            let r = f32::from_bits(fl::f32_sqrt(
                x,
                FloatMods {
                    rnd,
                    ftz: false,
                    sat: false,
                },
            ));
            let lo = r as f64;
            let up = f32::from_bits(r.to_bits() + 1) as f64;
            let down = f32::from_bits(r.to_bits() - 1) as f64;
            match rnd {
                Rounding::Rz | Rounding::Rm => {
                    assert!(lo * lo <= xf && xf < up * up, "{x:#x} {rnd:?}")
                }
                Rounding::Rp => assert!(down * down < xf && xf <= lo * lo, "{x:#x} {rnd:?}"),
                _ => {
                    // |r - sqrt x| <= half ulp  <=>  (r - h)^2 <= x <= (r + h)^2, exact in f64.
                    let (h1, h2) = ((lo - down) / 2.0, (up - lo) / 2.0);
                    assert!(
                        (lo - h1) * (lo - h1) <= xf && xf <= (lo + h2) * (lo + h2),
                        "{x:#x}"
                    );
                }
            }
        }
    }
}

#[test]
fn f32_ftz_and_sat() {
    let m = FloatMods {
        rnd: Rounding::Rn,
        ftz: true,
        sat: false,
    };
    // Subnormal inputs are zeros under .ftz, subnormal results flush to signed zero.
    assert_eq!(fl::f32_add(0x0000_0001, 0x0000_0001, m), 0);
    assert_eq!(fl::f32_mul(0x8080_0000, 0x3f00_0000, m), 0x8000_0000);
    assert_eq!(
        fl::f32_add(0x0000_0001, 0x0000_0001, FloatMods::RN),
        0x0000_0002
    );
    let sat = FloatMods {
        rnd: Rounding::Rn,
        ftz: false,
        sat: true,
    };
    assert_eq!(fl::f32_add(0x4000_0000, 0x4000_0000, sat), 0x3f80_0000);
    assert_eq!(fl::f32_add(0xbf80_0000, 0x0000_0000, sat), 0);
    assert_eq!(fl::f32_add(0x7fc0_0000, 0x0000_0000, sat), 0);
    assert_eq!(
        fl::f32_add(0x7fc0_0000, 0x3f80_0000, FloatMods::RN),
        fl::NAN32
    );
}

#[test]
fn f64_to_f32_and_int_to_float_match_ieee() {
    let mut rng = Rng(777);
    let mut xs: Vec<u64> = EDGES32
        .iter()
        .map(|&x| (f32::from_bits(x) as f64).to_bits())
        .collect();
    for _ in 0..100_000 {
        let r = rng.next();
        // f64 values around the f32 range, with full 52-bit mantissas.
        let e = if r.is_multiple_of(2) {
            1023 - 30 + (r >> 52) % 50
        } else {
            1023 - 160 + (r >> 52) % 300
        };
        xs.push((r & 0x800f_ffff_ffff_ffff) | (e << 52));
    }
    for x in xs {
        for (rnd, round) in MODES {
            let ours = cvt(T::F32, T::F64, x, CvtMods::rnd(rnd)).unwrap() as u32;
            let mut lost = false;
            let r: Single = Double::from_bits(x as u128)
                .convert_r(round, &mut lost)
                .value;
            assert!(
                same32(ours, r),
                "cvt.{rnd:?}.f32.f64 {x:#x}: {ours:#x} vs {:#x}",
                r.to_bits()
            );
            let ours = cvt(T::F16, T::F64, x, CvtMods::rnd(rnd)).unwrap() as u16;
            let r: Half = Double::from_bits(x as u128)
                .convert_r(round, &mut lost)
                .value;
            let rb = r.to_bits() as u16;
            assert!(
                ours == rb || ((rb & 0x7fff) > 0x7c00 && (ours & 0x7fff) > 0x7c00),
                "cvt.{rnd:?}.f16.f64 {x:#x}: {ours:#x} vs {rb:#x}"
            );
        }
    }
    let mut rng = Rng(4242);
    for _ in 0..100_000 {
        let v = rng.next() >> (rng.next() % 64);
        for (rnd, round) in MODES {
            let ours = cvt(T::F32, T::U64, v, CvtMods::rnd(rnd)).unwrap() as u32;
            let r = Single::from_u128_r(v as u128, round).value;
            assert_eq!(ours, r.to_bits() as u32, "cvt.{rnd:?}.f32.u64 {v:#x}");
            let sv = v as i64;
            let ours = cvt(T::F64, T::S64, v, CvtMods::rnd(rnd)).unwrap();
            let r = Double::from_i128_r(sv as i128, round).value;
            assert_eq!(ours, r.to_bits() as u64, "cvt.{rnd:?}.f64.s64 {sv}");
        }
    }
}

/// Every f32 bit pattern of a stride through the whole space, to f16 and bf16 in all modes.
#[test]
fn f32_to_f16_and_bf16_match_ieee() {
    let mut x: u32 = 0;
    loop {
        for (rnd, round) in MODES {
            let mut lost = false;
            let h = cvt(T::F16, T::F32, x as u64, CvtMods::rnd(rnd)).unwrap() as u16;
            let r: Half = s(x).convert_r(round, &mut lost).value;
            let rb = r.to_bits() as u16;
            assert!(
                h == rb || ((rb & 0x7fff) > 0x7c00 && h == 0x7fff),
                "cvt.{rnd:?}.f16.f32 {x:#x}: {h:#x} vs {rb:#x}"
            );
            let b = cvt(T::Bf16, T::F32, x as u64, CvtMods::rnd(rnd)).unwrap() as u16;
            let r: BFloat = s(x).convert_r(round, &mut lost).value;
            let rb = r.to_bits() as u16;
            assert!(
                b == rb || ((rb & 0x7fff) > 0x7f80 && b == 0x7fff),
                "cvt.{rnd:?}.bf16.f32 {x:#x}: {b:#x} vs {rb:#x}"
            );
        }
        match x.checked_add(9973) {
            Some(n) => x = n,
            None => break,
        }
    }
}

/// Every f16 `a` against a spread of `b` (and `c`), add/mul/fma, against APFloat Half; the
/// same for bf16.
#[test]
fn f16_and_bf16_arithmetic_match_ieee_exhaustively_in_a() {
    let bs: Vec<u16> = (0..48u32)
        .map(|i| (i.wrapping_mul(0x9e37_79b9) >> 16) as u16)
        .chain([
            0x0000, 0x8000, 0x0001, 0x3c00, 0xbc00, 0x7bff, 0x7c00, 0x0400, 0x3555, 0xc000, 0x7f7f,
            0x0080, 0x3f80,
        ])
        .collect();
    let m = HalfMods::default();
    for a in 0..=u16::MAX {
        for (j, &b) in bs.iter().enumerate() {
            let c = bs[(j * 7 + a as usize) % bs.len()];
            let h = |x: u16| Half::from_bits(x as u128);
            let bf = |x: u16| BFloat::from_bits(x as u128);
            let rne = Round::NearestTiesToEven;
            let checks: [(&str, HalfKind, u16, u128); 6] = [
                (
                    "add.f16",
                    HalfKind::F16,
                    eval_half(HalfKind::F16, HalfOp::Add, a, b, c, m),
                    h(a).add_r(h(b), rne).value.to_bits(),
                ),
                (
                    "mul.f16",
                    HalfKind::F16,
                    eval_half(HalfKind::F16, HalfOp::Mul, a, b, c, m),
                    h(a).mul_r(h(b), rne).value.to_bits(),
                ),
                (
                    "fma.f16",
                    HalfKind::F16,
                    eval_half(HalfKind::F16, HalfOp::Fma, a, b, c, m),
                    h(a).mul_add_r(h(b), h(c), rne).value.to_bits(),
                ),
                (
                    "add.bf16",
                    HalfKind::Bf16,
                    eval_half(HalfKind::Bf16, HalfOp::Add, a, b, c, m),
                    bf(a).add_r(bf(b), rne).value.to_bits(),
                ),
                (
                    "mul.bf16",
                    HalfKind::Bf16,
                    eval_half(HalfKind::Bf16, HalfOp::Mul, a, b, c, m),
                    bf(a).mul_r(bf(b), rne).value.to_bits(),
                ),
                (
                    "fma.bf16",
                    HalfKind::Bf16,
                    eval_half(HalfKind::Bf16, HalfOp::Fma, a, b, c, m),
                    bf(a).mul_add_r(bf(b), bf(c), rne).value.to_bits(),
                ),
            ];
            for (op, k, ours, r) in checks {
                let r = r as u16;
                assert!(
                    ours == r || (k.is_nan(r) && ours == 0x7fff),
                    "{op} {a:#x} {b:#x} {c:#x}: ours {ours:#x}, IEEE {r:#x}"
                );
            }
        }
    }
}

#[test]
fn min_max_zero_and_nan_rules() {
    use tmemu_num::ops::float::MinMaxMods;
    let plain = MinMaxMods::default();
    assert_eq!(fl::f32_min(0x0000_0000, 0x8000_0000, plain), 0x8000_0000);
    assert_eq!(fl::f32_max(0x8000_0000, 0x0000_0000, plain), 0x0000_0000);
    assert_eq!(fl::f32_min(0x7fc0_0000, 0x3f80_0000, plain), 0x3f80_0000);
    assert_eq!(fl::f32_min(0x7fc0_0000, 0x7fc0_0001, plain), fl::NAN32);
    let nan = MinMaxMods { nan: true, ..plain };
    assert_eq!(fl::f32_max(0x7fc0_0000, 0x3f80_0000, nan), fl::NAN32);
    let xs = MinMaxMods {
        xorsign_abs: true,
        ..plain
    };
    // min(|-2|, |3|) = 2 with sign (-) xor (+) = -.
    assert_eq!(fl::f32_min(0xc000_0000, 0x4040_0000, xs), 0xc000_0000);
}

#[test]
fn packed_narrow_conversions_put_a_in_the_upper_part() {
    use tmemu_num::ops::cvt::{
        cvt_bf16x2_from_ue8m0x2, cvt_f16x2_from_f8x2, cvt_pack_f32, cvt_ue8m0x2_from_bf16x2,
    };
    let (one, six) = (1.0f32.to_bits(), 6.0f32.to_bits());
    let rn = CvtMods::rnd(Rounding::Rn);
    // e2m1: 1.0 = 0b0010, 6.0 = 0b0111 (the largest finite); 7.0 saturates to 6.0.
    assert_eq!(cvt_pack_f32(T::E2m1x2, one, six, rn).unwrap(), 0x27);
    assert_eq!(
        cvt_pack_f32(T::E2m1x2, 7.0f32.to_bits(), one, rn).unwrap(),
        0x72
    );
    // e2m3: 1.0 = 0b0_01_000; e3m2: 1.0 = 0b0_011_00; six bits in the low bits of each byte.
    assert_eq!(cvt_pack_f32(T::E2m3x2, one, 0, rn).unwrap(), 0x0800);
    assert_eq!(cvt_pack_f32(T::E3m2x2, 0, one, rn).unwrap(), 0x000c);
    // e4m3: 1.0 = 0x38, e5m2: 1.0 = 0x3c; -448 is e4m3's most negative finite value.
    assert_eq!(
        cvt_pack_f32(T::E4m3x2, one, (-1000.0f32).to_bits(), rn).unwrap(),
        0x38fe
    );
    assert_eq!(cvt_pack_f32(T::E5m2x2, 0, one, rn).unwrap(), 0x003c);
    // f16x2 / bf16x2 from two f32.
    assert_eq!(cvt_pack_f32(T::F16x2, one, six, rn).unwrap(), 0x3c00_4600);
    assert_eq!(cvt_pack_f32(T::Bf16x2, six, one, rn).unwrap(), 0x40c0_3f80);
    // ue8m0: 2^(code-127); .rz truncates, .rp rounds up; 3.0 -> 2^1 (rz) or 2^2 (rp).
    let rz = CvtMods::rnd(Rounding::Rz);
    let rp = CvtMods::rnd(Rounding::Rp);
    let three = 3.0f32.to_bits();
    assert_eq!(cvt_pack_f32(T::Ue8m0x2, one, three, rz).unwrap(), 0x7f80);
    assert_eq!(cvt_pack_f32(T::Ue8m0x2, one, three, rp).unwrap(), 0x7f81);
    assert!(cvt_pack_f32(T::Ue8m0x2, one, three, rn).is_err());
    assert_eq!(cvt_ue8m0x2_from_bf16x2(0x4040_3f80, rp).unwrap(), 0x817f);
    assert_eq!(cvt_bf16x2_from_ue8m0x2(0x807f), 0x4000_3f80);
    // Widening back: e2m1x2 0x27 -> f16x2 {1.0, 6.0}.
    assert_eq!(
        cvt_f16x2_from_f8x2(T::E2m1x2, 0x27, false).unwrap(),
        0x3c00_4600
    );
    assert_eq!(
        cvt_f16x2_from_f8x2(T::E4m3x2, 0x38b8, true).unwrap(),
        0x3c00_0000
    );
    // bf16x2 from e2m1x2 (Triton 3.9's mxfp4 weight upcast, holdout
    // ho5_dot_scaled_bf16_mxfp4): 0x2f -> {1.0, -6.0} = bf16 0x3f80, 0xc0c0; other narrow
    // sources to bf16x2 are not taken.
    use tmemu_num::ops::cvt::cvt_x2_from_narrow_x2;
    assert_eq!(
        cvt_x2_from_narrow_x2(T::Bf16x2, T::E2m1x2, 0x2f, false).unwrap(),
        0x3f80_c0c0
    );
    assert_eq!(
        cvt_x2_from_narrow_x2(T::Bf16x2, T::E2m1x2, 0x9f, true).unwrap(),
        0x0000_0000
    );
    // bf16x2 from e4m3x2 (Triton 3.9's mxfp8 upcast for a bf16 `dot_scaled`, holdout
    // ho11_dot_scaled_mxfp8_bf16): 0x38b8 -> {1.0, -1.0} = bf16 0x3f80, 0xbf80.
    assert_eq!(
        cvt_x2_from_narrow_x2(T::Bf16x2, T::E4m3x2, 0x38b8, false).unwrap(),
        0x3f80_bf80
    );
    // Stochastic rounding is not modelled: an error, not a value.
    assert!(cvt(T::F16, T::F32, one as u64, CvtMods::rnd(Rounding::Rs)).is_err());
}

/// Every f16 and bf16 bit pattern through the widening and integer-rounding conversions.
#[test]
fn every_f16_and_bf16_converts_exactly() {
    for h in 0..=u16::MAX {
        let x = half::f16::from_bits(h);
        let f = cvt(T::F32, T::F16, h as u64, CvtMods::default()).unwrap() as u32;
        if x.is_nan() {
            assert_eq!(f, fl::NAN32, "{h:#x}");
        } else {
            assert_eq!(f, x.to_f32().to_bits(), "{h:#x}");
            let i = cvt(T::S32, T::F16, h as u64, CvtMods::rnd(Rounding::Rni)).unwrap() as u32;
            assert_eq!(i as i32, x.to_f64().round_ties_even() as i32, "{h:#x}");
            let r = cvt(T::F16, T::F16, h as u64, CvtMods::rnd(Rounding::Rmi)).unwrap() as u16;
            assert_eq!(
                half::f16::from_bits(r).to_f64(),
                x.to_f64().floor(),
                "{h:#x}"
            );
        }
        let b = cvt(T::F32, T::Bf16, h as u64, CvtMods::default()).unwrap() as u32;
        assert_eq!(b, (h as u32) << 16, "bf16 {h:#x}");
    }
}

#[test]
fn blackwell_three_input_minmax_and_f32x2() {
    use tmemu_num::ops::float::{f32_max3, f32_min3, f32x2, FloatOp, MinMaxMods};
    use tmemu_num::ops::half::half_cmp;
    use tmemu_num::ops::CmpOp;
    let mm = MinMaxMods::default();
    let (m2, p1, p3) = ((-2.0f32).to_bits(), 1.0f32.to_bits(), 3.0f32.to_bits());
    assert_eq!(f32_min3(p1, m2, p3, mm, false), m2);
    assert_eq!(f32_min3(p3, m2, p1, mm, true), p1);
    assert_eq!(f32_max3(p1, m2, 0x7fc0_0000, mm, true), 2.0f32.to_bits());
    let nan = MinMaxMods { nan: true, ..mm };
    assert_eq!(f32_max3(p1, m2, 0x7fc0_0000, nan, false), fl::NAN32);
    // f32x2: each half on its own, with the instruction's rounding.
    let a = (p3 as u64) << 32 | p1 as u64;
    let b = (m2 as u64) << 32 | p3 as u64;
    let r = f32x2(FloatOp::Add, a, b, 0, FloatMods::RN);
    assert_eq!(r, (1.0f32.to_bits() as u64) << 32 | 4.0f32.to_bits() as u64);
    let third = 1.0f32 / 3.0;
    let rz = FloatMods {
        rnd: Rounding::Rz,
        ..FloatMods::RN
    };
    let r = f32x2(
        FloatOp::Div,
        (p1 as u64) << 32 | p1 as u64,
        (p3 as u64) << 32 | p3 as u64,
        0,
        rz,
    );
    // 1/3 rounds up to nearest (0x3eaaaaab); toward zero it is one ulp below, in both halves.
    assert_eq!(third.to_bits(), 0x3eaa_aaab);
    assert_eq!(r, 0x3eaa_aaaa_3eaa_aaaa);
    // f16 comparisons: ordered vs unordered.
    assert!(half_cmp(HalfKind::F16, CmpOp::Lt, 0x3c00, 0x4000, false));
    assert!(!half_cmp(HalfKind::F16, CmpOp::Lt, 0x7e00, 0x4000, false));
    assert!(half_cmp(HalfKind::F16, CmpOp::Ltu, 0x7e00, 0x4000, false));
    assert!(!half_cmp(HalfKind::Bf16, CmpOp::Eq, 0x0001, 0x8000, false));
    assert!(half_cmp(HalfKind::F16, CmpOp::Eq, 0x0001, 0x8000, true));
}

/// `cvt.rn{.relu}.bf16x2.{e4m3x2,e5m2x2,e2m3x2,e3m2x2,e2m1x2}` (PTX ISA 9.2, sm_100a: ptxas 13.5
/// takes all five): every narrow value is a bf16 (at most 3 fraction bits, exponents within
/// 2^-16..2^15), so each half is the f16x2 form's value, exactly, in bf16; NaN stays NaN; relu
/// clamps negatives to +0 as for f16x2. Every code pair of every source format.
#[test]
fn bf16x2_from_every_narrow_pair_is_exact() {
    use tmemu_num::ops::cvt::cvt_x2_from_narrow_x2;
    for src in [T::E4m3x2, T::E5m2x2, T::E2m3x2, T::E3m2x2, T::E2m1x2] {
        let (bits, mask) = match src {
            T::E2m1x2 => (8, 0xffu32),
            _ => (16, 0xffff),
        };
        for a in 0..(1u32 << bits) {
            let a = (a & mask) as u16;
            for relu in [false, true] {
                let h = cvt_x2_from_narrow_x2(T::F16x2, src, a, relu).unwrap();
                let b = cvt_x2_from_narrow_x2(T::Bf16x2, src, a, relu)
                    .unwrap_or_else(|e| panic!("{src:?} {a:#x}: {e:?}"));
                for sh in [0, 16] {
                    let hv = HalfKind::F16.to_f64((h >> sh) as u16);
                    let bv = HalfKind::Bf16.to_f64((b >> sh) as u16);
                    if hv.is_nan() {
                        assert!(bv.is_nan(), "{src:?} {a:#x} relu {relu}: NaN -> {bv}");
                    } else {
                        assert_eq!(hv.to_bits(), bv.to_bits(), "{src:?} {a:#x} relu {relu}");
                    }
                }
            }
        }
    }
}
