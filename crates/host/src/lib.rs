//! tmemu-host: the one place that turns a launch spec and a PTX file into an engine run and
//! back. Every front end (the `tmemu run` CLI, the Python extension, the corpus test) goes
//! through it:
//!
//! 1. [`load_ptx_file`] / [`load_ptx_source`]: PTX text → parsed module → loaded [`Kernel`],
//!    with `file:line:col` messages and an exit-code class ([`HostError`]).
//! 2. [`param_infos`] + [`resolve_spec`]: the entry's parameters as the spec crate sees them,
//!    `--set` overrides applied, the spec resolved into a [`ResolvedLaunch`].
//! 3. [`Session::new`]: buffers allocated in a fresh [`GlobalMemory`], module globals
//!    installed, the [`Launch`] built with relocated buffer addresses.
//! 4. [`Session::run`] → [`Outcome`]: the engine's result, the wall time and every buffer's
//!    contents after the run; then [`save_outputs`] and [`check_expects`].
//! 5. [`check`] / [`explore`]: the same launch under several schedules and async policies,
//!    findings merged and deduplicated, a verdict that fails closed (`tmemu check`,
//!    `tmemu explore`).
//!
//! The crate does no terminal output: it returns data and messages; front ends print.

mod check;
mod error;
mod expect;
mod explore;
mod load;
mod params;
mod report;
mod session;

pub use check::{
    check, is_tmemu_limit, pair_name, parse_pair, severity_of, CheckFinding, CheckHang,
    CheckOptions, CheckOutcome, CheckStats, Incomplete, Policy, RunConfig, RunSummary, Source,
    Verdict,
};
pub use error::{ErrorClass, HostError};
pub use expect::{check_expects, save_output, save_outputs, ExpectReport};
pub use explore::{explore, ExploreOptions, ExploreOutcome};
pub use load::{load_ptx_file, load_ptx_module, load_ptx_source, parse_ptx, read_ptx_file};
pub use params::{param_infos, resolve_spec, resolve_spec_prefilled, resolve_spec_threads};
pub use report::{expect_result, unsupported_report, LocTable, Related, ReportBuilder};
pub use session::{Outcome, Session};

// Re-exported so that front ends name one crate for the types this API hands out.
pub use tmemu_sim::{GlobalMemory, Kernel, Launch, LaunchError, LaunchKey, RunOptions, RunResult};
pub use tmemu_spec::ResolvedLaunch;
