//! TM0214 mbarrier-init-race on real compiler output: the holdout kernel
//! `ho_nvcc_cluster_splitk_dsmem` (nvcc, a cluster of 2; rank 1 pushes its partial into rank
//! 0's shared memory by `st.async ... mbarrier::complete_tx` on rank 0's mbarrier) with the
//! cluster barrier after its mbarrier inits replaced by a CTA-local `bar.sync`, the probe of
//! docs/arch/holdout.md (batch 15). The engine's TM0220 sees the uninitialised barrier only in
//! a schedule that runs the `st.async` first (`explore` found one in 30 runs); the ordering
//! rule must report it under `check` and under a single default-schedule run with the race
//! observer (`tmemu run --races`), at the first `st.async`, related to rank 0's init. The
//! unedited kernel stays silent.

use std::path::{Path, PathBuf};

use tmemu_check::dynamic::{launch_findings, RaceObserver};
use tmemu_host::{
    check, load_ptx_source, resolve_spec, CheckOptions, Kernel, ResolvedLaunch, RunOptions,
    Session, Verdict,
};
use tmemu_spec::Spec;

const STEM: &str = "ho_nvcc_cluster_splitk_dsmem";
/// The kernel's `cluster_sync()` after the inits (`fence.mbarrier_init` comes before it).
const CLUSTER_SYNC: &str =
    "barrier.cluster.arrive.release.aligned;\n\t.loc\t1 38 3, function_name \
     $L__info_string2, inlined_at 1 86 3\nbarrier.cluster.wait.acquire.aligned;";

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/kernels/holdout")
}

fn load(edit: bool) -> (String, Kernel, ResolvedLaunch) {
    let ptx = dir().join(format!("{STEM}.ptx"));
    let mut src = std::fs::read_to_string(&ptx).unwrap();
    if edit {
        assert_eq!(
            src.matches(CLUSTER_SYNC).count(),
            1,
            "the probe's edit site moved"
        );
        src = src.replace(CLUSTER_SYNC, "bar.sync 0;");
    }
    let mut spec = Spec::load(&ptx.with_extension("toml")).unwrap();
    let kernel = load_ptx_source(&src, &format!("{STEM}.ptx"), None).unwrap();
    let launch = resolve_spec(&mut spec, &[], &kernel).unwrap();
    (src, kernel, launch)
}

/// 1-based line of the first line of `src` containing `needle`.
fn line_of(src: &str, needle: &str) -> u32 {
    src.lines().position(|l| l.contains(needle)).unwrap() as u32 + 1
}

/// (rule, line, related lines) of each TM02xx finding of one default-schedule run with the
/// race observer, as `tmemu run --races` reports them.
fn run_races(kernel: &Kernel, launch: &ResolvedLaunch) -> Vec<(&'static str, u32, Vec<u32>)> {
    let session = Session::new(kernel, launch).unwrap();
    let (_, observers) = session
        .run_observed(&RunOptions::default(), |_| RaceObserver::new(kernel))
        .unwrap();
    launch_findings(observers)
        .iter()
        .map(|f| {
            let rel = f.related_spans().iter().map(|(s, _)| s.line).collect();
            (f.rule.id, f.span.line, rel)
        })
        .collect()
}

#[test]
fn cluster_init_ordered_only_by_bar_sync_is_tm0214_in_every_schedule() {
    let (src, kernel, launch) = load(true);
    let st_async = line_of(&src, "st.async.shared::cluster");
    let init = line_of(&src, "mbarrier.init.shared::cta.b64 [%r17]");
    let out = check(&kernel, &launch, &CheckOptions::default()).unwrap();
    assert_eq!(out.verdict, Verdict::Violation, "{:#?}", out.findings);
    let found: Vec<(&str, u32, Vec<u32>)> = out
        .findings
        .iter()
        .map(|f| {
            let rel = f.related.iter().map(|(s, _)| s.line).collect();
            (f.diagnostic.rule.id, f.diagnostic.span.line, rel)
        })
        .collect();
    assert_eq!(found, [("TM0214", st_async, vec![init])]);
    assert_eq!(
        run_races(&kernel, &launch),
        [
            ("TM0214", st_async, vec![init]),
            ("TM0214", st_async, vec![init])
        ],
        "one per cluster (two SM groups)"
    );
}

#[test]
fn cluster_init_published_by_the_cluster_barrier_is_silent() {
    let (_, kernel, launch) = load(false);
    let out = check(&kernel, &launch, &CheckOptions::default()).unwrap();
    assert_eq!(out.verdict, Verdict::Clean, "{:#?}", out.findings);
    assert!(out.findings.is_empty(), "{:#?}", out.findings);
    assert!(run_races(&kernel, &launch).is_empty());
}
