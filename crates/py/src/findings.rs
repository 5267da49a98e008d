//! The engine's diagnostics and hang reports → Python dicts with the field names of the CLI's
//! JSON Lines output (crates/diag `json.rs`: `type`, `rule`, `name`, `severity`, `message`,
//! `file`, `line`, `column`, `related`, `context`, `source`, `seed`, ...).
//!
//! Severity and `help` come from the rule catalogue (crates/diag `catalogued`, `help_line`);
//! rules the catalogue does not know under the same name are errors, as `tmemu run` counts
//! every engine diagnostic. The verdict is `tmemu_diag::Verdict::decide`.
//!
//! The engine (tmemu-sim) does not yet attach `.loc` source lines, related locations or an SM
//! number; those fields are `None` / empty until it does. Findings are not grouped: each
//! has `occurrences` = 1.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use tmemu_diag::{catalogued, help_line, Severity, Verdict};
use tmemu_host::{CheckOutcome, RunConfig, Source};
use tmemu_ptx::span::Span;
use tmemu_sim::{Diagnostic, HangReport, RunResult};

fn severity(id: &str, name: &str) -> Severity {
    catalogued(id, name).map_or(Severity::Error, |r| r.severity.into())
}

fn context<'py>(
    py: Python<'py>,
    cluster: [u32; 3],
    cta: [u32; 3],
    warp: u32,
    lanes: u32,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("cluster", cluster.to_vec())?;
    d.set_item("cta", cta.to_vec())?;
    d.set_item("sm", py.None())?;
    d.set_item("warp", warp)?;
    d.set_item("lanes", lanes)?;
    Ok(d)
}

fn common<'py>(
    py: Python<'py>,
    kind: &str,
    rule: (&str, &str),
    message: &str,
    file: &str,
    span: Span,
    seed: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("type", kind)?;
    d.set_item("rule", rule.0)?;
    d.set_item("name", rule.1)?;
    d.set_item("severity", severity(rule.0, rule.1).as_str())?;
    d.set_item("message", message)?;
    d.set_item("file", file)?;
    d.set_item("line", span.line)?;
    d.set_item("column", span.col)?;
    d.set_item(
        "byte_range",
        (span.end > span.start).then(|| vec![span.start, span.end]),
    )?;
    d.set_item("label", py.None())?;
    d.set_item("related", PyList::empty(py))?;
    d.set_item("source", py.None())?;
    d.set_item("seed", seed)?;
    d.set_item("notes", PyList::empty(py))?;
    let occ = PyDict::new(py);
    occ.set_item("count", 1)?;
    occ.set_item("ctas", 1)?;
    occ.set_item("warps", 1)?;
    d.set_item("occurrences", occ)?;
    d.set_item("help", help_line(rule.0, rule.1))?;
    Ok(d)
}

fn diagnostic<'py>(
    py: Python<'py>,
    file: &str,
    g: &Diagnostic,
    seed: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = common(
        py,
        "finding",
        (g.rule.id, g.rule.name),
        &g.message,
        file,
        g.span,
        seed,
    )?;
    let c = &g.ctx;
    d.set_item("context", context(py, c.cluster, c.cta, c.warp, c.lanes)?)?;
    Ok(d)
}

/// A hang (or an exhausted step budget): located at the first blocked warp, every blocked warp
/// listed under `blocked` (as the CLI's JSON `hang` objects do).
fn hang<'py>(
    py: Python<'py>,
    file: &str,
    h: &HangReport,
    kind: &str,
    seed: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let first = h.warps.first();
    let d = common(
        py,
        kind,
        (h.rule.id, h.rule.name),
        &h.summary,
        file,
        first.map_or(Span::DUMMY, |w| w.span),
        seed,
    )?;
    match first {
        Some(w) => d.set_item("context", context(py, [0; 3], w.cta, w.warp, w.lanes)?)?,
        None => d.set_item("context", py.None())?,
    }
    let blocked = PyList::empty(py);
    for w in &h.warps {
        let b = PyDict::new(py);
        b.set_item("context", context(py, [0; 3], w.cta, w.warp, w.lanes)?)?;
        b.set_item("file", file)?;
        b.set_item("line", w.span.line)?;
        b.set_item("column", w.span.col)?;
        b.set_item("instruction", &w.opcode)?;
        b.set_item("waiting_for", &w.waiting_for)?;
        blocked.append(b)?;
    }
    d.set_item("blocked", blocked)?;
    Ok(d)
}

/// `clean`, `violation`, `hang` or `incomplete`: a hang over error-severity findings (or a
/// trap) over an exhausted budget over clean, as crates/diag decides.
pub fn verdict(r: &RunResult) -> &'static str {
    let errors = r
        .diagnostics
        .iter()
        .filter(|d| severity(d.rule.id, d.rule.name) == Severity::Error)
        .count()
        + r.trapped as usize
        + r.diagnostics_dropped as usize;
    Verdict::decide(!r.hangs.is_empty(), errors, !r.budget_exhausted.is_empty()).as_str()
}

/// Diagnostics first, then hangs (`type: "hang"`), then exhausted budgets
/// (`type: "incomplete"`).
pub fn to_list<'py>(
    py: Python<'py>,
    file: &str,
    r: &RunResult,
    seed: Option<u64>,
) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for g in &r.diagnostics {
        out.append(diagnostic(py, file, g, seed)?)?;
    }
    for h in &r.hangs {
        out.append(hang(py, file, h, "hang", seed)?)?;
    }
    for h in &r.budget_exhausted {
        out.append(hang(py, file, h, "incomplete", seed)?)?;
    }
    Ok(out)
}

/// A `tmemu_host::check` outcome: its deduplicated findings (each with the first run that
/// produced it: `seed`, `policy`, `reproduce` — the `tmemu run` flags — and
/// `schedule_dependent`), then hangs and exhausted budgets, as [`to_list`] orders them.
pub fn check_to_list<'py>(
    py: Python<'py>,
    file: &str,
    c: &CheckOutcome,
) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    let runs_of = |first: &RunConfig, runs: &[usize], dependent: bool, d: &Bound<'py, PyDict>| {
        d.set_item("policy", first.policy.as_str())?;
        d.set_item("reproduce", first.run_args())?;
        d.set_item("runs", runs.len())?;
        d.set_item("schedule_dependent", dependent)
    };
    for f in &c.findings {
        let d = diagnostic(py, file, &f.diagnostic, f.first.seed)?;
        d.set_item("severity", Severity::from(f.severity).as_str())?;
        let occ = PyDict::new(py);
        occ.set_item("count", f.occurrences)?;
        occ.set_item("ctas", py.None())?;
        occ.set_item("warps", py.None())?;
        d.set_item("occurrences", occ)?;
        d.set_item(
            "source_kind",
            match f.source {
                Source::Engine => "engine",
                Source::Race => "race",
            },
        )?;
        runs_of(&f.first, &f.runs, f.schedule_dependent, &d)?;
        out.append(d)?;
    }
    for (list, kind) in [(&c.hangs, "hang"), (&c.budget_exhausted, "incomplete")] {
        for h in list {
            let d = hang(py, file, &h.report, kind, h.first.seed)?;
            runs_of(&h.first, &h.runs, h.schedule_dependent, &d)?;
            out.append(d)?;
        }
    }
    Ok(out)
}
