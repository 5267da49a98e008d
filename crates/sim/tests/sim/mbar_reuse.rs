//! TM0233 (mbarrier-memory-reused): a write over the bytes of an mbarrier that is still valid
//! is reported on every path that writes shared memory for a thread (the warp-wide `st`, the
//! per-lane path of a generic `st`, `cp.async` fast and per-lane, a shared atomic, a peer
//! CTA's `st.shared::cluster`), and is silent after `mbarrier.inval`; an `mbarrier.init` of
//! the same location makes it valid again. Every mode runs on the fast and the reference
//! paths (`RunOptions::reference_paths`), which must agree on where and for which lanes.

use tmemu_sim::{run, GlobalMemory, Launch, RunOptions};

use crate::support::{load_src, param_block, plain_launch};

/// Thread 0 initialises mbarriers at `bars + 0` and `bars + 16` (bytes 8-15 lie between
/// them); then each of the 32 threads writes the word at `bars + 4 * tid` in the way `mode`
/// picks: lanes 0, 1 (the first barrier) and 4, 5 (the second) overlap a barrier.
const PTX: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry mr(.param .u64 src_ptr, .param .u32 mode)
{
    .reg .b32 %r<40>;
    .reg .b64 %rd<20>;
    .reg .pred %p<12>;
    .shared .align 16 .b64 bars[16];
    ld.param.u64 %rd1, [src_ptr];
    ld.param.u32 %r30, [mode];
    mov.u32 %r1, %tid.x;
    mov.u32 %r4, bars;
    add.u32 %r5, %r4, 16;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra INITED;
    mbarrier.init.shared::cta.b64 [%r4], 1;
    mbarrier.init.shared::cta.b64 [%r5], 1;
INITED:
    bar.sync 0;
    shl.b32 %r6, %r1, 2;
    add.u32 %r7, %r4, %r6;
    setp.eq.u32 %p2, %r30, 1;
    @%p2 bra GENERIC;
    setp.eq.u32 %p2, %r30, 2;
    @%p2 bra INVAL;
    setp.eq.u32 %p2, %r30, 3;
    @%p2 bra REINIT;
    setp.eq.u32 %p2, %r30, 4;
    @%p2 bra CPASYNC;
    setp.eq.u32 %p2, %r30, 5;
    @%p2 bra ATOMIC;
    st.shared.u32 [%r7], %r1;
    ret;
GENERIC:
    cvt.u64.u32 %rd3, %r7;
    cvta.shared.u64 %rd4, %rd3;
    st.u32 [%rd4], %r1;
    ret;
INVAL:
    @!%p1 mbarrier.inval.shared::cta.b64 [%r4];
    @!%p1 mbarrier.inval.shared::cta.b64 [%r5];
    bar.sync 0;
    st.shared.u32 [%r7], %r1;
    ret;
REINIT:
    @!%p1 mbarrier.inval.shared::cta.b64 [%r4];
    @!%p1 mbarrier.inval.shared::cta.b64 [%r5];
    bar.sync 0;
    @!%p1 mbarrier.init.shared::cta.b64 [%r5], 1;
    bar.sync 0;
    st.shared.u32 [%r7], %r1;
    ret;
CPASYNC:
    cp.async.ca.shared.global [%r7], [%rd1], 4;
    cp.async.wait_all;
    ret;
ATOMIC:
    atom.shared.add.u32 %r8, [%r7], 1;
    ret;
}
"#;

/// CTA rank 1 of a cluster of 2 stores over the mbarrier of CTA rank 0 (`mapa`); both CTAs
/// stay until it has (barrier.cluster), so the peer's memory is live.
const CLUSTER_PTX: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry mc(.param .u32 inval)
{
    .reg .b32 %r<20>;
    .reg .pred %p<4>;
    .shared .align 8 .b64 bar;
    ld.param.u32 %r9, [inval];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %cluster_ctarank;
    mov.u32 %r4, bar;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra INITED;
    mbarrier.init.shared::cta.b64 [%r4], 1;
    setp.ne.u32 %p3, %r9, 0;
    @%p3 mbarrier.inval.shared::cta.b64 [%r4];
INITED:
    barrier.cluster.arrive;
    barrier.cluster.wait;
    setp.ne.u32 %p2, %r2, 1;
    or.pred %p2, %p2, %p1;
    mapa.shared::cluster.u32 %r5, %r4, 0;
    @!%p2 st.shared::cluster.u32 [%r5], %r1;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}
"#;

/// The TM0233 reports of a run: (pc, lanes, message), sorted.
fn reports(r: &tmemu_sim::RunResult) -> Vec<(u32, u32, String)> {
    let mut v: Vec<_> = r
        .diagnostics
        .iter()
        .filter(|d| d.rule.id == "TM0233")
        .map(|d| (d.ctx.pc, d.ctx.lanes, d.message.clone()))
        .collect();
    v.sort();
    v
}

fn opts(reference_paths: bool) -> RunOptions {
    RunOptions {
        reference_paths,
        max_steps: 100_000,
        ..Default::default()
    }
}

/// The union of the lanes TM0233 names, and the pcs it names, for one mode and path.
fn run_mode(mode: u32, reference_paths: bool) -> (u32, Vec<u32>, Vec<String>) {
    let k = load_src(PTX, "mr.ptx");
    let mut g = GlobalMemory::new();
    let src = g.alloc("src", &[7u8; 64]);
    let launch = plain_launch([1, 1, 1], [32, 1, 1], param_block(&k, [src, mode as u64]));
    let r = run(&k, &launch, &g, &opts(reference_paths)).expect("launch");
    let others: Vec<_> = r
        .diagnostics
        .iter()
        .filter(|d| d.rule.id != "TM0233")
        .collect();
    assert!(others.is_empty(), "mode {mode}: {others:?}");
    let rep = reports(&r);
    let mut pcs: Vec<u32> = rep.iter().map(|x| x.0).collect();
    pcs.dedup();
    let lanes = rep.iter().fold(0, |a, x| a | x.1);
    (lanes, pcs, rep.into_iter().map(|x| x.2).collect())
}

#[test]
fn writes_over_a_valid_mbarrier_are_reported_on_every_path() {
    // mode: the lanes that overlap a valid barrier
    for (mode, want) in [
        (0, 0x33),
        (1, 0x33),
        (2, 0),
        (3, 0x30),
        (4, 0x33),
        (5, 0x33),
    ] {
        let fast = run_mode(mode, false);
        let slow = run_mode(mode, true);
        assert_eq!(
            fast.0, want,
            "mode {mode}: lanes {:#x} {:?}",
            fast.0, fast.2
        );
        assert_eq!(
            slow.0, want,
            "mode {mode} (reference): lanes {:#x} {:?}",
            slow.0, slow.2
        );
        assert_eq!(fast.1, slow.1, "mode {mode}: pcs");
        assert!(fast.1.len() <= 1, "mode {mode}: one instruction writes");
    }
}

#[test]
fn a_peer_ctas_store_over_a_valid_mbarrier_is_reported() {
    let k = load_src(CLUSTER_PTX, "mc.ptx");
    let g = GlobalMemory::new();
    for (inval, want) in [(0u64, 1usize), (1, 0)] {
        let launch = Launch {
            cluster: Some([2, 1, 1]),
            ..plain_launch([2, 1, 1], [32, 1, 1], param_block(&k, [inval]))
        };
        for reference in [false, true] {
            let r = run(&k, &launch, &g, &opts(reference)).expect("launch");
            let rep = reports(&r);
            assert_eq!(rep.len(), want, "inval {inval}: {:?}", r.diagnostics);
            if let Some((_, lanes, msg)) = rep.first() {
                assert_eq!(*lanes, 1);
                assert!(msg.contains("of CTA rank 0"), "{msg}");
            }
        }
    }
}
