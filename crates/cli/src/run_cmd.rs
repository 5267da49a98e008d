//! `tmemu run SPEC.toml`: spec → PTX → engine → saved buffers, `[[expect]]` checks, and the
//! report (findings, hang, what was not modelled) in the chosen format; optionally a
//! Chrome/Perfetto trace and a TMEM occupancy map.
//!
//! Exit codes (docs/cli.md): 0 clean, 1 violation (or a failed expect), 2 bad input or usage,
//! 3 hang, 4 incomplete (an unsupported form, or the step budget ran out).

use std::path::PathBuf;

use clap::ValueEnum;
use std::sync::Arc;
use tmemu_check::dynamic::RaceObserver;

use rayon::prelude::*;
use tmemu_host::{
    check_expects, expect_result, save_output, save_outputs, Policy, Related, RunConfig,
    RunOptions, Session,
};
use tmemu_spec::{BufferInit, Fill, Spec};
use tmemu_trace::Recorder;

use crate::observe::{mbarrier_wait_pcs, PlacementObserver, RunObserver, TraceRecorder};
use crate::output::{self, OutputArgs};
use crate::phases;
use crate::prepare::{prepare_spec, PrepError};
use crate::progress::{Measure, Progress};
use crate::trace_out::{write_outputs, TRACE_RECORDS_PER_GROUP};

/// How asynchronous tcgen05 and bulk-copy operations complete.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum AsyncPolicy {
    /// Every op completes at issue.
    #[default]
    Immediate,
    /// Ops complete some scheduler rounds after issue.
    Delayed,
    /// As late as the rules allow, so a missing wait shows up as a finding.
    Adversarial,
}

impl From<AsyncPolicy> for Policy {
    fn from(p: AsyncPolicy) -> Policy {
        match p {
            AsyncPolicy::Immediate => Policy::Immediate,
            AsyncPolicy::Delayed => Policy::Delayed,
            AsyncPolicy::Adversarial => Policy::Adversarial,
        }
    }
}

/// Engine options shared by `run`, `check` and `explore`.
#[derive(clap::Args, Clone, Debug)]
pub struct EngineArgs {
    /// Worker threads (SM groups run in parallel; results are identical for any N). 0, the
    /// default: every core this process may use (`tmemu check` shares them among the specs
    /// it checks at once). A kernel with global atomics runs on one thread whatever N is.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub threads: usize,
    /// Number of SMs.
    #[arg(long, default_value_t = 148)]
    pub sms: u32,
    /// Override a scalar argument: `--set 3=512` or `--set n_cols=512`.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub sets: Vec<String>,
    /// Warp-instructions per SM group before the run counts as a livelock (verdict
    /// incomplete).
    #[arg(long, default_value_t = 2_000_000_000)]
    pub max_steps: u64,
    /// With --schedule-seed: probabilistic concurrency testing of this depth (0: the plain
    /// seeded schedule). `tmemu explore` prints it for the runs that used it.
    #[arg(long, default_value_t = 0)]
    pub pct_depth: u32,
    /// Whether the first warp of a `.cta_group::2` dealloc/relinquish waits for its peer
    /// (`blocking`) or goes on (`eager`); the hardware may do either (PTX ISA Table 48).
    #[arg(long, value_parser = ["blocking", "eager"], default_value = "blocking")]
    pub pair_collective: String,
}

impl EngineArgs {
    /// The engine options of one run that has the whole machine to itself.
    pub fn options(&self) -> RunOptions {
        self.options_sharing(1)
    }

    /// The engine options when `concurrent` runs (specs checked at once) share the machine:
    /// `--threads 0` (auto) gives each its share of the available cores, at least one, so
    /// `tmemu check` of many specs does not start cores × cores threads.
    pub fn options_sharing(&self, concurrent: usize) -> RunOptions {
        let threads = match self.threads {
            0 => (available_threads() / concurrent.max(1)).max(1),
            n => n,
        };
        RunOptions {
            nsms: self.sms,
            threads,
            max_steps: self.max_steps,
            pct_depth: self.pct_depth,
            pair_collective: tmemu_host::parse_pair(&self.pair_collective)
                .unwrap_or(RunOptions::default().pair_collective),
            ..Default::default()
        }
    }
}

/// What `--threads 0` (the default) means: the cores this process may run on
/// (`std::thread::available_parallelism`: the CPU affinity mask and cgroup quota, so
/// `taskset -c 2,3 tmemu run` gets 2), or 1 when that cannot be read. Results never depend on
/// it: SM groups are fixed by `--sms`, not by the thread count, and come back in group order.
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// How many SM groups of `sms` SMs get a cluster of this grid: the engine runs each group on one
/// thread, so the default `--threads` starts no more threads than that (a 2-CTA kernel reports
/// 2 threads on a 16-core host, not 16). Only a cap: results never depend on the thread count.
fn busy_sm_groups(grid: [u32; 3], cluster: [u32; 3], sms: u32) -> usize {
    let csize = cluster.iter().product::<u32>().max(1);
    let clusters = grid.iter().map(|&g| g as u64).product::<u64>() / csize as u64;
    ((sms / csize).max(1) as u64).min(clusters.max(1)) as usize
}

/// Arguments of `tmemu run`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  tmemu run tests/corpus/kernels/triton/softmax.toml
  tmemu run kernel.toml --format json > findings.jsonl
  tmemu run kernel.toml --schedule-seed 7 --async-policy adversarial
  tmemu run kernel.toml --trace trace.json --tmem-map tmem.svg   # open trace.json in ui.perfetto.dev
  tmemu run kernel.toml --set n=4096 --threads 2")]
pub struct Args {
    /// The launch spec (TOML; format in docs/launch-spec.md).
    pub spec: PathBuf,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Use a seeded random warp schedule (same seed, same run).
    #[arg(long)]
    pub schedule_seed: Option<u64>,
    /// How asynchronous operations complete.
    #[arg(long, value_enum, default_value_t = AsyncPolicy::Immediate)]
    pub async_policy: AsyncPolicy,
    /// Write a Chrome/Perfetto trace (JSON): one track per SM / CTA / warp, blocking waits,
    /// async tensor-core and TMA ops, mbarrier phases, TMEM allocations.
    #[arg(long, value_name = "OUT.json")]
    pub trace: Option<PathBuf>,
    /// Write a picture of TMEM occupancy per SM over time (SVG).
    #[arg(long, value_name = "OUT.svg")]
    pub tmem_map: Option<PathBuf>,
    /// Also run the happens-before race detector (TM0204-TM0214: each race with both
    /// accesses); slower, since every lane's memory access is observed.
    #[arg(long)]
    pub races: bool,
    /// Write run statistics as JSON to this file.
    #[arg(long, value_name = "OUT.json")]
    pub stats: Option<PathBuf>,
    #[command(flatten)]
    pub out: OutputArgs,
}

pub fn run(args: &Args) -> u8 {
    match run_inner(args) {
        Ok(code) => code,
        Err((code, msg)) if code == tmemu_diag::EXIT_BAD_INPUT => {
            crate::bad_input::report(&msg, &args.out)
        }
        Err((code, msg)) => {
            eprintln!("{msg}");
            code
        }
    }
}

fn run_inner(args: &Args) -> Result<u8, (u8, String)> {
    let spec = Spec::load(&args.spec).map_err(|e| (tmemu_diag::EXIT_BAD_INPUT, e.to_string()))?;
    phases::mark("spec read");
    let threads = args.engine.options().threads;
    let size = pool_threads(args, &spec, threads);
    // a launch one thread runs (and a pool that cannot start) runs on this thread
    let pool = (size > 1).then(|| start_pool(size)).flatten().map(Arc::new);
    phases::mark("threads started");
    match &pool {
        // the inputs, the engine and the saves run on one pool: its threads start once
        Some(shared) => shared.install(|| run_spec(args, spec, threads, pool.clone())),
        None => run_spec(args, spec, threads, None),
    }
}

/// A pool of `size` threads whose threads are started by a helper thread, not by this one.
/// rayon's `build` starts them one after the other before it returns (16 thread creations,
/// ≈ 0.7 ms on the 2-core machine, more than 1 ms on the 16-core host), and only then could
/// the spec's work (read the PTX, parse, load; the fills beside it) begin. Here `build` only
/// hands the threads over and returns: the first started thread takes up the work while the
/// helper starts the others, and the helper becomes the last of them itself, so the process
/// starts as many threads as before. A thread the OS refuses leaves the pool one short (its
/// work is done by the others; the results do not depend on the count), where rayon's own
/// `build` would have failed and the run gone serial. `None` when the helper cannot start.
fn start_pool(size: usize) -> Option<rayon::ThreadPool> {
    let mut helper: Option<std::sync::mpsc::Sender<rayon::ThreadBuilder>> = None;
    rayon::ThreadPoolBuilder::new()
        .num_threads(size)
        .spawn_handler(move |thread| {
            if helper.is_none() {
                let (tx, rx) = std::sync::mpsc::channel::<rayon::ThreadBuilder>();
                std::thread::Builder::new().spawn(move || {
                    // start each thread when the next arrives: the last one (the channel
                    // closes when `build` returns) runs here
                    let Ok(mut pending) = rx.recv() else { return };
                    for next in rx {
                        let _ = std::thread::Builder::new().spawn(move || pending.run());
                        pending = next;
                    }
                    pending.run();
                })?;
                helper = Some(tx);
            }
            let tx = helper.as_ref().expect("set above");
            tx.send(thread)
                .map_err(|_| std::io::Error::other("the pool's starter thread ended"))
        })
        .build()
        .ok()
}

/// The threads a launch of `spec` can keep busy with `threads` allowed: with the default
/// `--threads`, no more than the SM groups that get a cluster (an upper bound here: the
/// kernel's `.reqnctapercluster`, read later, can only lower it) or the ranges of its largest
/// generated input, whichever is more; an explicit `--threads N` is N.
fn pool_threads(args: &Args, spec: &Spec, threads: usize) -> usize {
    if args.engine.threads != 0 {
        return threads;
    }
    let groups = busy_sm_groups(spec.grid.value, spec.cluster.value, args.engine.sms);
    let fills = spec
        .buffers
        .iter()
        .filter(|b| matches!(&b.init, BufferInit::Fill(f) if *f != Fill::Zeros))
        .map(|b| Fill::useful_threads(b.elements()))
        .max()
        .unwrap_or(1);
    threads.min(groups.max(fills)).max(1)
}

fn run_spec(
    args: &Args,
    spec: Spec,
    threads: usize,
    pool: Option<Arc<rayon::ThreadPool>>,
) -> Result<u8, (u8, String)> {
    let bad = |m: String| (tmemu_diag::EXIT_BAD_INPUT, m);
    let mut p = match prepare_spec(spec, &args.engine.sets, threads) {
        Ok(p) => p,
        Err(PrepError::Bad(m)) => return Err(bad(m)),
        Err(PrepError::Unsupported(report)) => {
            output::print(&output::render(&report, &args.out, None));
            return Ok(report.verdict().exit_code());
        }
    };
    // the inputs move into device memory (no copy); `p.launch` keeps their names and types
    let mut session =
        Session::new_taking(&p.kernel, &mut p.launch).map_err(|e| bad(p.sites.launch_error(&e)))?;
    phases::mark("buffers placed");
    let config = RunConfig {
        seed: args.schedule_seed,
        policy: args.async_policy.into(),
        ..Default::default()
    };
    let mut opts = config.options(&args.engine.options());
    opts.pool = pool.clone();
    if args.engine.threads == 0 {
        opts.threads = opts.threads.min(busy_sm_groups(
            p.launch.grid,
            p.cluster_dims(),
            args.engine.sms,
        ));
    }

    let tracing = args.trace.is_some() || args.tmem_map.is_some();
    let mbar_pcs = if tracing {
        mbarrier_wait_pcs(&p.kernel)
    } else {
        Vec::new()
    };
    let grid = p.launch.grid;
    let cluster = p.cluster_dims();
    let mut progress = Progress::start(
        !args.out.quiet,
        format!("running {}", p.kernel.name),
        Measure::WarpInstructions,
    );
    // the engine counts for the progress display; the per-instruction observer is attached
    // only when a trace or the race detector asks for its events, so a plain run keeps the
    // engine's observer-free speed
    opts.progress = Some(progress.counter());
    phases::mark("engine start");
    let (result, wall, parts) = if tracing || args.races {
        let read_only: std::sync::Arc<[(u64, u64)]> = session.read_only_ranges(&p.launch).into();
        let (r, wall, observers) = session
            .run_observed_in_place(&opts, |_| {
                RunObserver::new(
                    None,
                    tracing.then(|| TraceRecorder::new(grid, &mbar_pcs, TRACE_RECORDS_PER_GROUP)),
                    args.races.then(|| {
                        RaceObserver::new(&p.kernel)
                            .with_cluster_dim(cluster)
                            .with_read_only(read_only.clone())
                    }),
                )
            })
            .map_err(|e| bad(p.launch_error(&e)))?;
        let parts: Vec<_> = observers.into_iter().map(RunObserver::into_parts).collect();
        (r, wall, parts)
    } else {
        let (r, wall, observers) = session
            .run_observed_in_place(&opts, |_| PlacementObserver::default())
            .map_err(|e| bad(p.launch_error(&e)))?;
        let parts: Vec<_> = observers
            .into_iter()
            .map(|o| (None, None, o.cta_sms))
            .collect();
        (r, wall, parts)
    };
    phases::mark("engine end");
    progress.finish();
    let r = &result;

    let mut rec = Recorder::new();
    let mut race_observers = Vec::new();
    let mut cta_sms = Vec::new();
    for (g, race, sms) in parts {
        cta_sms.extend(sms);
        if let Some(g) = g {
            rec.merge(g);
        }
        race_observers.extend(race);
    }
    // Each group's findings, then the races between groups (global memory), as `check`.
    let (races, race_limit) = if race_observers.is_empty() {
        (Vec::new(), None)
    } else {
        tmemu_check::dynamic::launch_results(race_observers)
    };
    if tracing {
        write_outputs(
            &rec,
            args.trace.as_deref(),
            args.tmem_map.as_deref(),
            &p.kernel.name,
        )
        .map_err(bad)?;
    }

    let contents = session.contents();
    if pool.is_some() {
        // one file per task, each written from the buffer in place; the first failure in
        // buffer order is the one reported, as in the serial loop
        let saved: Vec<_> = contents
            .par_iter()
            .enumerate()
            .map(|(i, c)| save_output(&p.launch, i, c))
            .collect();
        saved
            .into_iter()
            .collect::<Result<(), _>>()
            .map_err(|e| (e.exit_code(), e.message))?;
    } else {
        save_outputs(&p.launch, &contents).map_err(|e| (e.exit_code(), e.message))?;
    }
    phases::mark("saves written");
    let mut builder = p.report_builder().seed(args.schedule_seed).cta_sms(cta_sms);
    builder.add_run(r);
    for race in &races {
        let related: Vec<Related> = race
            .related_spans()
            .into_iter()
            .map(|(span, label)| Related {
                span,
                label: label.to_string(),
            })
            .collect();
        builder.add_diagnostic(&race.to_diagnostic(), &related);
    }
    if let Some(reason) = race_limit {
        builder.add_incomplete(reason, None);
    }
    let mut report = builder.finish();
    report.expects = check_expects(&p.launch, &contents)
        .iter()
        .map(expect_result)
        .collect();
    let code = report.verdict().exit_code();

    let mut stats = format!(
        "kernel {}: {} CTAs, {} warps, {} warp-instructions ({} thread-instructions) in {:.3} s ({:.1} M warp-instr/s, {} thread{})",
        p.kernel.name,
        r.ctas,
        r.warps,
        r.warp_instructions,
        r.thread_instructions,
        wall,
        r.warp_instructions as f64 / wall.max(1e-9) / 1e6,
        r.threads_used,
        if r.threads_used == 1 { "" } else { "s" },
    );
    if r.diagnostics_dropped > 0 {
        stats.push_str(&format!(
            "; {} further diagnostics past the engine's cap were not kept",
            r.diagnostics_dropped
        ));
    }
    phases::mark("results checked");
    output::print(&output::render(&report, &args.out, Some(&stats)));
    phases::mark("report printed");

    if let Some(path) = &args.stats {
        let json = format!(
            "{{\"kernel\": {}, \"warp_instructions\": {}, \"thread_instructions\": {}, \"wall_seconds\": {:.6}, \"ctas\": {}, \"warps\": {}, \"threads\": {}, \"ctas_per_sm\": {}, \"diagnostics\": {}, \"hangs\": {}, \"expects_failed\": {}, \"exit_code\": {}}}\n",
            serde_json::Value::from(p.kernel.name.as_str()),
            r.warp_instructions,
            r.thread_instructions,
            wall,
            r.ctas,
            r.warps,
            r.threads_used,
            r.ctas_per_sm,
            r.diagnostics.len() as u64 + r.diagnostics_dropped,
            r.hangs.len(),
            report.counts().expects_failed,
            code
        );
        std::fs::write(path, json)
            .map_err(|e| bad(format!("{}: cannot write: {e}", path.display())))?;
    }
    // The process exits next, and the OS takes the buffers, the kernel and the report back at
    // once: freeing them one by one first cost ≈ 2 ms at 16 threads (munmap of a multi-threaded
    // process interrupts every core that ran one of its threads). None of them writes
    // anything when dropped: the saves and the report are written and flushed above.
    std::mem::forget(session);
    std::mem::forget(p);
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::start_pool;

    /// Every thread the helper was handed runs, the last one (run on the helper itself)
    /// included: a broadcast reaches each index, and would never return with one missing.
    #[test]
    fn a_pool_started_by_its_helper_has_all_its_threads() {
        for size in [2, 3, 16] {
            let pool = start_pool(size).expect("pool");
            assert_eq!(pool.current_num_threads(), size);
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let mut seen = pool.broadcast(|c| c.index());
                seen.sort_unstable();
                let _ = tx.send(seen);
            });
            let seen = rx
                .recv_timeout(std::time::Duration::from_secs(60))
                .expect("a thread of the pool never started");
            assert_eq!(seen, (0..size).collect::<Vec<_>>());
        }
    }
}
