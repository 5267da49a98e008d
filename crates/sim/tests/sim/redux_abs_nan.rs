//! `redux.sync.{min,max}.abs.NaN.f32` (PTX ISA redux.sync, sm_100a: the reduction over the
//! member lanes' magnitudes; with .NaN a NaN in any member lane gives the canonical NaN).
//! Triton 3.9 emits `redux.sync.max.abs.NaN.f32` for a NaN-propagating absolute maximum with
//! one element per thread (holdout ho7_absmax_nan, the amax of an fp8 quantisation); tmemu
//! refused the `.abs.NaN` pair at load ("unsupported"), while `.abs` and `.NaN` alone ran.

use tmemu_sim::{install_globals, run, GlobalMemory, RunOptions};

use super::support::{load_src, param_block, plain_launch, u32_words};

const SRC: &str = r#"
.version 8.7
.target sm_100a
.address_size 64

.visible .entry k(.param .u64 inp, .param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [inp];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.b32 %r2, [%rd4];
    redux.sync.max.abs.NaN.f32 %r3, %r2, 0xffffffff;
    redux.sync.min.abs.NaN.f32 %r4, %r2, 0xffffffff;
    redux.sync.max.abs.f32 %r5, %r2, 0xffffffff;
    mul.wide.u32 %rd3, %r1, 16;
    add.s64 %rd5, %rd2, %rd3;
    st.global.v2.b32 [%rd5], {%r3, %r4};
    st.global.b32 [%rd5+8], %r5;
    ret;
}
"#;

/// One warp per 32 values; returns (max.abs.NaN, min.abs.NaN, max.abs) of each warp.
fn reduce(values: &[f32]) -> Vec<[u32; 3]> {
    let k = load_src(SRC, "redux_abs_nan.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let inp = g.alloc("inp", &bytes);
    let out = g.alloc("out", &vec![0u8; values.len() * 16]);
    let launch = plain_launch(
        [1, 1, 1],
        [values.len() as u32, 1, 1],
        param_block(&k, [inp, out]),
    );
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let w = u32_words(&g.read_buffer(out).unwrap());
    (0..values.len() / 32)
        .map(|warp| {
            let t = 4 * 32 * warp;
            // every lane of a warp holds the same result
            for l in 0..32 {
                assert_eq!(
                    w[t + 4 * l..t + 4 * l + 3],
                    w[t..t + 3],
                    "warp {warp} lane {l}"
                );
            }
            [w[t], w[t + 1], w[t + 2]]
        })
        .collect()
}

#[test]
fn redux_abs_nan_reduces_magnitudes_and_propagates_nan() {
    let mut v: Vec<f32> = (0..96).map(|i| (i as f32 - 40.0) * 0.25).collect();
    v[5] = -123.5; // warp 0: the largest magnitude is negative
    v[32 + 17] = f32::NAN; // warp 1: one NaN lane
    v[32 + 3] = -0.0;
    v[64] = f32::NEG_INFINITY; // warp 2: -inf, and the smallest magnitude is -0.25
    v[64 + 7] = -0.25;
    let r = reduce(&v);
    // warp 0: lanes hold -10 .. -2.25 and -123.5
    assert_eq!(
        r[0],
        [123.5f32.to_bits(), 2.25f32.to_bits(), 123.5f32.to_bits()]
    );
    // warp 1: the NaN wins with .NaN (canonical NaN), is ignored without it
    assert_eq!(r[1][0], 0x7fff_ffff);
    assert_eq!(r[1][1], 0x7fff_ffff);
    assert_eq!(
        r[1][2],
        5.75f32.to_bits(),
        "max |x| of lanes 32..63 without the NaN"
    );
    // warp 2: -inf has magnitude +inf; min magnitude 0.25 (lanes 64..95 hold 6 .. 13.75)
    assert_eq!(
        r[2],
        [
            f32::INFINITY.to_bits(),
            0.25f32.to_bits(),
            f32::INFINITY.to_bits()
        ]
    );
}
