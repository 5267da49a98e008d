//! `tmemu check`: one launch run under several schedules and async policies, the union of
//! what they report, and a verdict that fails closed.
//!
//! A single run sees one interleaving. A missing wait or a race usually shows in most
//! schedules, a pair-collective hang in some; so `check` runs the same spec
//! [`CheckOptions::plan`] times (adversarial async policy under the default schedule and
//! `seeds - 1` seeded ones, then the immediate policy under the default schedule) and merges:
//!
//! - findings are deduplicated by (rule, primary span, source): the same rule at the same
//!   instruction from many warps, CTAs or runs is one [`CheckFinding`] that counts them and
//!   names the first run that produced it; `schedule_dependent` says not every run did;
//! - hang and budget reports are deduplicated by (rule, set of blocked instructions), each
//!   with the run that reproduces it;
//! - the verdict is `hang > incomplete > violation > clean` over all runs. It fails closed:
//!   an exhausted step budget, a tmemu limit (a rule whose section is
//!   [`tmemu_tmem::rules::TMEMU_LIMIT`], e.g. TM0510) or a form the engine reports as
//!   unsupported makes it `incomplete`, never `clean`.
//!
//! Every run has the race detector attached (`tmemu_check::dynamic::RaceObserver`, one per SM
//! group): its findings are merged with the engine's, source [`Source::Race`].
//!
//! Each run is reproducible alone: [`RunConfig::run_args`] gives the `tmemu run` flags.

use std::collections::HashMap;
use std::fmt;

use tmemu_check::dynamic::{launch_results, RaceObserver};
use tmemu_ptx::span::Span;
use tmemu_sim::error::{Context, Diagnostic};
use tmemu_sim::{AsyncPolicy, HangReport, Kernel, LaunchError, RunOptions, RunResult};
use tmemu_spec::ResolvedLaunch;
use tmemu_tmem::alloc::PairCollective;
use tmemu_tmem::rules::{self, Severity};

use crate::expect::{check_expects, ExpectReport};
use crate::session::Session;

/// How asynchronous tcgen05 / bulk operations complete (mirrors the engine's policy: the
/// names are what `tmemu run --async-policy` takes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Policy {
    /// Every op completes at issue.
    Immediate,
    /// Ops complete some scheduler rounds after issue.
    Delayed,
    /// As late as the rules allow: missing waits show up as findings.
    Adversarial,
}

impl Policy {
    pub const ALL: [Policy; 3] = [Policy::Immediate, Policy::Delayed, Policy::Adversarial];

    pub fn as_str(self) -> &'static str {
        match self {
            Policy::Immediate => "immediate",
            Policy::Delayed => "delayed",
            Policy::Adversarial => "adversarial",
        }
    }

    pub fn parse(s: &str) -> Option<Policy> {
        Policy::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Policy {
    /// The engine's policy (`delayed` completes an op two scheduler rounds after its issue,
    /// what `tmemu run --async-policy delayed` does).
    pub fn engine(self) -> AsyncPolicy {
        match self {
            Policy::Immediate => AsyncPolicy::Immediate,
            Policy::Delayed => AsyncPolicy::Delayed(2),
            Policy::Adversarial => AsyncPolicy::Adversarial,
        }
    }
}

/// One run of a check or an exploration: what makes it reproducible.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunConfig {
    /// None: the engine's default deterministic schedule (what `tmemu run` does without
    /// `--schedule-seed`).
    pub seed: Option<u64>,
    pub policy: Policy,
    /// With a seed: probabilistic concurrency testing of this depth (`RunOptions::pct_depth`;
    /// 0: the base options' depth, the plain seeded schedule unless the caller chose PCT).
    pub pct_depth: u32,
    /// The engine's choice for a `.cta_group::2` dealloc/relinquish whose peer has not
    /// joined yet; None: the base options' (blocking unless the caller chose).
    pub pair_collective: Option<PairCollective>,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            seed: None,
            policy: Policy::Immediate,
            pct_depth: 0,
            pair_collective: None,
        }
    }
}

impl RunConfig {
    /// The `tmemu run` flags that repeat this run exactly (same seed, same schedule).
    pub fn run_args(&self) -> String {
        let mut s = match self.seed {
            Some(seed) => format!("--schedule-seed {seed} --async-policy {}", self.policy),
            None => format!("--async-policy {}", self.policy),
        };
        if self.pct_depth > 0 && self.seed.is_some() {
            s += &format!(" --pct-depth {}", self.pct_depth);
        }
        if let Some(p) = self.pair_collective {
            s += &format!(" --pair-collective {}", pair_name(p));
        }
        s
    }

    /// Engine options of this run on top of `base`.
    pub fn options(&self, base: &RunOptions) -> RunOptions {
        let mut o = base.clone();
        o.seed = self.seed;
        o.async_policy = self.policy.engine();
        if self.pct_depth > 0 {
            o.pct_depth = self.pct_depth;
        }
        if let Some(p) = self.pair_collective {
            o.pair_collective = p;
        }
        o
    }
}

/// `blocking` / `eager`, as the rule corpus' `//@ pair_collective` header names them.
pub fn pair_name(p: PairCollective) -> &'static str {
    match p {
        PairCollective::Blocking => "blocking",
        PairCollective::Eager => "eager",
    }
}

/// The inverse of [`pair_name`].
pub fn parse_pair(s: &str) -> Option<PairCollective> {
    match s {
        "blocking" => Some(PairCollective::Blocking),
        "eager" => Some(PairCollective::Eager),
        _ => None,
    }
}

impl fmt::Display for RunConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.seed {
            Some(s) if self.pct_depth > 0 => write!(
                f,
                "seed {s} (PCT depth {}), {} policy",
                self.pct_depth, self.policy
            )?,
            Some(s) => write!(f, "seed {s}, {} policy", self.policy)?,
            None => write!(f, "default schedule, {} policy", self.policy)?,
        }
        if let Some(p) = self.pair_collective {
            write!(f, ", {} pair collectives", pair_name(p))?;
        }
        Ok(())
    }
}

/// What `check` runs.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Schedules per adversarial pass: the default schedule plus `seeds - 1` seeded ones
    /// (at least 1).
    pub seeds: u32,
    /// Seed of the first seeded schedule; the others follow it (`base_seed + i`).
    pub base_seed: u64,
    /// Also run the immediate policy once (default schedule): a finding that needs ops to
    /// complete early (e.g. a value read too soon that happens to be right) shows there.
    pub immediate: bool,
    /// Engine options every run starts from (SMs, step budget, ...); `seed` is overridden.
    pub engine: RunOptions,
    /// Stop after the first run whose verdict is a hang (the rest would repeat it).
    pub stop_on_hang: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            seeds: 4,
            base_seed: 1,
            immediate: true,
            engine: RunOptions::default(),
            stop_on_hang: false,
        }
    }
}

impl CheckOptions {
    /// The runs `check` makes, in order.
    pub fn plan(&self) -> Vec<RunConfig> {
        let mut v = vec![RunConfig {
            policy: Policy::Adversarial,
            ..Default::default()
        }];
        for i in 1..self.seeds.max(1) as u64 {
            v.push(RunConfig {
                seed: Some(self.base_seed.wrapping_add(i - 1)),
                policy: Policy::Adversarial,
                ..Default::default()
            });
        }
        if self.immediate {
            v.push(RunConfig {
                policy: Policy::Immediate,
                ..Default::default()
            });
        }
        v
    }
}

/// The run verdict, by precedence `hang > incomplete > violation > clean`. Exit codes of
/// `tmemu check`: 0, 1, 3, 4 (2 is bad input, before anything runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    Clean,
    Violation,
    Incomplete,
    Hang,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Clean => "clean",
            Verdict::Violation => "violation",
            Verdict::Incomplete => "incomplete",
            Verdict::Hang => "hang",
        }
    }

    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Clean => 0,
            Verdict::Violation => 1,
            Verdict::Hang => 3,
            Verdict::Incomplete => 4,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which observer reported a finding (part of its identity: the engine and the race
/// detector may name the same line for different reasons).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    /// The engine itself (TMEM protocol, mbarriers, bounds, ...).
    Engine,
    /// The happens-before race detector.
    Race,
}

/// A finding of one or more runs, deduplicated.
#[derive(Clone, Debug)]
pub struct CheckFinding {
    /// The first occurrence (its context and message are the first run's).
    pub diagnostic: Diagnostic,
    pub source: Source,
    /// Related spans of a race finding with their labels (its earlier access, "conflicting
    /// write here"). An engine finding keeps its own in `diagnostic.related`.
    pub related: Vec<(Span, &'static str)>,
    /// The catalogue severity of its rule (Error when the rule is not catalogued).
    pub severity: Severity,
    /// The first run that reported it; `run_args()` reproduces it.
    pub first: RunConfig,
    /// Indices into [`CheckOutcome::runs`] of every run that reported it.
    pub runs: Vec<usize>,
    /// Reports merged into this one (warps, CTAs and runs together).
    pub occurrences: u64,
    /// Context and message of each report of the first run that reported it (which
    /// lanes, warps and CTAs; messages may differ in an address or a lane).
    pub instances: Vec<(Context, String)>,
    /// Not every run reported it.
    pub schedule_dependent: bool,
}

/// A hang report or an exhausted step budget, deduplicated by (rule, blocked instructions).
#[derive(Clone, Debug)]
pub struct CheckHang {
    pub report: HangReport,
    pub first: RunConfig,
    pub runs: Vec<usize>,
    pub schedule_dependent: bool,
}

/// Why a run could not be fully checked.
#[derive(Clone, Debug)]
pub struct Incomplete {
    pub run: usize,
    pub reason: String,
    pub span: Option<Span>,
}

/// One run, summarised.
#[derive(Clone, Debug)]
pub struct RunSummary {
    pub config: RunConfig,
    pub verdict: Verdict,
    pub warp_instructions: u64,
    pub wall_seconds: f64,
    /// Engine + race reports of this run (before deduplication).
    pub reports: u64,
    /// `[[expect]]`s of the spec that failed in this run.
    pub expects_failed: usize,
}

/// Totals over the runs.
#[derive(Clone, Debug, Default)]
pub struct CheckStats {
    pub runs: usize,
    pub warp_instructions: u64,
    pub wall_seconds: f64,
    /// Diagnostics the engine dropped past its per-run cap, summed.
    pub diagnostics_dropped: u64,
}

/// Everything a check (or an exploration) found.
#[derive(Clone, Debug)]
pub struct CheckOutcome {
    /// Sorted by primary span, then rule.
    pub findings: Vec<CheckFinding>,
    pub hangs: Vec<CheckHang>,
    /// Runs that ended on an exhausted step budget (TM0506), deduplicated like hangs.
    pub budget_exhausted: Vec<CheckHang>,
    pub incomplete: Vec<Incomplete>,
    /// Failed `[[expect]]`s, with the index of the run (every run is compared).
    pub expects_failed: Vec<(usize, ExpectReport)>,
    pub runs: Vec<RunSummary>,
    pub verdict: Verdict,
    pub stats: CheckStats,
    /// Buffer contents after the first run, in spec order (for `save`).
    pub buffers: Vec<Vec<u8>>,
}

impl CheckOutcome {
    /// The run configuration of run `i`.
    pub fn config(&self, i: usize) -> RunConfig {
        self.runs[i].config
    }
}

/// Runs `resolved` on `kernel` under every configuration of `opts.plan()` and merges what
/// they report. `Err` is a launch the engine refuses (bad geometry, too much shared memory):
/// the same for every run, so it is returned at the first.
///
/// With threads to spare the runs go side by side, each on a share of `opts.engine.threads`
/// (a run's results do not depend on its thread count), and are merged in plan order, so the
/// outcome is the one the runs give one after the other. Most kernels have fewer SM groups
/// than a machine has cores (and a kernel with global atomics runs its groups on one
/// thread), so one run at a time left most cores idle while `check` took five runs' time.
pub fn check(
    kernel: &Kernel,
    resolved: &ResolvedLaunch,
    opts: &CheckOptions,
) -> Result<CheckOutcome, LaunchError> {
    let started = std::time::Instant::now();
    let plan = opts.plan();
    let mut acc = Accumulator::default();
    let threads = opts.engine.threads.max(1);
    if opts.stop_on_hang || plan.len() < 2 || threads < 2 {
        for cfg in plan {
            let hung = acc.run_one(kernel, resolved, &opts.engine, cfg)?;
            if hung && opts.stop_on_hang {
                break;
            }
        }
    } else {
        use rayon::prelude::*;
        let share = RunOptions {
            threads: (threads / plan.len()).max(1),
            ..opts.engine.clone()
        };
        let side_by_side = || -> Vec<Result<RunPiece, LaunchError>> {
            plan.par_iter()
                .map(|&cfg| run_piece(kernel, resolved, &share, cfg))
                .collect()
        };
        // `tmemu check A B ...` already runs specs on a pool: its threads take the runs; a
        // pool that cannot start leaves rayon's global one, which runs them as well
        let pool = match rayon::current_thread_index() {
            Some(_) => None,
            None => rayon::ThreadPoolBuilder::new()
                .num_threads(threads.min(plan.len()))
                .build()
                .ok(),
        };
        let pieces = match pool {
            Some(pool) => pool.install(side_by_side),
            None => side_by_side(),
        };
        // the first launch error in plan order: every run would have failed with it
        for piece in pieces {
            acc.absorb(piece?);
        }
    }
    let mut outcome = acc.finish();
    // the runs' own times add up to more than the check took when they overlap
    outcome.stats.wall_seconds = started.elapsed().as_secs_f64();
    Ok(outcome)
}

/// What one run of a check gives, before it is merged ([`Accumulator::absorb`]).
pub(crate) struct RunPiece {
    cfg: RunConfig,
    result: RunResult,
    races: Vec<(Diagnostic, Vec<(Span, &'static str)>)>,
    wall_seconds: f64,
    expects_failed: Vec<ExpectReport>,
    race_limit: Option<String>,
    buffers: Vec<Vec<u8>>,
}

/// Runs `kernel` once under `cfg` with the race observer.
pub(crate) fn run_piece(
    kernel: &Kernel,
    resolved: &ResolvedLaunch,
    base: &RunOptions,
    cfg: RunConfig,
) -> Result<RunPiece, LaunchError> {
    let session = Session::new(kernel, resolved)?;
    // None: the kernel's `.reqnctapercluster`, which the observer takes by default
    let cluster = session.launch().cluster;
    let read_only: std::sync::Arc<[(u64, u64)]> = session.read_only_ranges(resolved).into();
    let (out, observers) = session.run_observed(&cfg.options(base), |_| {
        let o = RaceObserver::new(kernel).with_read_only(read_only.clone());
        match cluster {
            Some(c) => o.with_cluster_dim(c),
            None => o,
        }
    })?;
    // each group's findings, then the global-memory races between groups
    let (findings, race_limit) = launch_results(observers);
    let races = findings
        .into_iter()
        .map(|f| (f.to_diagnostic(), f.related_spans()))
        .collect();
    let expects_failed = check_expects(resolved, &out.buffers)
        .into_iter()
        .filter(|e| !e.passed())
        .collect();
    Ok(RunPiece {
        cfg,
        result: out.result,
        races,
        wall_seconds: out.wall_seconds,
        expects_failed,
        race_limit,
        buffers: out.buffers,
    })
}

/// Merges runs as they complete (shared by [`check`] and [`crate::explore`]).
#[derive(Default)]
pub(crate) struct Accumulator {
    findings: Vec<CheckFinding>,
    finding_index: HashMap<(&'static str, Span, Source), usize>,
    hangs: Vec<CheckHang>,
    hang_index: HashMap<HangKey, usize>,
    budget: Vec<CheckHang>,
    budget_index: HashMap<HangKey, usize>,
    incomplete: Vec<Incomplete>,
    expects_failed: Vec<(usize, ExpectReport)>,
    runs: Vec<RunSummary>,
    stats: CheckStats,
    buffers: Option<Vec<Vec<u8>>>,
}

type HangKey = (&'static str, Vec<(u32, u32)>);

fn hang_key(h: &HangReport) -> HangKey {
    let mut at: Vec<(u32, u32)> = h.warps.iter().map(|w| (w.span.line, w.span.col)).collect();
    at.sort_unstable();
    at.dedup();
    (h.rule.id, at)
}

/// The catalogue severity of an engine rule; an uncatalogued one counts as an error (fail
/// closed: it is reported, and never silently made a note).
pub fn severity_of(id: &str) -> Severity {
    rules::lookup(id).map_or(Severity::Error, |r| r.severity)
}

/// A rule that marks a limit of tmemu rather than a PTX ISA rule (TM0506, TM0510): the run
/// could not be completed, so its verdict is `incomplete`.
pub fn is_tmemu_limit(id: &str) -> bool {
    rules::lookup(id).is_some_and(|r| r.is_tmemu_limit())
}

impl Accumulator {
    /// Runs one configuration and merges it; returns whether it hung.
    pub(crate) fn run_one(
        &mut self,
        kernel: &Kernel,
        resolved: &ResolvedLaunch,
        base: &RunOptions,
        cfg: RunConfig,
    ) -> Result<bool, LaunchError> {
        Ok(self.absorb(run_piece(kernel, resolved, base, cfg)?))
    }

    /// Merges one run; returns whether it hung.
    pub(crate) fn absorb(&mut self, p: RunPiece) -> bool {
        let hung = !p.result.hangs.is_empty();
        self.merge(p.cfg, &p.result, p.races, p.wall_seconds, p.expects_failed);
        if let Some(reason) = p.race_limit {
            // fail closed: the race detector gave up on part of the run
            let run = self.runs.len() - 1;
            self.runs[run].verdict = self.runs[run].verdict.max(Verdict::Incomplete);
            self.incomplete.push(Incomplete {
                run,
                reason,
                span: None,
            });
        }
        if self.buffers.is_none() {
            self.buffers = Some(p.buffers);
        }
        hung
    }

    /// Merges one run's engine result and race findings.
    pub(crate) fn merge(
        &mut self,
        cfg: RunConfig,
        r: &RunResult,
        races: Vec<(Diagnostic, Vec<(Span, &'static str)>)>,
        wall_seconds: f64,
        expects_failed: Vec<ExpectReport>,
    ) {
        let run = self.runs.len();
        let mut verdict = Verdict::Clean;
        let reports = (r.diagnostics.len() + races.len()) as u64;
        let tagged = r
            .diagnostics
            .iter()
            .cloned()
            .map(|d| (d, Vec::new(), Source::Engine))
            .chain(races.into_iter().map(|(d, rel)| (d, rel, Source::Race)));
        for (d, related, source) in tagged {
            let severity = severity_of(d.rule.id);
            if is_tmemu_limit(d.rule.id) {
                verdict = verdict.max(Verdict::Incomplete);
                self.incomplete.push(Incomplete {
                    run,
                    reason: format!("{} {}: {}", d.rule.id, d.rule.name, d.message),
                    span: Some(d.span),
                });
            } else if severity == Severity::Error {
                verdict = verdict.max(Verdict::Violation);
            }
            let key = (d.rule.id, d.span, source);
            match self.finding_index.get(&key) {
                Some(&i) => {
                    let f = &mut self.findings[i];
                    f.occurrences += 1;
                    if f.runs.first() == Some(&run) {
                        f.instances.push((d.ctx, d.message.clone()));
                    }
                    if f.runs.last() != Some(&run) {
                        f.runs.push(run);
                    }
                }
                None => {
                    self.finding_index.insert(key, self.findings.len());
                    let instances = vec![(d.ctx, d.message.clone())];
                    self.findings.push(CheckFinding {
                        instances,
                        diagnostic: d,
                        source,
                        related,
                        severity,
                        first: cfg,
                        runs: vec![run],
                        occurrences: 1,
                        schedule_dependent: false,
                    });
                }
            }
        }
        if r.trapped && verdict < Verdict::Violation {
            // a trap without a diagnostic of its own still fails the run
            verdict = Verdict::Violation;
        }
        if !expects_failed.is_empty() {
            verdict = verdict.max(Verdict::Violation);
        }
        for h in &r.budget_exhausted {
            verdict = verdict.max(Verdict::Incomplete);
            merge_hang(&mut self.budget, &mut self.budget_index, h, cfg, run);
        }
        for h in &r.hangs {
            verdict = Verdict::Hang;
            merge_hang(&mut self.hangs, &mut self.hang_index, h, cfg, run);
        }
        self.stats.runs += 1;
        self.stats.warp_instructions += r.warp_instructions;
        self.stats.wall_seconds += wall_seconds;
        self.stats.diagnostics_dropped += r.diagnostics_dropped;
        self.runs.push(RunSummary {
            config: cfg,
            verdict,
            warp_instructions: r.warp_instructions,
            wall_seconds,
            reports,
            expects_failed: expects_failed.len(),
        });
        self.expects_failed
            .extend(expects_failed.into_iter().map(|e| (run, e)));
    }

    pub(crate) fn runs(&self) -> &[RunSummary] {
        &self.runs
    }

    pub(crate) fn finish(self) -> CheckOutcome {
        let nruns = self.runs.len();
        let mut findings = self.findings;
        for f in &mut findings {
            f.schedule_dependent = f.runs.len() < nruns;
        }
        findings.sort_by(|a, b| {
            (a.diagnostic.span.start, a.diagnostic.rule.id, a.source).cmp(&(
                b.diagnostic.span.start,
                b.diagnostic.rule.id,
                b.source,
            ))
        });
        let mut hangs = self.hangs;
        let mut budget = self.budget;
        for h in hangs.iter_mut().chain(budget.iter_mut()) {
            h.schedule_dependent = h.runs.len() < nruns;
        }
        let verdict = self
            .runs
            .iter()
            .map(|r| r.verdict)
            .max()
            .unwrap_or(Verdict::Incomplete);
        CheckOutcome {
            findings,
            hangs,
            budget_exhausted: budget,
            incomplete: self.incomplete,
            expects_failed: self.expects_failed,
            runs: self.runs,
            verdict,
            stats: self.stats,
            buffers: self.buffers.unwrap_or_default(),
        }
    }
}

fn merge_hang(
    list: &mut Vec<CheckHang>,
    index: &mut HashMap<HangKey, usize>,
    h: &HangReport,
    cfg: RunConfig,
    run: usize,
) {
    let key = hang_key(h);
    match index.get(&key) {
        Some(&i) => {
            if list[i].runs.last() != Some(&run) {
                list[i].runs.push(run);
            }
        }
        None => {
            index.insert(key, list.len());
            list.push(CheckHang {
                report: h.clone(),
                first: cfg,
                runs: vec![run],
                schedule_dependent: false,
            });
        }
    }
}
