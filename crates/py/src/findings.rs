//! The engine's diagnostics and hang reports → Python dicts with the field names of the CLI's
//! JSON Lines output (crates/diag `json.rs`: `type`, `rule`, `name`, `severity`, `message`,
//! `file`, `line`, `column`, `related`, `context`, `source`, `seed`, ...).
//!
//! The engine (tmemu-sim) does not yet attach `.loc` source lines, related locations or an SM
//! number; those fields are `None` / empty until it does.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use tmemu_ptx::span::Span;
use tmemu_sim::{Diagnostic, HangReport, RunResult};

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
    // Every rule the engine reports today makes the verdict a violation (or a hang), as in
    // `tmemu run`; the catalogue's severities apply once findings go through crates/diag.
    d.set_item("severity", "error")?;
    d.set_item("message", message)?;
    d.set_item("file", file)?;
    d.set_item("line", span.line)?;
    d.set_item("column", span.col)?;
    d.set_item("related", PyList::empty(py))?;
    d.set_item("source", py.None())?;
    d.set_item("seed", seed)?;
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

/// `clean`, `violation`, `hang` or `incomplete`, decided as `tmemu run` decides its exit code.
pub fn verdict(r: &RunResult) -> &'static str {
    if !r.hangs.is_empty() {
        "hang"
    } else if !r.budget_exhausted.is_empty() {
        "incomplete"
    } else if !r.diagnostics.is_empty() || r.trapped {
        "violation"
    } else {
        "clean"
    }
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
