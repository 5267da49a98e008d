//! Diagnostics rendering for tmemu: the renderer-side model of findings and hang reports,
//! grouping, verdicts and exit codes, and three outputs — rustc-style text, JSON Lines and
//! SARIF 2.1.0 — plus the text of `tmemu explain`.
//!
//! Independent of the engine: the CLI converts the engine's diagnostics into [`Finding`]s and
//! [`HangReport`]s. Reads files only in [`Sources::load`] and [`Sources::load_with`] (to quote
//! PTX and kernel sources).

mod catalogue;
pub mod explain;
mod group;
mod hang;
mod human;
mod json;
mod model;
mod report;
pub mod sarif;
mod sources;
mod verdict;

pub use catalogue::{catalogued, help_line};
pub use group::group;
pub use hang::{BlockedRow, BlockedWarp, HangReport};
pub use human::{
    context_note, hang_table, occurrence_summary, render_human, render_human_body,
    render_input_error, summary_line, ColorChoice, HumanOptions,
};
pub use json::{render_json, summary_json};
pub use model::{
    ExecContext, Finding, Instance, LaneSet, Location, Occurrences, Severity, SourceLine,
};
pub use report::{Counts, ExpectResult, Incomplete, Report};
pub use sarif::{render_sarif, render_sarif_error, SarifOptions};
pub use sources::{resolve_kernel_source, Sources};
pub use verdict::{Verdict, EXIT_BAD_INPUT};

/// The rule catalogue the renderers read (re-exported for the CLI and its tests).
pub use tmemu_tmem::rules;
