//! The race observer's own bookkeeping on hand-written launches: CTAs of one SM group are
//! compared with each other (global memory), a cluster that takes a finished one's resident
//! slot starts on fresh shared memory and barriers, and clusters on different groups are
//! compared after the launch (`launch_findings`: global memory, docs/arch/race.md).

use tmemu_check::dynamic::{launch_findings, RaceFinding, RaceObserver};
use tmemu_sim::{install_globals, GlobalMemory, Launch, RunOptions};

const HEADER: &str = ".version 8.8\n.target sm_100a\n.address_size 64\n";

/// Every CTA: thread 0 stores (or atomically adds) to out[0]; each warp writes its shared
/// word, bar.sync, reads its neighbour's word and stores it to out[1 + global thread].
fn kernel(atomic: bool) -> String {
    // Even and odd CTAs store through different instructions (the same instruction's stores
    // are a "uniform store" the detector deliberately does not report).
    let first = if atomic {
        "@%p1 red.global.add.u32 [%rd1], 1;"
    } else {
        "and.b32 %r13, %r2, 1;
    setp.eq.u32 %p3, %r13, 0;
    @%p3 bra ODD;
    @%p1 st.global.u32 [%rd1], %r2;
    bra.uni JOIN;
ODD:
    @%p1 st.global.u32 [%rd1], %r2;
JOIN:"
    };
    format!(
        "{HEADER}
.visible .entry k(.param .u64 out)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    .shared .align 4 .b32 words[8];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    setp.eq.u32 %p1, %r1, 0;
    {first}
    shr.u32 %r3, %r1, 5;
    and.b32 %r4, %r1, 31;
    setp.eq.u32 %p2, %r4, 0;
    mov.u32 %r5, words;
    shl.b32 %r6, %r3, 2;
    add.u32 %r7, %r5, %r6;
    @%p2 st.shared.u32 [%r7], %r2;
    bar.sync 0;
    xor.b32 %r8, %r3, 1;
    shl.b32 %r8, %r8, 2;
    add.u32 %r9, %r5, %r8;
    ld.shared.u32 %r10, [%r9];
    mov.u32 %r11, %ntid.x;
    mad.lo.u32 %r12, %r2, %r11, %r1;
    add.u32 %r12, %r12, 1;
    mul.wide.u32 %rd2, %r12, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r10;
    ret;
}}
"
    )
}

fn run(src: &str, grid: u32, nsms: u32) -> Vec<RaceFinding> {
    run_threads(src, grid, nsms, 1)
}

fn run_threads(src: &str, grid: u32, nsms: u32, threads: usize) -> Vec<RaceFinding> {
    let kernel = tmemu_host::load_ptx_source(src, "k.ptx", None).unwrap();
    let mut global = GlobalMemory::new();
    install_globals(&kernel, &mut global).unwrap();
    let block = 64;
    let out = global.alloc("out", &vec![0u8; 4 * (1 + (grid * block) as usize)]);
    let launch = Launch {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        cluster: None,
        dyn_shared: 0,
        params: out.to_le_bytes().to_vec(),
    };
    let opts = RunOptions {
        nsms,
        threads,
        ..Default::default()
    };
    let (r, observers) = tmemu_sim::run_observed(&kernel, &launch, &global, &opts, |_| {
        RaceObserver::new(&kernel)
    })
    .unwrap();
    assert!(r.diagnostics.is_empty() && r.hangs.is_empty(), "{r:?}");
    launch_findings(observers)
}

fn rules(f: &[RaceFinding]) -> Vec<(&'static str, u32, u32)> {
    f.iter()
        .map(|f| (f.rule.id, f.span.line, f.related.line))
        .collect()
}

#[test]
fn ctas_of_one_group_race_on_global_memory() {
    // One SM: all four CTAs in one group. Thread 0 of each stores out[0]: one finding per
    // pair of instructions (the same line), the earlier store of another CTA as related.
    let src = kernel(false);
    let lines: Vec<u32> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("st.global.u32 [%rd1]"))
        .map(|(i, _)| i as u32 + 1)
        .collect();
    let f = run(&src, 4, 1);
    // CTAs 0..3 in order: 1 (odd) races 0 (even), 2 races 1, 3 races 2; one finding per
    // pair of instructions.
    let mut got = rules(&f);
    got.sort();
    let (even, odd) = (lines[0], lines[1]);
    assert_eq!(
        got,
        vec![("TM0212", even, odd), ("TM0212", odd, even)],
        "{f:#?}"
    );
    assert_ne!(f[0].ctx.cta, f[0].related_ctx.cta);
    assert!(f[0].message.contains("global"), "{}", f[0].message);
}

#[test]
fn atomics_across_ctas_are_silent() {
    assert!(run(&kernel(true), 4, 1).is_empty());
}

fn store_lines(src: &str) -> (u32, u32) {
    let lines: Vec<u32> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("st.global.u32 [%rd1]"))
        .map(|(i, _)| i as u32 + 1)
        .collect();
    (lines[0], lines[1])
}

#[test]
fn clusters_on_different_groups_are_compared_after_the_launch() {
    // 148 SMs: each CTA alone in its group; the groups' global logs are compared after the
    // launch. CTAs 0 and 2 store through one line, 1 and 3 through the other: every
    // pair of lines races, the same instruction in two clusters too (a split-K's plain
    // store), the lower group's access related.
    let src = kernel(false);
    // The first store line is the one odd CTAs execute (even ones branch past it).
    let (odd, even) = store_lines(&src);
    for threads in [1, 4] {
        let f = run_threads(&src, 4, 148, threads);
        let got: Vec<_> = rules(&f);
        assert_eq!(
            got,
            vec![
                ("TM0212", odd, even),
                ("TM0212", even, even),
                ("TM0212", even, odd),
                ("TM0212", odd, odd),
            ],
            "threads {threads}: {f:#?}"
        );
        // group 0 (CTA 0, the even line) against group 1 (CTA 1, the odd line)
        assert_eq!(f[0].related_ctx.cta, [0, 0, 0]);
        assert_eq!(f[0].ctx.cta, [1, 0, 0]);
        assert_eq!((f[0].ctx.lanes, f[0].related_ctx.lanes), (1, 1));
        assert!(
            f[0].message.contains("different clusters"),
            "{}",
            f[0].message
        );
    }
}

#[test]
fn atomics_across_groups_are_silent() {
    assert!(run(&kernel(true), 4, 148).is_empty());
}

#[test]
fn a_slot_reused_by_a_later_cluster_starts_on_fresh_shared_memory() {
    // 100 CTAs on one SM: at most 32 resident, so slots are reused. The shared-memory
    // exchange is ordered within each CTA; a new CTA's accesses must not meet the old
    // occupant's records (they would race: the new warps know nothing of the old ones).
    let f = run(&kernel(true), 100, 1);
    assert!(f.is_empty(), "{f:#?}");
}

/// One warp: lane 0 copies 128 bytes of shared memory to out[0..32] with a `.bulk_group`
/// copy and commits its group; lane `waiter` waits for its own groups; then every lane reads
/// its word of out.
fn bulk_group_kernel(waiter: u32) -> String {
    format!(
        "{HEADER}
.visible .entry k(.param .u64 out)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    .shared .align 128 .b8 buf[128];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    setp.eq.u32 %p2, %r1, {waiter};
    mov.u32 %r2, buf;
    shl.b32 %r3, %r1, 2;
    and.b32 %r3, %r3, 127;
    add.u32 %r4, %r2, %r3;
    st.shared.u32 [%r4], %r1;
    fence.proxy.async.shared::cta;
    bar.sync 0;
    @%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r2], 128;
    @%p1 cp.async.bulk.commit_group;
    @%p2 cp.async.bulk.wait_group 0;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r5, [%rd3];
    ret;
}}
"
    )
}

#[test]
fn a_bulk_group_wait_observes_only_the_waiting_threads_copies() {
    // PTX ISA §9.7.9.27.2: commit_group and wait_group act on the executing thread's bulk
    // async-groups. Lane 1 waiting does not complete lane 0's copy: the destination read is
    // TM0213, related to the copy.
    let src = bulk_group_kernel(1);
    let line = |pat: &str| {
        src.lines()
            .position(|l| l.contains(pat))
            .map(|i| i as u32 + 1)
            .unwrap()
    };
    let f = run(&src, 1, 148);
    assert_eq!(
        rules(&f),
        vec![(
            "TM0213",
            line("ld.global.u32"),
            line("cp.async.bulk.global")
        )],
        "{f:#?}"
    );
    // The same thread committing and waiting: the copy is complete before the read.
    let f = run(&bulk_group_kernel(0), 1, 148);
    assert!(f.is_empty(), "{f:#?}");
}

/// Every thread stages out[1 + t] into buf[t] with a non-bulk `cp.async`, then `sync` (which
/// may refer to the mbarrier `bar`, initialised with count `count`), then reads the other
/// warp's staged word buf[t ^ 32].
fn cp_async_kernel(count: u32, sync: &str) -> String {
    format!(
        "{HEADER}
.visible .entry k(.param .u64 out)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    .shared .align 16 .b32 buf[64];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 mbarrier.init.shared.b64 [bar], {count};
    bar.sync 0;
    mov.u32 %r2, buf;
    shl.b32 %r3, %r1, 2;
    add.u32 %r4, %r2, %r3;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    cp.async.ca.shared.global [%r4], [%rd3+4], 4;
    {sync}
    xor.b32 %r5, %r1, 32;
    shl.b32 %r5, %r5, 2;
    add.u32 %r6, %r2, %r5;
    ld.shared.u32 %r7, [%r6];
    ret;
}}
"
    )
}

const CP_ASYNC_MBAR_WAIT: &str = "mbarrier.arrive.shared.b64 %rd5, [bar];
WAIT:
    mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
    @!%p2 bra WAIT;";

#[test]
fn cp_async_completion_is_observed_by_wait_group_or_mbarrier_arrive() {
    let src = cp_async_kernel(64, CP_ASYNC_MBAR_WAIT);
    let line = |pat: &str| {
        src.lines()
            .position(|l| l.contains(pat))
            .map(|i| i as u32 + 1)
            .unwrap()
    };
    // The plain arrive releases the thread's accesses, not its in-flight cp.async (PTX ISA
    // §9.7.13.15.16: only copies before cp.async.mbarrier.arrive are made visible).
    // Nothing ever observes the copies, so they are also in flight when the CTA exits
    // (TM0235 at the copy, related to the `ret`).
    let f = run(&src, 1, 148);
    assert_eq!(
        rules(&f),
        vec![
            ("TM0213", line("ld.shared.u32"), line("cp.async.ca")),
            ("TM0235", line("cp.async.ca"), line("ret;"))
        ],
        "{f:#?}"
    );
    let noinc =
        format!("cp.async.mbarrier.arrive.noinc.shared.b64 [bar];\n    {CP_ASYNC_MBAR_WAIT}");
    let inc = format!("cp.async.mbarrier.arrive.shared.b64 [bar];\n    {CP_ASYNC_MBAR_WAIT}");
    for (count, sync) in [
        (128, noinc.as_str()),
        (64, inc.as_str()),
        (64, "cp.async.wait_all;\n    bar.sync 0;"),
        (
            64,
            "cp.async.commit_group;\n    cp.async.wait_group 0;\n    bar.sync 0;",
        ),
    ] {
        let f = run(&cp_async_kernel(count, sync), 1, 148);
        assert!(f.is_empty(), "{sync}: {f:#?}");
    }
    // A commit without a wait before bar.sync, or a wait that leaves the group pending.
    for sync in [
        "cp.async.commit_group;\n    bar.sync 0;",
        "cp.async.commit_group;\n    cp.async.wait_group 1;\n    bar.sync 0;",
        "cp.async.commit_group;\n    cp.async.bulk.wait_group 0;\n    bar.sync 0;",
    ] {
        let f = run(&cp_async_kernel(64, sync), 1, 148);
        assert_eq!(rules(&f).len(), 2, "{sync}: {f:#?}");
        assert_eq!(f[0].rule.id, "TM0213", "{sync}: {f:#?}");
        // and the group nothing waits for is still in flight at the exit
        assert_eq!(f[1].rule.id, "TM0235", "{sync}: {f:#?}");
    }
}

/// A warp's weak `ld.global` inside one buffer the observer ignores (read-only) is skipped by
/// the engine (`ld_warp`, asked with the buffer's bounds) instead of reported and skipped by
/// the observer: the findings must be the reference paths' (per-lane events, every one
/// reported), with and without the read-only list. Every thread loads `inp[tid]` (read-only)
/// and `out[0]`, which thread 0 stores unordered: the race on `out` is found either way.
#[test]
fn read_only_loads_skipped_by_the_engine_give_the_reference_findings() {
    let src = format!(
        "{HEADER}
.visible .entry k(.param .u64 inp, .param .u64 out)
{{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [inp];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    ld.global.u32 %r3, [%rd2];
    add.u32 %r4, %r2, %r3;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 st.global.u32 [%rd2], %r4;
    ret;
}}
"
    );
    let kernel = tmemu_host::load_ptx_source(&src, "k.ptx", None).unwrap();
    let run = |reference_paths: bool, read_only: bool| {
        let mut global = GlobalMemory::new();
        install_globals(&kernel, &mut global).unwrap();
        let inp = global.alloc("inp", &[1u8; 4 * 64]);
        let out = global.alloc("out", &[0u8; 4]);
        let mut params = inp.to_le_bytes().to_vec();
        params.extend(out.to_le_bytes());
        let launch = Launch {
            grid: [2, 1, 1],
            block: [64, 1, 1],
            cluster: None,
            dyn_shared: 0,
            params,
        };
        let opts = RunOptions {
            nsms: 1,
            threads: 1,
            reference_paths,
            ..Default::default()
        };
        let ro: std::sync::Arc<[(u64, u64)]> = if read_only {
            vec![(inp, inp + 4 * 64)].into()
        } else {
            Vec::new().into()
        };
        let (r, observers) = tmemu_sim::run_observed(&kernel, &launch, &global, &opts, |_| {
            RaceObserver::new(&kernel).with_read_only(ro.clone())
        })
        .unwrap();
        assert!(r.diagnostics.is_empty() && r.hangs.is_empty(), "{r:?}");
        rules(&launch_findings(observers))
    };
    let reference = run(true, false);
    assert!(!reference.is_empty(), "the race on out[0] is found");
    for read_only in [false, true] {
        assert_eq!(
            run(false, read_only),
            reference,
            "read-only list: {read_only}"
        );
        assert_eq!(
            run(true, read_only),
            reference,
            "read-only list: {read_only}"
        );
    }
}
