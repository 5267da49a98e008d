//! The holdout corpus (tests/corpus/kernels/holdout/, made by kernels/holdout/gen.py): real
//! compiler output the engine was not developed against. Every spec must load, run without a
//! diagnostic, hang or trap, and match each `[[expect]]` (numpy references, tolerances argued in
//! the specs). Specs the engine cannot run yet are listed in `KNOWN_FAILING` with the reason;
//! they are run, printed and counted, never passed, and the test fails when one of them starts
//! to pass (so the list cannot go stale) or fails differently from what the list says.
//!
//! Each spec runs three times: under the immediate and the adversarial async policy (tcgen05
//! operations completing at issue, and as late as the rules allow) on the default 148 SMs, and
//! on the smallest GPU that holds one cluster (1 SM, or 2 for clusters of 2; the cluster is the
//! spec's or else the kernel's `.reqnctapercluster`), where every CTA of the grid shares those
//! SMs and their 512 TMEM columns (allocations block until a co-resident CTA frees its
//! columns). A kernel whose waits and allocations are right is clean in all three.
//!
//! Heavier specs are in `HEAVY` and run only with
//! `cargo test -p tmemu-host --test holdout -- --ignored --nocapture`.
//!
//! tests/corpus/kernels/holdout_bugs/ holds compiler output from the same generator with a real
//! bug that tmemu found (`COMPILER_BUGS`): there `tmemu check` must report the listed rule at the
//! listed PTX line, the immediate policy must still match numpy and the adversarial one must not
//! (the bug is an ordering one, visible only when asynchronous operations complete late).

use std::path::{Path, PathBuf};
use std::time::Instant;

use tmemu_host::{
    check, check_expects, load_ptx_file, resolve_spec, CheckOptions, ErrorClass, RunOptions,
    Session,
};
use tmemu_sim::AsyncPolicy;
use tmemu_spec::Spec;

/// How a listed spec fails today: the failure message must contain `needle`, so a spec that
/// starts failing for another reason is reported instead of silently staying "known".
struct Known {
    spec: &'static str,
    needle: &'static str,
    reason: &'static str,
}

/// FIXME(engine): each entry goes away when the engine runs the kernel correctly.
const KNOWN_FAILING: &[Known] = &[
    Known {
        spec: "ho4_dot_scaled_nvfp4.toml",
        needle: "TM0511",
        reason:
            "Triton 3.9 lowers dot_scaled e2m1 with a scale every 16 K and e8m0 (u8) scales to \
             kind::mxf4nvf4.block16 with idesc 0x09200480: Triton's 2-bit scaleType at bits \
             23-24 = 2, M >> 7 in bits 27-28. By the PTX ISA table bit 24 is reserved and bit \
             23 = 0 would select UE4M3 scales; since 762e441 tmemu reports the set reserved bit \
             as an unmodelled form (TM0511, incomplete) instead of reading M = 144. Whether \
             hardware reads bits 23-24 = 2 as UE8M0 (Triton's intent, the committed reference) \
             is UNCONFIRMED: needs a Blackwell run",
    },
    Known {
        spec: "ho6_dot_scaled_e4m3_e2m1_npack.toml",
        needle: "TM0310",
        reason:
            "Triton 3.9 lowers dot_scaled e4m3 x e2m1 with rhs_k_pack=False (B packed along N) \
             to kind::mxf8f6f4.block_scale MMAs with B type E2M1 and the transpose-B bit set \
             (idesc 0x08a11400, line 689: an N-major 4-bit operand, Triton's fp4Padded \
             layout). PTX ISA Table 54 (shared/spec/mma.md §4) allows MN-major operands only \
             for 8/16-bit types and tf32, as does CUTLASS's InstrDescriptor comment, so tmemu \
             reports TM0310 and performs no MMA (wrong numbers). Triton's own \
             test_mxfp8_mxfp4_matmul runs PACK_B_ALONG_K=False on sm_100, so hardware may \
             accept this undocumented form: its meaning is UNCONFIRMED (needs a Blackwell run)",
    },
];

/// Specs too slow for CI on two cores (each takes seconds of engine time); `--ignored` runs them.
const HEAVY: &[&str] = &[];

/// A compiler bug tmemu reports: in spec `spec` of holdout_bugs/, `tmemu check` gives rule
/// `rule` at PTX line `line`. `late_wrong`: the adversarial policy (async ops complete as late as
/// allowed) gives wrong numbers; false for a race the engine's own timing cannot turn into a
/// wrong value (a generic read that the engine performs at once).
struct CompilerBug {
    spec: &'static str,
    rule: &'static str,
    line: u32,
    late_wrong: bool,
    what: &'static str,
}

const COMPILER_BUGS: &[CompilerBug] = &[
    CompilerBug {
        spec: "ho5_dot_scaled_preshuffled.toml",
        rule: "TM0204",
        line: 975,
        late_wrong: false,
        what: "Triton 3.9, tl.dot_scaled mxfp4 with preshuffled scales copied into one TMEM \
               buffer by tcgen05.cp: the loop's first copy (line 975) rewrites the scales while \
               the prologue's block-scaled MMAs (lines 739-764) may still read them; the loop \
               waits on their mbarrier only at the end of its body, which entry skips, and \
               later iterations wait without tcgen05.fence::after_thread_sync (mma -> cp is \
               not a pipelined pair). Not late-wrong in tmemu: the copy completes in order \
               before the next MMA (cp -> mma is pipelined), after the earlier ones",
    },
    CompilerBug {
        spec: "ho5_complex_splitjoin.toml",
        rule: "TM0204",
        line: 1549,
        late_wrong: true,
        what: "Triton 3.9, complex matmul with tl.split/tl.join: the negated imaginary part \
               (-a_im) is staged in TMEM (%r856+256) as the A operand of two MMAs per K step \
               (lines 1658 and 1718), committed to different mbarriers (%r1124, %r1128); the \
               loop's tcgen05.st into those columns (line 1549) waits only on %r1124, so the \
               second MMA may still be reading them",
    },
    CompilerBug {
        spec: "ho3_bug_multicast_relaxed_cluster.toml",
        rule: "TM0211",
        line: 174,
        late_wrong: false,
        what: "Triton 3.9 Gluon, TMA multicast in a cluster of 2 with a 128x128 cluster tile: \
               the multicast A buffer sits at shared offset 0, where every thread read the \
               TMEM address (line 65) before `barrier.cluster.arrive.relaxed` (no release), so \
               the peer's multicast write (line 174) is unordered with that read",
    },
    CompilerBug {
        spec: "ho10_bug_cluster4_relaxed.toml",
        rule: "TM0211",
        line: 187,
        late_wrong: false,
        what: "Triton 3.9 Gluon, TMA multicast in a 2x2 cluster (A to the CTA pair {r, r^2}, \
               B to {r, r^1}): the A buffer, allocated first, sits at shared offset 0, where \
               every thread read the TMEM address (line 65) before \
               `barrier.cluster.arrive.relaxed` (line 169, no release), so the multicast write \
               of the CTA two ranks away (line 187) is unordered with that read: the \
               ho3_bug_multicast_relaxed_cluster race in a cluster of 4",
    },
    CompilerBug {
        spec: "ho3_bug_tf32_mn_b.toml",
        rule: "TM0209",
        line: 454,
        late_wrong: true,
        what: "Triton 3.9, tl.dot tf32 with an MN-major B loaded by TMA: each B tile is copied \
               through registers into one staging buffer (st.shared at lines 454-469) that the \
               next K iteration overwrites while the previous MMA may still read it (the loop \
               waits only for the commit of the MMA before that one)",
    },
    CompilerBug {
        spec: "ho9_bug_tf32_mn_a.toml",
        rule: "TM0209",
        line: 475,
        late_wrong: true,
        what: "Triton 3.9, tl.dot tf32 with an MN-major A (given K x M) loaded by TMA: each A \
               tile is copied through registers into one staging buffer (st.shared at lines \
               475-506, offset 90112 in every iteration) read by the step's four MMAs (lines \
               528-546); the loop head waits on the commit of the MMA before the previous one \
               (mbarriers alternate, lines 381/433-434), so the next iteration rewrites the \
               buffer under an MMA in flight: the ho3_bug_tf32_mn_b pattern for A",
    },
    CompilerBug {
        spec: "ho6_cutlass_mxf8.toml",
        rule: "TM0204",
        line: 2850,
        late_wrong: false,
        what: "CUTLASS 4.2 SM100 block-scaled mainloop (MXFP8, \
               sm100_blockscaled_mma_warpspecialized.hpp:1014-1031): every k-tile copies the \
               scale factors into the same TMEM columns with tcgen05.cp (lines 2850, 2873) \
               while the previous k-tile's block_scale MMAs (line 3068), which read them, \
               were never waited for: mma -> cp (and cp -> cp) is not a pipelined pair in PTX \
               ISA 9.1 §9.7.16.6.2; the pattern of ho5_dot_scaled_preshuffled. NVIDIA's own \
               code relying on it suggests in-order execution in hardware (UNCONFIRMED)",
    },
    CompilerBug {
        spec: "ho6_cutlass_mxf8_2sm.toml",
        rule: "TM0204",
        line: 3116,
        late_wrong: false,
        what: "CUTLASS 4.2 SM100 block-scaled mainloop on a 2-SM UMMA (MXFP8, cta_group::2): \
               the ho6_cutlass_mxf8 pattern with tcgen05.cp.cta_group::2 (lines 3116, 3139) \
               rewriting the scale columns the previous k-tile's pair MMAs (line 3333) may \
               still read. Until batch 8 tmemu also computed wrong numbers here (scale_B of a \
               cta_group::2 MMA read by the CTA-local column index); exact since",
    },
    CompilerBug {
        spec: "ho6_cutlass_f16_splitk.toml",
        rule: "TM0206",
        line: 9770,
        late_wrong: false,
        what: "CUTLASS 4.2 stream-K scheduler, split-K fixup \
               (sm100_tile_scheduler_stream_k.hpp:922-942): the split that computes the \
               epilogue stores the reduced accumulator back to TMEM with tcgen05.st (lines \
               9445-9472) and the epilogue reads it with tcgen05.ld (line 9770) with no \
               tcgen05.wait::st anywhere in the kernel: st -> ld is not ordered without \
               wait::st (PTX ISA 9.1 §9.7.16.6.2.1.2); the dealloc (line 5612) races the st \
               too (TM0204)",
    },
];

fn holdout_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/kernels/holdout")
}

fn bugs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/kernels/holdout_bugs")
}

fn all_specs() -> Vec<PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(holdout_dir())
        .expect("tests/corpus/kernels/holdout exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    out.sort();
    out
}

fn name_of(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// Runs one spec under each policy; Ok(notes) when every run was clean and matched.
fn run_spec(path: &Path) -> Result<String, String> {
    let mut notes = Vec::new();
    for (name, policy, few_sms) in [
        ("immediate", AsyncPolicy::Immediate, false),
        ("adversarial", AsyncPolicy::Adversarial, false),
        ("one cluster's SMs", AsyncPolicy::Immediate, true),
    ] {
        let n = run_spec_with(path, policy, few_sms).map_err(|e| format!("[{name}] {e}"))?;
        notes.push(format!("[{name}] {n}"));
    }
    Ok(notes.join(" "))
}

fn run_spec_with(path: &Path, policy: AsyncPolicy, few_sms: bool) -> Result<String, String> {
    let mut spec = Spec::load(path).map_err(|e| format!("spec: {e}"))?;
    let entry = spec.kernel.as_ref().map(|k| k.value.clone());
    let (_, k) = load_ptx_file(&spec.ptx.value, entry.as_deref()).map_err(|e| match e.class {
        ErrorClass::Unsupported => format!("unsupported: {}", e.message),
        _ => format!("load: {e}"),
    })?;
    let l = resolve_spec(&mut spec, &[], &k).map_err(|e| format!("resolve: {e}"))?;
    let session = Session::new(&k, &l).map_err(|e| format!("globals: {e}"))?;
    let mut opts = RunOptions {
        threads: 2,
        async_policy: policy,
        ..Default::default()
    };
    if few_sms {
        // The launch's cluster: the spec's, or without a `cluster` key the kernel's own
        // `.reqnctapercluster` (`__cluster_dims__`), as `Session::new` lets it apply.
        let cluster = if l.cluster_given || l.cluster != [1, 1, 1] {
            l.cluster
        } else {
            k.reqnctapercluster.unwrap_or([1, 1, 1])
        };
        opts.nsms = cluster.iter().product::<u32>().max(1);
    }
    let out = session.run(&opts).map_err(|e| format!("launch: {e}"))?;
    let r = &out.result;
    let mut problems = Vec::new();
    for d in r.diagnostics.iter().take(3) {
        problems.push(format!("diagnostic {d}"));
    }
    if r.diagnostics.len() > 3 {
        problems.push(format!("... {} diagnostics in all", r.diagnostics.len()));
    }
    for h in r.hangs.iter().chain(&r.budget_exhausted).take(2) {
        problems.push(format!(
            "hang {}",
            h.to_string().lines().next().unwrap_or("")
        ));
    }
    if r.trapped {
        problems.push("trapped".into());
    }
    let mut notes = Vec::new();
    for e in check_expects(&l, &out.buffers) {
        match e.comparison {
            Ok(c) if c.passed() => notes.push(format!("{} max abs err {:.2e}", e.name, c.max_abs_err)),
            Ok(c) => problems.push(format!(
                "wrong numbers: expect {}: {} of {} elements outside tolerance (max abs err {:.3e})",
                e.name, c.mismatches, c.elements, c.max_abs_err
            )),
            Err(err) => problems.push(format!("expect {}: {err}", e.name)),
        }
    }
    if l.expects.is_empty() {
        problems.push("no [[expect]]: every holdout spec must carry a reference".into());
    }
    if problems.is_empty() {
        Ok(format!("{} ({:.2} s)", notes.join(", "), out.wall_seconds))
    } else {
        Err(problems.join("; "))
    }
}

fn run_set(heavy: bool) {
    let specs = all_specs();
    assert!(
        specs.len() >= 10,
        "holdout corpus missing: {} specs",
        specs.len()
    );
    for k in KNOWN_FAILING {
        assert!(
            specs.iter().any(|p| name_of(p) == k.spec),
            "KNOWN_FAILING names {} which is not in the holdout corpus",
            k.spec
        );
    }
    let (mut passed, mut known, mut failures) = (0, 0, Vec::new());
    for p in specs
        .iter()
        .filter(|p| HEAVY.contains(&name_of(p).as_str()) == heavy)
    {
        let name = name_of(p);
        let t = Instant::now();
        let outcome = run_spec(p);
        let secs = t.elapsed().as_secs_f64();
        match (outcome, KNOWN_FAILING.iter().find(|k| k.spec == name)) {
            (Ok(notes), None) => {
                passed += 1;
                println!("passed: {name}: {notes} [{secs:.1} s]");
            }
            (Ok(_), Some(_)) => {
                failures.push(format!("{name}: passes now; remove it from KNOWN_FAILING"))
            }
            (Err(why), Some(k)) if why.contains(k.needle) => {
                known += 1;
                println!("known failing: {name}: {why} [{}] [{secs:.1} s]", k.reason);
            }
            (Err(why), Some(k)) => failures.push(format!(
                "{name}: fails differently from KNOWN_FAILING (expected `{}`): {why}",
                k.needle
            )),
            (Err(why), None) => failures.push(format!("{name}: {why}")),
        }
    }
    println!(
        "holdout{}: {passed} passed, {known} known failing, {} unexpected",
        if heavy { " (heavy)" } else { "" },
        failures.len()
    );
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
}

#[test]
fn holdout_kernels_match_numpy() {
    run_set(false);
}

#[test]
#[ignore = "slow: cargo test -p tmemu-host --test holdout -- --ignored --nocapture"]
fn holdout_heavy_kernels_match_numpy() {
    run_set(true);
}

#[test]
fn compiler_bugs_are_reported() {
    let specs: Vec<String> = std::fs::read_dir(bugs_dir())
        .expect("tests/corpus/kernels/holdout_bugs exists")
        .map(|e| name_of(&e.unwrap().path()))
        .filter(|n| n.ends_with(".toml"))
        .collect();
    assert_eq!(
        specs.len(),
        COMPILER_BUGS.len(),
        "every spec of holdout_bugs/ is listed in COMPILER_BUGS and back: {specs:?}"
    );
    for bug in COMPILER_BUGS {
        let path = bugs_dir().join(bug.spec);
        // The kernel computes the right thing when every asynchronous op completes at issue...
        if let Err(e) = run_spec_with(&path, AsyncPolicy::Immediate, false) {
            panic!("{}: the immediate policy should match numpy: {e}", bug.spec);
        }
        // ...and (for an ordering bug on asynchronous reads) not when they complete as late
        // as the rules allow.
        match (
            bug.late_wrong,
            run_spec_with(&path, AsyncPolicy::Adversarial, false),
        ) {
            (true, Err(e)) if e.contains("wrong numbers") => {}
            (false, Ok(_)) => {}
            (_, other) => panic!(
                "{}: adversarial policy: expected {}, got {other:?}",
                bug.spec,
                if bug.late_wrong {
                    "wrong numbers"
                } else {
                    "a clean run"
                }
            ),
        }
        let mut spec = Spec::load(&path).unwrap();
        let entry = spec.kernel.as_ref().map(|k| k.value.clone());
        let (_, kernel) = load_ptx_file(&spec.ptx.value, entry.as_deref()).unwrap();
        let resolved = resolve_spec(&mut spec, &[], &kernel).unwrap();
        let opts = CheckOptions {
            seeds: 1,
            engine: RunOptions {
                threads: 2,
                ..Default::default()
            },
            ..Default::default()
        };
        let out = check(&kernel, &resolved, &opts).unwrap();
        let found: Vec<String> = out
            .findings
            .iter()
            .map(|f| format!("{} line {}", f.diagnostic.rule.id, f.diagnostic.span.line))
            .collect();
        assert!(
            out.findings
                .iter()
                .any(|f| f.diagnostic.rule.id == bug.rule && f.diagnostic.span.line == bug.line),
            "{}: expected {} at line {} ({}); found {found:?}",
            bug.spec,
            bug.rule,
            bug.line,
            bug.what
        );
        println!(
            "reported: {}: {} at line {} [{}]",
            bug.spec, bug.rule, bug.line, bug.what
        );
    }
}
