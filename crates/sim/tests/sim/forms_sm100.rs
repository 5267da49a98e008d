//! Forms the engine refused at load before session 6 (scan of sm_90/sm_100 instruction
//! families, docs/arch/forms.md), each run through the engine against a reference computed
//! here from the PTX ISA's definitions, independently of tmemu-num:
//! - `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2` (Triton's f16 → fp8 cast), every f16;
//! - `cvt.rn.bf16x2.ue8m0x2` (MX scale bytes to bf16), every code;
//! - `st.bulk{.weak}{.shared::cta} [a], size, 0` (sm_100: zero a shared region) and its faults.

use tmemu_sim::{install_globals, run, GlobalMemory, RunOptions};

use super::support::{load_src, param_block, plain_launch, u32_words};

/// The value of an f16 bit pattern from its fields (IEEE binary16).
fn f16_value(h: u16) -> f64 {
    let s = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let e = (h >> 10 & 0x1f) as i32;
    let m = f64::from(h & 0x3ff);
    match e {
        0 => s * m * 2f64.powi(-24),
        31 if m == 0.0 => s * f64::INFINITY,
        31 => f64::NAN,
        _ => s * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

/// An OCP 8-bit float's value: `ebits` exponent bits, 7 - ebits mantissa bits, bias
/// 2^(ebits-1) - 1. NaN is None (e4m3: S.1111.111; e5m2: exponent all ones, m != 0); e5m2's
/// infinities are None too (satfinite never produces them).
fn f8_value(code: u8, ebits: u32) -> Option<f64> {
    let mbits = 7 - ebits;
    let bias = (1i32 << (ebits - 1)) - 1;
    let s = if code >> 7 == 1 { -1.0 } else { 1.0 };
    let e = i32::from(code >> mbits & ((1 << ebits) - 1) as u8);
    let m = f64::from(code & ((1 << mbits) - 1) as u8);
    let emax = (1 << ebits) - 1;
    if ebits == 4 && e == emax && m == 7.0 {
        return None;
    }
    if ebits == 5 && e == emax {
        return None;
    }
    let frac = m / f64::from(1u32 << mbits);
    Some(if e == 0 {
        s * frac * 2f64.powi(1 - bias)
    } else {
        s * (1.0 + frac) * 2f64.powi(e - bias)
    })
}

/// cvt.rn.satfinite{.relu} of one value to an 8-bit float by the ISA's definition: NaN →
/// NaN (None here: the caller checks the NaN class), ±inf and magnitudes above the largest
/// finite value → ±max finite, otherwise the nearest value (ties to the even code), with
/// `.relu` clamping negative results to +0.
fn to_f8(x: f64, ebits: u32, relu: bool) -> Option<u8> {
    if x.is_nan() {
        return None;
    }
    let neg = x.is_sign_negative();
    if relu && (neg || x == 0.0) {
        return Some(0);
    }
    let sign = if neg { 0x80u8 } else { 0 };
    let mut best: Option<(f64, u8)> = None;
    for c in 0u8..0x80 {
        let Some(v) = f8_value(c, ebits) else {
            continue;
        };
        let d = (x.abs() - v).abs();
        best = match best {
            None => Some((d, c)),
            Some((bd, bc)) if d < bd || (d == bd && c & 1 == 0 && bc & 1 == 1) => Some((d, c)),
            b => b,
        };
    }
    let max = (0u8..0x80)
        .filter(|&c| f8_value(c, ebits).is_some())
        .max_by(|&a, &b| f8_value(a, ebits).partial_cmp(&f8_value(b, ebits)).unwrap())
        .unwrap();
    let code = if x.abs() > f8_value(max, ebits).unwrap() {
        max
    } else {
        best.unwrap().1
    };
    Some(sign | code)
}

fn is_f8_nan(code: u8, ebits: u32) -> bool {
    f8_value(code, ebits).is_none() && !(ebits == 5 && code & 0x7f == 0x7c)
}

const SRC_CVT: &str = r#"
.version 8.7
.target sm_100a
.address_size 64

.visible .entry k(.param .u64 out)
{
    .reg .b16 %rs<8>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.u32 %r1, %r1, %r2, %r3;
    // halves 2t+1 (upper) and 2t (lower)
    shl.b32 %r4, %r1, 1;
    add.u32 %r5, %r4, 1;
    shl.b32 %r5, %r5, 16;
    or.b32 %r6, %r5, %r4;
    cvt.rn.satfinite.e4m3x2.f16x2 %rs1, %r6;
    cvt.rn.satfinite.e5m2x2.f16x2 %rs2, %r6;
    cvt.rn.satfinite.relu.e4m3x2.f16x2 %rs3, %r6;
    cvt.rn.satfinite.relu.e5m2x2.f16x2 %rs4, %r6;
    mov.b32 %r7, {%rs1, %rs2};
    mov.b32 %r8, {%rs3, %rs4};
    // ue8m0 codes t & 255 (upper) and 255 - (t & 255) (lower)
    and.b32 %r9, %r1, 255;
    xor.b32 %r10, %r9, 255;
    shl.b32 %r9, %r9, 8;
    or.b32 %r9, %r9, %r10;
    cvt.u16.u32 %rs5, %r9;
    cvt.rn.bf16x2.ue8m0x2 %r11, %rs5;
    mul.wide.u32 %rd2, %r1, 16;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v2.u32 [%rd3], {%r7, %r8};
    st.global.u32 [%rd3+8], %r11;
    ret;
}
"#;

fn run_cvt() -> Vec<u32> {
    let k = load_src(SRC_CVT, "forms_cvt.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &vec![0u8; 32768 * 16]);
    let launch = plain_launch([128, 1, 1], [256, 1, 1], param_block(&k, [out]));
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    u32_words(&g.read_buffer(out).unwrap())
}

#[test]
fn cvt_f16x2_to_fp8_pairs_round_every_f16_by_the_isa() {
    let w = run_cvt();
    let mut checked = 0;
    for t in 0..32768usize {
        let (plain, relu) = (w[4 * t], w[4 * t + 1]);
        // result halves: [e4m3x2 | e5m2x2 << 16]; in each pair the upper byte is the upper half
        for (word, relu_on) in [(plain, false), (relu, true)] {
            for (pair, ebits) in [(word as u16, 4u32), ((word >> 16) as u16, 5)] {
                for (got, h) in [((pair >> 8) as u8, 2 * t + 1), (pair as u8, 2 * t)] {
                    let x = f16_value(h as u16);
                    match to_f8(x, ebits, relu_on) {
                        Some(want) => assert_eq!(
                            got, want,
                            "f16 {h:#06x} ({x}) to e{ebits} relu={relu_on}: {got:#04x}, want {want:#04x}"
                        ),
                        None => assert!(is_f8_nan(got, ebits), "NaN {h:#06x} gave {got:#04x}"),
                    }
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 65536 * 4);
}

#[test]
fn cvt_ue8m0x2_to_bf16x2_is_the_power_of_two() {
    let w = run_cvt();
    for t in 0..256usize {
        let got = w[4 * t + 2];
        let (hi, lo) = ((t & 255) as u32, (t & 255) as u32 ^ 255);
        for (half, code) in [(got >> 16, hi), (got & 0xffff, lo)] {
            if code == 255 {
                // NaN: exponent all ones, mantissa non-zero
                assert!(
                    half & 0x7f80 == 0x7f80 && half & 0x7f != 0,
                    "{code}: {half:#x}"
                );
            } else {
                // 2^(code - 127) is exact in f32 (2^-127 a subnormal) and its top half is the bf16
                let v = 2f64.powi(code as i32 - 127) as f32;
                assert_eq!(half, v.to_bits() >> 16, "code {code}");
                assert_eq!(v.to_bits() & 0xffff, 0);
            }
        }
    }
}

const SRC_BULK: &str = r#"
.version 8.7
.target sm_100a
.address_size 64

.visible .entry k(.param .u64 out, .param .u64 n)
{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    .shared .align 16 .b8 buf[1024];
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd5, [n];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, buf;
    // every thread fills 32 bytes with a pattern
    shl.b32 %r3, %r1, 5;
    add.u32 %r4, %r2, %r3;
    mad.lo.u32 %r5, %r1, 0x01010101, 0x80402010;
    st.shared.v4.u32 [%r4], {%r5, %r5, %r5, %r5};
    st.shared.v4.u32 [%r4+16], {%r5, %r5, %r5, %r5};
    bar.sync 0;
    setp.eq.u32 %p1, %r1, 0;
    setp.eq.u32 %p2, %r1, 5;
    // thread 0: 256 bytes from byte 64 (immediate size, generic address)
    cvta.shared.u64 %rd2, buf;
    @%p1 st.bulk.weak [%rd2+64], 256, 0;
    // thread 5: n bytes from byte 512 (register size, .shared::cta)
    @%p2 st.bulk.shared::cta [%r2+512], %rd5, 0;
    bar.sync 0;
    ld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r4];
    mul.wide.u32 %rd3, %r1, 32;
    add.s64 %rd4, %rd1, %rd3;
    st.global.v4.u32 [%rd4], {%r6, %r7, %r8, %r9};
    ld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r4+16];
    st.global.v4.u32 [%rd4+16], {%r6, %r7, %r8, %r9};
    ret;
}
"#;

fn run_bulk(n: u64) -> (tmemu_sim::RunResult, Vec<u8>) {
    let k = load_src(SRC_BULK, "forms_st_bulk.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &[0u8; 1024]);
    let launch = plain_launch([1, 1, 1], [32, 1, 1], param_block(&k, [out, n]));
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    let b = g.read_buffer(out).unwrap();
    (r, b)
}

fn pattern(byte: usize) -> u8 {
    let t = (byte / 32) as u32;
    t.wrapping_mul(0x0101_0101)
        .wrapping_add(0x8040_2010)
        .to_le_bytes()[byte % 4]
}

#[test]
fn st_bulk_zeroes_exactly_its_region() {
    let (r, b) = run_bulk(40);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    for (i, &v) in b.iter().enumerate() {
        let zeroed = (64..320).contains(&i) || (512..552).contains(&i);
        let want = if zeroed { 0 } else { pattern(i) };
        assert_eq!(v, want, "byte {i}");
    }
}

#[test]
fn st_bulk_faults_write_nothing() {
    for (n, rule) in [(12u64, "TM0502"), (1024, "TM0501")] {
        let (r, b) = run_bulk(n);
        assert!(
            r.diagnostics.iter().any(|d| d.rule.id == rule),
            "size {n}: {:?}",
            r.diagnostics
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
        );
        for (i, &v) in b.iter().enumerate().skip(512) {
            assert_eq!(v, pattern(i), "size {n}: byte {i} written");
        }
    }
}

#[test]
fn st_bulk_refuses_a_non_zero_initval() {
    let src = SRC_BULK.replace("[%rd2+64], 256, 0;", "[%rd2+64], 256, 1;");
    let m = tmemu_ptx::parse(&src).expect("parse");
    let e = tmemu_sim::load(&m, &src, "bad.ptx", None).expect_err("refused");
    assert!(format!("{e:?}").contains("initval"), "{e:?}");
}
