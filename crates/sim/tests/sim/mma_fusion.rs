//! K fusion of `tcgen05.mma` (`exec/mma/fuse.rs`) is flushed wherever D is observed or
//! changed: kernels written here issue MMAs (`.kind::f16`, M = 128, N = 64, K = 16 per
//! instruction, 128B-swizzled K-major operands laid out by this test from the PTX ISA's
//! canonical layout) with `tcgen05.ld` of D in between, an `enable-input-d = 0` in the middle,
//! a stage overwritten after the commit that tracks its MMAs has been waited on (operands are
//! read at completion, not when the fused GEMM runs), two accumulators interleaved, and a
//! dealloc/realloc before D is read. Each runs with fusion on and off under the three async
//! policies; small-integer operands make every f32 sum exact, so fused, unfused and the f64
//! reference must agree bit for bit. A random-valued run checks the stated tolerance
//! (summation order only).

use tmemu_sim::exec::tcgen05::queue::AsyncPolicy;
use tmemu_sim::{install_globals, load, run, GlobalMemory, Launch, RunOptions};

const M: usize = 128;
const N: usize = 64;
/// K of one stage: four MMAs of K = 16.
const KS: usize = 64;
const A_BYTES: usize = M * KS * 2;
const STAGE: usize = A_BYTES + N * KS * 2;

/// 128B-swizzled byte address (`Swizzle<3,4,3>`).
fn sw128(a: usize) -> usize {
    a ^ (((a >> 7) & 7) << 4)
}

/// `x` (rows × 64, row-major) as a K-major 128B-swizzled f16 operand at `base`: 8-row atoms
/// of 128-byte rows, atoms `SBO` = 1024 bytes apart (§9.7.16.3.3).
fn put_kmajor(img: &mut [u8], base: usize, x: &[f32], rows: usize) {
    for r in 0..rows {
        for kk in 0..KS {
            let a = sw128(base + (r % 8) * 128 + (r / 8) * 1024 + kk * 2);
            let bits = half::f16::from_f32(x[r * KS + kk]).to_bits();
            img[a..a + 2].copy_from_slice(&bits.to_le_bytes());
        }
    }
}

/// One stage's operands.
#[derive(Clone)]
struct Stage {
    a: Vec<f32>,
    b: Vec<f32>,
}

fn stage(seed: u32, random: bool) -> Stage {
    let mut s = seed.wrapping_mul(2_654_435_761).wrapping_add(12345);
    let mut next = || {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        if random {
            // f16-representable values in [-1, 1)
            half::f16::from_f32((s >> 8) as f32 / (1u32 << 23) as f32 - 1.0).to_f32()
        } else {
            ((s >> 24) % 9) as f32 - 4.0
        }
    };
    Stage {
        a: (0..M * KS).map(|_| next()).collect(),
        b: (0..N * KS).map(|_| next()).collect(),
    }
}

/// Σ over the given stages of A·Bᵀ in f64, and Σ|products| (for the tolerance).
fn reference(stages: &[&Stage]) -> (Vec<f64>, Vec<f64>) {
    let mut d = vec![0f64; M * N];
    let mut mag = vec![0f64; M * N];
    for s in stages {
        for i in 0..M {
            for j in 0..N {
                for kk in 0..KS {
                    let p = f64::from(s.a[i * KS + kk]) * f64::from(s.b[j * KS + kk]);
                    d[i * N + j] += p;
                    mag[i * N + j] += p.abs();
                }
            }
        }
    }
    (d, mag)
}

/// What the kernel does, in order (thread 0 issues the MMAs and commits; every thread
/// waits, loads and copies).
#[allow(clippy::enum_variant_names)] // MmaStep: one step of a fused Mma, named as the PTX has it
enum Step {
    /// Four MMAs (K = 16 each) of shared stage `slot` into D at TMEM column `col`;
    /// `enable_first` = enable-input-d of the first (the others accumulate).
    Mma {
        col: u32,
        slot: usize,
        enable_first: bool,
    },
    /// One MMA, step `k` (0..4) of stage `slot`.
    MmaStep {
        col: u32,
        slot: usize,
        k: usize,
        enable: bool,
    },
    /// Commit, then every thread waits on the mbarrier (and on the others, so no warp can
    /// reach the next phase's wait before every warp has left this one).
    CommitWait,
    /// Every thread loads its row of D at `col` (64 columns) into output slot `out`.
    Ld { col: u32, out: usize },
    /// Copy input image `image` into shared stage `slot`.
    Copy { image: usize, slot: usize },
    /// Warp 0 deallocates the 256 columns and allocates them again.
    Realloc,
}

fn ptx(steps: &[Step], slots: usize) -> String {
    let mut b = String::new();
    let mut label = 0;
    let mut phase = 0;
    let desc_hi = (1u64 << 16) | ((1024u64 >> 4) << 32) | (1 << 46) | (2u64 << 61);
    // idesc: f32 D, f16 A and B, K-major both, N >> 3 at 17, M >> 4 at 24
    let idesc = (1u32 << 4) | (((N as u32) >> 3) << 17) | (((M as u32) >> 4) << 24);
    for s in steps {
        label += 1;
        match *s {
            Step::Mma {
                col,
                slot,
                enable_first,
            } => {
                for k in 0..4 {
                    b += &mma(
                        label * 10 + k,
                        col,
                        slot,
                        k,
                        k > 0 || enable_first,
                        desc_hi,
                        idesc,
                    );
                }
            }
            Step::MmaStep {
                col,
                slot,
                k,
                enable,
            } => b += &mma(label * 10, col, slot, k, enable, desc_hi, idesc),
            Step::CommitWait => {
                b += &format!(
                    "    @!%p2 bra L_C{label};\n    tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r7];\nL_C{label}:\nL_W{label}:\n    mbarrier.try_wait.parity.shared::cta.b64 %p6, [%r7], {phase};\n    @!%p6 bra L_W{label};\n    tcgen05.fence::after_thread_sync;\n    bar.sync 0;\n"
                );
                phase ^= 1;
            }
            Step::Ld { col, out } => {
                let regs: Vec<String> = (0..N).map(|j| format!("%r{}", 100 + j)).collect();
                b += &format!(
                    "    ld.shared.u32 %r30, [%r4];\n    add.u32 %r32, %r30, %r31;\n    add.u32 %r62, %r32, {col};\n    tcgen05.ld.sync.aligned.32x32b.x64.b32 {{{}}}, [%r62];\n    tcgen05.wait::ld.sync.aligned;\n",
                    regs.join(", ")
                );
                let off = out * M * N * 4;
                for j in 0..N {
                    b += &format!("    st.global.u32 [%rd6+{}], %r{};\n", off + 4 * j, 100 + j);
                }
                // no MMA may change D before every warp has read it
                b += "    tcgen05.fence::before_thread_sync;\n    bar.sync 0;\n    tcgen05.fence::after_thread_sync;\n";
            }
            Step::Copy { image, slot } => {
                b += "    tcgen05.fence::before_thread_sync;\n    bar.sync 0;\n    tcgen05.fence::after_thread_sync;\n";
                for i in 0..STAGE / 2048 {
                    b += &format!(
                        "    ld.global.v4.u32 {{%r50, %r51, %r52, %r53}}, [%rd4+{}];\n    st.shared.v4.u32 [%r42+{}], {{%r50, %r51, %r52, %r53}};\n",
                        image * STAGE + i * 2048,
                        slot * STAGE + i * 2048
                    );
                }
                b += "    fence.proxy.async.shared::cta;\n    tcgen05.fence::before_thread_sync;\n    bar.sync 0;\n    tcgen05.fence::after_thread_sync;\n";
            }
            Step::Realloc => {
                b += &format!(
                    "    tcgen05.fence::before_thread_sync;\n    bar.sync 0;\n    tcgen05.fence::after_thread_sync;\n    @!%p1 bra L_R{label};\n    ld.shared.u32 %r30, [%r4];\n    tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r30, 256;\n    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 256;\nL_R{label}:\n    tcgen05.fence::before_thread_sync;\n    bar.sync 0;\n    tcgen05.fence::after_thread_sync;\n"
                );
            }
        }
    }
    format!(
        r#"
.version 8.8
.target sm_100a
.address_size 64

.visible .entry fuse(.param .u64 p_out, .param .u64 p_in)
{{
    .reg .pred %p<8>;
    .reg .b32 %r<200>;
    .reg .b64 %rd<32>;
    .shared .align 8 .b64 mbar;
    .shared .align 4 .b32 slot;
    .shared .align 1024 .b8 sm[{smem}];

    ld.param.u64 %rd1, [p_out];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u64 %rd2, [p_in];
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    shr.u32 %r2, %r1, 5;
    mov.u32 %r4, slot;
    mov.u32 %r7, mbar;
    mov.u32 %r10, sm;
    setp.eq.u32 %p1, %r2, 0;
    setp.eq.u32 %p2, %r1, 0;
    @!%p1 bra L_ALLOCATED;
    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 256;
L_ALLOCATED:
    @!%p2 bra L_INIT;
    mbarrier.init.shared::cta.b64 [%r7], 1;
L_INIT:
    mul.wide.u32 %rd3, %r1, 16;
    add.s64 %rd4, %rd2, %rd3;
    shl.b32 %r41, %r1, 4;
    add.u32 %r42, %r10, %r41;
    and.b32 %r11, %r10, 262143;
    shr.u32 %r11, %r11, 4;
    cvt.u64.u32 %rd20, %r11;
    shl.b32 %r31, %r2, 21;
    mul.wide.u32 %rd5, %r1, {row_bytes};
    add.s64 %rd6, %rd1, %rd5;
{body}    tcgen05.fence::before_thread_sync;
    bar.sync 0;
    tcgen05.fence::after_thread_sync;
    @!%p1 bra L_END;
    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
    ld.shared.u32 %r30, [%r4];
    tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r30, 256;
L_END:
    ret;
}}
"#,
        smem = slots * STAGE,
        row_bytes = N * 4,
        body = b
    )
}

/// Thread 0's `tcgen05.mma` of K step `k` of shared stage `slot` into column `col`.
fn mma(
    label: usize,
    col: u32,
    slot: usize,
    k: usize,
    enable: bool,
    desc_hi: u64,
    idesc: u32,
) -> String {
    let a = (((slot * STAGE + k * 32) >> 4) as u64) | desc_hi;
    let b = (((slot * STAGE + A_BYTES + k * 32) >> 4) as u64) | desc_hi;
    // enable-input-d as a predicate of thread 0: tid == 0 (true) or tid == 1 (false)
    let en = if enable { 0 } else { 1 };
    format!(
        "    @!%p2 bra L_M{label};\n    add.s64 %rd11, %rd20, {a};\n    add.s64 %rd12, %rd20, {b};\n    ld.shared.u32 %r30, [%r4];\n    add.u32 %r61, %r30, {col};\n    setp.eq.u32 %p5, %r1, {en};\n    tcgen05.mma.cta_group::1.kind::f16 [%r61], %rd11, %rd12, {idesc}, %p5;\nL_M{label}:\n"
    )
}

/// The input image of stages `images`.
fn image(images: &[Stage]) -> Vec<u32> {
    let mut img = vec![0u8; images.len() * STAGE];
    for (i, s) in images.iter().enumerate() {
        put_kmajor(&mut img, i * STAGE, &s.a, M);
        put_kmajor(&mut img, i * STAGE + A_BYTES, &s.b, N);
    }
    img.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Runs the kernel for `steps` on `images`; returns `outs` output slots of M × N f32.
fn run_steps(
    steps: &[Step],
    slots: usize,
    images: &[Stage],
    outs: usize,
    policy: AsyncPolicy,
    fusion: bool,
) -> Vec<Vec<f32>> {
    let src = ptx(steps, slots);
    let m = tmemu_ptx::parse(&src).expect("parse");
    let k = load(&m, &src, "fuse.ptx", None).expect("load");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &vec![0u8; outs * M * N * 4]);
    let inp: Vec<u8> = image(images).iter().flat_map(|w| w.to_le_bytes()).collect();
    let inp = g.alloc("in", &inp);
    let mut params = vec![0u8; k.param_bytes as usize];
    for (p, v) in k.params.iter().zip([out, inp]) {
        params[p.offset as usize..(p.offset + p.size) as usize]
            .copy_from_slice(&v.to_le_bytes()[..p.size as usize]);
    }
    let launch = Launch {
        grid: [1, 1, 1],
        block: [128, 1, 1],
        cluster: None,
        dyn_shared: 0,
        params,
    };
    let opts = RunOptions {
        max_steps: 5_000_000,
        async_policy: policy,
        mma_fusion: fusion,
        ..Default::default()
    };
    let r = run(&k, &launch, &g, &opts).expect("launch");
    assert!(r.hangs.is_empty(), "{:?}", r.hangs);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let words: Vec<f32> = g
        .read_buffer(out)
        .unwrap()
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    words.chunks(M * N).map(|c| c.to_vec()).collect()
}

const POLICIES: [AsyncPolicy; 3] = [
    AsyncPolicy::Immediate,
    AsyncPolicy::Delayed(2),
    AsyncPolicy::Adversarial,
];

/// Every policy, fused and unfused, gives exactly `want[slot]` (integer operands).
fn exact(steps: &[Step], slots: usize, images: &[Stage], want: &[Vec<f64>]) {
    for policy in POLICIES {
        for fusion in [true, false] {
            let got = run_steps(steps, slots, images, want.len(), policy, fusion);
            for (o, (g, w)) in got.iter().zip(want).enumerate() {
                for (e, (&g, &w)) in g.iter().zip(w).enumerate() {
                    assert_eq!(
                        f64::from(g),
                        w,
                        "{policy:?} fusion {fusion}: output {o}, row {} column {}",
                        e / N,
                        e % N
                    );
                }
            }
        }
    }
}

#[test]
fn a_load_of_d_between_mmas_sees_the_product_so_far() {
    let st = [stage(1, false), stage(2, false)];
    let steps = [
        Step::Copy { image: 0, slot: 0 },
        Step::Copy { image: 1, slot: 1 },
        Step::Mma {
            col: 0,
            slot: 0,
            enable_first: false,
        },
        Step::CommitWait,
        Step::Ld { col: 0, out: 0 },
        Step::Mma {
            col: 0,
            slot: 1,
            enable_first: true,
        },
        Step::CommitWait,
        Step::Ld { col: 0, out: 1 },
    ];
    exact(
        &steps,
        2,
        &st,
        &[reference(&[&st[0]]).0, reference(&[&st[0], &st[1]]).0],
    );
}

#[test]
fn enable_input_d_zero_in_the_middle_restarts_the_sum() {
    let st = [stage(3, false), stage(4, false)];
    let steps = [
        Step::Copy { image: 0, slot: 0 },
        Step::Copy { image: 1, slot: 1 },
        Step::Mma {
            col: 0,
            slot: 0,
            enable_first: false,
        },
        // D = A1·B1 from here: the first step overwrites, the rest accumulate
        Step::Mma {
            col: 0,
            slot: 1,
            enable_first: false,
        },
        Step::CommitWait,
        Step::Ld { col: 0, out: 0 },
    ];
    exact(&steps, 2, &st, &[reference(&[&st[1]]).0]);
}

#[test]
fn a_stage_overwritten_after_the_commit_does_not_change_the_earlier_mmas() {
    let st = [stage(5, false), stage(6, false)];
    let steps = [
        Step::Copy { image: 0, slot: 0 },
        Step::Mma {
            col: 0,
            slot: 0,
            enable_first: false,
        },
        Step::CommitWait,
        // the MMAs have completed (their operands read); D has not been observed
        Step::Copy { image: 1, slot: 0 },
        Step::Mma {
            col: 0,
            slot: 0,
            enable_first: true,
        },
        Step::CommitWait,
        Step::Ld { col: 0, out: 0 },
    ];
    exact(&steps, 1, &st, &[reference(&[&st[0], &st[1]]).0]);
}

#[test]
fn two_interleaved_accumulators_stay_apart() {
    let st = [stage(7, false), stage(8, false), stage(9, false)];
    let mut steps = vec![
        Step::Copy { image: 0, slot: 0 },
        Step::Copy { image: 1, slot: 1 },
        Step::Copy { image: 2, slot: 2 },
    ];
    for k in 0..4 {
        steps.push(Step::MmaStep {
            col: 0,
            slot: 0,
            k,
            enable: k > 0,
        });
        steps.push(Step::MmaStep {
            col: 64,
            slot: 1,
            k,
            enable: k > 0,
        });
    }
    for k in 0..4 {
        steps.push(Step::MmaStep {
            col: 64,
            slot: 2,
            k,
            enable: true,
        });
        steps.push(Step::MmaStep {
            col: 0,
            slot: 2,
            k,
            enable: true,
        });
    }
    steps.push(Step::CommitWait);
    steps.push(Step::Ld { col: 64, out: 1 });
    steps.push(Step::Ld { col: 0, out: 0 });
    exact(
        &steps,
        3,
        &st,
        &[
            reference(&[&st[0], &st[2]]).0,
            reference(&[&st[1], &st[2]]).0,
        ],
    );
}

#[test]
fn dealloc_applies_the_pending_product() {
    let st = [stage(10, false), stage(11, false)];
    let steps = [
        Step::Copy { image: 0, slot: 0 },
        Step::Copy { image: 1, slot: 1 },
        Step::Mma {
            col: 0,
            slot: 0,
            enable_first: false,
        },
        Step::Mma {
            col: 0,
            slot: 1,
            enable_first: true,
        },
        Step::CommitWait,
        // freed and allocated again (the lowest columns: the same cells) before any read
        Step::Realloc,
        Step::Ld { col: 0, out: 0 },
    ];
    exact(&steps, 2, &st, &[reference(&[&st[0], &st[1]]).0]);
}

/// Random f16 operands over eight stages (K = 512): fused and unfused each within the
/// recursive-summation bound of the f64 product, and of each other within twice it.
#[test]
fn fused_and_unfused_agree_up_to_summation_order() {
    let st: Vec<Stage> = (0..8).map(|s| stage(20 + s, true)).collect();
    let mut steps = vec![];
    for (s, _) in st.iter().enumerate() {
        steps.push(Step::Copy { image: s, slot: 0 });
        steps.push(Step::Mma {
            col: 0,
            slot: 0,
            enable_first: s > 0,
        });
        steps.push(Step::CommitWait);
    }
    steps.push(Step::Ld { col: 0, out: 0 });
    let refs: Vec<&Stage> = st.iter().collect();
    let (want, mag) = reference(&refs);
    let k_total = (st.len() * KS) as f64;
    let fused = run_steps(&steps, 1, &st, 1, AsyncPolicy::Immediate, true).remove(0);
    let unfused = run_steps(&steps, 1, &st, 1, AsyncPolicy::Immediate, false).remove(0);
    let mut differ = 0;
    for e in 0..M * N {
        let bound = (k_total + 1.0) * f64::from(f32::EPSILON) / 2.0 * mag[e];
        let (f, u) = (f64::from(fused[e]), f64::from(unfused[e]));
        assert!(
            (f - want[e]).abs() <= bound,
            "fused {e}: {f} vs {}",
            want[e]
        );
        assert!(
            (u - want[e]).abs() <= bound,
            "unfused {e}: {u} vs {}",
            want[e]
        );
        assert!((f - u).abs() <= 2.0 * bound, "{e}: fused {f} unfused {u}");
        differ += usize::from(f != u);
    }
    // different summation orders: some elements must differ, or fusion did not happen
    assert!(differ > 0, "fused and unfused results are bit-identical");
}
