//! `mad.wide.{u16,s16}` (PTX ISA §9.7.1.4: d = a × b + c, the 16 × 16-bit product taken
//! whole as 32 bits, c and d 32-bit). Triton 3.9 emits `mad.wide.u16 %r, %rs, 8, %r` for the
//! tensor-descriptor offsets of a warp-specialised attention loop (holdout ho5_attn_ws_desc),
//! which tmemu refused at load before. Expected values are plain integer arithmetic.

use tmemu_sim::{install_globals, run, GlobalMemory, RunOptions};

use super::support::{load_src, param_block, plain_launch, u32_words};

const SRC: &str = r#"
.version 8.7
.target sm_100a
.address_size 64

.visible .entry k(.param .u64 out)
{
    .reg .b16 %rs<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.lo.u32 %r2, %r1, 9973;
    cvt.u16.u32 %rs1, %r2;
    mul.lo.u32 %r3, %r1, 6007;
    cvt.u16.u32 %rs2, %r3;
    mul.lo.u32 %r4, %r1, 40503;
    mad.wide.u16 %r5, %rs1, %rs2, %r4;
    mad.wide.s16 %r6, %rs1, %rs2, %r4;
    mad.wide.u16 %r7, %rs1, 8, %r4;
    mul.wide.u32 %rd2, %r1, 16;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v2.u32 [%rd3], {%r5, %r6};
    st.global.u32 [%rd3+8], %r7;
    ret;
}
"#;

#[test]
fn mad_wide_16_bit_products_are_whole() {
    let k = load_src(SRC, "mad_wide16.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &[0u8; 32 * 16]);
    let launch = plain_launch([1, 1, 1], [32, 1, 1], param_block(&k, [out]));
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let w = u32_words(&g.read_buffer(out).unwrap());
    for t in 0..32u32 {
        let a = t.wrapping_mul(9973) as u16;
        let b = t.wrapping_mul(6007) as u16;
        let c = t.wrapping_mul(40503);
        let u = (u32::from(a) * u32::from(b)).wrapping_add(c);
        let s = (i32::from(a as i16) * i32::from(b as i16)) as u32;
        let imm = (u32::from(a) * 8).wrapping_add(c);
        let i = 4 * t as usize;
        assert_eq!(w[i..i + 3], [u, s.wrapping_add(c), imm], "thread {t}");
    }
}
