//! Spec → PTX → kernel → resolved launch: the steps every running command (`run`, `check`,
//! `explore`) takes before the engine, with their failures classified for the exit code.

use std::path::Path;

use tmemu_diag::Report;
use tmemu_host::{
    load_ptx_module, parse_ptx, read_ptx_file, resolve_spec_prefilled, unsupported_report,
    ErrorClass, HostError, Kernel, LaunchError, LaunchKey, LocTable, ReportBuilder, ResolvedLaunch,
};
use tmemu_spec::{materialize_buffers, Site, Spec};

/// A launch ready to run.
pub struct Prepared {
    /// The PTX path as findings name it.
    pub shown: String,
    /// The PTX's `.loc` line information, read from the module the loader parsed (a second
    /// parse for the report cost as much as the first).
    pub locs: LocTable,
    pub kernel: Kernel,
    pub launch: ResolvedLaunch,
    /// What the static checker (the rules ptxas enforces) finds in the PTX; every report of
    /// this launch starts with them.
    pub statics: Vec<tmemu_check::StaticFinding>,
    /// Where the spec set each launch parameter, so a launch the hardware cannot run names
    /// the key at fault ([`Prepared::launch_error`]).
    pub sites: LaunchSites,
}

/// The spec file and the sites of its launch keys; `None`: the spec does not set it (a
/// cluster from `.reqnctapercluster`, no dynamic shared memory).
pub struct LaunchSites {
    file: String,
    grid: Site,
    block: Site,
    cluster: Option<Site>,
    shared_bytes: Option<Site>,
}

/// Why a spec could not be run.
pub enum PrepError {
    /// Bad input (spec, PTX, overrides): the message, exit 2.
    Bad(String),
    /// A form tmemu does not model: an `incomplete` report, exit 4.
    Unsupported(Box<Report>),
}

/// `threads`: how many threads may generate the buffers' fills (the bytes do not depend on it).
pub fn prepare(spec_path: &Path, sets: &[String], threads: usize) -> Result<Prepared, PrepError> {
    let spec = Spec::load(spec_path).map_err(|e| PrepError::Bad(e.to_string()))?;
    crate::phases::mark("spec read");
    prepare_spec(spec, sets, threads)
}

/// [`prepare`] of a spec already read. Called on a rayon pool's thread with `threads` > 1
/// (`tmemu run`), the PTX is read, parsed, loaded and checked on this thread while the
/// buffers' inputs are made by the pool's other threads: neither needs the other, and both
/// came before the first CTA one after the other. Messages, and which of two failures is
/// reported, are those of the serial order (the PTX's first).
pub fn prepare_spec(
    mut spec: Spec,
    sets: &[String],
    threads: usize,
) -> Result<Prepared, PrepError> {
    let ptx_path = spec.ptx.value.clone();
    let shown = ptx_path.display().to_string();
    let entry = spec.kernel.as_ref().map(|k| k.value.clone());
    let parallel = threads > 1 && rayon::current_thread_index().is_some();
    // one parse serves the loader, the static checker and the line table; the last two read
    // the module beside the loader when there are threads for it
    // the error says whether it came from reading the file (bad input at the spec's `ptx` key)
    let load_source = |src: &str| -> Result<_, (HostError, bool)> {
        let module = parse_ptx(src, &shown).map_err(|e| (e, false))?;
        let load = || load_ptx_module(&module, src, &shown, entry.as_deref());
        let check = || {
            let statics = tmemu_check::static_check(&module, &shown);
            (statics, LocTable::from_module(&module))
        };
        let (kernel, (statics, locs)) = if parallel {
            rayon::join(load, check)
        } else {
            // a kernel that does not load needs no static check here (`static_report`)
            (Ok(load().map_err(|e| (e, false))?), check())
        };
        let kernel = kernel.map_err(|e| (e, false))?;
        crate::phases::mark("PTX loaded and checked");
        Ok((kernel, statics, locs))
    };
    let load = || -> Result<_, (HostError, bool)> {
        let src = read_ptx_file(&ptx_path).map_err(|e| (e, true))?;
        // the parse and load allocate ~20 bytes per PTX byte from this thread's heap, fresh
        // pages each faulted in on the serial path (~300 for Triton's matmul: 0.6 ms here,
        // ~1.3 ms on the 16-core host, perf.md session 15); with a third thread to spare,
        // one faults them in ahead of the parser
        if parallel && rayon::current_num_threads() >= 3 {
            let ahead = tmemu_pages::HeapAhead::probe(src.len().saturating_mul(24) + (256 << 10));
            let done = std::sync::atomic::AtomicBool::new(false);
            return rayon::scope(|s| {
                s.spawn(|_| ahead.populate(&done));
                let loaded = load_source(&src);
                done.store(true, std::sync::atomic::Ordering::Relaxed);
                loaded
            });
        }
        load_source(&src)
    };
    let make_inputs = || {
        crate::phases::mark("inputs started");
        let made = materialize_buffers(&spec, threads);
        crate::phases::mark("inputs made");
        made
    };
    let (loaded, made) = if parallel {
        rayon::join(load, make_inputs)
    } else {
        // one after the other: a PTX that does not load costs no inputs
        match load() {
            Ok(l) => (Ok(l), make_inputs()),
            Err(e) => (Err(e), Vec::new()),
        }
    };
    let classify = |e: HostError| match e.class {
        ErrorClass::Unsupported => {
            PrepError::Unsupported(Box::new(unsupported_report(&shown, &e.message)))
        }
        ErrorClass::BadInput => match static_report(&ptx_path, &shown, &e.message) {
            Some(report) => PrepError::Unsupported(Box::new(report)),
            None => PrepError::Bad(entry_error(&spec, &shown, e.message)),
        },
    };
    let (kernel, statics, locs) = loaded.map_err(|(e, reading)| match reading {
        true => ptx_read_error(&spec, e),
        false => classify(e),
    })?;
    let launch = resolve_spec_prefilled(&mut spec, sets, &kernel, threads, made)
        .map_err(|e| PrepError::Bad(e.message))?;
    crate::phases::mark("launch resolved");
    let sites = LaunchSites {
        file: spec.file.clone(),
        grid: spec.grid.site.clone(),
        block: spec.block.site.clone(),
        cluster: spec.cluster_given.then(|| spec.cluster.site.clone()),
        shared_bytes: (spec.shared_bytes.value != 0).then(|| spec.shared_bytes.site.clone()),
    };
    Ok(Prepared {
        shown,
        locs,
        kernel,
        launch,
        statics,
        sites,
    })
}

/// A PTX the loader refuses may break a rule ptxas enforces (a `.x2` load into one
/// register, TM0402): then the static checker's findings are the report (a violation, exit
/// 1) with the loader's message as a note, not a bare "bad input".
fn static_report(ptx_path: &Path, shown: &str, load_message: &str) -> Option<Report> {
    // only when a static error stands on the line the loader refuses (not, say, an
    // unknown entry name, which names no line)
    let line: u32 = load_message
        .strip_prefix(shown)?
        .strip_prefix(':')?
        .split(':')
        .next()?
        .parse()
        .ok()?;
    let src = read_ptx_file(ptx_path).ok()?;
    let module = tmemu_ptx::parse(&src).ok()?;
    let statics = tmemu_check::static_check(&module, shown);
    if !statics
        .iter()
        .any(|f| f.severity == tmemu_diag::rules::Severity::Error && f.span.line == line)
    {
        return None;
    }
    let mut b = ReportBuilder::new(shown.to_string(), &src);
    b.add_static(&statics);
    let mut report = b.finish();
    if let Some(f) = report.findings.first_mut() {
        f.notes
            .push(format!("tmemu cannot run the kernel: {load_message}"));
    }
    Some(report)
}

impl LaunchSites {
    /// A launch the simulated GPU refuses, as bad input at the spec key that set the
    /// parameter at fault (`spec:line:col: error: key 'grid': launch: ...`), or at the spec
    /// file when no key did.
    pub fn launch_error(&self, e: &LaunchError) -> String {
        let s = self;
        let (key, site) = match e.1 {
            LaunchKey::Grid => ("grid", Some(&s.grid)),
            LaunchKey::Block => ("block", Some(&s.block)),
            LaunchKey::Cluster => ("cluster", s.cluster.as_ref()),
            LaunchKey::SharedBytes | LaunchKey::StaticShared => {
                ("shared_bytes", s.shared_bytes.as_ref())
            }
            LaunchKey::Launch => ("", None),
        };
        match site.filter(|s| s.line > 0) {
            Some(site) => format!(
                "{}:{}:{}: error: key '{key}': launch: {}",
                s.file, site.line, site.col, e.0
            ),
            None => format!("{}: error: launch: {}", s.file, e.0),
        }
    }
}

/// A PTX file that cannot be read or decompressed is bad input at the spec's `ptx` key (the
/// file has no line to name); text that is not UTF-8 already names its line and column.
fn ptx_read_error(spec: &Spec, e: HostError) -> PrepError {
    if e.message.contains(": error: ") {
        return PrepError::Bad(e.message);
    }
    let site = &spec.ptx.site;
    // the message starts with the file it is about (`shown`, or `shown.xz`)
    PrepError::Bad(format!(
        "{}:{}:{}: error: key 'ptx': {}",
        spec.file, site.line, site.col, e.message
    ))
}

/// The loader names no place for "which kernel" errors (`k.ptx:0:0: error: no kernel ...`):
/// point them at the spec's `kernel` key, or say how to name one.
fn entry_error(spec: &Spec, shown: &str, message: String) -> String {
    let Some(text) = message.strip_prefix(&format!("{shown}:0:0: error: ")) else {
        return message;
    };
    match &spec.kernel {
        Some(k) => format!(
            "{}:{}:{}: error: key 'kernel': {}",
            spec.file,
            k.site.line,
            k.site.col,
            text.replace("in the module", &format!("in {shown}"))
        ),
        None if text.contains("several kernels") => format!(
            "{}: error: {shown}: {text} with `kernel = \"...\"` in the spec",
            spec.file
        ),
        // a PTX with no `.entry` at all: the spec's `ptx` key chose it (fuzz/mutate_run.py
        // found this message without a place)
        None if text.contains("defines no kernel") => format!(
            "{}:{}:{}: error: key 'ptx': {shown}: {}",
            spec.file,
            spec.ptx.site.line,
            spec.ptx.site.col,
            text.replace("the module", "it")
        ),
        None => format!("{shown}: error: {text}"),
    }
}

impl Prepared {
    /// [`LaunchSites::launch_error`] of this launch.
    pub fn launch_error(&self, e: &LaunchError) -> String {
        // static shared memory alone too large: the PTX's declaration is at fault, not a key
        if e.1 == LaunchKey::StaticShared {
            if let Some(d) = self.kernel.static_shared_span.filter(|d| d.line > 0) {
                return format!(
                    "{}:{}:{}: error: launch: {} (the largest static .shared variable is \
                     declared here)",
                    self.shown, d.line, d.col, e.0
                );
            }
        }
        self.sites.launch_error(e)
    }

    /// The cluster shape CTAs are grouped by: the spec's, else the kernel's
    /// `.reqnctapercluster`, else 1×1×1.
    pub fn cluster_dims(&self) -> [u32; 3] {
        if self.launch.cluster != [1, 1, 1] {
            self.launch.cluster
        } else {
            self.kernel.reqnctapercluster.unwrap_or([1, 1, 1])
        }
    }

    /// A report builder naming this PTX, with its `.loc` lines and cluster shape.
    pub fn report_builder(&self) -> ReportBuilder {
        let mut b = ReportBuilder::with_locs(self.shown.clone(), self.locs.clone())
            .cluster_dims(self.cluster_dims());
        b.add_static(&self.statics);
        b
    }
}
