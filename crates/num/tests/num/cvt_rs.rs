//! `cvt.rs.bf16x2.f32` (stochastic rounding) against a reference computed on values, not bits:
//! the two bf16 neighbours of |x| are found by search over the bf16 codes (a bf16 code `c` is
//! the f32 `c << 16`, by definition of the format), and the ISA's rule is applied to the
//! fraction of the gap that |x| covers: the discarded part, scaled to 16 bits, plus the random
//! bits carries out iff it reaches 2^16.

use tmemu_num::ops::cvt::cvt_rs_bf16x2_f32;

fn bf16_value(c: u16) -> f64 {
    f32::from_bits((c as u32) << 16) as f64
}

/// The reference for one element: bf16 bits.
fn reference(x: f32, r: u16, relu: bool, satfinite: bool) -> u16 {
    if x.is_nan() {
        return 0x7fff;
    }
    let neg = x.is_sign_negative();
    let ax = (x as f64).abs();
    let mag: u16 = if ax.is_infinite() {
        0x7f80
    } else {
        // largest finite code with value <= |x|
        let (mut lo, mut hi) = (0u16, 0x7f7fu16);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if bf16_value(mid) <= ax {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        // the next value up; past MAX the spacing continues (2^128 is where infinity sits)
        let next = if lo == 0x7f7f {
            2f64.powi(128)
        } else {
            bf16_value(lo + 1)
        };
        let below = bf16_value(lo);
        let scaled = (ax - below) / (next - below) * 65536.0;
        assert_eq!(
            scaled,
            scaled.trunc(),
            "x={x:e}: the gap is not 2^16 f32 steps"
        );
        if scaled + r as f64 >= 65536.0 {
            lo + 1
        } else {
            lo
        }
    };
    let mag = if mag == 0x7f80 && satfinite {
        0x7f7f
    } else {
        mag
    };
    if relu && neg {
        return 0;
    }
    mag | if neg { 0x8000 } else { 0 }
}

fn check(x: f32, y: f32, rbits: u32) {
    for relu in [false, true] {
        for sat in [false, true] {
            let got = cvt_rs_bf16x2_f32(x.to_bits(), y.to_bits(), rbits, relu, sat);
            let want = (reference(x, (rbits >> 16) as u16, relu, sat) as u32) << 16
                | reference(y, rbits as u16, relu, sat) as u32;
            assert_eq!(
                got,
                want,
                "x={x:e} ({:#010x}) y={y:e} ({:#010x}) rbits={rbits:#010x} relu={relu} \
                 satfinite={sat}",
                x.to_bits(),
                y.to_bits()
            );
        }
    }
}

#[test]
fn values_the_isa_fixes() {
    // 1 + 2^-8: one bf16 step is 2^-7, the discarded bits are 0x8000 (half a step)
    let x = f32::from_bits(0x3f80_8000);
    assert_eq!(
        cvt_rs_bf16x2_f32(x.to_bits(), 0, 0x7fff_0000, false, false),
        0x3f80_0000
    );
    assert_eq!(
        cvt_rs_bf16x2_f32(x.to_bits(), 0, 0x8000_0000, false, false),
        0x3f81_0000
    );
    // exact values never move, whatever the random bits
    let one = 1f32.to_bits();
    assert_eq!(
        cvt_rs_bf16x2_f32(one, one, 0xffff_ffff, false, false),
        0x3f80_3f80
    );
    // negative: away from zero is more negative
    let m = f32::from_bits(0xbf80_0001);
    assert_eq!(
        cvt_rs_bf16x2_f32(0, m.to_bits(), 0x0000_ffff, false, false),
        0x0000_bf81
    );
    assert_eq!(
        cvt_rs_bf16x2_f32(0, m.to_bits(), 0x0000_fffe, false, false),
        0x0000_bf80
    );
    // MAX plus a carry is infinity, or MAX with .satfinite
    let big = f32::MAX.to_bits();
    assert_eq!(
        cvt_rs_bf16x2_f32(big, 0, 0x0001_0000, false, false) >> 16,
        0x7f80
    );
    assert_eq!(
        cvt_rs_bf16x2_f32(big, 0, 0x0001_0000, false, true) >> 16,
        0x7f7f
    );
    // .relu: negatives and -0 to +0; NaN canonical
    assert_eq!(
        cvt_rs_bf16x2_f32(0x8000_0000, m.to_bits(), 0, true, false),
        0
    );
    assert_eq!(
        cvt_rs_bf16x2_f32(0xffc0_1234, 0, 0, true, false),
        0x7fff_0000
    );
}

#[test]
fn matches_the_value_reference() {
    let mut special = vec![
        0.0f32,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MAX,
        -f32::MAX,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        f32::from_bits(0x7f7f_8000),
        f32::from_bits(0x7f7f_7fff),
        1.0,
        -1.5,
    ];
    // a deterministic sweep of bit patterns (SplitMix64)
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for _ in 0..20_000 {
        special.push(f32::from_bits(next() as u32));
    }
    for (i, &x) in special.iter().enumerate() {
        let y = special[(i * 7 + 3) % special.len()];
        for rbits in [0, 0xffff_ffff, 0x8000_8000, 0x7fff_0001, next() as u32] {
            check(x, y, rbits);
        }
    }
}
