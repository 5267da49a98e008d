//! tmemu-sim: the execution engine.
//!
//! Data flows one way: a parsed module ([`tmemu_ptx`]) → [`loader::load`] → [`program::Kernel`]
//! (pre-decoded, textless) → [`launch::run`] (SMs, clusters, CTAs, warps) → outputs in
//! [`mem::GlobalMemory`], [`error::Diagnostic`]s and hang reports.
//!
//! Architecture notes: `docs/arch/sim.md`.

// Lane loops index several 32-lane arrays by the lane number on purpose: that form vectorises.
#![allow(clippy::needless_range_loop)]

pub mod error;
pub mod exec;
pub mod fp;
pub mod launch;
pub mod loader;
pub mod mem;
pub mod observer;
mod pct;
pub mod program;
mod sched;
pub mod tmem_sm;

/// xorshift64 (Marsaglia's 13/7/17): the deterministic random words of the unit tests that
/// compare a fast path with its general definition, without a dependency. `seed` must be
/// non-zero.
#[cfg(test)]
pub(crate) fn xorshift64(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

pub use error::{Diagnostic, HangReport, LaunchError, LaunchKey, LoadError};
pub use exec::tcgen05::queue::AsyncPolicy;
pub use launch::{install_globals, run, run_observed, Launch, Limits, RunOptions, RunResult};
pub use loader::{load, load_with, LoadOptions};
pub use mem::{GlobalMemory, GlobalView};
pub use program::Kernel;
