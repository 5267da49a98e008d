//! `tmemu check A.toml B.toml ...`: every spec under several schedules and async policies
//! (`tmemu_host::check`), the specs in parallel, a report per spec and one overall exit code —
//! so a CI job checks a whole kernel corpus in one command.
//!
//! Overall exit code: the most severe of the specs' by hang (3) > violation (1) > bad input
//! (2) > incomplete (4) > clean (0).

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use rayon::prelude::*;
use tmemu_diag::{Report, Verdict, EXIT_BAD_INPUT};
use tmemu_host::{check, CheckOptions, CheckOutcome};

use crate::output::{self, Format, OutputArgs};
use crate::prepare::{prepare, PrepError};
use crate::progress::{Measure, Progress};
use crate::run_cmd::EngineArgs;
use crate::trace_out::{trace_outcome, TraceArgs};

/// Arguments of `tmemu check`.
#[derive(clap::Args)]
#[command(
    after_help = "Each spec runs under the adversarial async policy with the default schedule and
SEEDS-1 seeded ones, then once under the immediate policy; what any run reports is
reported once, with the `tmemu run` flags that reproduce it.

Examples:
  tmemu check tests/corpus/kernels/triton/*.toml
  tmemu check tests/corpus/bugs/*/buggy.toml --format json > findings.jsonl
  tmemu check kernels/*.toml --format sarif > tmemu.sarif   # GitHub code scanning
  tmemu check a.toml --seeds 16 --jobs 2
  tmemu check buggy.toml --trace trace.json   # the run that reproduces the first finding"
)]
pub struct Args {
    /// Launch specs (TOML).
    #[arg(required = true)]
    pub specs: Vec<PathBuf>,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Schedules per spec under the adversarial policy: the default one and SEEDS-1 seeded.
    #[arg(long, default_value_t = 4)]
    pub seeds: u32,
    /// Seed of the first seeded schedule (the others follow it).
    #[arg(long, default_value_t = 1)]
    pub base_seed: u64,
    /// Leave out the run under the immediate policy.
    #[arg(long)]
    pub no_immediate: bool,
    /// Specs checked at once (default: one per core).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    #[command(flatten)]
    pub trace: TraceArgs,
    #[command(flatten)]
    pub out: OutputArgs,
}

/// What one spec came to.
struct SpecResult {
    spec: PathBuf,
    /// Err: bad input, with its message (exit 2).
    report: Result<Report, String>,
    stats: Option<String>,
}

impl SpecResult {
    fn exit_code(&self) -> u8 {
        match &self.report {
            Ok(r) => r.verdict().exit_code(),
            Err(_) => EXIT_BAD_INPUT,
        }
    }
}

pub fn run(args: &Args) -> u8 {
    if args.trace.wanted() && args.specs.len() != 1 {
        eprintln!(
            "error: --trace and --tmem-map trace one run of one spec; {} specs were given",
            args.specs.len()
        );
        return EXIT_BAD_INPUT;
    }
    if args.trace.seed.is_some() && !args.trace.wanted() {
        eprintln!("error: --seed picks the run to trace: give --trace or --tmem-map too");
        return EXIT_BAD_INPUT;
    }
    let opts = CheckOptions {
        seeds: args.seeds.max(1),
        base_seed: args.base_seed,
        immediate: !args.no_immediate,
        // specs run `--jobs` at a time: the default --threads shares the cores among them
        engine: args.engine.options_sharing(
            args.specs.len().min(
                args.jobs
                    .filter(|&j| j > 0)
                    .unwrap_or_else(crate::run_cmd::available_threads),
            ),
        ),
        stop_on_hang: false,
    };
    let mut progress = Progress::start(
        !args.out.quiet,
        "checking".to_string(),
        Measure::Items {
            total: args.specs.len() as u64,
            what: "specs",
        },
    );
    let counter = progress.counter();
    let check_one = |spec: &PathBuf| {
        let r = check_spec(spec, &args.engine.sets, &opts, args);
        counter.fetch_add(1, Ordering::Relaxed);
        r
    };
    let results: Vec<SpecResult> = match rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.unwrap_or(0))
        .build()
    {
        Ok(pool) => pool.install(|| args.specs.par_iter().map(check_one).collect()),
        Err(_) => args.specs.iter().map(check_one).collect(),
    };
    progress.finish();
    output::print(&render(&results, &args.out));
    overall_exit_code(results.iter().map(SpecResult::exit_code))
}

fn check_spec(spec: &Path, sets: &[String], opts: &CheckOptions, args: &Args) -> SpecResult {
    let p = match prepare(spec, sets, opts.engine.threads) {
        Ok(p) => p,
        Err(PrepError::Bad(m)) => {
            return SpecResult {
                spec: spec.to_path_buf(),
                report: Err(m),
                stats: None,
            }
        }
        Err(PrepError::Unsupported(r)) => {
            return SpecResult {
                spec: spec.to_path_buf(),
                report: Ok(*r),
                stats: None,
            }
        }
    };
    match check(&p.kernel, &p.launch, opts) {
        Ok(o) => {
            if args.trace.wanted() {
                if let Err(m) = trace_outcome(&p, &o, &opts.engine, &args.trace, args.out.quiet) {
                    return SpecResult {
                        spec: spec.to_path_buf(),
                        report: Err(format!("{}: error: {m}", spec.display())),
                        stats: None,
                    };
                }
            }
            let mut b = p.report_builder();
            b.add_check(&o);
            SpecResult {
                spec: spec.to_path_buf(),
                report: Ok(b.finish()),
                stats: Some(stats_line(&p.kernel.name, &o)),
            }
        }
        Err(e) => SpecResult {
            spec: spec.to_path_buf(),
            report: Err(p.launch_error(&e)),
            stats: None,
        },
    }
}

pub fn stats_line(kernel: &str, o: &CheckOutcome) -> String {
    format!(
        "kernel {kernel}: {} runs, {} warp-instructions in {:.3} s",
        o.stats.runs, o.stats.warp_instructions, o.stats.wall_seconds
    )
}

/// hang > violation > bad input > incomplete > clean.
pub fn overall_exit_code(codes: impl IntoIterator<Item = u8>) -> u8 {
    let rank = |c: u8| match c {
        3 => 4,
        1 => 3,
        2 => 2,
        4 => 1,
        _ => 0,
    };
    codes.into_iter().max_by_key(|&c| rank(c)).unwrap_or(0)
}

fn render(results: &[SpecResult], out: &OutputArgs) -> String {
    match out.format {
        Format::Human => render_human(results, out),
        Format::Json => render_json(results),
        Format::Sarif => render_sarif(results),
    }
}

fn render_human(results: &[SpecResult], out: &OutputArgs) -> String {
    let mut s = String::new();
    let mut tally = [0usize; 5];
    for r in results {
        let code = r.exit_code();
        tally[code as usize] += 1;
        if results.len() > 1 {
            s.push_str(&format!("==> {}\n", r.spec.display()));
        }
        match &r.report {
            Ok(report) => s.push_str(&output::render(report, out, r.stats.as_deref())),
            Err(m) => {
                let color = out.human_options().color;
                s.push_str(&crate::bad_input::InputError::parse(m).human(color));
                s.push_str("verdict: bad input\n");
            }
        }
        if results.len() > 1 {
            s.push('\n');
        }
    }
    if results.len() > 1 {
        let names = ["clean", "violation", "bad input", "hang", "incomplete"];
        let parts: Vec<String> = [1usize, 3, 2, 4, 0]
            .iter()
            .filter(|&&i| tally[i] > 0)
            .map(|&i| format!("{} {}", tally[i], names[i]))
            .collect();
        let code = overall_exit_code(results.iter().map(SpecResult::exit_code));
        s.push_str(&format!(
            "checked {} specs: {}; verdict: {}\n",
            results.len(),
            parts.join(", "),
            names[code as usize]
        ));
    }
    s
}

/// JSON Lines: each spec's objects with a `spec` field added, then one
/// `{"type":"check_summary"}`.
fn render_json(results: &[SpecResult]) -> String {
    let mut s = String::new();
    for r in results {
        let spec = r.spec.display().to_string();
        match &r.report {
            Ok(report) => {
                // The spec goes first in each object; the renderer's field order is kept.
                let field = format!("{{\"spec\":{},", serde_json::Value::from(spec.as_str()));
                for line in tmemu_diag::render_json(report).lines() {
                    match line.strip_prefix('{') {
                        Some(rest) => {
                            s.push_str(&field);
                            s.push_str(rest);
                        }
                        None => s.push_str(line),
                    }
                    s.push('\n');
                }
            }
            Err(m) => {
                let e = crate::bad_input::InputError::parse(m);
                let v = serde_json::json!({
                    "type": "error", "spec": spec, "message": m, "exit_code": EXIT_BAD_INPUT,
                    "file": e.file, "line": (e.line > 0).then_some(e.line),
                    "column": (e.line > 0).then_some(e.column), "text": e.text,
                });
                s.push_str(&format!("{v}\n"));
            }
        }
    }
    let code = overall_exit_code(results.iter().map(SpecResult::exit_code));
    let count = |v: Verdict| {
        results
            .iter()
            .filter(|r| matches!(&r.report, Ok(rep) if rep.verdict() == v))
            .count()
    };
    let v = serde_json::json!({
        "type": "check_summary",
        "specs": results.len(),
        "clean": count(Verdict::Clean),
        "violation": count(Verdict::Violation),
        "hang": count(Verdict::Hang),
        "incomplete": count(Verdict::Incomplete),
        "bad_input": results.iter().filter(|r| r.report.is_err()).count(),
        "exit_code": code,
    });
    s.push_str(&format!("{v}\n"));
    s
}

/// One SARIF log with one run per spec (a spec that could not be used: a run with no results
/// whose invocation failed, exit code 2).
fn render_sarif(results: &[SpecResult]) -> String {
    let mut log: Option<serde_json::Value> = None;
    for r in results {
        let text = match &r.report {
            Ok(report) => tmemu_diag::render_sarif(report, &output::sarif_options()),
            // a spec that could not be used: a run whose invocation failed, with the message
            Err(m) => crate::bad_input::InputError::parse(m).sarif(),
        };
        let Ok(mut v) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        match &mut log {
            None => log = Some(v),
            Some(l) => {
                if let (Some(all), Some(runs)) = (
                    l.get_mut("runs").and_then(|x| x.as_array_mut()),
                    v.get_mut("runs").and_then(|x| x.as_array_mut()),
                ) {
                    all.append(runs);
                }
            }
        }
    }
    let log = log.unwrap_or_else(|| {
        let empty = tmemu_diag::render_sarif(&Report::default(), &output::sarif_options());
        serde_json::from_str(&empty).unwrap_or(serde_json::Value::Null)
    });
    let mut s = serde_json::to_string_pretty(&log).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::overall_exit_code;

    #[test]
    fn overall_exit_code_takes_the_most_severe() {
        assert_eq!(overall_exit_code([0, 0]), 0);
        assert_eq!(overall_exit_code([0, 4]), 4);
        assert_eq!(overall_exit_code([4, 2, 0]), 2);
        assert_eq!(overall_exit_code([2, 1, 4]), 1);
        assert_eq!(overall_exit_code([1, 3, 2]), 3);
        assert_eq!(overall_exit_code([]), 0);
    }
}
