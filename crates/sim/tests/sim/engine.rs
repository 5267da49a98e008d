//! Hand-written PTX programs (tests/corpus/engine/) run through the engine: control flow,
//! barriers, mbarrier phases, and the hangs that must be reported quickly.

use std::time::{Duration, Instant};

use tmemu_sim::{install_globals, run, GlobalMemory, Launch, RunOptions, RunResult};

use crate::support::{load_corpus, param_block, plain_launch, u32_words};

fn load_engine(name: &str) -> tmemu_sim::Kernel {
    load_corpus("engine", name)
}

/// Runs `file` with one output buffer of `out_words` u32 and the given extra u32 params.
fn run_kernel(
    file: &str,
    grid: [u32; 3],
    block: [u32; 3],
    out_words: usize,
    extra: &[u32],
    opts: &RunOptions,
) -> (RunResult, Vec<u32>) {
    let k = load_engine(file);
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = if out_words > 0 {
        Some(g.alloc("out", &vec![0u8; out_words * 4]))
    } else {
        None
    };
    let vals = out.into_iter().chain(extra.iter().map(|&x| x as u64));
    let launch = plain_launch(grid, block, param_block(&k, vals));
    let r = run(&k, &launch, &g, opts).expect("launch");
    let words = out
        .map(|a| u32_words(&g.read_buffer(a).unwrap()))
        .unwrap_or_default();
    (r, words)
}

#[test]
fn divergence_reconverges_at_the_lowest_pc() {
    let (r, out) = run_kernel(
        "divergence.ptx",
        [1, 1, 1],
        [64, 1, 1],
        66,
        &[64],
        &RunOptions::default(),
    );
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert!(r.hangs.is_empty());
    for t in 0..64u32 {
        let want = if t % 2 == 1 { t * (t - 1) / 2 } else { 3 * t } + 1000;
        assert_eq!(out[t as usize], want, "thread {t}");
    }
    // after the divergent paths join, the whole warp is active again
    assert_eq!(&out[64..], &[32, 32]);
}

#[test]
fn schedules_do_not_change_results() {
    let base = run_kernel(
        "divergence.ptx",
        [3, 1, 1],
        [64, 1, 1],
        66,
        &[64],
        &RunOptions::default(),
    )
    .1;
    for seed in [1, 2, 99] {
        let opts = RunOptions {
            seed: Some(seed),
            ..Default::default()
        };
        assert_eq!(
            run_kernel("divergence.ptx", [3, 1, 1], [64, 1, 1], 66, &[64], &opts).1,
            base,
            "seed {seed}"
        );
    }
}

#[test]
fn mbarrier_phases_order_the_rounds() {
    for seed in [None, Some(7), Some(8)] {
        let opts = RunOptions {
            seed,
            ..Default::default()
        };
        let (r, out) = run_kernel(
            "mbarrier_phases.ptx",
            [2, 1, 1],
            [64, 1, 1],
            192,
            &[],
            &opts,
        );
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
        assert!(r.hangs.is_empty(), "{:?}", r.hangs);
        for round in 0..3u32 {
            for t in 0..64u32 {
                assert_eq!(
                    out[(round * 64 + t) as usize],
                    round * 7 + 1,
                    "round {round} thread {t} seed {seed:?}"
                );
            }
        }
    }
}

/// Runs `file` (one CTA of 64 threads, no output), which must be reported within a second as
/// exactly one hang of rule `rule`; returns the run and the report's text.
fn single_hang(file: &str, rule: &str) -> (RunResult, String) {
    let t = Instant::now();
    let (r, _) = run_kernel(file, [1, 1, 1], [64, 1, 1], 0, &[], &RunOptions::default());
    assert!(t.elapsed() < Duration::from_secs(1));
    assert_eq!(r.hangs.len(), 1, "{r:?}");
    assert_eq!(r.hangs[0].rule.id, rule);
    let text = r.hangs[0].to_string();
    (r, text)
}

#[test]
fn barrier_deadlock_is_a_hang_report() {
    let (_, text) = single_hang("barrier_deadlock.ptx", "TM0504");
    assert!(text.contains("warp 0 lanes 0xffffffff: blocked in `bar.sync` at 17:5: CTA barrier 1: 32 of 64 threads arrived"), "{text}");
    assert!(text.contains("warp 1 lanes 0xffffffff: blocked in `bar.sync` at 14:5: CTA barrier 2: 32 of 64 threads arrived"), "{text}");
}

#[test]
fn mbarrier_spin_is_a_hang_report() {
    let (r, text) = single_hang("mbarrier_spin.ptx", "TM0225");
    assert_eq!(r.hangs[0].warps.len(), 2, "{text}");
    assert!(text.contains("blocked in `mbarrier.try_wait.parity.shared::cta.b64` at 21:5: mbarrier at shared offset 0x400 (CTA rank 0) to leave phase parity 0: phase 0, pending arrivals 1 of 2, tx-count 0"), "{text}");
    // the spin stopped instead of burning the step budget: the parked try_wait may time out a
    // bounded number of times (sched.rs MAX_TRY_TIMEOUTS = 256, each a few instructions per
    // warp of the retry loop) before the hang is reported
    assert!(r.warp_instructions < 4_000, "{}", r.warp_instructions);
}

#[test]
fn compute_loop_matches_host_fma() {
    let iters = 37u32;
    let (r, out) = run_kernel(
        "compute_loop.ptx",
        [3, 1, 1],
        [128, 1, 1],
        3 * 128,
        &[iters],
        &RunOptions::default(),
    );
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let a = f32::from_bits(0x3F7F_C000);
    let b = f32::from_bits(0x3A80_0000);
    for g in 0..3 * 128u32 {
        let t = (g % 128) as f32 * b;
        let mut x = [t, t + 1.0, t + 2.0, t + 3.0];
        for _ in 0..iters {
            for v in x.iter_mut() {
                *v = v.mul_add(a, b);
            }
        }
        let want = ((x[0] + x[1]) + x[2]) + x[3];
        assert_eq!(f32::from_bits(out[g as usize]), want, "thread {g}");
    }
}

#[test]
fn thread_count_does_not_change_bytes() {
    let one = run_kernel(
        "compute_loop.ptx",
        [16, 1, 1],
        [128, 1, 1],
        16 * 128,
        &[5],
        &RunOptions {
            nsms: 4,
            ..Default::default()
        },
    );
    let two = run_kernel(
        "compute_loop.ptx",
        [16, 1, 1],
        [128, 1, 1],
        16 * 128,
        &[5],
        &RunOptions {
            nsms: 4,
            threads: 2,
            ..Default::default()
        },
    );
    assert_eq!(one.1, two.1);
    assert_eq!(one.0.warp_instructions, two.0.warp_instructions);
    assert_eq!(two.0.threads_used, 2);
}

fn run_bufs(
    file: &str,
    grid: [u32; 3],
    block: [u32; 3],
    bufs: &[Vec<u8>],
) -> (RunResult, Vec<Vec<u8>>) {
    run_bufs_with(file, grid, block, bufs, &RunOptions::default())
}

fn run_bufs_with(
    file: &str,
    grid: [u32; 3],
    block: [u32; 3],
    bufs: &[Vec<u8>],
    opts: &RunOptions,
) -> (RunResult, Vec<Vec<u8>>) {
    let k = load_engine(file);
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let addrs: Vec<u64> = bufs
        .iter()
        .enumerate()
        .map(|(i, b)| g.alloc(&format!("b{i}"), b))
        .collect();
    let launch = plain_launch(grid, block, param_block(&k, addrs.iter().copied()));
    let r = run(&k, &launch, &g, opts).expect("launch");
    (
        r,
        addrs.iter().map(|&a| g.read_buffer(a).unwrap()).collect(),
    )
}

fn words(b: &[u8]) -> Vec<u32> {
    u32_words(b)
}

#[test]
fn cluster_ctas_read_each_others_shared_memory() {
    let (r, out) = run_bufs(
        "cluster_dsmem.ptx",
        [4, 1, 1],
        [64, 1, 1],
        &[vec![0; 4 * 64 * 4]],
    );
    assert!(r.diagnostics.is_empty() && r.hangs.is_empty(), "{r:?}");
    let out = words(&out[0]);
    for cta in 0..4u32 {
        let rank = cta % 2;
        for t in 0..64u32 {
            assert_eq!(
                out[(cta * 64 + t) as usize],
                100 * (rank ^ 1) + t + 2000,
                "cta {cta} t {t}"
            );
        }
    }
}

#[test]
fn bulk_copies_complete_their_mbarrier_transaction() {
    let input: Vec<u8> = (0..64u32).flat_map(|i| (i * 3 + 1).to_le_bytes()).collect();
    let (r, out) = run_bufs(
        "bulk_copy.ptx",
        [2, 1, 1],
        [64, 1, 1],
        &[input.clone(), vec![0; 256], vec![0; 256]],
    );
    assert!(r.diagnostics.is_empty() && r.hangs.is_empty(), "{r:?}");
    let o1 = words(&out[1]);
    for t in 0..64u32 {
        assert_eq!(o1[t as usize], (t * 3 + 1) * 2);
    }
    assert_eq!(out[2], input);
}

#[test]
fn func_calls_pass_params_and_return_values() {
    let (r, out) = run_bufs("func_call.ptx", [1, 1, 1], [64, 1, 1], &[vec![0; 256]]);
    assert!(r.diagnostics.is_empty() && r.hangs.is_empty(), "{r:?}");
    let out = words(&out[0]);
    for t in 0..64u32 {
        let want = if t % 2 == 1 {
            t * t + 3 * t + 7
        } else {
            t * t + 5 * t + 7 + 1
        };
        assert_eq!(out[t as usize], want, "t {t}");
    }
}

#[test]
fn warp_collectives_and_cta_reductions() {
    let (r, out) = run_bufs(
        "warp_collectives.ptx",
        [1, 1, 1],
        [64, 1, 1],
        &[vec![0; 6 * 64 * 4]],
    );
    assert!(r.diagnostics.is_empty() && r.hangs.is_empty(), "{r:?}");
    let out = words(&out[0]);
    for t in 0..64u32 {
        let l = t % 32;
        let ballot = (0..32).filter(|i| i % 3 == 0).fold(0u32, |m, i| m | 1 << i);
        assert_eq!(out[t as usize], ballot);
        assert_eq!(out[64 + t as usize], 0xffu32 << (8 * (l / 8)));
        assert_eq!(out[128 + t as usize], (1..=32).sum::<u32>());
        assert_eq!(
            out[192 + t as usize],
            (0..64).filter(|i| i % 5 == 0).count() as u32
        );
        assert_eq!(out[256 + t as usize], if l < 31 { t + 1 } else { t });
        assert_eq!(out[320 + t as usize], 64);
    }
}

#[test]
fn a_livelock_ends_at_the_step_budget_with_a_report() {
    let opts = RunOptions {
        max_steps: 10_000,
        ..Default::default()
    };
    let (r, _) = run_kernel("livelock.ptx", [1, 1, 1], [64, 1, 1], 1, &[], &opts);
    assert!(r.hangs.is_empty());
    assert_eq!(r.budget_exhausted.len(), 1, "{r:?}");
    let rep = &r.budget_exhausted[0];
    assert_eq!(rep.rule.id, "TM0506");
    assert_eq!(rep.warps.len(), 2);
    assert!(
        rep.warps
            .iter()
            .all(|w| w.waiting_for.contains("still running")),
        "{rep}"
    );
}

#[test]
fn out_of_bounds_stores_are_diagnosed_with_the_buffer() {
    let (r, out) = run_bufs("oob_store.ptx", [1, 1, 1], [40, 1, 1], &[vec![0; 128]]);
    assert_eq!(r.diagnostics.len(), 8, "{:?}", r.diagnostics);
    let d = &r.diagnostics[0];
    assert_eq!(d.rule.id, "TM0501");
    assert_eq!(d.ctx.warp, 1);
    assert_eq!(d.ctx.lanes, 1);
    assert!(
        d.message.contains("0 bytes after the end of buffer `b0`"),
        "{}",
        d.message
    );
    assert_eq!(d.span.line, 14);
    // the in-bounds lanes stored
    assert_eq!(words(&out[0]), (0..32).collect::<Vec<u32>>());
}

/// Counts what the engine reports to an observer.
#[derive(Default)]
struct Counter {
    instructions: u64,
    barrier_completions: u64,
}

impl tmemu_sim::observer::Observer for Counter {
    fn instruction(&mut self, _at: tmemu_sim::observer::At) {
        self.instructions += 1;
    }
    fn sync_complete(&mut self, _at: tmemu_sim::observer::At, key: tmemu_sim::observer::SyncKey) {
        if let tmemu_sim::observer::SyncKey::CtaBarrier { .. } = key {
            self.barrier_completions += 1;
        }
    }
}

#[test]
fn observers_see_every_instruction_and_barrier() {
    let k = load_engine("mbarrier_phases.ptx");
    let mut g = GlobalMemory::new();
    let out = g.alloc("out", &[0; 192 * 4]);
    let launch = plain_launch([2, 1, 1], [64, 1, 1], param_block(&k, [out]));
    let (r, cs) = tmemu_sim::run_observed(&k, &launch, &g, &RunOptions::default(), |_| {
        Counter::default()
    })
    .unwrap();
    let c = Counter {
        instructions: cs.iter().map(|c| c.instructions).sum(),
        barrier_completions: cs.iter().map(|c| c.barrier_completions).sum(),
    };
    assert_eq!(c.instructions, r.warp_instructions);
    // per CTA: the init barrier plus one per round (3 rounds)
    assert_eq!(c.barrier_completions, 2 * 4);
}

#[test]
fn testp_classifies_floats() {
    let vals: [f32; 6] = [
        1.5,
        f32::INFINITY,
        f32::NAN,
        f32::from_bits(1),
        0.0,
        -f32::MAX,
    ];
    let mut input: Vec<u8> = vals
        .iter()
        .flat_map(|v| v.to_bits().to_le_bytes())
        .collect();
    input.resize(32 * 4, 0);
    let (r, out) = run_bufs("testp.ptx", [1, 1, 1], [6, 1, 1], &[input, vec![0; 32 * 4]]);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    // PTX ISA testp: finite/infinite/notanumber/subnormal by IEEE class; `normal` is true for
    // normal numbers and, by the ISA's special case, for zero
    assert_eq!(&words(&out[1])[..6], &[1 | 16, 2, 4, 1 | 8, 1 | 16, 1 | 16]);
}

#[test]
fn seeded_schedules_agree_on_race_free_programs() {
    type Case = (&'static str, [u32; 3], [u32; 3], Vec<Vec<u8>>);
    let cases: Vec<Case> = vec![
        (
            "cluster_dsmem.ptx",
            [4, 1, 1],
            [64, 1, 1],
            vec![vec![0; 4 * 64 * 4]],
        ),
        (
            "bulk_copy.ptx",
            [2, 1, 1],
            [64, 1, 1],
            vec![
                (0..256u32).map(|i| i as u8).collect(),
                vec![0; 256],
                vec![0; 256],
            ],
        ),
        ("func_call.ptx", [1, 1, 1], [64, 1, 1], vec![vec![0; 256]]),
        (
            "warp_collectives.ptx",
            [1, 1, 1],
            [64, 1, 1],
            vec![vec![0; 6 * 64 * 4]],
        ),
    ];
    for (file, grid, block, bufs) in cases {
        let (r0, base) = run_bufs(file, grid, block, &bufs);
        assert!(
            r0.diagnostics.is_empty() && r0.hangs.is_empty(),
            "{file}: {r0:?}"
        );
        for seed in 1..=6 {
            let opts = RunOptions {
                seed: Some(seed),
                ..Default::default()
            };
            let (r, out) = run_bufs_with(file, grid, block, &bufs, &opts);
            assert!(
                r.diagnostics.is_empty() && r.hangs.is_empty(),
                "{file} seed {seed}: {r:?}"
            );
            assert_eq!(out, base, "{file} seed {seed}");
        }
    }
}

#[test]
fn mbarrier_arrive_drop_lowers_the_expected_count() {
    let (r, out) = run_bufs("mbarrier_drop.ptx", [1, 1, 1], [32, 1, 1], &[vec![0; 12]]);
    assert!(r.diagnostics.is_empty() && r.hangs.is_empty(), "{r:?}");
    assert_eq!(words(&out[0]), vec![0, 1, 1]);
}

#[test]
fn impossible_launches_are_refused_with_a_reason() {
    let k = load_engine("divergence.ptx");
    let g = GlobalMemory::new();
    let params = vec![0u8; k.param_bytes as usize];
    let try_launch = |grid, block, cluster, dyn_shared| {
        let l = Launch {
            grid,
            block,
            cluster,
            dyn_shared,
            params: params.clone(),
        };
        run(&k, &l, &g, &RunOptions::default()).unwrap_err().0
    };
    assert!(try_launch([1, 1, 1], [1025, 1, 1], None, 0).contains("exceeds the limit of 1024"));
    assert!(try_launch([1, 1, 1], [64, 1, 1], None, 300 * 1024).contains("shared memory per CTA"));
    assert!(try_launch([32, 1, 1], [64, 1, 1], Some([32, 1, 1]), 0)
        .contains("cluster of 32 CTAs exceeds the limit of 16"));
    assert!(try_launch([3, 1, 1], [64, 1, 1], Some([2, 1, 1]), 0)
        .contains("not a multiple of the cluster"));
    assert!(try_launch([0, 1, 1], [64, 1, 1], None, 0).contains("at least 1"));
}

#[test]
fn carry_chains_add_and_subtract_wide_numbers() {
    let pairs: [(u64, u64); 5] = [
        (0xffff_ffff, 1),
        (0x1_0000_0000, 1),
        (u64::MAX, u64::MAX),
        (5, 0xffff_ffff_0000_0001),
        (0x1234_5678_9abc_def0, 0x0fed_cba9_8765_4321),
    ];
    let mut input = Vec::new();
    for (a, b) in pairs {
        input.extend(a.to_le_bytes());
        input.extend(b.to_le_bytes());
    }
    let (r, out) = run_bufs("carry.ptx", [1, 1, 1], [5, 1, 1], &[input, vec![0; 5 * 32]]);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let o: Vec<u64> = out[1]
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for (t, (a, b)) in pairs.into_iter().enumerate() {
        assert_eq!(o[4 * t], a.wrapping_add(b), "add {t}");
        assert_eq!(o[4 * t + 1], a.wrapping_sub(b), "sub {t}");
        assert_eq!(
            o[4 * t + 2],
            (a as u32 as u64 * b as u32 as u64).wrapping_add(b),
            "mad {t}"
        );
        let (lo, carry) = a.overflowing_add(b);
        assert_eq!(o[4 * t + 3], lo ^ carry as u64, "add.cc.u64 {t}");
    }
}

#[test]
fn setp_on_half_precision() {
    // (a, b) as packed f16x2 words: lanes compare their low halves (and both halves for x2);
    // the bf16 compare reads the same low 16 bits as bf16 values
    let cases: [(u32, u32, u32); 3] = [
        // a = {1.0, 3.0}, b = {2.0, 2.0}: lt, ltu; gt.x2 → low false, high true.
        // bf16 0x3c00 ≈ 0.0078 vs 0x4000 = 2.0: ge false
        (0x4200_3c00, 0x4000_4000, 1 | 2 | 8),
        // a = {NaN, 1.0}, b = {1.0, 1.0}: lt false, ltu true; gt.x2 false/false; as bf16, 0x7e00 is
        // the finite 2^125 (bf16 NaNs need exponent 0xff), so ge is true
        (0x3c00_7e00, 0x3c00_3c00, 2 | 16),
        // a = {2.0, 0.5}, b = {1.0, 1.0}: lt false; gt.x2 low true, high false; bf16 2.0 >= 0.0078 true
        (0x3800_4000, 0x3c00_3c00, 4 | 16),
    ];
    let input: Vec<u8> = cases
        .iter()
        .flat_map(|&(a, b, _)| [a.to_le_bytes(), b.to_le_bytes()].concat())
        .collect();
    let (r, out) = run_bufs("setp_half.ptx", [1, 1, 1], [3, 1, 1], &[input, vec![0; 12]]);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let want: Vec<u32> = cases.iter().map(|c| c.2).collect();
    assert_eq!(words(&out[1]), want);
}

#[test]
fn cp_async_completes_through_its_mbarrier() {
    let input: Vec<u8> = (0..32u32).flat_map(|i| (i * 10).to_le_bytes()).collect();
    let (r, out) = run_bufs(
        "cp_async_mbar.ptx",
        [1, 1, 1],
        [32, 1, 1],
        &[input, vec![0; 128]],
    );
    assert!(r.diagnostics.is_empty() && r.hangs.is_empty(), "{r:?}");
    assert_eq!(
        words(&out[1]),
        (0..32u32).map(|t| (31 - t) * 10 + 1).collect::<Vec<_>>()
    );
}

#[test]
fn a_divergent_barrier_sync_without_aligned_is_legal() {
    // Even and odd lanes of each warp reach barrier 0 at different `barrier.sync` instructions
    // (legal without `.aligned`); the barrier still orders the shared-memory exchange.
    let (r, out) = run_bufs(
        "divergent_barrier_sync.ptx",
        [1, 1, 1],
        [64, 1, 1],
        &[vec![0u8; 64 * 4]],
    );
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert!(r.hangs.is_empty(), "{:?}", r.hangs);
    let want: Vec<u32> = (0..64u32).map(|t| 1000 + (t ^ 1)).collect();
    assert_eq!(words(&out[0]), want);
}
