//! `check` against `run` on the corpus' largest kernels (issue 6: check at most 2× run per
//! schedule). Run through `bench/check_vs_run.sh`, or:
//!
//! ```text
//! cargo run --release -p tmemu-host --example check_vs_run [-- SPEC.toml ...]
//! ```
//!
//! For each spec, in one process, best of `REPS` of each (every timing includes building the
//! session — buffers and launch — as `tmemu run` does):
//! - `run`: one engine run, default options (one thread, as check's runs);
//! - `adv`: the same run under the adversarial async policy, no observer (the policy's cost);
//! - `race`: the default run with the race observer attached (the observer's cost);
//! - `check1`: [`tmemu_host::check`] with one schedule and no immediate pass — one adversarial
//!   run with every checker attached: the per-schedule cost;
//! - `check`: the default check (`CheckOptions::default()`: its `plan()` says how many runs).
//!
//! Ratios are `check1 / run` (the goal: ≤ 2) and `check / run` (divide by the run count for
//! the per-run figure). A spec the engine cannot run is listed as skipped with the reason.
//!
//! `--only run|race|check1 SPEC.toml [N]` does that one measurement once, or `N` times in one
//! process (for `perf` or `valgrind --tool=callgrind`, whose instruction counts do not depend
//! on the machine's load).

use std::path::{Path, PathBuf};
use std::time::Instant;

use tmemu_check::dynamic::RaceObserver;
use tmemu_host::{
    check, load_ptx_file, resolve_spec, CheckOptions, ErrorClass, RunOptions, Session,
};
use tmemu_sim::observer::{AccessKind, At, MemOrder, MemSpace, Observer};
use tmemu_sim::AsyncPolicy;
use tmemu_spec::Spec;

const REPS: usize = 3;

/// The corpus' largest kernels by PTX size and by instructions executed (issue 6's table).
const DEFAULT_SPECS: &[&str] = &[
    "tests/corpus/kernels/triton/matmul_bf16.toml",
    "tests/corpus/kernels/triton/dot_scaled_mxfp8.toml",
    "tests/corpus/kernels/triton/attn_fwd.toml",
    "tests/corpus/kernels/gluon/gluon_tcgen05_copy.toml",
    "tests/corpus/kernels/holdout/ho_gemm_fp8_e4m3_e5m2.toml",
    "tests/corpus/kernels/triton/softmax_bench2048.toml",
    "tests/corpus/kernels/triton/matmul_fp16_bench1024.toml",
    "tests/corpus/kernels/triton/matmul_fp16_div16_bench1024.toml",
];

fn best(mut f: impl FnMut() -> f64) -> f64 {
    (0..REPS).map(|_| f()).fold(f64::INFINITY, f64::min)
}

fn measure(path: &Path) -> Result<String, String> {
    let mut spec = Spec::load(path).map_err(|e| e.to_string())?;
    let entry = spec.kernel.as_ref().map(|k| k.value.clone());
    let (_, kernel) = load_ptx_file(&spec.ptx.value, entry.as_deref()).map_err(|e| {
        if e.class == ErrorClass::Unsupported {
            format!("skipped (engine: {})", e.message)
        } else {
            e.message
        }
    })?;
    let resolved = resolve_spec(&mut spec, &[], &kernel).map_err(|e| e.message)?;
    let engine = RunOptions {
        threads: 1,
        ..Default::default()
    };
    let mut warp_instructions = 0;
    let run = best(|| {
        let t = Instant::now();
        let s = Session::new(&kernel, &resolved).unwrap();
        let out = s.run(&engine).unwrap();
        warp_instructions = out.result.warp_instructions;
        t.elapsed().as_secs_f64()
    });
    let adversarial = RunOptions {
        async_policy: AsyncPolicy::Adversarial,
        ..engine.clone()
    };
    let adv = best(|| {
        let t = Instant::now();
        let s = Session::new(&kernel, &resolved).unwrap();
        s.run(&adversarial).unwrap();
        t.elapsed().as_secs_f64()
    });
    let race = best(|| {
        let t = Instant::now();
        let s = Session::new(&kernel, &resolved).unwrap();
        let ro: std::sync::Arc<[(u64, u64)]> = s.read_only_ranges(&resolved).into();
        s.run_observed(&engine, |_| {
            RaceObserver::new(&kernel).with_read_only(ro.clone())
        })
        .unwrap();
        t.elapsed().as_secs_f64()
    });
    let one = CheckOptions {
        seeds: 1,
        immediate: false,
        engine: engine.clone(),
        ..Default::default()
    };
    let full = CheckOptions {
        engine,
        ..Default::default()
    };
    let mut verdict = String::new();
    let check1 = best(|| {
        let t = Instant::now();
        let out = check(&kernel, &resolved, &one).unwrap();
        verdict = out.verdict.to_string();
        t.elapsed().as_secs_f64()
    });
    let runs = full.plan().len();
    let checkn = best(|| {
        let t = Instant::now();
        check(&kernel, &resolved, &full).unwrap();
        t.elapsed().as_secs_f64()
    });
    Ok(format!(
        "{:>12} {:>9.4} {:>6.2} {:>6.2} {:>9.4} {:>6.2} {:>9.4} {:>4} {:>6.2} {:>6.2}  {verdict}",
        warp_instructions,
        run,
        adv / run,
        race / run,
        check1,
        check1 / run,
        checkn,
        runs,
        checkn / run,
        checkn / run / runs as f64,
    ))
}

/// One measurement, once (`--only WHAT SPEC`).
fn only(what: &str, path: &Path) -> Result<f64, String> {
    let mut spec = Spec::load(path).map_err(|e| e.to_string())?;
    let entry = spec.kernel.as_ref().map(|k| k.value.clone());
    let (_, kernel) = load_ptx_file(&spec.ptx.value, entry.as_deref()).map_err(|e| e.message)?;
    let resolved = resolve_spec(&mut spec, &[], &kernel).map_err(|e| e.message)?;
    let engine = RunOptions {
        threads: 1,
        ..Default::default()
    };
    let t = Instant::now();
    match what {
        "run" => {
            let s = Session::new(&kernel, &resolved).map_err(|e| e.to_string())?;
            s.run(&engine).map_err(|e| e.to_string())?;
        }
        "race" => {
            let s = Session::new(&kernel, &resolved).map_err(|e| e.to_string())?;
            let ro: std::sync::Arc<[(u64, u64)]> = s.read_only_ranges(&resolved).into();
            s.run_observed(&engine, |_| {
                RaceObserver::new(&kernel).with_read_only(ro.clone())
            })
            .map_err(|e| e.to_string())?;
        }
        "check1" => {
            let one = CheckOptions {
                seeds: 1,
                immediate: false,
                engine,
                ..Default::default()
            };
            check(&kernel, &resolved, &one).map_err(|e| e.to_string())?;
        }
        "profile" => {
            let s = Session::new(&kernel, &resolved).map_err(|e| e.to_string())?;
            let (_, obs) = s
                .run_observed(&engine, |_| AccessProfile::default())
                .map_err(|e| e.to_string())?;
            let mut all = std::collections::BTreeMap::new();
            for o in obs {
                o.flush_into(&mut all);
            }
            println!("space   kind  size ranges bytes/range   instrs");
            for ((space, kind, size, ranges, bytes), n) in all {
                println!("{space:<7} {kind:<5} {size:>4} {ranges:>6} {bytes:>11} {n:>8}");
            }
        }
        _ => {
            return Err(format!(
                "--only {what}: expected run, race, check1 or profile"
            ))
        }
    }
    Ok(t.elapsed().as_secs_f64())
}

/// The shapes of the thread accesses the race observer gets (`--only profile`): per
/// warp-instruction, its space, kind, element size, the number of ranges left after merging
/// contiguous lanes (what `RaceDetector::access_lanes` checks one by one) and their mean size.
#[derive(Default)]
struct AccessProfile {
    pending: Option<(At, MemSpace, AccessKind, u32)>,
    addrs: Vec<u64>,
    hist: std::collections::BTreeMap<(&'static str, &'static str, u32, usize, u64), u64>,
}

impl AccessProfile {
    fn flush(&mut self) {
        let Some((_, space, kind, size)) = self.pending.take() else {
            return;
        };
        self.addrs.sort_unstable();
        let (mut ranges, mut bytes, mut i) = (0, 0, 0);
        while i < self.addrs.len() {
            let (start, mut end) = (self.addrs[i], self.addrs[i] + size as u64);
            i += 1;
            while i < self.addrs.len() && self.addrs[i] <= end {
                end = end.max(self.addrs[i] + size as u64);
                i += 1;
            }
            ranges += 1;
            bytes += end - start;
        }
        self.addrs.clear();
        let space = match space {
            MemSpace::Global => "global",
            MemSpace::Shared { .. } => "shared",
        };
        let kind = match kind {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
        };
        *self
            .hist
            .entry((space, kind, size, ranges, bytes / ranges.max(1) as u64))
            .or_default() += 1;
    }

    fn flush_into(
        mut self,
        all: &mut std::collections::BTreeMap<(&'static str, &'static str, u32, usize, u64), u64>,
    ) {
        self.flush();
        for (k, n) in self.hist {
            *all.entry(k).or_default() += n;
        }
    }
}

impl Observer for AccessProfile {
    fn wants_memory(&self) -> bool {
        true
    }
    fn wants_memory_lanes(&self) -> bool {
        true
    }
    fn instruction(&mut self, _at: At) {
        self.flush();
    }
    fn memory(
        &mut self,
        at: At,
        _lane: u32,
        space: MemSpace,
        addr: u64,
        size: u32,
        kind: AccessKind,
        _order: MemOrder,
    ) {
        if !matches!(self.pending, Some((a, s, k, z)) if a == at && s == space && k == kind && z == size)
        {
            self.flush();
            self.pending = Some((at, space, kind, size));
        }
        self.addrs.push(addr);
    }
    fn memory_lanes(
        &mut self,
        at: At,
        lanes: u32,
        space: MemSpace,
        addrs: &[u64; 32],
        size: u32,
        kind: AccessKind,
        _order: MemOrder,
    ) {
        self.flush();
        self.pending = Some((at, space, kind, size));
        for (l, &a) in addrs.iter().enumerate() {
            if lanes >> l & 1 != 0 {
                self.addrs.push(a);
            }
        }
        self.flush();
    }
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--only") {
        let (Some(what), Some(spec)) = (args.get(1), args.get(2)) else {
            eprintln!("usage: check_vs_run --only run|race|check1 SPEC.toml [REPEATS]");
            std::process::exit(2);
        };
        // an optional repeat count: a profile of the steady state (the first run of a
        // process also pays its page faults and cold caches)
        let reps: usize = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(1);
        for _ in 0..reps {
            match only(what, Path::new(spec)) {
                Ok(t) => println!("{what} {t:.4} s"),
                Err(e) => {
                    eprintln!("{e}");
                    std::process::exit(1);
                }
            }
        }
        return;
    }
    let args: Vec<PathBuf> = args.into_iter().map(PathBuf::from).collect();
    let specs: Vec<PathBuf> = if args.is_empty() {
        DEFAULT_SPECS.iter().map(|s| root.join(s)).collect()
    } else {
        args
    };
    println!(
        "{:<34} {:>12} {:>9} {:>6} {:>6} {:>9} {:>6} {:>9} {:>4} {:>6} {:>6}  verdict",
        "kernel",
        "warp-instr",
        "run s",
        "adv/r",
        "race/r",
        "check1 s",
        "ratio",
        "check s",
        "runs",
        "ratio",
        "/run"
    );
    for p in &specs {
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        match measure(p) {
            Ok(line) => println!("{name:<34} {line}"),
            Err(e) => println!("{name:<34} {e}"),
        }
    }
}
