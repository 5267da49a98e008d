//! The texts the human renderer quotes: PTX files and the kernels' own sources.
//!
//! Loaded once, before rendering, so the renderers stay pure functions of (report, sources).
//! A file that cannot be read is simply absent: the renderer then prints `--> file:line:col`
//! without the quoted line.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::model::Finding;
use crate::report::Report;

/// Texts by the path as it appears in the report.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// PTX (or other) files named by locations, keyed by the path as written.
    files: HashMap<String, String>,
    /// Kernel sources named by `.loc`, keyed by (PTX file, path as written in `.file`):
    /// the same relative path may resolve differently next to two PTX files.
    kernel: HashMap<(String, String), String>,
}

impl Sources {
    /// Reads every file the report refers to, where it exists.
    pub fn load(report: &Report) -> Sources {
        Sources::load_with(report, |p| std::fs::read_to_string(p).ok())
    }

    /// As [`Sources::load`], reading the PTX files the report's locations name with `read`:
    /// front ends pass tmemu_host::read_ptx_file, which also reads PTX committed compressed
    /// (`NAME.ptx.gz`, `.xz`) where the report names `NAME.ptx` (this crate reads no archive).
    pub fn load_with(report: &Report, read: impl Fn(&Path) -> Option<String>) -> Sources {
        let mut s = Sources::default();
        let findings = report.findings.iter();
        let hang_locs = report
            .hang
            .iter()
            .flat_map(|h| h.warps.iter().map(|w| &w.location));
        let inc_locs = report.incomplete.iter().filter_map(|i| i.location.as_ref());
        for loc in findings
            .clone()
            .flat_map(|f| std::iter::once(&f.primary).chain(&f.related))
            .chain(hang_locs)
            .chain(inc_locs)
        {
            if !s.files.contains_key(&loc.file) {
                if let Some(text) = read(Path::new(&loc.file)) {
                    s.files.insert(loc.file.clone(), text);
                }
            }
        }
        for f in findings {
            s.load_kernel_source(f);
        }
        s
    }

    /// Adds a text without touching the disk (tests, in-memory PTX).
    pub fn insert(&mut self, file: impl Into<String>, text: impl Into<String>) {
        self.files.insert(file.into(), text.into());
    }

    pub fn file(&self, file: &str) -> Option<&str> {
        self.files.get(file).map(String::as_str)
    }

    /// The kernel source named by `f.source`, if it was found.
    pub fn kernel_source(&self, f: &Finding) -> Option<&str> {
        let src = f.source.as_ref()?;
        self.kernel
            .get(&(f.primary.file.clone(), src.file.clone()))
            .map(String::as_str)
    }

    fn load_kernel_source(&mut self, f: &Finding) {
        let Some(src) = &f.source else { return };
        let key = (f.primary.file.clone(), src.file.clone());
        if self.kernel.contains_key(&key) {
            return;
        }
        if let Some(path) = resolve_kernel_source(&src.file, Path::new(&f.primary.file)) {
            if let Ok(text) = std::fs::read_to_string(path) {
                self.kernel.insert(key, text);
            }
        }
    }
}

/// Where the file named by a `.file` directive is: as written (relative to the current
/// directory, or absolute), else relative to the PTX file's directory and then each of its
/// ancestors (compilers write paths relative to where they ran, usually a project root above
/// the PTX).
pub fn resolve_kernel_source(written: &str, ptx_file: &Path) -> Option<PathBuf> {
    let written = Path::new(written);
    if written.is_file() {
        return Some(written.to_path_buf());
    }
    if written.is_absolute() {
        return None;
    }
    let dir = ptx_file.parent()?;
    dir.ancestors()
        .map(|a| a.join(written))
        .find(|p| p.is_file())
}
