//! What a launch found, as the CLI says it: the engine run (or the check's merged runs) goes
//! through `tmemu_host::ReportBuilder` — the one conversion every front end uses (`.loc`
//! source lines, related spans, grouping, severity from the catalogue, tmemu limits as
//! `incomplete`) — into a `tmemu_diag::Report`, which Python reads as the CLI's JSON Lines
//! (`tmemu_diag::render_json`: the same objects, the same field names) and can render as the
//! CLI's human text.

use pyo3::prelude::*;
use tmemu_diag::{render_human, render_json, HumanOptions, Report, Sources};

/// A finished report, kept on the Rust side so `Result.report()` renders it only when asked.
#[pyclass(frozen, module = "tmemu._tmemu")]
pub struct NativeReport {
    report: Report,
    /// The PTX as the findings name it, and its text: a PTX given as text (`<ptx>`) is not
    /// on disk, so the renderer gets it from here.
    file: String,
    text: String,
}

impl NativeReport {
    pub fn new(report: Report, file: &str, text: &str) -> NativeReport {
        NativeReport {
            report,
            file: file.to_string(),
            text: text.to_string(),
        }
    }
}

#[pymethods]
impl NativeReport {
    /// The report as `tmemu run --format json` prints it: one JSON object per line (findings,
    /// the hang, incomplete items), then the summary object.
    fn json(&self) -> String {
        render_json(&self.report)
    }

    /// The report as `tmemu run` prints it on a terminal (rustc-like, with the PTX line and,
    /// where `.loc` names it and the file is found, the kernel's own source line).
    #[pyo3(signature = (color=false))]
    fn human(&self, py: Python<'_>, color: bool) -> String {
        py.detach(|| {
            let mut sources = Sources::load(&self.report);
            if sources.file(&self.file).is_none() {
                sources.insert(self.file.clone(), self.text.clone());
            }
            render_human(&self.report, &sources, HumanOptions { color })
        })
    }
}
