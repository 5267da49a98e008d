//! e4m3/e5m2 conversions against real hardware: `narrow_hw/e4m3_e5m2_h100.bin` holds what an
//! NVIDIA H100 (sm_90, driver 580) computed with PTX `cvt.rn.satfinite{.relu}.e4m3x2.f32`,
//! `.e5m2x2.f32` and `cvt.rn.f16x2.{e4m3x2,e5m2x2}` for the inputs below (program:
//! `narrow_hw/probe.cu`, which builds the same input list). The formats and the cvt rules
//! are the same on sm_100a; e2m1/e2m3/e3m2/ue8m0 conversions need sm_100a and are not
//! covered here.
use tmemu_num::narrow::NarrowFormat;

const GOLDEN: &[u8] = include_bytes!("../narrow_hw/e4m3_e5m2_h100.bin");

/// Same list, same order as `inputs()` in probe.cu.
fn inputs() -> Vec<u32> {
    let mut v = Vec::new();
    for sign in 0..2u32 {
        for e in -18i32..=17 {
            for top in 0..256u32 {
                for low in [0u32, 1, 0x4000, 0x7FFF] {
                    v.push((sign << 31) | (((e + 127) as u32) << 23) | (top << 15) | low);
                }
            }
        }
    }
    v.extend([
        0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001,
        0x7F7FFFFF, 0x49800000, 0x71800000, 0xF1800000, 0x00000001, 0x80000001, 0x00800000,
        0x43E80000, 0x43E00000, 0x43F00000, 0x47600000, 0x476F0000, 0x476EFFFF, 0xC3E80000,
    ]);
    if v.len() % 2 == 1 {
        v.push(0);
    }
    v
}

#[test]
fn encode_matches_the_h100() {
    let xs = inputs();
    let n = xs.len();
    assert_eq!(
        GOLDEN.len(),
        4 * n + 1024,
        "golden file does not match the input list"
    );
    let cases = [
        (NarrowFormat::E4m3, false),
        (NarrowFormat::E5m2, false),
        (NarrowFormat::E4m3, true),
        (NarrowFormat::E5m2, true),
    ];
    let mut mismatches = Vec::new();
    for (k, (fmt, relu)) in cases.into_iter().enumerate() {
        for (i, &bits) in xs.iter().enumerate() {
            let x = f32::from_bits(bits);
            let hw = GOLDEN[k * n + i];
            let ours = fmt.encode_satfinite(x, relu);
            if ours != hw {
                mismatches.push(format!(
                    "{fmt:?} relu={relu} x={x:e} ({bits:#010x}): hw {hw:#04x}, ours {ours:#04x}"
                ));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches, first: {:#?}",
        mismatches.len(),
        &mismatches[..mismatches.len().min(20)]
    );
}

#[test]
fn decode_matches_the_h100() {
    let n = inputs().len();
    let dec = &GOLDEN[4 * n..];
    for (k, fmt) in [NarrowFormat::E4m3, NarrowFormat::E5m2]
        .into_iter()
        .enumerate()
    {
        for c in 0..256usize {
            let at = 2 * (k * 256 + c);
            let hw = half::f16::from_bits(u16::from_le_bytes([dec[at], dec[at + 1]])).to_f32();
            let ours = fmt.decode(c as u8);
            if hw.is_nan() {
                assert!(ours.is_nan(), "{fmt:?} {c:#04x}: hw NaN, ours {ours}");
            } else {
                assert_eq!(ours.to_bits(), hw.to_bits(), "{fmt:?} {c:#04x}");
            }
        }
    }
}
