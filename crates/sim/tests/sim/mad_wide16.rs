//! `mad.wide.{u16,s16}` (PTX ISA §9.7.1.4: d = a × b + c, the 16 × 16-bit product taken
//! whole as 32 bits, c and d 32-bit). Triton 3.9 emits `mad.wide.u16 %r, %rs, 8, %r` for the
//! tensor-descriptor offsets of a warp-specialised attention loop (holdout ho5_attn_ws_desc),
//! which tmemu refused at load before. Expected values are plain integer arithmetic. Also the
//! four-byte vector `mov` and `cvt.rn.bf16x2.e2m1x2` of the mxfp4 upcast (below).

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

/// Triton 3.9's e2m1 weight upcast (holdout ho5_dot_scaled_bf16_mxfp4): `mov.b32 {b0, b1, b2,
/// b3}, %r` into `.b8` registers (bytes lowest first, PTX ISA §9.7.9.10 vector mov), then
/// `cvt.rn.bf16x2.e2m1x2` of each byte (upper nibble to the upper half; every e2m1 value is
/// exact in bf16).
const SRC_E2M1: &str = r#"
.version 8.7
.target sm_100a
.address_size 64

.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mul.lo.u32 %r2, %r1, 0x01030507;
    xor.b32 %r2, %r2, 0x9e3779b9;
    {
    .reg .b8 b<4>;
    mov.b32 {b0, b1, b2, b3}, %r2;
    cvt.rn.bf16x2.e2m1x2 %r3, b0;
    cvt.rn.bf16x2.e2m1x2 %r4, b1;
    cvt.rn.bf16x2.e2m1x2 %r5, b2;
    cvt.rn.bf16x2.e2m1x2 %r6, b3;
    }
    mul.wide.u32 %rd2, %r1, 16;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v4.u32 [%rd3], {%r3, %r4, %r5, %r6};
    ret;
}
"#;

#[test]
fn mov_unpacks_four_bytes_and_e2m1x2_widens_to_bf16x2() {
    // e2m1 code -> bf16 bits: ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}
    const E2M1_BF16: [u32; 16] = [
        0x0000, 0x3f00, 0x3f80, 0x3fc0, 0x4000, 0x4040, 0x4080, 0x40c0, 0x8000, 0xbf00, 0xbf80,
        0xbfc0, 0xc000, 0xc040, 0xc080, 0xc0c0,
    ];
    let k = load_src(SRC_E2M1, "e2m1x2.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &[0u8; 32 * 16]);
    let launch = plain_launch([1, 1, 1], [32, 1, 1], param_block(&k, [out]));
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let w = u32_words(&g.read_buffer(out).unwrap());
    for t in 0..32u32 {
        let x = t.wrapping_mul(0x0103_0507) ^ 0x9e37_79b9;
        for byte in 0..4 {
            let b = (x >> (8 * byte)) & 0xff;
            let want = (E2M1_BF16[(b >> 4) as usize] << 16) | E2M1_BF16[(b & 0xf) as usize];
            assert_eq!(w[4 * t as usize + byte], want, "thread {t} byte {byte}");
        }
    }
}
