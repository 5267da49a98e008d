//! The one conversion from an engine run to a [`tmemu_diag::Report`]: diagnostics (with their
//! spans, related spans and execution context), hangs, exhausted budgets and unmodelled forms,
//! each mapped through the PTX's `.loc` lines to the kernel's own source line.
//!
//! Every front end that renders findings (`tmemu run`, `tmemu check`, `tmemu explore`) builds
//! its report here, so a finding reads the same whichever command found it:
//!
//! ```ignore
//! let mut b = ReportBuilder::new(&shown, &ptx_text).cluster_dims(launch_cluster);
//! b.add_run(&outcome.result);
//! let report = b.finish();
//! ```
//!
//! Decisions:
//! - Severity is the catalogue's when the catalogue knows the rule *under the same name*
//!   (`tmemu_diag::catalogued`), else `error`: an engine rule not yet catalogued is reported,
//!   never silently demoted (fail closed).
//! - A diagnostic of a rule that marks a limit of tmemu (section `TMEMU_LIMIT`: the step
//!   budget TM0506, the call depth TM0510) is not a PTX ISA violation: it becomes an
//!   [`Incomplete`] item (verdict `incomplete`), not a finding.
//! - The cluster of a CTA is `%ctaid / %cluster_nctaid` per dimension (PTX ISA §10.10–10.12),
//!   computed from the launch's cluster shape given to [`ReportBuilder::cluster_dims`].
//! - `.loc`: an instruction maps to the last `.loc` before it *in the same function* (a `.loc`
//!   stays in force until the next one; PTX ISA §11.6.6). `.loc` line 0 (code the compiler
//!   made up) maps to nothing. With `inlined_at`, the location shown is the inlined callee's
//!   own line, which is the line that produced the instruction.

use std::collections::HashMap;

use tmemu_diag::{
    catalogued, BlockedWarp as DiagBlockedWarp, ExecContext, ExpectResult, Finding,
    HangReport as DiagHang, Incomplete, Instance, Location, Occurrences, Report, Severity,
    SourceLine,
};
use tmemu_ptx::ast::{Block, ModuleItem, Statement};
use tmemu_ptx::span::Span;
use tmemu_sim::error::{Context, Diagnostic, HangReport};
use tmemu_sim::RunResult;
use tmemu_tmem::rules;

use crate::check::{CheckOutcome, RunConfig};
use crate::expect::ExpectReport;

mod operands;
pub use operands::OperandTable;

/// `.loc` line information of one PTX text: which kernel source line each byte offset of a
/// function body belongs to.
#[derive(Clone, Debug, Default)]
pub struct LocTable {
    /// `.file` index → path as written.
    files: HashMap<u32, String>,
    /// Function bodies as byte ranges, sorted by start, each with the range of its entries in
    /// `locs`.
    bodies: Vec<(u32, u32, std::ops::Range<usize>)>,
    /// (byte offset of the `.loc`, file index, line, column), sorted by offset.
    locs: Vec<(u32, u32, u32, u32)>,
    /// Operand spans per instruction, for carets under the operand a rule is about.
    operands: OperandTable,
}

impl LocTable {
    /// Reads the `.file`/`.loc` directives of a PTX text. A text that does not parse has no
    /// line information (the run would not have started either).
    pub fn from_source(ptx: &str) -> LocTable {
        match tmemu_ptx::parse(ptx) {
            Ok(module) => LocTable::from_module(&module),
            Err(_) => LocTable::default(),
        }
    }

    pub fn from_module(module: &tmemu_ptx::ast::Module<'_>) -> LocTable {
        let mut t = LocTable::default();
        for f in module.files() {
            t.files.insert(f.index, f.path.to_string());
        }
        for item in &module.items {
            let ModuleItem::Function(f) = item else {
                continue;
            };
            let Some(body) = &f.body else { continue };
            let first = t.locs.len();
            collect_locs(body, &mut t.locs);
            // Nested blocks were visited in order, so offsets are already sorted; sort anyway
            // so a parser that reorders statements cannot break the binary search.
            t.locs[first..].sort_by_key(|l| l.0);
            t.bodies
                .push((body.span.start, body.span.end, first..t.locs.len()));
        }
        t.bodies.sort_by_key(|b| b.0);
        t.operands = OperandTable::from_module(module);
        t
    }

    /// The span of the operand `rule` is about in the instruction at `span`, if it names one.
    pub fn operand(&self, rule: &str, message: &str, span: Span) -> Option<Span> {
        self.operands.operand(rule, message, span)
    }

    /// Whether the text carries any line information.
    pub fn is_empty(&self) -> bool {
        self.locs.is_empty()
    }

    /// The kernel source line of the instruction that starts at byte `offset`.
    pub fn source_line(&self, offset: u32) -> Option<SourceLine> {
        let i = self.bodies.partition_point(|b| b.0 <= offset);
        let (_, end, range) = self.bodies.get(i.checked_sub(1)?)?;
        if offset >= *end {
            return None;
        }
        let locs = &self.locs[range.clone()];
        let j = locs.partition_point(|l| l.0 <= offset);
        let &(_, file, line, column) = locs.get(j.checked_sub(1)?)?;
        if line == 0 {
            return None;
        }
        Some(SourceLine {
            file: self.files.get(&file)?.clone(),
            line,
            column,
        })
    }
}

fn collect_locs(block: &Block<'_>, out: &mut Vec<(u32, u32, u32, u32)>) {
    for s in &block.statements {
        match s {
            Statement::Loc(l) => out.push((l.span.start, l.file, l.line, l.col)),
            Statement::Block(b) => collect_locs(b, out),
            _ => {}
        }
    }
}

/// A place related to a finding (the race's other access, the allocation a leak comes from).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    pub span: Span,
    pub label: String,
}

/// Builds one [`Report`] from what one or more engine runs of one PTX file reported.
#[derive(Clone, Debug)]
pub struct ReportBuilder {
    file: String,
    locs: LocTable,
    cluster_dims: [u32; 3],
    /// The SM each CTA ran on, when the caller observed it (`%ctaid` → `%smid`).
    sms: HashMap<[u32; 3], u32>,
    seed: Option<u64>,
    findings: Vec<Finding>,
    /// Static checker findings, first in the report (see [`ReportBuilder::add_static`]).
    statics: Vec<Finding>,
    hang: Option<DiagHang>,
    incomplete: Vec<Incomplete>,
    expects: Vec<ExpectResult>,
}

impl ReportBuilder {
    /// `file` names the PTX in every location (as the user gave it); `ptx` is its text, read
    /// for `.loc` line information.
    pub fn new(file: impl Into<String>, ptx: &str) -> ReportBuilder {
        ReportBuilder::with_locs(file, LocTable::from_source(ptx))
    }

    /// As [`ReportBuilder::new`] with a line table already built (e.g. from a parsed module).
    pub fn with_locs(file: impl Into<String>, locs: LocTable) -> ReportBuilder {
        ReportBuilder {
            file: file.into(),
            locs,
            cluster_dims: [1, 1, 1],
            sms: HashMap::new(),
            seed: None,
            findings: Vec::new(),
            statics: Vec::new(),
            hang: None,
            incomplete: Vec::new(),
            expects: Vec::new(),
        }
    }

    /// The launch's cluster shape (CTAs per cluster in x, y, z); 1×1×1 without clusters.
    pub fn cluster_dims(mut self, dims: [u32; 3]) -> ReportBuilder {
        self.cluster_dims = dims.map(|d| d.max(1));
        self
    }

    /// Where each CTA ran (`%ctaid` → SM), e.g. from an observer's `cta_begin` events; contexts
    /// of CTAs in the map name their SM.
    pub fn cta_sms(mut self, sms: impl IntoIterator<Item = ([u32; 3], u32)>) -> ReportBuilder {
        self.sms.extend(sms);
        self
    }

    /// The schedule seed of the run(s) added next (None: the default schedule).
    pub fn seed(mut self, seed: Option<u64>) -> ReportBuilder {
        self.seed = seed;
        self
    }

    /// Sets the seed for the findings added from now on.
    pub fn set_seed(&mut self, seed: Option<u64>) {
        self.seed = seed;
    }

    /// A span of the PTX file as a location (byte range kept for the caret).
    pub fn location(&self, span: Span) -> Location {
        let loc = Location::new(self.file.clone(), span.line, span.col);
        if span.end > span.start {
            loc.with_range(span.start..span.end)
        } else {
            loc
        }
    }

    /// The execution context of an engine context.
    pub fn context(&self, c: &Context) -> ExecContext {
        ExecContext {
            cluster: cluster_of(c.cta, self.cluster_dims, c.cluster),
            cta: c.cta,
            sm: self.sms.get(&c.cta).copied(),
            warp: Some(c.warp),
            lanes: c.lanes,
        }
    }

    /// One engine diagnostic as a finding: rule, severity (catalogue, else error), message,
    /// primary location, context, `.loc` source line, seed.
    pub fn finding(&self, d: &Diagnostic) -> Finding {
        let severity = catalogued(d.rule.id, d.rule.name)
            .map_or(Severity::Error, |r| Severity::from(r.severity));
        let mut f = Finding::new(
            d.rule.id,
            d.rule.name,
            severity,
            d.message.clone(),
            self.location(d.span),
        )
        .with_context(self.context(&d.ctx));
        if let Some(s) = self.locs.operand(d.rule.id, &d.message, d.span) {
            f = f.with_operand(self.location(s));
        }
        if let Some(s) = self.locs.source_line(d.span.start) {
            f = f.with_source(s);
        }
        if let Some(seed) = self.seed {
            f = f.with_seed(seed);
        }
        f
    }

    /// [`ReportBuilder::finding`] with related places ("allocated here", a race's first access).
    /// The engine's own related places (`Diagnostic::related`) come first; a place given both
    /// ways (a race finding converted to a diagnostic) is listed once.
    pub fn finding_with_related(&self, d: &Diagnostic, related: &[Related]) -> Finding {
        let mut places: Vec<(Span, &str)> =
            d.related.iter().map(|(s, l)| (*s, l.as_str())).collect();
        for r in related {
            if !places.iter().any(|(s, l)| *s == r.span && *l == r.label) {
                places.push((r.span, r.label.as_str()));
            }
        }
        places
            .into_iter()
            .fold(self.finding(d), |f, (span, label)| {
                f.with_related(self.location(span).with_label(label.to_string()))
            })
    }

    /// Adds a diagnostic: a finding, or an incomplete item for a tmemu limit.
    pub fn add_diagnostic(&mut self, d: &Diagnostic, related: &[Related]) {
        if is_tmemu_limit(d.rule.id) {
            self.add_incomplete(
                format!("{} {}: {}", d.rule.id, d.rule.name, d.message),
                Some(d.span),
            );
        } else {
            let f = self.finding_with_related(d, related);
            self.findings.push(f);
        }
    }

    /// Adds what the static checker (`tmemu_check::static_check`, the rules ptxas enforces)
    /// found before anything ran: each at its instruction, with the operand the rule is about,
    /// its related places and a note saying it was found without running. A static finding
    /// that a run also reports (the immediate nCols rules TM0001–TM0003 are checked both
    /// ways) is dropped in [`ReportBuilder::finish`]: the run's finding says which threads.
    pub fn add_static(&mut self, findings: &[tmemu_check::StaticFinding]) {
        for sf in findings {
            let mut f = Finding::new(
                sf.rule.id,
                sf.rule.name,
                Severity::from(sf.severity),
                sf.message.clone(),
                self.location(sf.span),
            )
            .with_note("found before running, from the PTX text alone (ptxas rejects it too)");
            if let Some(s) = self.locs.operand(sf.rule.id, &sf.message, sf.span) {
                f = f.with_operand(self.location(s));
            }
            if let Some(s) = self.locs.source_line(sf.span.start) {
                f = f.with_source(s);
            }
            for (i, r) in sf.related.iter().enumerate() {
                let label = match (sf.rule.id, i) {
                    ("TM0401", 0) => "the kernel's first .cta_group, which fixes it",
                    ("TM0401", _) => "the conflicting instruction",
                    ("TM0409", _) => "the target and version declared here",
                    _ => "related",
                };
                f = f.with_related(self.location(*r).with_label(label));
            }
            self.statics.push(f);
        }
    }

    /// Adds a finding built elsewhere (e.g. by a checker with its own related spans).
    pub fn add_finding(&mut self, f: Finding) {
        self.findings.push(f);
    }

    /// Adds a hang. Several SM groups may each report one; their blocked warps are merged into
    /// one report under the first group's rule and summary.
    pub fn add_hang(&mut self, h: &HangReport) {
        let warps: Vec<DiagBlockedWarp> = h
            .warps
            .iter()
            .map(|w| DiagBlockedWarp {
                context: ExecContext {
                    cluster: cluster_of(w.cta, self.cluster_dims, [0; 3]),
                    cta: w.cta,
                    sm: None,
                    warp: Some(w.warp),
                    lanes: w.lanes,
                },
                location: self.blocked_location(h.rule.id, w),
                instruction: w.opcode.clone(),
                waiting_for: w.waiting_for.clone(),
            })
            .collect();
        match &mut self.hang {
            Some(existing) => existing.warps.extend(warps),
            None => {
                self.hang = Some(DiagHang {
                    rule: h.rule.id,
                    name: h.rule.name,
                    summary: h.summary.clone(),
                    warps,
                })
            }
        }
    }

    /// Where a blocked warp waits: the operand the hang is about (the mbarrier of a
    /// `try_wait` in an mbarrier hang) when there is one, else its instruction. Line, column
    /// and byte range all name the same place, so SARIF's region is consistent.
    fn blocked_location(&self, rule: &str, w: &tmemu_sim::error::BlockedWarp) -> Location {
        let span = self
            .locs
            .operand(rule, &w.waiting_for, w.span)
            .unwrap_or(w.span);
        self.location(span)
    }

    /// A step budget ran out: the run is incomplete (not a hang: the warps were still moving).
    pub fn add_budget_exhausted(&mut self, h: &HangReport) {
        let span = h.warps.first().map(|w| w.span);
        self.add_incomplete(
            format!("{} {}: {}", h.rule.id, h.rule.name, h.summary),
            span,
        );
    }

    /// Something tmemu does not model (or a limit it hit), with where, when known.
    pub fn add_incomplete(&mut self, message: impl Into<String>, span: Option<Span>) {
        let location = span.map(|s| self.location(s));
        let inc = Incomplete {
            message: message.into(),
            location,
        };
        if !self.incomplete.contains(&inc) {
            self.incomplete.push(inc);
        }
    }

    /// Everything one engine run reported: diagnostics, hangs, exhausted budgets. (A `trap`
    /// is a diagnostic of its own, TM0505.)
    pub fn add_run(&mut self, r: &RunResult) {
        for d in &r.diagnostics {
            self.add_diagnostic(d, &[]);
        }
        for h in &r.hangs {
            self.add_hang(h);
        }
        for h in &r.budget_exhausted {
            self.add_budget_exhausted(h);
        }
    }

    /// Everything a check or an exploration merged from its runs. A finding that not every
    /// run reported carries the seed of the first run that did and a note with the `tmemu run`
    /// flags that reproduce it; failed `[[expect]]`s name their run.
    pub fn add_check(&mut self, o: &CheckOutcome) {
        let nruns = o.runs.len();
        for cf in &o.findings {
            if is_tmemu_limit(cf.diagnostic.rule.id) {
                continue; // listed in `o.incomplete`
            }
            let related: Vec<Related> = cf
                .related
                .iter()
                .map(|&(span, label)| Related {
                    span,
                    label: label.to_string(),
                })
                .collect();
            let mut f = self.finding_with_related(&cf.diagnostic, &related);
            f.severity = Severity::from(cf.severity);
            f.seed = None;
            if cf.schedule_dependent {
                f.seed = cf.first.seed;
                f = f.with_note(format!(
                    "reported by {} of {nruns} runs; reproduce with `tmemu run <spec> {}`",
                    cf.runs.len(),
                    cf.first.run_args()
                ));
            }
            // Occurrences are the first reporting run's (the run the reproduction note
            // names): which lanes, warps and CTAs; every run found the same threads when the
            // finding is not schedule-dependent, so a count over runs would only multiply.
            if cf.instances.len() > 1 {
                f.instances = cf
                    .instances
                    .iter()
                    .map(|(ctx, message)| Instance {
                        context: Some(self.context(ctx)),
                        message: message.clone(),
                    })
                    .collect();
                f.occurrences = Occurrences {
                    count: u32::try_from(cf.instances.len()).unwrap_or(u32::MAX),
                    ..Occurrences::EMPTY
                };
            }
            self.findings.push(f);
        }
        for h in &o.hangs {
            self.add_hang(&h.report);
        }
        for h in &o.budget_exhausted {
            self.add_budget_exhausted(&h.report);
        }
        for i in &o.incomplete {
            self.add_incomplete(i.reason.clone(), i.span);
        }
        for (run, e) in &o.expects_failed {
            let mut r = expect_result(e);
            if let Some(cfg) = o.runs.get(*run).map(|r| r.config) {
                r.detail = format!("{} (run {}: {})", r.detail, run + 1, describe(cfg));
            }
            self.expects.push(r);
        }
    }

    /// Adds `[[expect]]` comparisons (in spec order).
    pub fn add_expects(&mut self, expects: &[ExpectReport]) {
        self.expects.extend(expects.iter().map(expect_result));
    }

    /// The report: findings grouped (one per rule, place and message, counted over warps and
    /// CTAs).
    pub fn finish(self) -> Report {
        let ran = &self.findings;
        let mut findings: Vec<Finding> = self
            .statics
            .into_iter()
            .filter(|s| {
                !ran.iter().any(|d| {
                    d.rule == s.rule
                        && d.primary.file == s.primary.file
                        && d.primary.line == s.primary.line
                })
            })
            .collect();
        findings.extend(self.findings);
        let mut report = Report::new(findings);
        report.hang = self.hang;
        report.incomplete = self.incomplete;
        report.expects = self.expects;
        report
    }
}

fn describe(cfg: RunConfig) -> String {
    cfg.to_string()
}

/// An `[[expect]]` comparison as the report shows it.
pub fn expect_result(e: &ExpectReport) -> ExpectResult {
    let detail = match &e.comparison {
        Ok(c) if c.passed() => format!(
            "{} elements, max abs err {:.3e}, max rel err {:.3e}",
            c.elements, c.max_abs_err, c.max_rel_err
        ),
        Ok(c) => format!(
            "{} of {} elements differ, first at flat index {}, max abs err {:.3e}, max rel err {:.3e}, rtol {}, atol {}",
            c.mismatches,
            c.elements,
            c.first_mismatch_index.unwrap_or(0),
            c.max_abs_err,
            c.max_rel_err,
            e.rtol,
            e.atol
        ),
        Err(err) => err.to_string(),
    };
    ExpectResult {
        buffer: e.name.clone(),
        reference: e.label.clone(),
        passed: e.passed(),
        detail,
    }
}

/// A rule that marks a limit of tmemu rather than a PTX ISA rule (TM0506, TM0510).
fn is_tmemu_limit(id: &str) -> bool {
    rules::lookup(id).is_some_and(|r| r.is_tmemu_limit())
}

/// `%clusterid` of a CTA: its `%ctaid` divided by the cluster shape. `fallback` is what the
/// engine said, used only when the shape is unknown (all ones gives the CTA id itself).
fn cluster_of(cta: [u32; 3], dims: [u32; 3], fallback: [u32; 3]) -> [u32; 3] {
    if dims == [1, 1, 1] && fallback != [0; 3] {
        return fallback;
    }
    [cta[0] / dims[0], cta[1] / dims[1], cta[2] / dims[2]]
}

/// A load error message of [`crate::load_ptx_source`] (`{file}:{line}:{col}: unsupported:
/// {form}`) as an incomplete report, with its location when the message carries one.
pub fn unsupported_report(file: &str, message: &str) -> Report {
    let (location, text) = split_location(file, message);
    Report {
        incomplete: vec![Incomplete {
            message: text.to_string(),
            location,
        }],
        ..Report::default()
    }
}

/// Splits `{file}:{line}:{col}: rest` into a location and `rest`.
fn split_location<'m>(file: &str, message: &'m str) -> (Option<Location>, &'m str) {
    let parsed = message
        .strip_prefix(file)
        .and_then(|m| m.strip_prefix(':'))
        .and_then(|m| {
            let (line, m) = m.split_once(':')?;
            let (col, rest) = m.split_once(": ")?;
            Some((line.parse().ok()?, col.parse().ok()?, rest))
        });
    match parsed {
        Some((line, col, rest)) => (Some(Location::new(file, line, col)), rest),
        None => (None, message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tmemu_sim::error::{BlockedWarp, Rule};

    const PTX: &str = r#".version 8.7
.target sm_100a
.address_size 64
	.file	1 "kern.py"
	.file	2 "lib.cuh"

.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<4>;
	.loc	1 10 5
	mov.u32 %r1, 1;
	.loc	2 0 0
	mov.u32 %r2, 2;
	{
	.loc	2 7 3, function_name $L__info_string0, inlined_at 1 12 4
	add.u32 %r3, %r1, %r2;
	}
	ret;
}
.visible .entry k2()
{
	ret;
}
"#;

    fn span_of(needle: &str) -> Span {
        let start = PTX.find(needle).unwrap() as u32;
        let line = PTX[..start as usize].matches('\n').count() as u32 + 1;
        let col = start
            - PTX[..start as usize]
                .rfind('\n')
                .map_or(0, |i| i as u32 + 1)
            + 1;
        Span {
            start,
            end: start + needle.len() as u32,
            line,
            col,
        }
    }

    #[test]
    fn loc_table_maps_instructions_to_the_last_loc_of_their_function() {
        let t = LocTable::from_source(PTX);
        let at = |n: &str| t.source_line(span_of(n).start);
        assert_eq!(
            at("mov.u32 %r1"),
            Some(SourceLine {
                file: "kern.py".into(),
                line: 10,
                column: 5
            })
        );
        // line 0: generated code, no source line
        assert_eq!(at("mov.u32 %r2"), None);
        // nested block, inlined: the callee's own line
        assert_eq!(
            at("add.u32"),
            Some(SourceLine {
                file: "lib.cuh".into(),
                line: 7,
                column: 3
            })
        );
        // the second function has no .loc of its own: the first one's do not leak into it
        let second_ret = PTX.rfind("ret;").unwrap() as u32;
        assert_eq!(t.source_line(second_ret), None);
        // outside every body
        assert_eq!(t.source_line(0), None);
        assert_eq!(t.source_line(u32::MAX), None);
    }

    #[test]
    fn unparsable_ptx_has_no_line_info() {
        assert!(LocTable::from_source("not ptx {{{").is_empty());
    }

    fn diag(rule: &'static tmemu_tmem::rules::Rule, span: Span, cta: [u32; 3]) -> Diagnostic {
        Diagnostic {
            rule: Rule {
                id: rule.id,
                name: rule.name,
            },
            message: "m".into(),
            span,
            ctx: Context {
                cluster: [0; 3],
                cta,
                warp: 1,
                lanes: 0xffff_ffff,
                pc: 0,
            },
            related: Vec::new(),
        }
    }

    #[test]
    fn diagnostics_become_grouped_findings_with_source_context_and_related() {
        let mut b = ReportBuilder::new("k.ptx", PTX)
            .cluster_dims([2, 1, 1])
            .seed(Some(7));
        let sp = span_of("add.u32 %r3, %r1, %r2;");
        let rel = Related {
            span: span_of("mov.u32 %r1, 1;"),
            label: "written here".into(),
        };
        for x in 0..4 {
            b.add_diagnostic(
                &diag(&rules::OUT_OF_BOUNDS_ACCESS, sp, [x, 0, 0]),
                std::slice::from_ref(&rel),
            );
        }
        let r = b.finish();
        assert_eq!(r.findings.len(), 1, "four CTAs, one group");
        let f = &r.findings[0];
        assert_eq!(f.rule, rules::OUT_OF_BOUNDS_ACCESS.id);
        assert_eq!(
            f.severity,
            Severity::from(rules::OUT_OF_BOUNDS_ACCESS.severity)
        );
        assert_eq!((f.primary.file.as_str(), f.primary.line), ("k.ptx", 16));
        assert_eq!(f.primary.byte_range, Some(sp.start..sp.end));
        assert_eq!(f.related.len(), 1);
        assert_eq!(f.related[0].line, 11);
        assert_eq!(f.related[0].label.as_deref(), Some("written here"));
        assert_eq!(f.source.as_ref().map(|s| s.line), Some(7));
        assert_eq!(f.seed, Some(7));
        assert_eq!(f.occurrences.count, 4);
        assert_eq!(f.occurrences.ctas, 4);
        let c = f.context.unwrap();
        assert_eq!((c.cta, c.cluster, c.warp), ([0, 0, 0], [0, 0, 0], Some(1)));
        assert_eq!(c.sm, None, "no SM map given");
        assert_eq!(r.verdict(), tmemu_diag::Verdict::Violation);
    }

    #[test]
    fn static_findings_come_first_with_their_operand_and_yield_to_a_run_of_the_same_rule() {
        const ALLOC: &str = ".version 8.7
.target sm_100a
.address_size 64
.visible .entry k()
{
	.shared .align 4 .b32 t;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [t], 48;
	ret;
}
";
        let module = tmemu_ptx::parse(ALLOC).unwrap();
        let statics = tmemu_check::static_check(&module, "a.ptx");
        let ids: Vec<&str> = statics.iter().map(|f| f.rule.id).collect();
        assert_eq!(ids, ["TM0001", "TM0002"], "ptxas reports both for 48");
        let at = ALLOC.find("48;").unwrap() as u32;

        let mut b = ReportBuilder::new("a.ptx", ALLOC);
        b.add_static(&statics);
        let r = b.finish();
        assert_eq!(r.findings.len(), 2);
        let op = r.findings[0].operand.as_ref().unwrap();
        assert_eq!(op.byte_range, Some(at..at + 2), "the caret is under nCols");
        assert!(r.findings[0].notes[0].starts_with("found before running"));
        assert_eq!(r.verdict(), tmemu_diag::Verdict::Violation);

        // a run that reports TM0001 at the same line: the run's finding (with its threads)
        // stays, the static one goes; TM0002 stays static
        let inst = module
            .functions()
            .flat_map(|f| f.body.iter())
            .flat_map(|b| b.statements.iter())
            .find_map(|s| match s {
                Statement::Instruction(i) if i.name == "tcgen05" => Some(i.span),
                _ => None,
            })
            .unwrap();
        let mut b = ReportBuilder::new("a.ptx", ALLOC);
        b.add_static(&statics);
        b.add_diagnostic(&diag(&rules::NCOLS_NOT_POWER_OF_TWO, inst, [0; 3]), &[]);
        let r = b.finish();
        let got: Vec<(&str, bool)> = r
            .findings
            .iter()
            .map(|f| (f.rule, f.context.is_some()))
            .collect();
        assert_eq!(got, [("TM0002", false), ("TM0001", true)]);
    }

    #[test]
    fn cluster_comes_from_the_cluster_shape_and_sm_from_the_map() {
        let b = ReportBuilder::new("k.ptx", PTX)
            .cluster_dims([2, 1, 1])
            .cta_sms([([5, 3, 0], 17)]);
        let d = diag(&rules::OUT_OF_BOUNDS_ACCESS, span_of("ret;"), [5, 3, 0]);
        assert_eq!(b.context(&d.ctx).cluster, [2, 3, 0]);
        assert_eq!(b.context(&d.ctx).sm, Some(17));
        let d = diag(&rules::OUT_OF_BOUNDS_ACCESS, span_of("ret;"), [4, 3, 0]);
        assert_eq!(b.context(&d.ctx).sm, None);
    }

    #[test]
    fn uncatalogued_rules_are_errors_and_limits_are_incomplete() {
        let mut b = ReportBuilder::new("k.ptx", PTX);
        let mut d = diag(&rules::OUT_OF_BOUNDS_ACCESS, span_of("ret;"), [0; 3]);
        d.rule = Rule {
            id: "TM0999",
            name: "not-in-the-catalogue",
        };
        b.add_diagnostic(&d, &[]);
        b.add_diagnostic(
            &diag(&rules::CALL_DEPTH_EXCEEDED, span_of("ret;"), [0; 3]),
            &[],
        );
        let r = b.finish();
        assert_eq!(r.findings.len(), 1);
        assert_eq!(r.findings[0].severity, Severity::Error);
        assert_eq!(r.incomplete.len(), 1);
        assert!(r.incomplete[0].message.starts_with("TM0510"));
        // hang > incomplete > violation
        assert_eq!(r.verdict(), tmemu_diag::Verdict::Incomplete);
    }

    #[test]
    fn hangs_of_several_groups_merge_and_budgets_are_incomplete() {
        let sp = span_of("ret;");
        let h = |cta: u32| HangReport {
            rule: Rule {
                id: rules::BARRIER_DEADLOCK.id,
                name: rules::BARRIER_DEADLOCK.name,
            },
            summary: "stuck".into(),
            warps: vec![BlockedWarp {
                cta: [cta, 0, 0],
                warp: 0,
                lanes: 1,
                span: sp,
                opcode: "bar.sync".into(),
                waiting_for: "barrier 0".into(),
            }],
        };
        let mut b = ReportBuilder::new("k.ptx", PTX);
        b.add_hang(&h(0));
        b.add_hang(&h(1));
        let r = b.finish();
        let hang = r.hang.as_ref().unwrap();
        assert_eq!(hang.warps.len(), 2);
        assert_eq!(hang.warps[1].context.cta, [1, 0, 0]);
        assert_eq!(hang.warps[0].location.line, sp.line);
        assert_eq!(r.verdict(), tmemu_diag::Verdict::Hang);

        let mut b = ReportBuilder::new("k.ptx", PTX);
        b.add_budget_exhausted(&h(0));
        b.add_budget_exhausted(&h(0));
        let r = b.finish();
        assert_eq!(r.incomplete.len(), 1, "identical items merge");
        assert_eq!(r.verdict(), tmemu_diag::Verdict::Incomplete);
    }

    #[test]
    fn unsupported_messages_keep_their_location() {
        let r = unsupported_report("a.ptx", "a.ptx:52:2: unsupported: `tcgen05.x`");
        let i = &r.incomplete[0];
        assert_eq!(i.message, "unsupported: `tcgen05.x`");
        let l = i.location.as_ref().unwrap();
        assert_eq!((l.line, l.column), (52, 2));
        let r = unsupported_report("a.ptx", "something else");
        assert!(r.incomplete[0].location.is_none());
        assert_eq!(r.verdict(), tmemu_diag::Verdict::Incomplete);
    }
}
