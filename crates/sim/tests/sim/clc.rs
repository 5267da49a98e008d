//! Cluster Launch Control (exec/clc.rs, docs/arch/clc.md): a `try_cancel` takes a cluster of
//! its SM group that has not started, the response carries that cluster's first ctaid and
//! completes on the mbarrier with complete-tx(16), cancelled clusters never run, and requests
//! fail once nothing is pending. Also the `.b128` register pair and its loads and stores.

use tmemu_sim::{install_globals, run, GlobalMemory, Launch, RunOptions, RunResult};

use crate::support::{load_src, param_block, u32_words};

/// Work stealing as CUTLASS's SM100 scheduler does it: each CTA does the item of its own
/// ctaid, then asks for a not-yet-started CTA, does its item, and so on until a request fails.
/// Item x: `count[x] += 1` (atomic: every item exactly once) and `by[x] = ctaid` of the CTA
/// that did it.
const STEAL: &str = r#"
.version 8.7
.target sm_100a
.address_size 64

.visible .entry steal(.param .u64 count_ptr, .param .u64 by_ptr)
{
    .shared .align 16 .b8 resp[16];
    .shared .align 8 .b64 bar;
    .reg .b32 %r<16>;
    .reg .b64 %rd<10>;
    .reg .pred %p<6>;
    .reg .b128 %q;
    ld.param.u64 %rd1, [count_ptr];
    ld.param.u64 %rd2, [by_ptr];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %r2;
    mov.u32 %r10, 0;
    setp.eq.u32 %p1, %r1, 0;
    mov.u32 %r4, bar;
    mov.u32 %r5, resp;
    @%p1 mbarrier.init.shared::cta.b64 [%r4], 1;
    bar.sync 0;
LOOP:
    @!%p1 bra SKIP;
    mul.wide.u32 %rd3, %r3, 4;
    add.u64 %rd4, %rd1, %rd3;
    atom.global.add.u32 %r6, [%rd4], 1;
    add.u64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r2;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd6, [%r4], 16;
    clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%r5], [%r4];
SKIP:
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r4], %r10;
    @!%p2 bra WAIT;
    xor.b32 %r10, %r10, 1;
    ld.shared.b128 %q, [%r5];
    clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p3, %q;
    @!%p3 bra DONE;
    clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %r3, %q;
    fence.proxy.async.shared::cta;
    bar.sync 0;
    bra LOOP;
DONE:
    ret;
}
"#;

/// The same with clusters of 2: rank 0 asks with `.multicast::cluster::all`, both CTAs get
/// the response and each does item `first ctaid + rank` (the generic-address form of
/// try_cancel, and `get_first_ctaid.v4`).
const STEAL_MULTICAST: &str = r#"
.version 8.7
.target sm_100a
.address_size 64

.visible .entry steal_mc(.param .u64 count_ptr, .param .u64 by_ptr)
.reqnctapercluster 2, 1, 1
{
    .shared .align 16 .b8 resp[16];
    .shared .align 8 .b64 bar;
    .reg .b32 %r<20>;
    .reg .b64 %rd<12>;
    .reg .pred %p<6>;
    .reg .b128 %q;
    ld.param.u64 %rd1, [count_ptr];
    ld.param.u64 %rd2, [by_ptr];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %r2;
    mov.u32 %r10, 0;
    mov.u32 %r11, %cluster_ctarank;
    setp.eq.u32 %p1, %r1, 0;
    setp.eq.u32 %p4, %r11, 0;
    mov.u32 %r4, bar;
    cvta.shared.u64 %rd8, bar;
    cvta.shared.u64 %rd9, resp;
    mov.u32 %r5, resp;
    @%p1 mbarrier.init.shared::cta.b64 [%r4], 1;
    barrier.cluster.arrive.release.aligned;
    barrier.cluster.wait.acquire.aligned;
LOOP:
    @!%p1 bra SKIP;
    mul.wide.u32 %rd3, %r3, 4;
    add.u64 %rd4, %rd1, %rd3;
    atom.global.add.u32 %r6, [%rd4], 1;
    add.u64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r2;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd6, [%r4], 16;
    @%p4 clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [%rd9], [%rd8];
SKIP:
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r4], %r10;
    @!%p2 bra WAIT;
    xor.b32 %r10, %r10, 1;
    ld.shared.b128 %q, [%r5];
    clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p3, %q;
    @!%p3 bra DONE;
    clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%r12, %r13, %r14, _}, %q;
    add.u32 %r3, %r12, %r11;
    fence.proxy.async.shared::cta;
    barrier.cluster.arrive.release.aligned;
    barrier.cluster.wait.acquire.aligned;
    bra LOOP;
DONE:
    ret;
}
"#;

fn run_steal(src: &str, grid: u32, nsms: u32, per_sm: u32) -> (RunResult, Vec<u32>, Vec<u32>) {
    let k = load_src(src, "clc.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let count = g.alloc("count", &vec![0u8; grid as usize * 4]);
    let by = g.alloc("by", &vec![0xffu8; grid as usize * 4]);
    let launch = Launch {
        grid: [grid, 1, 1],
        block: [64, 1, 1],
        cluster: None,
        dyn_shared: 0,
        params: param_block(&k, [count, by]),
    };
    let mut opts = RunOptions {
        nsms,
        ..Default::default()
    };
    opts.limits.max_ctas_per_sm = per_sm;
    let r = run(&k, &launch, &g, &opts).expect("launch");
    (
        r,
        u32_words(&g.read_buffer(count).unwrap()),
        u32_words(&g.read_buffer(by).unwrap()),
    )
}

fn clean(r: &RunResult) {
    assert!(
        r.diagnostics.is_empty() && r.hangs.is_empty() && r.budget_exhausted.is_empty(),
        "{r:?}"
    );
}

#[test]
fn every_cta_runs_its_own_item_when_all_clusters_start_at_once() {
    // 148 SMs, 8 CTAs: nothing is pending, so every request fails and no CTA is cancelled
    let (r, count, by) = run_steal(STEAL, 8, 148, 1);
    clean(&r);
    assert_eq!(count, vec![1; 8]);
    assert_eq!(by, (0..8).collect::<Vec<u32>>());
}

#[test]
fn one_sm_runs_the_first_cta_which_cancels_and_does_all_the_others() {
    let (r, count, by) = run_steal(STEAL, 8, 1, 1);
    clean(&r);
    assert_eq!(
        count,
        vec![1; 8],
        "each item exactly once: cancelled CTAs never ran"
    );
    assert_eq!(by, vec![0; 8]);
}

#[test]
fn a_cta_cancels_only_clusters_of_its_own_sm_group() {
    // 2 SMs: group 0 owns CTAs 0, 2, 4, 6 and group 1 owns 1, 3, 5, 7 (cluster k on group
    // k mod groups); the first CTA of each group steals the rest of its group
    let (r, count, by) = run_steal(STEAL, 8, 2, 1);
    clean(&r);
    assert_eq!(count, vec![1; 8]);
    assert_eq!(by, vec![0, 1, 0, 1, 0, 1, 0, 1]);
}

#[test]
fn multicast_responses_reach_both_ctas_of_the_cluster() {
    // clusters of 2 on one SM pair: cluster 0 (CTAs 0, 1) cancels clusters 1..3; each CTA
    // does first ctaid + its rank
    let (r, count, by) = run_steal(STEAL_MULTICAST, 8, 2, 1);
    clean(&r);
    assert_eq!(count, vec![1; 8]);
    assert_eq!(by, vec![0, 1, 0, 1, 0, 1, 0, 1]);
}

#[test]
fn multicast_with_every_cluster_started_fails_at_once() {
    let (r, count, by) = run_steal(STEAL_MULTICAST, 8, 148, 1);
    clean(&r);
    assert_eq!(count, vec![1; 8]);
    assert_eq!(by, (0..8).collect::<Vec<u32>>());
}

/// try_cancel with a response address outside the executing CTA's shared memory (a global
/// address) and with a misaligned response: both are reported, the requests dropped.
const BAD_ADDRESSES: &str = r#"
.version 8.7
.target sm_100a
.address_size 64

.visible .entry bad(.param .u64 p)
{
    .shared .align 16 .b8 resp[32];
    .shared .align 8 .b64 bar;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    cvta.shared.u64 %rd2, bar;
    mov.u32 %r4, bar;
    mov.u32 %r5, resp;
    mbarrier.init.shared::cta.b64 [%r4], 1;
    clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.b128 [%rd1], [%rd2];
    add.u32 %r6, %r5, 8;
    clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%r6], [%r4];
    ret;
}
"#;

#[test]
fn try_cancel_outside_shared_cta_or_misaligned_is_reported() {
    let k = load_src(BAD_ADDRESSES, "bad.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let buf = g.alloc("buf", &[0u8; 64]);
    let launch = Launch {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        cluster: None,
        dyn_shared: 0,
        params: param_block(&k, [buf]),
    };
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    let d: Vec<String> = r.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(d.len(), 2, "{d:?}");
    assert!(
        d[0].contains("TM0503") && d[0].contains(".shared::cta window"),
        "{}",
        d[0]
    );
    assert!(
        d[1].contains("TM0502") && d[1].contains("16-byte aligned"),
        "{}",
        d[1]
    );
    // nothing was written to global memory by the dropped request
    assert_eq!(g.read_buffer(buf).unwrap(), vec![0u8; 64]);
}

/// `ld.global.b128` into a register pair, `st.shared.b128` / `ld.shared.b128` through shared
/// memory, `st.global.b128` out: the 16 bytes arrive in order.
const B128_COPY: &str = r#"
.version 8.7
.target sm_100a
.address_size 64

.visible .entry copy128(.param .u64 src, .param .u64 dst)
{
    .shared .align 16 .b8 tile[512];
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    .reg .b128 %q<2>;
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [dst];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 16;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.b128 %q0, [%rd4];
    mov.u32 %r2, tile;
    mad.lo.u32 %r3, %r1, 16, %r2;
    st.shared.b128 [%r3], %q0;
    bar.sync 0;
    xor.b32 %r3, %r3, 16;
    ld.shared.b128 %q1, [%r3];
    add.u64 %rd5, %rd2, %rd3;
    st.global.b128 [%rd5], %q1;
    ret;
}
"#;

#[test]
fn b128_loads_and_stores_move_sixteen_bytes() {
    let k = load_src(B128_COPY, "b128.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let src: Vec<u8> = (0..512u32).map(|i| (i * 7 + 3) as u8).collect();
    let s = g.alloc("src", &src);
    let d = g.alloc("dst", &[0u8; 512]);
    let launch = Launch {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        cluster: None,
        dyn_shared: 0,
        params: param_block(&k, [s, d]),
    };
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    clean(&r);
    // thread t wrote the 16 bytes thread t ^ 1 loaded
    let out = g.read_buffer(d).unwrap();
    for t in 0..32usize {
        let from = t ^ 1;
        assert_eq!(
            &out[16 * t..16 * t + 16],
            &src[16 * from..16 * from + 16],
            "thread {t}"
        );
    }
}

#[test]
fn a_b128_register_in_another_instruction_is_unsupported() {
    let src = B128_COPY.replace(
        "st.global.b128 [%rd5], %q1;",
        "st.global.b128 [%rd5], %q1;\n    mov.b64 %rd6, %q1;",
    );
    let m = tmemu_ptx::parse(&src).expect("parse");
    let e = tmemu_sim::load(&m, &src, "b128.ptx", None).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("unsupported") && msg.contains(".b128 register"),
        "{msg}"
    );
}

#[test]
fn mov_b128_packs_and_unpacks_a_response() {
    // Gluon reads the response as two 64-bit halves and packs them with mov.b128; the
    // unpack and re-pack in swapped order must give the same 128 bits back
    let src = STEAL.replace(
        "ld.shared.b128 %q, [%r5];",
        "ld.shared.v2.b64 {%rd7, %rd8}, [%r5];\n    mov.b128 %q, {%rd7, %rd8};\n    \
         mov.b128 {%rd8, %rd7}, %q;\n    mov.b128 %q, {%rd8, %rd7};",
    );
    assert_ne!(src, STEAL);
    let (r, count, by) = run_steal(&src, 8, 1, 1);
    clean(&r);
    assert_eq!(count, vec![1; 8]);
    assert_eq!(by, vec![0; 8]);
}
