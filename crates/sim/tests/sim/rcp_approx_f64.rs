//! `rcp.approx.ftz.f64` (PTX ISA §9.7.3.x rcp.approx.ftz.f64: a gross approximation from the
//! upper 32 bits of the operand, subnormal inputs and results flushed to sign-preserving zero;
//! ±0 -> ±inf, ±inf -> ±0, NaN -> NaN). libdevice seeds its f64 division, `pow`, `erf` and
//! `tanh` with it, so every Triton kernel using f64 math functions (holdout ho7_fp64_math)
//! was refused at load before ("needs tmemu-num for this rounding/approximation"): tmemu-num's
//! version used the whole operand, where the ISA and the H100 use the upper word only.

use tmemu_sim::{install_globals, run, GlobalMemory, RunOptions};

use super::support::{load_src, param_block, plain_launch};

const SRC: &str = r#"
.version 8.7
.target sm_100a
.address_size 64

.visible .entry k(.param .u64 inp, .param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [inp];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 8;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.b64 %rd6, [%rd4];
    rcp.approx.ftz.f64 %rd7, %rd6;
    st.global.b64 [%rd5], %rd7;
    ret;
}
"#;

#[test]
fn rcp_approx_ftz_f64_specials_and_bound() {
    let k = load_src(SRC, "rcp_approx_f64.ptx");
    let specials: [(f64, f64); 8] = [
        (0.0, f64::INFINITY),
        (-0.0, f64::NEG_INFINITY),
        (f64::INFINITY, 0.0),
        (f64::NEG_INFINITY, -0.0),
        (f64::from_bits(1), f64::INFINITY), // subnormal input: flushed
        (-f64::from_bits(0x000f_ffff_ffff_ffff), f64::NEG_INFINITY),
        (2.0f64.powi(1023), 0.0), // 2^-1023 is subnormal: flushed
        (-1.5 * 2.0f64.powi(1022), -0.0),
    ];
    let mut x: Vec<f64> = specials.iter().map(|s| s.0).collect();
    x.push(f64::NAN);
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    while x.len() < 32 {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        // random sign and mantissa, exponents within ±600
        let e = 1023 - 600 + (s >> 53) % 1200;
        x.push(f64::from_bits((s & 0x800f_ffff_ffff_ffff) | (e << 52)));
    }
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let inp = g.alloc("inp", &bytes);
    let out = g.alloc("out", &[0u8; 32 * 8]);
    let launch = plain_launch([1, 1, 1], [32, 1, 1], param_block(&k, [inp, out]));
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let o: Vec<f64> = g
        .read_buffer(out)
        .unwrap()
        .chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for (i, (a, want)) in specials.iter().enumerate() {
        assert_eq!(o[i].to_bits(), want.to_bits(), "rcp({a:e}) = {:e}", o[i]);
    }
    assert!(o[8].is_nan(), "rcp(NaN) = {}", o[8]);
    // From the upper word only: the operand is cut to 20 mantissa bits (2^-20 relative) and
    // the result has 20 (half an ulp, 2^-21), so 2^-19 bounds the error against 1/x; the low
    // 32 bits of every result are zero.
    for i in 9..32 {
        let exact = 1.0 / x[i];
        let rel = ((o[i] - exact) / exact).abs();
        assert!(
            rel <= 2f64.powi(-19),
            "rcp({:e}) = {:e}, relative error {rel:e}",
            x[i],
            o[i]
        );
        assert_eq!(o[i].to_bits() & 0xffff_ffff, 0, "rcp({:e}) low word", x[i]);
    }
    // a NaN whose payload is only in the low word reads as infinity (PTX ISA: the low 32 bits
    // of the operand are ignored; the H100 gives +0 too, docs/arch/sim.md); a NaN gives
    // 0x7fffffff_00000000
    let mut g2 = GlobalMemory::new();
    install_globals(&k, &mut g2).unwrap();
    let mut b2 = vec![0u8; 32 * 8];
    b2[..8].copy_from_slice(&0x7ff0_0000_0000_0001u64.to_le_bytes());
    b2[8..16].copy_from_slice(&0xfff8_0000_0000_0000u64.to_le_bytes());
    let inp2 = g2.alloc("inp", &b2);
    let out2 = g2.alloc("out", &[0u8; 32 * 8]);
    let launch2 = plain_launch([1, 1, 1], [32, 1, 1], param_block(&k, [inp2, out2]));
    run(&k, &launch2, &g2, &RunOptions::default()).expect("launch");
    let o2 = g2.read_buffer(out2).unwrap();
    assert_eq!(u64::from_le_bytes(o2[..8].try_into().unwrap()), 0);
    assert_eq!(
        u64::from_le_bytes(o2[8..16].try_into().unwrap()),
        0x7fff_ffff_0000_0000
    );
}
