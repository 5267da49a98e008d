//! `--trace` / `--tmem-map` for every running command: `run` traces its one run; `check` and
//! `explore` make many runs, so they trace the one that reproduces the first hang or finding
//! (its `tmemu run` flags are in the report), or the run of the schedule seed `--seed` names,
//! by running it again with the trace recorder attached (the engine is deterministic for a
//! given configuration, so the rerun is the run that was reported).

use std::path::{Path, PathBuf};

use tmemu_host::{CheckOutcome, RunConfig, RunOptions, Session};
use tmemu_trace::{Recorder, TmemMapOptions};

use crate::observe::{mbarrier_wait_pcs, RunObserver, TraceRecorder};
use crate::prepare::Prepared;

/// Records kept per SM group for `--trace` / `--tmem-map` (a trace past this is truncated,
/// and says so).
pub const TRACE_RECORDS_PER_GROUP: usize = 1 << 20;

/// `--trace`, `--tmem-map` and `--seed` of `check` and `explore`.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct TraceArgs {
    /// Write a Chrome/Perfetto trace (JSON) of the run that reproduces the first hang or
    /// finding (or of the run --seed names; with no finding, of the first run), as
    /// `tmemu run --trace` would.
    #[arg(long, value_name = "OUT.json")]
    pub trace: Option<PathBuf>,
    /// Write the TMEM occupancy map (SVG) of the same run.
    #[arg(long, value_name = "OUT.svg")]
    pub tmem_map: Option<PathBuf>,
    /// With --trace/--tmem-map: trace the run of this schedule seed instead.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
}

impl TraceArgs {
    pub fn wanted(&self) -> bool {
        self.trace.is_some() || self.tmem_map.is_some()
    }
}

/// Which run of a check or exploration to trace, and why: `Err` with a message for a
/// `--seed` no run used.
pub fn pick_run(o: &CheckOutcome, seed: Option<u64>) -> Result<(RunConfig, String), String> {
    let index = |cfg: RunConfig| {
        o.runs
            .iter()
            .position(|r| r.config == cfg)
            .map_or(String::new(), |i| format!("run {} ", i + 1))
    };
    if let Some(seed) = seed {
        return match o.runs.iter().position(|r| r.config.seed == Some(seed)) {
            Some(i) => Ok((o.runs[i].config, format!("run {} (seed {seed})", i + 1))),
            None => {
                let mut seeds: Vec<String> = o
                    .runs
                    .iter()
                    .filter_map(|r| r.config.seed)
                    .map(|s| s.to_string())
                    .collect();
                seeds.dedup();
                Err(format!(
                    "--seed {seed}: no run used this schedule seed (seeds used: {})",
                    if seeds.is_empty() {
                        "none".to_string()
                    } else {
                        seeds.join(", ")
                    }
                ))
            }
        };
    }
    if let Some(h) = o.hangs.first() {
        let why = format!("{}that hangs ({})", index(h.first), h.report.rule.id);
        return Ok((h.first, why));
    }
    if let Some(f) = o.findings.first() {
        let d = &f.diagnostic;
        let why = format!(
            "{}that reports {} at line {}",
            index(f.first),
            d.rule.id,
            d.span.line
        );
        return Ok((f.first, why));
    }
    match o.runs.first() {
        Some(r) => Ok((r.config, "run 1 (nothing was reported)".to_string())),
        None => Err("no run was made, so there is nothing to trace".to_string()),
    }
}

/// Runs `cfg` again with the trace recorder and writes the outputs `args` asks for.
pub fn trace_run(
    p: &Prepared,
    base: &RunOptions,
    cfg: RunConfig,
    trace: Option<&Path>,
    tmem_map: Option<&Path>,
) -> Result<(), String> {
    let session = Session::new(&p.kernel, &p.launch).map_err(|e| e.to_string())?;
    let opts = cfg.options(base);
    let mbar_pcs = mbarrier_wait_pcs(&p.kernel);
    let grid = p.launch.grid;
    let (_, observers) = session
        .run_observed(&opts, |_| {
            RunObserver::new(
                None,
                Some(TraceRecorder::new(grid, &mbar_pcs, TRACE_RECORDS_PER_GROUP)),
                None,
            )
        })
        .map_err(|e| format!("launch: {e}"))?;
    let mut rec = Recorder::new();
    for o in observers {
        if let (Some(g), _, _) = o.into_parts() {
            rec.merge(g);
        }
    }
    write_outputs(&rec, trace, tmem_map, &p.kernel.name)
}

/// Writes the Chrome trace and/or the TMEM map of a recorded run.
pub fn write_outputs(
    rec: &Recorder,
    trace: Option<&Path>,
    tmem_map: Option<&Path>,
    kernel: &str,
) -> Result<(), String> {
    let cannot = |p: &Path, e: std::io::Error| format!("{}: cannot write: {e}", p.display());
    if let Some(path) = trace {
        let f = std::fs::File::create(path).map_err(|e| cannot(path, e))?;
        tmemu_trace::write_chrome_trace(rec, std::io::BufWriter::new(f))
            .map_err(|e| cannot(path, e))?;
    }
    if let Some(path) = tmem_map {
        let f = std::fs::File::create(path).map_err(|e| cannot(path, e))?;
        let opts = TmemMapOptions {
            title: Some(format!("TMEM occupancy: {kernel}")),
        };
        tmemu_trace::write_tmem_map(rec, &opts, std::io::BufWriter::new(f))
            .map_err(|e| cannot(path, e))?;
    }
    Ok(())
}

/// After a check or an exploration: trace the chosen run, and say which on stderr (unless
/// `quiet`). `Err`: bad input (exit 2), with its message.
pub fn trace_outcome(
    p: &Prepared,
    o: &CheckOutcome,
    base: &RunOptions,
    args: &TraceArgs,
    quiet: bool,
) -> Result<(), String> {
    let (cfg, why) = pick_run(o, args.seed)?;
    trace_run(
        p,
        base,
        cfg,
        args.trace.as_deref(),
        args.tmem_map.as_deref(),
    )?;
    if !quiet {
        let to: Vec<String> = [&args.trace, &args.tmem_map]
            .into_iter()
            .flatten()
            .map(|p| p.display().to_string())
            .collect();
        eprintln!(
            "traced {why}: `tmemu run <spec> {}` → {}",
            cfg.run_args(),
            to.join(", ")
        );
    }
    Ok(())
}
