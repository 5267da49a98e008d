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

pub use error::{Diagnostic, HangReport, LaunchError, LaunchKey, LoadError};
pub use exec::tcgen05::queue::AsyncPolicy;
pub use launch::{install_globals, run, run_observed, Launch, Limits, RunOptions, RunResult};
pub use loader::load;
pub use mem::{GlobalMemory, GlobalView};
pub use program::Kernel;
