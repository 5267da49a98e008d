//! Exhaustive checks of the narrow formats against independent definitions: every code's
//! value is recomputed here from the format's (sign, exponent, mantissa, bias) definition in
//! f64, and encoding is checked against a brute-force "nearest representable, ties to even
//! mantissa" search over those independently computed values.
use tmemu_num::narrow::*;

/// (format, exponent bits, mantissa bits, bias, signed, has_inf, nan codes (magnitude))
struct Def {
    fmt: NarrowFormat,
    e: u32,
    m: u32,
    bias: i32,
    signed: bool,
    ieee_inf_nan: bool,
    nan_mag: Option<u32>,
}

const DEFS: [Def; 6] = [
    Def {
        fmt: NarrowFormat::E4m3,
        e: 4,
        m: 3,
        bias: 7,
        signed: true,
        ieee_inf_nan: false,
        nan_mag: Some(0x7F),
    },
    Def {
        fmt: NarrowFormat::E5m2,
        e: 5,
        m: 2,
        bias: 15,
        signed: true,
        ieee_inf_nan: true,
        nan_mag: None,
    },
    Def {
        fmt: NarrowFormat::E2m3,
        e: 2,
        m: 3,
        bias: 1,
        signed: true,
        ieee_inf_nan: false,
        nan_mag: None,
    },
    Def {
        fmt: NarrowFormat::E3m2,
        e: 3,
        m: 2,
        bias: 3,
        signed: true,
        ieee_inf_nan: false,
        nan_mag: None,
    },
    Def {
        fmt: NarrowFormat::E2m1,
        e: 2,
        m: 1,
        bias: 1,
        signed: true,
        ieee_inf_nan: false,
        nan_mag: None,
    },
    Def {
        fmt: NarrowFormat::Ue4m3,
        e: 4,
        m: 3,
        bias: 7,
        signed: false,
        ieee_inf_nan: false,
        nan_mag: Some(0x7F),
    },
];

/// The value a code denotes, by the textbook formula; None for NaN.
fn reference(d: &Def, code: u32) -> Option<f64> {
    let mag_bits = d.e + d.m;
    let mag = code & ((1 << mag_bits) - 1);
    let s = if d.signed && (code >> mag_bits) & 1 == 1 {
        -1.0
    } else {
        1.0
    };
    let e = (mag >> d.m) as i32;
    let m = (mag & ((1 << d.m) - 1)) as f64;
    let emax = (1 << d.e) - 1;
    if Some(mag) == d.nan_mag {
        return None;
    }
    if d.ieee_inf_nan && e == emax {
        return if m == 0.0 {
            Some(s * f64::INFINITY)
        } else {
            None
        };
    }
    let frac = m / 2f64.powi(d.m as i32);
    Some(if e == 0 {
        s * frac * 2f64.powi(1 - d.bias)
    } else {
        s * (1.0 + frac) * 2f64.powi(e - d.bias)
    })
}

fn width(d: &Def) -> u32 {
    d.e + d.m + u32::from(d.signed)
}

#[test]
fn every_code_decodes_to_its_definition() {
    for d in &DEFS {
        for code in 0..(1u32 << width(d)) {
            let got = d.fmt.decode(code as u8);
            match reference(d, code) {
                None => assert!(
                    got.is_nan(),
                    "{:?} {code:#x} should be NaN, got {got}",
                    d.fmt
                ),
                Some(v) => {
                    assert_eq!(got as f64, v, "{:?} code {code:#x}", d.fmt);
                    assert_eq!(
                        got.is_sign_negative(),
                        v.is_sign_negative(),
                        "{:?} {code:#x} sign",
                        d.fmt
                    );
                }
            }
        }
    }
}

#[test]
fn bits_above_the_width_are_ignored() {
    for d in &DEFS {
        let w = width(d);
        if w == 8 {
            continue;
        }
        for code in 0..256u32 {
            let low = code & ((1 << w) - 1);
            let a = d.fmt.decode(code as u8);
            let b = d.fmt.decode(low as u8);
            assert!(a.to_bits() == b.to_bits(), "{:?} {code:#x}", d.fmt);
        }
    }
}

#[test]
fn known_values() {
    assert_eq!(NarrowFormat::E4m3.decode(0x7E), 448.0);
    assert_eq!(NarrowFormat::E4m3.decode(0x01), 2f32.powi(-9));
    assert_eq!(NarrowFormat::E5m2.decode(0x7B), 57344.0);
    assert_eq!(NarrowFormat::E5m2.decode(0x7C), f32::INFINITY);
    assert_eq!(NarrowFormat::E5m2.decode(0x01), 2f32.powi(-16));
    assert_eq!(NarrowFormat::E2m3.decode(0x1F), 7.5);
    assert_eq!(NarrowFormat::E3m2.decode(0x1F), 28.0);
    assert_eq!(NarrowFormat::E3m2.decode(0x01), 0.0625);
    let e2m1: Vec<f32> = (0..8).map(|c| NarrowFormat::E2m1.decode(c)).collect();
    assert_eq!(e2m1, [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]);
    assert_eq!(NarrowFormat::E2m1.decode(0xF), -6.0);
}

#[test]
fn ue8m0_is_a_power_of_two() {
    for c in 0..255u32 {
        assert_eq!(
            NarrowFormat::Ue8m0.decode(c as u8) as f64,
            2f64.powi(c as i32 - 127)
        );
        for r in [Ue8m0Rounding::Rz, Ue8m0Rounding::Rp] {
            assert_eq!(encode_ue8m0(2f32.powi(c as i32 - 127), r, true), c as u8);
        }
    }
    assert!(NarrowFormat::Ue8m0.decode(0xFF).is_nan());
    assert_eq!(encode_ue8m0(3.0, Ue8m0Rounding::Rz, true), 128);
    assert_eq!(encode_ue8m0(3.0, Ue8m0Rounding::Rp, true), 129);
    assert_eq!(encode_ue8m0(f32::INFINITY, Ue8m0Rounding::Rz, true), 0xFE);
    assert_eq!(encode_ue8m0(f32::INFINITY, Ue8m0Rounding::Rz, false), 0xFF);
    assert_eq!(encode_ue8m0(f32::MAX, Ue8m0Rounding::Rp, true), 0xFE);
    assert_eq!(encode_ue8m0(f32::MAX, Ue8m0Rounding::Rp, false), 0xFF);
    assert_eq!(encode_ue8m0(f32::NAN, Ue8m0Rounding::Rp, true), 0xFF);
    assert_eq!(encode_ue8m0(0.0, Ue8m0Rounding::Rp, true), 0);
    // Between 2^-127 and 2^-126 (f32 subnormals).
    assert_eq!(
        encode_ue8m0(f32::from_bits(0x0060_0000), Ue8m0Rounding::Rp, true),
        1
    );
    assert_eq!(
        encode_ue8m0(f32::from_bits(0x0060_0000), Ue8m0Rounding::Rz, true),
        0
    );
}

#[test]
fn encode_inverts_decode_for_every_non_nan_code() {
    for d in &DEFS {
        for code in 0..(1u32 << width(d)) {
            let v = d.fmt.decode(code as u8);
            if v.is_nan() {
                continue;
            }
            if v.is_infinite() {
                // satfinite: e5m2 infinities saturate to MAX_NORM.
                let max = if v > 0.0 { 0x7B } else { 0xFB };
                assert_eq!(d.fmt.encode_satfinite(v, false), max);
                continue;
            }
            if !d.signed && code >= 0x80 {
                continue;
            }
            assert_eq!(
                d.fmt.encode_satfinite(v, false) as u32,
                code,
                "{:?} {code:#x} = {v}",
                d.fmt
            );
        }
    }
}

/// Independent encoder: nearest finite value; ties go to the even code (mantissa LSB 0);
/// beyond the largest finite value, saturate.
fn brute_encode(d: &Def, x: f64) -> u32 {
    let mut best: Option<(f64, u32)> = None;
    let sign_bit = d.e + d.m;
    for code in 0..(1u32 << width(d)) {
        let Some(v) = reference(d, code) else {
            continue;
        };
        if !v.is_finite() {
            continue;
        }
        // Only codes with x's sign (zero matches both; keep the code whose sign equals x's).
        if d.signed && ((code >> sign_bit) & 1 == 1) != (x.is_sign_negative()) {
            continue;
        }
        let dist = (v - x).abs();
        match best {
            None => best = Some((dist, code)),
            Some((bd, bc)) => {
                if dist < bd || (dist == bd && code & 1 == 0 && bc & 1 == 1) {
                    best = Some((dist, code));
                }
            }
        }
    }
    best.unwrap().1
}

#[test]
fn encode_rounds_to_nearest_even_and_saturates() {
    let mut seed = 0x1234_5678_9abc_def0u64;
    for d in &DEFS {
        if !d.signed {
            continue;
        }
        let mut xs: Vec<f64> = Vec::new();
        // Every midpoint between neighbouring values, and points just off them.
        let mut vals: Vec<f64> = (0..(1u32 << width(d)))
            .filter_map(|c| reference(d, c))
            .filter(|v| v.is_finite() && *v >= 0.0)
            .collect();
        vals.sort_by(|a, b| a.partial_cmp(b).unwrap());
        vals.dedup();
        for w in vals.windows(2) {
            let mid = (w[0] + w[1]) / 2.0;
            for x in [mid, mid * (1.0 + 1e-6), mid * (1.0 - 1e-6), w[0], w[1]] {
                xs.push(x);
                xs.push(-x);
            }
        }
        let max = *vals.last().unwrap();
        xs.extend([max * 1.01, max * 1000.0, -max * 3.0, 1e-30, -1e-30]);
        for _ in 0..20000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let exp = ((seed >> 33) % 40) as i32 - 25;
            let mant = ((seed >> 8) & 0xFFFFFF) as f64 / (1u64 << 24) as f64 + 1.0;
            let s = if seed & 1 == 0 { 1.0 } else { -1.0 };
            xs.push(s * mant * 2f64.powi(exp));
        }
        for x in xs {
            let xf = x as f32;
            let want = brute_encode(d, xf as f64);
            let got = d.fmt.encode_satfinite(xf, false) as u32;
            assert_eq!(got, want, "{:?} encode({xf:e})", d.fmt);
        }
    }
}

#[test]
fn nan_inf_and_relu() {
    assert_eq!(NarrowFormat::E4m3.encode_satfinite(f32::NAN, false), 0x7F);
    assert_eq!(NarrowFormat::E5m2.encode_satfinite(f32::NAN, false), 0x7F);
    assert_eq!(
        NarrowFormat::E4m3.encode_satfinite(f32::INFINITY, false),
        0x7E
    );
    assert_eq!(
        NarrowFormat::E4m3.encode_satfinite(f32::NEG_INFINITY, false),
        0xFE
    );
    assert_eq!(
        NarrowFormat::E5m2.encode_satfinite(f32::NEG_INFINITY, false),
        0xFB
    );
    // Formats without NaN: NaN saturates to +MAX_NORM (our reading, see narrow.rs).
    assert_eq!(NarrowFormat::E2m1.encode_satfinite(f32::NAN, false), 0x7);
    assert_eq!(NarrowFormat::E2m3.encode_satfinite(f32::NAN, false), 0x1F);
    assert_eq!(
        NarrowFormat::E3m2.encode_satfinite(f32::INFINITY, false),
        0x1F
    );
    assert_eq!(NarrowFormat::E2m1.encode_satfinite(-100.0, false), 0xF);
    // 464 is the midpoint of 448 and 480 (480 would be the NaN code): ties to even = 448.
    assert_eq!(NarrowFormat::E4m3.encode_satfinite(464.0, false), 0x7E);
    assert_eq!(NarrowFormat::E4m3.encode_satfinite(-0.0, false), 0x80);
    assert_eq!(NarrowFormat::E4m3.encode_satfinite(-3.0, true), 0x00);
    assert_eq!(NarrowFormat::E4m3.encode_satfinite(f32::NAN, true), 0x7F);
    assert_eq!(NarrowFormat::E2m1.encode_satfinite(2.5, false), 0x4); // tie 2|3 -> 2 (even)
    assert_eq!(NarrowFormat::E2m1.encode_satfinite(3.5, false), 0x6); // tie 3|4 -> 4 (even)
    assert_eq!(NarrowFormat::E2m1.encode_satfinite(0.25, false), 0x0); // tie 0|0.5 -> 0
    assert_eq!(NarrowFormat::E2m1.encode_satfinite(0.75, false), 0x2); // tie 0.5|1 -> 1
}

#[test]
fn packed_forms() {
    assert_eq!(pack_e2m1x2(0x3, 0xA), 0x3A);
    assert_eq!(unpack_e2m1x2(0x3A), (0x3, 0xA));
    assert_eq!(pack_f6x2(0x3F, 0x01), 0x3F01);
    assert_eq!(pack_x4(1, 2, 3, 4), 0x0102_0304);
    let elems: [u8; 16] = core::array::from_fn(|i| (i as u8 * 7 + 3) & 0x3F);
    let packed = pack_b6x16(&elems);
    assert_eq!(unpack_b6x16(&packed), elems);
    // element 0 in bits 0..5 of byte 0, element 1 in bits 6..11.
    let mut one = [0u8; 16];
    one[1] = 0x3F;
    assert_eq!(pack_b6x16(&one), [0xC0, 0x0F, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    let e4: [u8; 16] = core::array::from_fn(|i| i as u8);
    let p4 = pack_b4x16(&e4);
    assert_eq!(p4[0], 0x10);
    assert_eq!(unpack_b4x16(&p4), e4);
}

#[test]
fn ue8m0_to_bf16_is_exact() {
    for c in 0..255u8 {
        let bf16 = f32::from_bits(u32::from(ue8m0_to_bf16_bits(c)) << 16);
        assert_eq!(bf16 as f64, 2f64.powi(i32::from(c) - 127), "code {c}");
        assert_eq!(bf16, NarrowFormat::Ue8m0.decode(c));
    }
    assert!(f32::from_bits(u32::from(ue8m0_to_bf16_bits(0xFF)) << 16).is_nan());
}
