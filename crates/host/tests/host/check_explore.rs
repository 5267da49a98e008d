//! `tmemu_host::check` and `explore` on rule-corpus programs whose expected findings are the
//! programs' own marks (tests/corpus/rules/README.md), never what tmemu printed before:
//! deduplication across warps, CTAs and runs, the race observer's findings with their
//! related span, the verdict's fail-closed precedence, determinism of seeded runs, and the
//! non-deterministic pair-dealloc hang of PTX ISA Table 48 found by `explore` and reproduced
//! from the run it reports.

use std::path::{Path, PathBuf};

use tmemu_check::annotations::{self, MarkKind};
use tmemu_host::{
    check, explore, load_ptx_source, resolve_spec, CheckOptions, CheckOutcome, ExploreOptions,
    Kernel, Policy, ResolvedLaunch, RunOptions, Session, Source, Verdict,
};
use tmemu_spec::Spec;
use tmemu_tmem::alloc::PairCollective;

fn rules_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/rules")
}

struct Program {
    src: String,
    kernel: Kernel,
    launch: ResolvedLaunch,
}

fn load(rel: &str) -> Program {
    let ptx = rules_dir().join(rel);
    let src = std::fs::read_to_string(&ptx).unwrap();
    let mut spec = Spec::load(&ptx.with_extension("toml")).unwrap();
    let kernel = load_ptx_source(&src, rel, None).unwrap();
    let launch = resolve_spec(&mut spec, &[], &kernel).unwrap();
    Program {
        src,
        kernel,
        launch,
    }
}

/// Lines of the marks of `kind` (and `rule`, when given) in the program.
fn marked(p: &Program, kind: MarkKind, rule: Option<&str>) -> Vec<u32> {
    let mut v: Vec<u32> = annotations::parse(&p.src)
        .unwrap()
        .marks
        .into_iter()
        .filter(|m| m.kind == kind && (rule.is_none() || m.rule.as_deref() == rule))
        .map(|m| m.line)
        .collect();
    v.sort_unstable();
    v
}

fn small() -> RunOptions {
    RunOptions {
        max_steps: 2_000_000,
        ..Default::default()
    }
}

fn check_default(p: &Program) -> CheckOutcome {
    let opts = CheckOptions {
        engine: small(),
        ..Default::default()
    };
    check(&p.kernel, &p.launch, &opts).unwrap()
}

#[test]
fn plan_is_adversarial_schedules_then_immediate() {
    let plan = CheckOptions::default().plan();
    assert_eq!(plan.len(), 5);
    assert_eq!(plan[0].seed, None);
    assert!(plan[..4].iter().all(|c| c.policy == Policy::Adversarial));
    assert_eq!(
        plan[1..4].iter().map(|c| c.seed).collect::<Vec<_>>(),
        vec![Some(1), Some(2), Some(3)]
    );
    assert_eq!(plan[4].policy, Policy::Immediate);
    let one = CheckOptions {
        seeds: 0,
        immediate: false,
        ..Default::default()
    };
    assert_eq!(one.plan().len(), 1, "at least the default schedule runs");
}

#[test]
fn leak_is_one_finding_over_every_run_with_its_allocation() {
    let p = load("TM0012-alloc-leak/break.ptx");
    let out = check_default(&p);
    assert_eq!(out.verdict, Verdict::Violation);
    assert_eq!(out.runs.len(), 5);
    let leaks: Vec<_> = out
        .findings
        .iter()
        .filter(|f| f.diagnostic.rule.id == "TM0012")
        .collect();
    assert_eq!(leaks.len(), 1, "deduplicated over warps, CTAs and runs");
    let f = leaks[0];
    assert_eq!(
        vec![f.diagnostic.span.line],
        marked(&p, MarkKind::Error, Some("TM0012"))
    );
    assert_eq!(f.runs, (0..5).collect::<Vec<_>>(), "every run reports it");
    assert!(!f.schedule_dependent);
    assert!(f.occurrences >= 5);
    assert_eq!(f.source, Source::Engine);
    let rel: Vec<u32> = f.diagnostic.related.iter().map(|(s, _)| s.line).collect();
    assert_eq!(rel, marked(&p, MarkKind::Related, Some("TM0012")));
}

#[test]
fn shared_race_comes_from_the_race_observer_with_both_spans() {
    let p = load("TM0211-shared-data-race/break.ptx");
    let out = check_default(&p);
    assert_eq!(out.verdict, Verdict::Violation);
    let races: Vec<_> = out
        .findings
        .iter()
        .filter(|f| f.diagnostic.rule.id == "TM0211")
        .collect();
    assert_eq!(races.len(), 1);
    assert_eq!(races[0].source, Source::Race);
    assert_eq!(
        vec![races[0].diagnostic.span.line],
        marked(&p, MarkKind::Error, Some("TM0211"))
    );
    let rel: Vec<u32> = races[0].related.iter().map(|(s, _)| s.line).collect();
    assert_eq!(rel, marked(&p, MarkKind::Related, Some("TM0211")));
    // the keep is silent under every run
    let keep = check_default(&load("TM0211-shared-data-race/keep.ptx"));
    assert_eq!(keep.verdict, Verdict::Clean);
    assert!(keep.findings.is_empty(), "{:?}", keep.findings);
}

#[test]
fn a_tmemu_limit_makes_the_verdict_incomplete() {
    // TM0510 (call depth) is a limit of tmemu: the run traps, but fails closed as incomplete
    let p = load("TM0510-call-depth-exceeded/break.ptx");
    let out = check_default(&p);
    assert_eq!(out.verdict, Verdict::Incomplete);
    assert!(!out.incomplete.is_empty());
    assert!(out.runs.iter().all(|r| r.verdict == Verdict::Incomplete));
    assert_eq!(Verdict::Incomplete.exit_code(), 4);
    assert!(Verdict::Hang > Verdict::Incomplete && Verdict::Incomplete > Verdict::Violation);
}

#[test]
fn exploration_is_deterministic() {
    let p = load("TM0211-shared-data-race/break.ptx");
    let opts = ExploreOptions {
        engine: small(),
        ..Default::default()
    };
    let a = explore(&p.kernel, &p.launch, 6, &opts).unwrap();
    let b = explore(&p.kernel, &p.launch, 6, &opts).unwrap();
    let summary = |o: &tmemu_host::ExploreOutcome| {
        (
            o.merged
                .findings
                .iter()
                .map(|f| (f.diagnostic.rule.id, f.diagnostic.span, f.runs.clone()))
                .collect::<Vec<_>>(),
            o.merged
                .runs
                .iter()
                .map(|r| (r.verdict, r.warp_instructions))
                .collect::<Vec<_>>(),
            o.merged.buffers.clone(),
        )
    };
    assert_eq!(summary(&a), summary(&b));
    assert_eq!(a.runs_made, 6);
    // runs 2 and 3 of every 4 use PCT, odd runs eager pair collectives
    assert_eq!(opts.config(2).pct_depth, opts.pct_depth);
    assert_eq!(opts.config(1).pair_collective, Some(PairCollective::Eager));
    assert_eq!(opts.config(0).pair_collective, None);
}

/// PTX ISA Table 48: rank 1 deallocates (.cta_group::2) before a cluster barrier, rank 0
/// after it. Whether the first dealloc of the pair blocks for its peer is the hardware's
/// choice, so the program hangs in some executions and completes in others.
#[test]
fn explore_finds_the_table48_hang_and_its_run_reproduces_it() {
    let p = load("hang-table48-dealloc-across-cluster-barrier/break.ptx");
    let hang_lines = marked(&p, MarkKind::Hang, None);
    assert_eq!(hang_lines.len(), 2);
    let opts = ExploreOptions {
        engine: small(),
        ..Default::default()
    };
    let out = explore(&p.kernel, &p.launch, 8, &opts).unwrap();
    let first = out
        .first_hang
        .expect("explore must find the hang within 8 runs");
    assert_eq!(out.merged.verdict, Verdict::Hang);
    assert_eq!(out.merged.hangs.len(), 1);
    let h = &out.merged.hangs[0];
    assert!(
        h.schedule_dependent,
        "some runs complete: the hang is non-deterministic"
    );
    let mut lines: Vec<u32> = h.report.warps.iter().map(|w| w.span.line).collect();
    lines.sort_unstable();
    lines.dedup();
    assert_eq!(lines, hang_lines);
    // the runs that did not hang completed cleanly
    for r in &out.merged.runs {
        assert!(matches!(r.verdict, Verdict::Hang | Verdict::Clean), "{r:?}");
    }
    assert!(out.merged.runs.iter().any(|r| r.verdict == Verdict::Clean));

    // the reported run, repeated alone (what `tmemu run <run_args>` does), hangs the same way
    let again = Session::new(&p.kernel, &p.launch)
        .unwrap()
        .run(&first.options(&small()))
        .unwrap()
        .result;
    assert_eq!(again.hangs.len(), 1);
    let mut again_lines: Vec<u32> = again.hangs[0].warps.iter().map(|w| w.span.line).collect();
    again_lines.sort_unstable();
    again_lines.dedup();
    assert_eq!(again_lines, hang_lines);
    assert!(first.run_args().contains("--schedule-seed"));

    // Table 47 (both deallocate after the barrier) never hangs
    let keep = load("hang-table48-dealloc-across-cluster-barrier/keep.ptx");
    let k = explore(&keep.kernel, &keep.launch, 8, &opts).unwrap();
    assert!(k.first_hang.is_none());
    assert_eq!(k.merged.verdict, Verdict::Clean);
}

#[test]
fn stop_on_hang_stops_at_the_first_hanging_run() {
    let p = load("hang-table48-dealloc-across-cluster-barrier/break.ptx");
    let opts = ExploreOptions {
        engine: small(),
        stop_on_hang: true,
        ..Default::default()
    };
    let out = explore(&p.kernel, &p.launch, 8, &opts).unwrap();
    let first = out.first_hang.unwrap();
    assert_eq!(out.merged.runs.last().unwrap().config, first);
    assert!(out.stopped_early);
    assert_eq!(out.runs_made as usize, out.merged.runs.len());
}
