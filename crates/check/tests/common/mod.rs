//! Shared by the check crate's integration tests: run a launch spec under the race observer,
//! list the rule corpus, print a tally of a corpus run.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use tmemu_check::dynamic::{RaceFinding, RaceObserver};
use tmemu_host::{load_ptx_file, resolve_spec, ErrorClass};
use tmemu_sim::{install_globals, GlobalMemory, Launch, RunOptions, RunResult};
use tmemu_spec::Spec;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A run under the race observer.
pub struct RaceRun {
    pub result: RunResult,
    pub findings: Vec<RaceFinding>,
    pub stats: tmemu_race::Stats,
    pub seconds: f64,
}

/// Why a spec did not run.
#[derive(Debug)]
pub enum NotRun {
    /// The engine does not model a form the kernel uses (pending, never passed).
    Unsupported(String),
    /// A broken spec, PTX or launch (a test failure).
    Error(String),
}

/// Loads `spec_path` and runs it with one [`RaceObserver`] per SM group.
pub fn run_spec(spec_path: &Path, opts: &RunOptions) -> Result<RaceRun, NotRun> {
    let mut spec = Spec::load(spec_path).map_err(|e| NotRun::Error(format!("spec: {e}")))?;
    let entry = spec.kernel.as_ref().map(|k| k.value.clone());
    let (_, kernel) = load_ptx_file(Path::new(&spec.ptx.value), entry.as_deref()).map_err(|e| {
        if e.class == ErrorClass::Unsupported {
            NotRun::Unsupported(e.message)
        } else {
            NotRun::Error(format!("load: {e}"))
        }
    })?;
    let resolved =
        resolve_spec(&mut spec, &[], &kernel).map_err(|e| NotRun::Error(format!("{e}")))?;
    let mut global = GlobalMemory::new();
    install_globals(&kernel, &mut global).map_err(|e| NotRun::Error(e.0))?;
    let addrs: Vec<u64> = resolved
        .buffers
        .iter()
        .map(|b| global.alloc(&b.name, &b.bytes))
        .collect();
    let launch = Launch {
        grid: resolved.grid,
        block: resolved.block,
        cluster: (resolved.cluster_given || resolved.cluster != [1, 1, 1])
            .then_some(resolved.cluster),
        dyn_shared: resolved.shared_bytes,
        params: resolved.param_block(&addrs),
    };
    let cluster = resolved.cluster;
    let t0 = std::time::Instant::now();
    let (result, observers) = tmemu_sim::run_observed(&kernel, &launch, &global, opts, |_| {
        RaceObserver::new(&kernel).with_cluster_dim(cluster)
    })
    .map_err(|e| NotRun::Error(format!("launch: {e}")))?;
    let seconds = t0.elapsed().as_secs_f64();
    let mut findings = Vec::new();
    let mut stats = tmemu_race::Stats::default();
    for o in &observers {
        stats += o.stats();
    }
    // each group's findings, then the global-memory races between groups
    findings.extend(tmemu_check::dynamic::launch_findings(observers));
    Ok(RaceRun {
        result,
        findings,
        stats,
        seconds,
    })
}

/// Appends every file under `dir` (recursively, sorted by path at each level) whose extension
/// is `ext`.
pub fn files_with_extension(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_with_extension(&p, ext, out);
        } else if p.extension().is_some_and(|e| e == ext) {
            out.push(p);
        }
    }
}

/// The `.ptx` programs of tests/corpus/rules/<dir>/, sorted, for the directories whose name
/// `keep` accepts.
pub fn rule_corpus_programs(keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut dirs: Vec<_> = std::fs::read_dir(root().join("tests/corpus/rules"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && keep(&p.file_name().unwrap().to_string_lossy()))
        .collect();
    dirs.sort();
    let mut out = Vec::new();
    for d in dirs {
        let mut files: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

/// Prints `title: <n> <label>, ...` and then every item of each group under its tag, e.g.
/// `print_tally("race corpus", &[("passed", "ok", &passed), ("failed", "FAIL", &failed)])`.
pub fn print_tally(title: &str, groups: &[(&str, &str, &[String])]) {
    let counts: Vec<String> = groups
        .iter()
        .map(|(label, _, items)| format!("{} {label}", items.len()))
        .collect();
    println!("{title}: {}", counts.join(", "));
    for (_, tag, items) in groups {
        for item in *items {
            println!("  {tag:<7} {item}");
        }
    }
}

/// The race rules: TM0204–TM0214, and TM0234/TM0235 (asynchronous accesses of shared memory
/// at the CTA's exit, judged by the same happens-before clocks).
pub fn is_race_rule(id: &str) -> bool {
    matches!(
        id,
        "TM0204"
            | "TM0205"
            | "TM0206"
            | "TM0207"
            | "TM0208"
            | "TM0209"
            | "TM0210"
            | "TM0211"
            | "TM0212"
            | "TM0213"
            | "TM0214"
            | "TM0234"
            | "TM0235"
    )
}
