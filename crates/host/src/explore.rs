//! `tmemu explore`: many seeded schedules in search of schedule-dependent hangs and races.
//!
//! Run `i` uses schedule seed `base_seed + i` and the async policy `policies[i % len]`. A
//! seeded schedule visits the warps of each round in a random order with random quanta
//! (crates/sim/src/sched.rs); every other pair of runs (`i / 2` odd) uses probabilistic
//! concurrency testing instead (`pct_depth`, crates/sim/src/pct.rs: seeded warp priorities
//! with change points, so one warp runs far ahead of the others); and with
//! `vary_pair_collective`, odd runs let a `.cta_group::2` dealloc/relinquish go on without its
//! peer (`eager`) where even runs keep the base choice (blocking), since the hardware may do
//! either (PTX ISA §9.7.16.5, Table 48). Different seeds interleave warps, CTAs and async
//! completions differently; each finding keeps the first run that produced it, and
//! [`crate::RunConfig::run_args`] gives the `tmemu run` flags that reproduce it exactly (same
//! seed, same schedule, byte for byte).

use tmemu_sim::{Kernel, LaunchError, RunOptions};
use tmemu_spec::ResolvedLaunch;
use tmemu_tmem::alloc::PairCollective;

use crate::check::{Accumulator, CheckOutcome, Policy, RunConfig, Verdict};

/// What `explore` runs.
#[derive(Clone, Debug)]
pub struct ExploreOptions {
    /// Seed of run 0; run `i` uses `base_seed + i`.
    pub base_seed: u64,
    /// Policies cycled over the runs (at least one; empty means adversarial).
    pub policies: Vec<Policy>,
    /// Stop after the first run that hangs.
    pub stop_on_hang: bool,
    /// Stop after the first run whose verdict is not clean.
    pub stop_on_finding: bool,
    /// Depth of the PCT runs (0: no PCT runs, only seeded random schedules).
    pub pct_depth: u32,
    /// Odd runs use eager pair collectives (see the module docs).
    pub vary_pair_collective: bool,
    /// Engine options every run starts from; `seed` is overridden.
    pub engine: RunOptions,
}

impl Default for ExploreOptions {
    fn default() -> Self {
        ExploreOptions {
            base_seed: 1,
            policies: vec![Policy::Adversarial, Policy::Delayed],
            stop_on_hang: false,
            stop_on_finding: false,
            pct_depth: 3,
            vary_pair_collective: true,
            engine: RunOptions::default(),
        }
    }
}

impl ExploreOptions {
    /// The configuration of run `i`.
    pub fn config(&self, i: u32) -> RunConfig {
        let policy = if self.policies.is_empty() {
            Policy::Adversarial
        } else {
            self.policies[i as usize % self.policies.len()]
        };
        let pct = (i / 2) % 2 == 1;
        let eager = self.vary_pair_collective && i % 2 == 1;
        RunConfig {
            seed: Some(self.base_seed.wrapping_add(i as u64)),
            policy,
            pct_depth: if pct { self.pct_depth } else { 0 },
            pair_collective: eager.then_some(PairCollective::Eager),
        }
    }
}

/// What an exploration found.
#[derive(Clone, Debug)]
pub struct ExploreOutcome {
    /// The merged findings, hangs and verdict of every run made (as [`crate::check`] merges).
    pub merged: CheckOutcome,
    /// The first run that hung, if any: `run_args()` reproduces it.
    pub first_hang: Option<RunConfig>,
    /// Runs made (fewer than asked when stopped early).
    pub runs_made: u32,
    /// The exploration stopped before `runs` because of `stop_on_hang` / `stop_on_finding`.
    pub stopped_early: bool,
}

/// Runs `runs` seeded schedules of `resolved` on `kernel`.
pub fn explore(
    kernel: &Kernel,
    resolved: &ResolvedLaunch,
    runs: u32,
    opts: &ExploreOptions,
) -> Result<ExploreOutcome, LaunchError> {
    let mut acc = Accumulator::default();
    let mut first_hang = None;
    let mut stopped_early = false;
    let mut made = 0;
    for i in 0..runs {
        let cfg = opts.config(i);
        let hung = acc.run_one(kernel, resolved, &opts.engine, cfg)?;
        made += 1;
        if hung && first_hang.is_none() {
            first_hang = Some(cfg);
        }
        let verdict = acc.runs().last().map_or(Verdict::Clean, |r| r.verdict);
        if (hung && opts.stop_on_hang) || (verdict != Verdict::Clean && opts.stop_on_finding) {
            stopped_early = i + 1 < runs;
            break;
        }
    }
    Ok(ExploreOutcome {
        merged: acc.finish(),
        first_hang,
        runs_made: made,
        stopped_early,
    })
}
