//! Checks that watch a run: observers of the engine (`tmemu_sim::Observer`) that turn the
//! execution into findings. `tmemu check` attaches them through `tmemu_sim::run_observed`, one
//! observer per SM group.
//!
//! - [`RaceObserver`]: the happens-before race detector (`tmemu_race`) fed with the run's
//!   accesses, synchronisations and asynchronous operations; its findings are TM0201–TM0213
//!   diagnostics with both spans (the access and the earlier one it races).
//! - [`launch_findings`]: every observer's findings plus the global-memory races between SM
//!   groups, compared after the launch.

mod race;

pub use race::{
    launch_findings, launch_results, race_generation_warps, RaceFinding, RaceObserver,
    DEFAULT_RACE_GENERATION_WARPS, RACE_GENERATION_WARPS_ENV,
};
