//! cp.async.bulk.tensor in the engine: hand-written PTX that loads a box through a tensor map
//! (every swizzle, boxes hanging over the tensor's edges), dumps the raw shared-memory bytes,
//! stores the box back through a second map, reduces into a tensor, multicasts to a cluster,
//! and edits a map on the device with tensormap.replace. The expected bytes are computed here
//! from the definitions (the swizzle as "16-byte chunk j of 128-byte line i goes to chunk
//! j ^ (i mod 8)", restricted to the mode's bits; OOB elements zero), not by tmemu_tma.

use tmemu_sim::{install_globals, load, run, GlobalMemory, Kernel, Launch, RunOptions};
use tmemu_spec::tensormap::*;

const LOAD_STORE: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry tma_ls(.param .align 64 .b8 tmap[128], .param .align 64 .b8 omap[128],
    .param .u64 raw_ptr, .param .u32 cx, .param .u32 cy, .param .u32 nbytes)
{
    .shared .align 1024 .b8 buf[16384];
    .shared .align 8 .b64 bar;
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u32 %r1, [cx];
    ld.param.u32 %r2, [cy];
    ld.param.u32 %r4, [nbytes];
    ld.param.u64 %rd1, [raw_ptr];
    mov.u32 %r3, %tid.x;
    setp.eq.u32 %p1, %r3, 0;
    @%p1 mbarrier.init.shared::cta.b64 [bar], 1;
    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], %r4;
    @%p1 cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [buf], [tmap, {%r1, %r2}], [bar];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
    @!%p2 bra WAIT;
    @%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd1], [buf], %r4;
    @%p1 cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [omap, {%r1, %r2}], [buf];
    @%p1 cp.async.bulk.commit_group;
    @%p1 cp.async.bulk.wait_group.read 0;
    ret;
}
"#;

struct Tensor {
    rows: u64,
    cols: u64,
    esize: u64,
}

fn map(
    t: &Tensor,
    ty: TmElemType,
    addr: u64,
    boxw: u32,
    boxh: u32,
    sw: SwizzleMode,
) -> TensorMapDesc {
    TensorMapDesc {
        elem_type: ty,
        rank: 2,
        global_address: addr,
        global_dims: [t.cols, t.rows, 0, 0, 0],
        global_strides: [t.cols * t.esize, 0, 0, 0],
        box_dims: [boxw, boxh, 0, 0, 0],
        elem_strides: [1, 1, 0, 0, 0],
        interleave: Interleave::None,
        swizzle: sw,
        swizzle_atomicity: SwizzleAtomicity::B16,
        oob_fill: OobFill::Zero,
        l2_promotion: L2Promotion::None,
        mode: TensorMapMode::Tile,
    }
}

fn params(k: &Kernel, vals: &[&[u8]]) -> Vec<u8> {
    let mut p = vec![0u8; k.param_bytes as usize];
    for (pi, v) in k.params.iter().zip(vals) {
        p[pi.offset as usize..pi.offset as usize + v.len()].copy_from_slice(v);
    }
    p
}

/// The XOR mask of a swizzle mode over the 128-byte line index (bits 7.. into bits 4..).
fn swizzle_mask(sw: SwizzleMode) -> u64 {
    match sw {
        SwizzleMode::None => 0,
        SwizzleMode::B32 => 1,
        SwizzleMode::B64 => 3,
        SwizzleMode::B128 => 7,
        _ => unreachable!(),
    }
}

/// Runs the load/store kernel on a `rows × cols` f16 tensor holding `i` at element `i`, box
/// `boxw × boxh` at (x, y).
fn load_store(sw: SwizzleMode, boxw: u32, boxh: u32, x: i32, y: i32) {
    let t = Tensor {
        rows: 40,
        cols: 96,
        esize: 2,
    };
    let src: Vec<u8> = (0..t.rows * t.cols)
        .flat_map(|i| (i as u16).to_le_bytes())
        .collect();
    let m = tmemu_ptx::parse(LOAD_STORE).expect("parse");
    let k = load(&m, LOAD_STORE, "tma_ls.ptx", None).expect("load");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let a = g.alloc("src", &src);
    let o = g.alloc("dst", &vec![0u8; src.len()]);
    let nbytes = u64::from(boxw * boxh) * t.esize;
    let raw = g.alloc("raw", &vec![0u8; nbytes as usize]);
    let tm = map(&t, TmElemType::F16, a, boxw, boxh, sw).encode();
    let om = map(&t, TmElemType::F16, o, boxw, boxh, sw).encode();
    let p = params(
        &k,
        &[
            &tm,
            &om,
            &raw.to_le_bytes(),
            &x.to_le_bytes(),
            &y.to_le_bytes(),
            &(nbytes as u32).to_le_bytes(),
        ],
    );
    let launch = Launch {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        cluster: None,
        dyn_shared: 0,
        params: p,
    };
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    // A store needs non-negative coordinates (TM0130, an illegal instruction on an H100); the
    // load before it is legal.
    let negative = x < 0 || y < 0;
    if negative {
        assert_eq!(r.diagnostics.len(), 1, "{:?}", r.diagnostics);
        assert_eq!(r.diagnostics[0].rule.id, "TM0130");
    } else {
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    }
    assert!(r.hangs.is_empty(), "{:?}", r.hangs);

    // Raw shared-memory bytes: element (r, c) of the box at linear offset o = (r·boxw + c)·2,
    // placed at o with 16-byte chunk bits XORed by the 128-byte line index.
    let got = g.read_buffer(raw).unwrap();
    let mask = swizzle_mask(sw);
    let mut want = vec![0u8; nbytes as usize];
    for r in 0..u64::from(boxh) {
        for c in 0..u64::from(boxw) {
            let (gr, gc) = (y as i64 + r as i64, x as i64 + c as i64);
            let v: u16 = if gr >= 0 && gc >= 0 && (gr as u64) < t.rows && (gc as u64) < t.cols {
                (gr as u64 * t.cols + gc as u64) as u16
            } else {
                0
            };
            let o = (r * u64::from(boxw) + c) * 2;
            let phys = o ^ (((o >> 7) & mask) << 4);
            want[phys as usize..phys as usize + 2].copy_from_slice(&v.to_le_bytes());
        }
    }
    assert_eq!(got, want, "raw box bytes, swizzle {sw:?}");

    // The store wrote exactly the in-bounds part of the box, unswizzled.
    let dst = g.read_buffer(o).unwrap();
    for gr in 0..t.rows {
        for gc in 0..t.cols {
            let inside = !negative
                && (gr as i64) >= y as i64
                && (gr as i64) < y as i64 + boxh as i64
                && (gc as i64) >= x as i64
                && (gc as i64) < x as i64 + boxw as i64;
            let i = (gr * t.cols + gc) as usize;
            let v = u16::from_le_bytes([dst[2 * i], dst[2 * i + 1]]);
            let want = if inside { i as u16 } else { 0 };
            assert_eq!(v, want, "stored element ({gr}, {gc}), swizzle {sw:?}");
        }
    }
}

#[test]
fn load_and_store_without_swizzle() {
    load_store(SwizzleMode::None, 24, 8, 8, 4);
}

#[test]
fn load_and_store_32b_swizzle() {
    load_store(SwizzleMode::B32, 16, 16, 0, 0);
}

#[test]
fn load_and_store_64b_swizzle() {
    load_store(SwizzleMode::B64, 32, 16, 16, 8);
}

#[test]
fn load_and_store_128b_swizzle() {
    load_store(SwizzleMode::B128, 64, 16, 0, 16);
}

#[test]
fn box_over_both_edges_is_zero_filled_and_store_skips_it() {
    // 32 columns and 8 rows of the box lie outside the 96 × 40 tensor.
    load_store(SwizzleMode::B128, 64, 16, 64, 32);
    // negative coordinates: loaded with zero fill; the store is refused (TM0130)
    load_store(SwizzleMode::B64, 32, 16, -8, -4);
}

const REDUCE: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry tma_red(.param .align 64 .b8 tmap[128], .param .align 64 .b8 omap[128],
    .param .u32 cx, .param .u32 cy, .param .u32 nbytes)
{
    .shared .align 1024 .b8 buf[16384];
    .shared .align 8 .b64 bar;
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u32 %r1, [cx];
    ld.param.u32 %r2, [cy];
    ld.param.u32 %r4, [nbytes];
    mov.u32 %r3, %tid.x;
    setp.eq.u32 %p1, %r3, 0;
    @%p1 mbarrier.init.shared::cta.b64 [bar], 1;
    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], %r4;
    @%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [buf], [tmap, {%r1, %r2}], [bar];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
    @!%p2 bra WAIT;
    @%p1 cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [omap, {%r1, %r2}], [buf];
    @%p1 cp.async.bulk.prefetch.tensor.2d.L2.global.tile [omap, {%r1, %r2}];
    @%p1 cp.async.bulk.commit_group;
    @%p1 cp.async.bulk.wait_group 0;
    ret;
}
"#;

#[test]
fn reduction_adds_the_box_into_the_tensor() {
    let t = Tensor {
        rows: 20,
        cols: 48,
        esize: 4,
    };
    let n = (t.rows * t.cols) as usize;
    let src: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let init: Vec<u8> = (0..n)
        .flat_map(|i| (1000.0 + 0.5 * i as f32).to_le_bytes())
        .collect();
    let m = tmemu_ptx::parse(REDUCE).expect("parse");
    let k = load(&m, REDUCE, "tma_red.ptx", None).expect("load");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let a = g.alloc("src", &src);
    let o = g.alloc("acc", &init);
    let (boxw, boxh, x, y) = (32u32, 8u32, 24i32, 16i32);
    let nbytes = boxw * boxh * 4;
    let tm = map(&t, TmElemType::F32, a, boxw, boxh, SwizzleMode::B128).encode();
    let om = map(&t, TmElemType::F32, o, boxw, boxh, SwizzleMode::B128).encode();
    let p = params(
        &k,
        &[
            &tm,
            &om,
            &x.to_le_bytes(),
            &y.to_le_bytes(),
            &nbytes.to_le_bytes(),
        ],
    );
    let launch = Launch {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        cluster: None,
        dyn_shared: 0,
        params: p,
    };
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let acc = g.read_buffer(o).unwrap();
    for gr in 0..t.rows as i64 {
        for gc in 0..t.cols as i64 {
            let i = (gr as u64 * t.cols + gc as u64) as usize;
            let inside = gr >= y as i64
                && gr < (y + boxh as i32) as i64
                && gc >= x as i64
                && gc < (x + boxw as i32) as i64;
            let want = 1000.0 + 0.5 * i as f32 + if inside { i as f32 } else { 0.0 };
            let got = f32::from_le_bytes(acc[4 * i..4 * i + 4].try_into().unwrap());
            assert_eq!(got, want, "element ({gr}, {gc})");
        }
    }
}

const MULTICAST: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry tma_mc(.param .align 64 .b8 tmap[128], .param .u64 raw_ptr, .param .u32 nbytes)
{
    .shared .align 1024 .b8 buf[4096];
    .shared .align 8 .b64 bar;
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<6>;
    ld.param.u32 %r4, [nbytes];
    ld.param.u64 %rd1, [raw_ptr];
    mov.u32 %r3, %tid.x;
    mov.u32 %r5, %cluster_ctarank;
    setp.eq.u32 %p1, %r3, 0;
    @%p1 mbarrier.init.shared::cta.b64 [bar], 1;
    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], %r4;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    setp.eq.u32 %p3, %r5, 0;
    and.pred %p3, %p3, %p1;
    mov.u32 %r6, 0;
    mov.u16 %rs1, 3;
    @%p3 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [buf], [tmap, {%r6, %r6}], [bar], %rs1;
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
    @!%p2 bra WAIT;
    mul.wide.u32 %rd2, %r5, %r4;
    add.s64 %rd3, %rd1, %rd2;
    @%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd3], [buf], %r4;
    @%p1 cp.async.bulk.commit_group;
    @%p1 cp.async.bulk.wait_group 0;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}
"#;

#[test]
fn multicast_lands_in_both_ctas_and_signals_each_mbarrier() {
    let ptx = MULTICAST.replace(
        ".reg .b64 %rd<6>;",
        ".reg .b64 %rd<6>;\n    .reg .b16 %rs<2>;",
    );
    let t = Tensor {
        rows: 16,
        cols: 64,
        esize: 2,
    };
    let src: Vec<u8> = (0..t.rows * t.cols)
        .flat_map(|i| (i as u16 ^ 0x5a5a).to_le_bytes())
        .collect();
    let m = tmemu_ptx::parse(&ptx).expect("parse");
    let k = load(&m, &ptx, "tma_mc.ptx", None).expect("load");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let a = g.alloc("src", &src);
    let nbytes = 64u32 * 16 * 2;
    let raw = g.alloc("raw", &vec![0u8; 2 * nbytes as usize]);
    let tm = map(&t, TmElemType::F16, a, 64, 16, SwizzleMode::None).encode();
    let p = params(&k, &[&tm, &raw.to_le_bytes(), &nbytes.to_le_bytes()]);
    let launch = Launch {
        grid: [2, 1, 1],
        block: [32, 1, 1],
        cluster: Some([2, 1, 1]),
        dyn_shared: 0,
        params: p,
    };
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert!(r.hangs.is_empty(), "{:?}", r.hangs);
    let got = g.read_buffer(raw).unwrap();
    assert_eq!(&got[..nbytes as usize], &src[..], "rank 0's copy");
    assert_eq!(&got[nbytes as usize..], &src[..], "rank 1's copy");
}

const BAD: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry tma_bad(.param .align 64 .b8 tmap[128])
{
    .shared .align 1024 .b8 buf[4096];
    .shared .align 8 .b64 bar;
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    mov.u32 %r3, %tid.x;
    setp.eq.u32 %p1, %r3, 0;
    mov.u32 %r1, buf;
    add.u32 %r1, %r1, 64;
    mov.u32 %r2, 0;
    @%p1 mbarrier.init.shared::cta.b64 [bar], 1;
    @%p1 cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [%r1], [tmap, {%r2, %r2}], [bar];
    ret;
}
"#;

#[test]
fn misaligned_destination_is_tm0121_at_the_copy() {
    let m = tmemu_ptx::parse(BAD).expect("parse");
    let k = load(&m, BAD, "tma_bad.ptx", None).expect("load");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let t = Tensor {
        rows: 8,
        cols: 64,
        esize: 2,
    };
    let a = g.alloc("src", &vec![0u8; 1024]);
    let tm = map(&t, TmElemType::F16, a, 64, 8, SwizzleMode::None).encode();
    let p = params(&k, &[&tm]);
    let launch = Launch {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        cluster: None,
        dyn_shared: 0,
        params: p,
    };
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    assert_eq!(r.diagnostics.len(), 1, "{:?}", r.diagnostics);
    let d = &r.diagnostics[0];
    assert_eq!(d.rule.id, "TM0121");
    assert_eq!(d.span.line, 17, "{}", d.span);
}

#[test]
fn wide_im2col_is_unsupported_at_load_time() {
    for mode in ["im2col::w", "im2col::w::128"] {
        let ptx = BAD.replace("global.mbarrier", &format!("global.{mode}.mbarrier"));
        let m = tmemu_ptx::parse(&ptx).expect("parse");
        let e = load(&m, &ptx, "x.ptx", None).unwrap_err();
        assert!(
            matches!(e, tmemu_sim::LoadError::Unsupported { .. }),
            "{mode}: {e}"
        );
    }
}

const IM2COL: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry tma_im2col(.param .align 64 .b8 tmap[128], .param .u64 raw_ptr,
    .param .u32 c0, .param .u32 c1, .param .u32 c2, .param .u32 c3,
    .param .u16 ow, .param .u16 oh, .param .u32 nbytes)
{
    .shared .align 1024 .b8 buf[8192];
    .shared .align 8 .b64 bar;
    .reg .pred %p<4>;
    .reg .b16 %rs<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    ld.param.u32 %r1, [c0];
    ld.param.u32 %r2, [c1];
    ld.param.u32 %r3, [c2];
    ld.param.u32 %r4, [c3];
    ld.param.u16 %rs1, [ow];
    ld.param.u16 %rs2, [oh];
    ld.param.u32 %r5, [nbytes];
    ld.param.u64 %rd1, [raw_ptr];
    mov.u32 %r6, %tid.x;
    setp.eq.u32 %p1, %r6, 0;
    @%p1 mbarrier.init.shared::cta.b64 [bar], 1;
    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], %r5;
    @%p1 cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [buf], [tmap, {%r1, %r2, %r3, %r4}], [bar], {%rs1, %rs2};
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
    @!%p2 bra WAIT;
    @%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd1], [buf], %r5;
    @%p1 cp.async.bulk.commit_group;
    @%p1 cp.async.bulk.wait_group 0;
    ret;
}
"#;

/// An `.im2col` load through the engine (PTX operands: W/H offsets, multicast-free
/// shared::cluster destination) against the H100 recording of the same copy
/// (tests/corpus/tma_h100, case i2c_nhwc_offs_swz32: f16 NHWC [2, 5, 7, 24], 3×3 filter with
/// padding 1, filter tap (w 2, h 1), channels 8..24, 64 pixels, 32B swizzle).
#[test]
fn im2col_load_matches_the_h100() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/tma_h100");
    let manifest = std::fs::read_to_string(dir.join("manifest.txt")).unwrap();
    let dumps = tmemu_testkit::recording::read(&dir.join("dumps.bin"));
    let line = manifest
        .lines()
        .find(|l| l.starts_with("name=i2c_nhwc_offs_swz32 "))
        .unwrap();
    let field = |k: &str| {
        line.split_whitespace()
            .find_map(|f| f.strip_prefix(&format!("{k}=")))
            .unwrap()
            .to_string()
    };
    let at: usize = field("dump_at").parse().unwrap();
    let nbytes: usize = field("expect").parse().unwrap();
    assert_eq!(nbytes, 64 * 16 * 2);
    let want = &dumps[at..at + nbytes];

    // The harness's tensor: byte i = pattern(i).
    let total = 1680 * 2;
    let src: Vec<u8> = (0..total as u64)
        .map(|i| ((i * 151 + (i >> 7) * 29 + 7) & 0xFF) as u8)
        .collect();
    let m = tmemu_ptx::parse(IM2COL).expect("parse");
    let k = load(&m, IM2COL, "tma_im2col.ptx", None).expect("load");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let a = g.alloc("src", &src);
    let raw = g.alloc("raw", &vec![0u8; nbytes]);
    let desc = TensorMapDesc {
        elem_type: TmElemType::F16,
        rank: 4,
        global_address: a,
        global_dims: [24, 7, 5, 2, 0],
        global_strides: [48, 336, 1680, 0],
        box_dims: [0; 5],
        elem_strides: [1, 1, 1, 1, 0],
        interleave: Interleave::None,
        swizzle: SwizzleMode::B32,
        swizzle_atomicity: SwizzleAtomicity::B16,
        oob_fill: OobFill::Zero,
        l2_promotion: L2Promotion::None,
        mode: TensorMapMode::Im2col(Im2colParams {
            lower: [-1, -1, 0],
            upper: [-1, -1, 0],
            channels: 16,
            pixels: 64,
        }),
    };
    let tm = desc.encode();
    let p = params(
        &k,
        &[
            &tm,
            &raw.to_le_bytes(),
            &8i32.to_le_bytes(),
            &(-1i32).to_le_bytes(),
            &(-1i32).to_le_bytes(),
            &0i32.to_le_bytes(),
            &2u16.to_le_bytes(),
            &1u16.to_le_bytes(),
            &(nbytes as u32).to_le_bytes(),
        ],
    );
    let launch = Launch {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        cluster: None,
        dyn_shared: 0,
        params: p,
    };
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert!(r.hangs.is_empty(), "{:?}", r.hangs);
    assert_eq!(
        g.read_buffer(raw).unwrap(),
        want,
        "shared-memory bytes vs the H100"
    );
}

const GATHER4: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry tma_g4(.param .align 64 .b8 tmap[128], .param .align 64 .b8 omap[128],
    .param .u64 raw_ptr, .param .u32 col, .param .u32 r0, .param .u32 r1, .param .u32 r2,
    .param .u32 r3, .param .u32 nbytes)
{
    .shared .align 1024 .b8 buf[4096];
    .shared .align 8 .b64 bar;
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    ld.param.u32 %r1, [col];
    ld.param.u32 %r2, [r0];
    ld.param.u32 %r3, [r1];
    ld.param.u32 %r4, [r2];
    ld.param.u32 %r5, [r3];
    ld.param.u32 %r6, [nbytes];
    ld.param.u64 %rd1, [raw_ptr];
    mov.u32 %r7, %tid.x;
    setp.eq.u32 %p1, %r7, 0;
    @%p1 mbarrier.init.shared::cta.b64 [bar], 1;
    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], %r6;
    @%p1 cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes [buf], [tmap, {%r1, %r2, %r3, %r4, %r5}], [bar];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
    @!%p2 bra WAIT;
    @%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd1], [buf], %r6;
    @%p1 cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [omap, {%r1, %r2, %r3, %r4, %r5}], [buf];
    @%p1 cp.async.bulk.commit_group;
    @%p1 cp.async.bulk.wait_group 0;
    ret;
}
"#;

/// `.tile::gather4` then `.tile::scatter4` through the engine: four rows (one out of the
/// tensor, which a scatter may name but not with a negative row: TM0130) of a 40 × 96 f16
/// tensor with the 64B swizzle; expected bytes from the definition.
#[test]
fn gather4_and_scatter4_move_four_rows() {
    let t = Tensor {
        rows: 40,
        cols: 96,
        esize: 2,
    };
    let src: Vec<u8> = (0..t.rows * t.cols)
        .flat_map(|i| (i as u16).to_le_bytes())
        .collect();
    let m = tmemu_ptx::parse(GATHER4).expect("parse");
    let k = load(&m, GATHER4, "tma_g4.ptx", None).expect("load");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let a = g.alloc("src", &src);
    let o = g.alloc("dst", &vec![0u8; src.len()]);
    let (boxw, col, rows) = (32u32, 72i32, [5i32, 39, 45, 5]);
    let nbytes = 4 * boxw * 2;
    let raw = g.alloc("raw", &vec![0u8; nbytes as usize]);
    let tm = map(&t, TmElemType::F16, a, boxw, 1, SwizzleMode::B64).encode();
    let om = map(&t, TmElemType::F16, o, boxw, 1, SwizzleMode::B64).encode();
    let p = params(
        &k,
        &[
            &tm,
            &om,
            &raw.to_le_bytes(),
            &col.to_le_bytes(),
            &rows[0].to_le_bytes(),
            &rows[1].to_le_bytes(),
            &rows[2].to_le_bytes(),
            &rows[3].to_le_bytes(),
            &nbytes.to_le_bytes(),
        ],
    );
    let launch = Launch {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        cluster: None,
        dyn_shared: 0,
        params: p,
    };
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert!(r.hangs.is_empty(), "{:?}", r.hangs);
    let got = g.read_buffer(raw).unwrap();
    let mut want = vec![0u8; nbytes as usize];
    for (ri, &y) in rows.iter().enumerate() {
        for c in 0..u64::from(boxw) {
            let x = i64::from(col) + c as i64;
            let v: u16 = if y >= 0 && (y as u64) < t.rows && (x as u64) < t.cols {
                (y as u64 * t.cols + x as u64) as u16
            } else {
                0
            };
            let o = (ri as u64 * u64::from(boxw) + c) * 2;
            let phys = o ^ (((o >> 7) & 3) << 4);
            want[phys as usize..phys as usize + 2].copy_from_slice(&v.to_le_bytes());
        }
    }
    assert_eq!(got, want, "gathered rows");
    // The scatter wrote rows 5 and 39, columns 72..96, back unchanged; nothing else.
    let dst = g.read_buffer(o).unwrap();
    for y in 0..t.rows {
        for x in 0..t.cols {
            let i = (y * t.cols + x) as usize;
            let v = u16::from_le_bytes([dst[2 * i], dst[2 * i + 1]]);
            let inside = (y == 5 || y == 39) && x >= 72;
            assert_eq!(v, if inside { i as u16 } else { 0 }, "({y}, {x})");
        }
    }
}

/// A non-tensor bulk reduction: 32 threads copy 512 bytes from `src` into shared memory, then
/// thread 0 reduces them into `dst + 256` with `FORM` (e.g. `add.noftz.f16`).
fn bulk_reduce_ptx(form: &str) -> String {
    format!(
        r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry bred(.param .u64 dst, .param .u64 src)
{{
    .shared .align 128 .b8 buf[512];
    .reg .pred %p<2>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [dst];
    ld.param.u64 %rd2, [src];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 16;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.v4.u32 {{%r2, %r3, %r4, %r5}}, [%rd4];
    mov.u32 %r6, buf;
    mul.lo.u32 %r7, %r1, 16;
    add.u32 %r8, %r6, %r7;
    st.shared.v4.u32 [%r8], {{%r2, %r3, %r4, %r5}};
    fence.proxy.async.shared::cta;
    bar.sync 0;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 cp.reduce.async.bulk.global.shared::cta.bulk_group.{form} [%rd1+256], [buf], 512;
    @%p1 cp.async.bulk.commit_group;
    @%p1 cp.async.bulk.wait_group 0;
    ret;
}}
"#
    )
}

/// `cp.reduce.async.bulk.global.shared::cta.bulk_group` through the whole engine against the
/// H100 recording (tests/corpus/tma_h100, `red_bulk` cases): every (op, type) ptxas accepts,
/// inputs mixed with NaN payloads, ±0, ±inf and subnormals; the 1 KiB destination is compared
/// bit for bit, so the 256 bytes on either side of the reduced range must be left alone.
#[test]
fn bulk_reductions_match_the_h100() {
    let (cases, dumps) = tmemu_testkit::tma_h100::read();
    let mut ran = 0;
    let mut failures = Vec::new();
    for c in cases.iter().filter(|c| c.get("mode") == "red_bulk") {
        let form = c.get("name").trim_start_matches("bulk_").to_string();
        let src = bulk_reduce_ptx(&form);
        let m = tmemu_ptx::parse(&src).expect("parse");
        let k = load(&m, &src, "bred.ptx", None).unwrap_or_else(|e| panic!("{form}: {e:?}"));
        let mut g = GlobalMemory::new();
        install_globals(&k, &mut g).unwrap();
        let init = c.bytes(&dumps, "init_at", "dump_len");
        let sbytes = c.bytes(&dumps, "src_at", "src_len");
        assert_eq!(
            (init.len(), sbytes.len(), c.num("dst_off")),
            (1024, 512, 256)
        );
        let d = g.alloc("dst", init);
        let s = g.alloc("src", sbytes);
        let launch = Launch {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            cluster: None,
            dyn_shared: 0,
            params: params(&k, &[&d.to_le_bytes(), &s.to_le_bytes()]),
        };
        let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
        assert!(r.diagnostics.is_empty(), "{form}: {:?}", r.diagnostics);
        let got = g.read_buffer(d).unwrap();
        let want = c.bytes(&dumps, "dump_at", "dump_len");
        if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
            failures.push(format!(
                "{form}: first difference at byte {i}: tmemu {:#04x}, H100 {:#04x}",
                got[i], want[i]
            ));
        }
        ran += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ran >= 27, "compared {ran} bulk reductions");
}

/// Forms ptxas refuses are refused when the kernel loads, with the instruction's place.
#[test]
fn illegal_bulk_reduction_forms_are_refused_at_load() {
    for form in ["add.f16", "and.u32", "min.f32", "add.noftz.f32", "inc.s32"] {
        let src = bulk_reduce_ptx(form);
        let m = tmemu_ptx::parse(&src).expect("parse");
        let e = load(&m, &src, "bred.ptx", None)
            .err()
            .unwrap_or_else(|| panic!("{form}: accepted"));
        let text = format!("{e:?}");
        assert!(text.contains("not a legal form"), "{form}: {text}");
    }
}

/// The `.shared::cluster` form: reduces `b` into `a` in the CTA's own shared memory (u32 add,
/// 64 words) and completes the mbarrier with the byte count.
const BULK_TO_CLUSTER: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry bredc(.param .u64 out)
{
    .shared .align 128 .b8 a[256];
    .shared .align 128 .b8 b[256];
    .shared .align 8 .b64 bar;
    .reg .pred %p<4>;
    .reg .b32 %r<11>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, a;
    mov.u32 %r3, b;
    shl.b32 %r4, %r1, 2;
    add.u32 %r5, %r2, %r4;
    add.u32 %r6, %r3, %r4;
    // a[i] = 0xFFFFFFF0 + i, b[i] = 3 * i (one word per thread, 64 threads)
    add.u32 %r7, %r1, -16;
    st.shared.u32 [%r5], %r7;
    mul.lo.u32 %r8, %r1, 3;
    st.shared.u32 [%r6], %r8;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 mbarrier.init.shared::cta.b64 [bar], 1;
    fence.proxy.async.shared::cta;
    bar.sync 0;
    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 256;
    @%p1 cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [a], [b], 256, [bar];
    // A bounded wait: without a cluster nothing ever arrives (TM0131).
    mov.u32 %r10, 0;
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
    add.u32 %r10, %r10, 1;
    setp.lt.u32 %p3, %r10, 64;
    @!%p2 bra.uni NEXT;
    bra.uni DONE;
NEXT:
    @%p3 bra WAIT;
DONE:
    ld.shared.u32 %r9, [%r5];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r9;
    ret;
}
"#;

fn run_bulk_to_cluster(cluster: Option<[u32; 3]>) -> (tmemu_sim::RunResult, Vec<u8>) {
    let m = tmemu_ptx::parse(BULK_TO_CLUSTER).expect("parse");
    let k = load(&m, BULK_TO_CLUSTER, "bredc.ptx", None).expect("load");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &[0u8; 256]);
    let launch = Launch {
        grid: [1, 1, 1],
        block: [64, 1, 1],
        cluster,
        dyn_shared: 0,
        params: params(&k, &[&out.to_le_bytes()]),
    };
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    let got = g.read_buffer(out).unwrap();
    (r, got)
}

/// In a cluster launch (here of one CTA, as recorded on the H100) the words are the wrapping
/// sums, computed here.
#[test]
fn bulk_reduction_into_shared_cluster_completes_the_mbarrier() {
    let (r, got) = run_bulk_to_cluster(Some([1, 1, 1]));
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    for i in 0..64u32 {
        let want = 0xFFFF_FFF0u32.wrapping_add(i).wrapping_add(3 * i);
        let w = u32::from_le_bytes(got[4 * i as usize..4 * i as usize + 4].try_into().unwrap());
        assert_eq!(w, want, "word {i}");
    }
}

/// Without a cluster the H100 faults on the same instruction (tests/corpus/tma_h100,
/// `cluster_*` and `plain_self_*` cases): TM0131 at the reduction, which moves nothing.
#[test]
fn bulk_reduction_into_shared_cluster_needs_a_cluster_launch() {
    let (r, _) = run_bulk_to_cluster(None);
    let ids: Vec<&str> = r.diagnostics.iter().map(|d| d.rule.id).collect();
    assert!(ids.contains(&"TM0131"), "{:?}", r.diagnostics);
}

/// The ISA requires a size that is a multiple of 16 and 16-byte aligned addresses: a 24-byte
/// reduction, or one from a source 8 bytes into the buffer, is a misaligned access (TM0502)
/// and moves nothing.
#[test]
fn bulk_reduction_size_and_addresses_are_16_byte_granular() {
    for (from, to) in [("[buf], 512", "[buf], 24"), ("[buf], 512", "[buf+8], 496")] {
        let src = bulk_reduce_ptx("add.u32").replace(from, to);
        let m = tmemu_ptx::parse(&src).expect("parse");
        let k = load(&m, &src, "bred.ptx", None).expect("load");
        let mut g = GlobalMemory::new();
        install_globals(&k, &mut g).unwrap();
        let d = g.alloc("dst", &[7u8; 1024]);
        let s = g.alloc("src", &[1u8; 512]);
        let launch = Launch {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            cluster: None,
            dyn_shared: 0,
            params: params(&k, &[&d.to_le_bytes(), &s.to_le_bytes()]),
        };
        let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
        let ids: Vec<&str> = r.diagnostics.iter().map(|d| d.rule.id).collect();
        assert_eq!(ids, ["TM0502"], "{to}: {:?}", r.diagnostics);
        assert!(
            g.read_buffer(d).unwrap().iter().all(|&b| b == 7),
            "{to}: bytes moved"
        );
    }
}
