//! What the race observer costs: each of the corpus' largest runnable kernels under `run`
//! (no observer) and under the race observer, in one process, same options (one thread,
//! default schedule, immediate async policy), median of several runs each; prints the ratio.
//!
//! `cargo run --release -p tmemu-check --example race_cost [SPEC.toml ...]`

use std::path::{Path, PathBuf};
use std::time::Instant;

use tmemu_check::dynamic::RaceObserver;
use tmemu_host::{load_ptx_file, resolve_spec};
use tmemu_sim::{install_globals, GlobalMemory, Launch, RunOptions};
use tmemu_spec::Spec;

const DEFAULT: &[&str] = &[
    "tests/corpus/kernels/triton/softmax_bench2048.toml",
    "tests/corpus/kernels/triton/matmul_fp16_bench1024.toml",
    "tests/corpus/kernels/nvcc/plain.sgemm_tiled.toml",
    "tests/corpus/kernels/triton/matmul_fp16.toml",
    "tests/corpus/kernels/cutedsl/cutedsl_gemm_1cta.toml",
];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let args: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    let specs: Vec<PathBuf> = if args.is_empty() {
        DEFAULT.iter().map(|s| root.join(s)).collect()
    } else {
        args
    };
    println!(
        "{:<52} {:>12} {:>10} {:>10} {:>7} {:>9}",
        "spec", "warp-instr", "run s", "race s", "ratio", "findings"
    );
    for path in specs {
        let shown = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let mut spec = match Spec::load(&path) {
            Ok(s) => s,
            Err(e) => {
                println!("{shown}: {e}");
                continue;
            }
        };
        let entry = spec.kernel.as_ref().map(|k| k.value.clone());
        let kernel = match load_ptx_file(Path::new(&spec.ptx.value), entry.as_deref()) {
            Ok((_, k)) => k,
            Err(e) => {
                println!("{shown}: not runnable: {e}");
                continue;
            }
        };
        let resolved = resolve_spec(&mut spec, &[], &kernel).expect("resolve");
        let fresh = || {
            let mut global = GlobalMemory::new();
            install_globals(&kernel, &mut global).unwrap();
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
            (global, launch)
        };
        let opts = RunOptions::default();
        let reps = 5;
        let (mut t_run, mut t_race) = (Vec::new(), Vec::new());
        let (mut instr, mut findings, mut engine_diags) = (0, 0, 0);
        for _ in 0..reps {
            let (global, launch) = fresh();
            let t0 = Instant::now();
            let r = tmemu_sim::run(&kernel, &launch, &global, &opts).expect("run");
            t_run.push(t0.elapsed().as_secs_f64());
            instr = r.warp_instructions;
            engine_diags = r.diagnostics.len() + r.hangs.len();
            let (global, launch) = fresh();
            let t0 = Instant::now();
            let (_, obs) = tmemu_sim::run_observed(&kernel, &launch, &global, &opts, |_| {
                RaceObserver::new(&kernel)
            })
            .expect("run");
            findings = obs.into_iter().map(|o| o.into_findings().len()).sum();
            t_race.push(t0.elapsed().as_secs_f64());
        }
        let (a, b) = (median(t_run), median(t_race));
        println!(
            "{:<52} {:>12} {:>10.4} {:>10.4} {:>6.2}x {:>9}{}",
            shown,
            instr,
            a,
            b,
            b / a,
            findings,
            if engine_diags > 0 {
                format!("  (engine reported {engine_diags}: not a faithful run)")
            } else {
                String::new()
            }
        );
    }
}
