//! `rcp.approx.ftz.f64` on the values PTX ISA §9.7.3.14 fixes: only the upper word of the
//! input (1.11.20) takes part, the result's low 32 bits are zero, NaN is 0x7fffffff00000000,
//! subnormal inputs and results flush to sign-preserving zero.

use tmemu_num::ops::approx::f64_rcp_approx_ftz as rcp;

#[test]
fn values_the_isa_fixes() {
    let b = |x: f64| x.to_bits();
    assert_eq!(rcp(b(2.0)), b(0.5));
    assert_eq!(rcp(b(-4.0)), b(-0.25));
    // the low word is ignored: 1 + 2^-52 is 1
    assert_eq!(rcp(b(1.0) | 1), b(1.0));
    // a NaN whose payload is only in the low word is +inf to this instruction (H100 too)
    assert_eq!(rcp(0x7ff0_0000_0000_0001), 0);
    assert_eq!(rcp(0xfff0_0000_0000_0001), b(-0.0));
    assert_eq!(rcp(0x7ff8_0000_0000_0000), 0x7fff_ffff_0000_0000);
    assert_eq!(rcp(0xfff0_0001_0000_0000), 0x7fff_ffff_0000_0000);
    assert_eq!(rcp(b(f64::INFINITY)), 0);
    assert_eq!(rcp(b(0.0)), b(f64::INFINITY));
    assert_eq!(rcp(b(-0.0)), b(f64::NEG_INFINITY));
    // subnormal input -> signed infinity; a subnormal result -> signed zero
    assert_eq!(rcp(0x8000_0001_0000_0000), b(f64::NEG_INFINITY));
    assert_eq!(rcp(b(2f64.powi(1023))), 0);
    // every result has a zero low word and is within 2^-21 relative of 1/x (x = the upper
    // word's value)
    let mut s = 0x1234_5678_9abc_def0u64;
    for _ in 0..100_000 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let x = f64::from_bits(s & 0xffff_ffff_0000_0000);
        if !x.is_normal() || x.abs() > 2f64.powi(1021) {
            continue;
        }
        let r = rcp(s);
        assert_eq!(r & 0xffff_ffff, 0, "{s:#x}");
        let rel = (f64::from_bits(r) * x - 1.0).abs();
        assert!(rel <= 2f64.powi(-21), "{s:#x}: {rel:e}");
    }
}
