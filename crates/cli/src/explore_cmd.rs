//! `tmemu explore SPEC --runs N`: N seeded schedules (cycling the async policies) in search
//! of schedule-dependent hangs and races; prints the merged report and, for each finding and
//! hang, the seed and flags of the first run that produced it (`tmemu run` with those flags
//! reproduces it exactly).

use std::fmt::Write as _;
use std::path::PathBuf;

use tmemu_host::{explore, ExploreOptions, ExploreOutcome, Policy};

use crate::check_cmd::stats_line;
use crate::output::{self, Format, OutputArgs};
use crate::prepare::{prepare, PrepError};
use crate::progress::{Measure, Progress};
use crate::run_cmd::{AsyncPolicy, EngineArgs};
use crate::trace_out::{trace_outcome, TraceArgs};

/// Arguments of `tmemu explore`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  tmemu explore tests/corpus/bugs/expect_tx_overcount/buggy.toml --runs 8
  tmemu explore kernel.toml --runs 100 --stop-on-hang
  tmemu explore kernel.toml --runs 32 --async-policy adversarial --async-policy delayed --format json
  tmemu explore kernel.toml --runs 64 --trace hang.json   # trace the run that first hangs
  tmemu explore kernel.toml --trace t.json --seed 9       # trace the run of seed 9")]
pub struct Args {
    /// The launch spec (TOML).
    pub spec: PathBuf,
    /// Seeded runs to make (at least 1: no run proves nothing, and must not read as clean).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Seed of run 0; run i uses BASE_SEED + i.
    #[arg(long, default_value_t = 1)]
    pub base_seed: u64,
    /// Async policies to cycle over the runs (repeat the flag; default: adversarial, delayed).
    #[arg(long, value_enum)]
    pub async_policy: Vec<AsyncPolicy>,
    /// Stop at the first run that hangs.
    #[arg(long)]
    pub stop_on_hang: bool,
    /// Stop at the first run whose verdict is not clean.
    #[arg(long)]
    pub stop_on_finding: bool,
    #[command(flatten)]
    pub engine: EngineArgs,
    #[command(flatten)]
    pub trace: TraceArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

pub fn run(args: &Args) -> u8 {
    if args.trace.seed.is_some() && !args.trace.wanted() {
        eprintln!("error: --seed picks the run to trace: give --trace or --tmem-map too");
        return tmemu_diag::EXIT_BAD_INPUT;
    }
    let p = match prepare(&args.spec, &args.engine.sets, args.engine.options().threads) {
        Ok(p) => p,
        Err(PrepError::Bad(m)) => return crate::bad_input::report(&m, &args.out),
        Err(PrepError::Unsupported(report)) => {
            output::print(&output::render(&report, &args.out, None));
            return report.verdict().exit_code();
        }
    };
    let mut opts = ExploreOptions {
        base_seed: args.base_seed,
        stop_on_hang: args.stop_on_hang,
        stop_on_finding: args.stop_on_finding,
        engine: args.engine.options(),
        ..ExploreOptions::default()
    };
    if !args.async_policy.is_empty() {
        opts.policies = args.async_policy.iter().map(|&p| Policy::from(p)).collect();
    }
    let mut progress = Progress::start(
        !args.out.quiet,
        format!("exploring {}", p.kernel.name),
        Measure::Items {
            total: 1,
            what: "specs",
        },
    );
    let outcome = explore(&p.kernel, &p.launch, args.runs, &opts);
    progress.finish();
    let o = match outcome {
        Ok(o) => o,
        Err(e) => {
            let m = p.launch_error(&e);
            return crate::bad_input::report(&m, &args.out);
        }
    };
    if args.trace.wanted() {
        if let Err(m) = trace_outcome(&p, &o.merged, &opts.engine, &args.trace, args.out.quiet) {
            let m = format!("{}: error: {m}", args.spec.display());
            return crate::bad_input::report(&m, &args.out);
        }
    }
    let mut b = p.report_builder();
    b.add_check(&o.merged);
    let report = b.finish();
    let mut stats = stats_line(&p.kernel.name, &o.merged);
    if o.stopped_early {
        let _ = write!(stats, " (stopped early after {} runs)", o.runs_made);
    }
    let mut text = output::render(&report, &args.out, Some(&stats));
    if args.out.format == Format::Human {
        text.push_str(&seeds_table(&o, &args.spec));
    }
    output::print(&text);
    report.verdict().exit_code()
}

/// One line per finding and hang: where, and the run that first produced it.
fn seeds_table(o: &ExploreOutcome, spec: &std::path::Path) -> String {
    let m = &o.merged;
    if m.findings.is_empty() && m.hangs.is_empty() {
        return String::new();
    }
    let mut s = String::from("\nfirst seen (reproduce with `tmemu run SPEC <flags>`):\n");
    for f in &m.findings {
        let d = &f.diagnostic;
        let _ = writeln!(
            s,
            "  {} {} at line {}: {} ({} of {} runs)",
            d.rule.id,
            d.rule.name,
            d.span.line,
            f.first.run_args(),
            f.runs.len(),
            m.runs.len()
        );
    }
    for h in &m.hangs {
        let line = h.report.warps.first().map_or(0, |w| w.span.line);
        let _ = writeln!(
            s,
            "  hang {} {} at line {}: {} ({} of {} runs)",
            h.report.rule.id,
            h.report.rule.name,
            line,
            h.first.run_args(),
            h.runs.len(),
            m.runs.len()
        );
    }
    if let Some(cfg) = o.first_hang {
        let _ = writeln!(
            s,
            "first hang: tmemu run {} {}",
            spec.display(),
            cfg.run_args()
        );
    }
    s
}
