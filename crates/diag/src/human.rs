//! rustc-style text: title, quoted PTX with carets, related spans, `= note:` / `= help:`.
//!
//! Layout is annotate-snippets' (the renderer rustc and cargo use), so the output reads like
//! the compiler diagnostics kernel authors already know.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::ops::Range;

use annotate_snippets::{
    renderer::DecorStyle, Annotation, AnnotationKind, Element, Group, Level, Origin, Renderer,
    Snippet,
};

use crate::catalogue::help_line;
use crate::hang::HangReport;
use crate::model::{ExecContext, Finding, LaneSet, Location, Occurrences, Severity};
use crate::report::Report;
use crate::sources::Sources;

/// Whether to colour the text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColorChoice {
    /// Colour when the stream is a terminal and `NO_COLOR` is unset or empty.
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Decides for a stream, e.g. `ColorChoice::Auto.use_color(&std::io::stderr())`.
    pub fn use_color(self, stream: &impl IsTerminal) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                stream.is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
}

impl std::str::FromStr for ColorChoice {
    type Err = String;

    /// `auto`, `always` or `never` (as `--color` takes them).
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(ColorChoice::Auto),
            "always" => Ok(ColorChoice::Always),
            "never" => Ok(ColorChoice::Never),
            _ => Err(format!(
                "unknown colour choice `{s}`: expected auto, always or never"
            )),
        }
    }
}

/// Options of the human renderer.
#[derive(Clone, Copy, Debug, Default)]
pub struct HumanOptions {
    pub color: bool,
}

/// The whole report: each finding, the hang report, what was not modelled, and a summary line.
pub fn render_human(report: &Report, sources: &Sources, opts: HumanOptions) -> String {
    let mut out = render_human_body(report, sources, opts);
    out.push_str(&summary_line(report));
    out.push('\n');
    out
}

/// [`render_human`] without the closing `verdict:` line, for a command that prints its own
/// summary.
pub fn render_human_body(report: &Report, sources: &Sources, opts: HumanOptions) -> String {
    let renderer = if opts.color {
        Renderer::styled()
    } else {
        Renderer::plain()
    }
    .decor_style(DecorStyle::Ascii);
    let mut out = String::new();
    for f in &report.findings {
        out.push_str(&renderer.render(&[finding_group(f, sources)]));
        out.push_str("\n\n");
    }
    if let Some(h) = &report.hang {
        out.push_str(&renderer.render(&[hang_group(h, sources)]));
        out.push('\n');
        out.push_str(&hang_table(h));
        out.push('\n');
    }
    for inc in &report.incomplete {
        let mut elems: Vec<Element<'_>> = Vec::new();
        if let Some(loc) = &inc.location {
            push_locations(&mut elems, loc, &[], sources, AnnotationKind::Primary);
        }
        elems.push(
            Level::NOTE
                .message("tmemu does not model this, so the run proves nothing about it")
                .into(),
        );
        out.push_str(
            &renderer.render(&[Level::WARNING
                .with_name(Some("incomplete"))
                .primary_title(inc.message.as_str())
                .elements(elems)]),
        );
        out.push_str("\n\n");
    }
    for e in &report.expects {
        let status = if e.passed { "ok" } else { "FAILED" };
        let _ = writeln!(
            out,
            "expect {} == {}: {status} ({})",
            e.buffer, e.reference, e.detail
        );
    }
    out
}

/// `verdict: violation (2 errors, 1 warning, 0 notes)`, plus `; 1 of 2 expects passed` when
/// the report has `[[expect]]` comparisons.
pub fn summary_line(report: &Report) -> String {
    let c = report.counts();
    let mut s = format!(
        "verdict: {} ({}, {}, {}",
        report.verdict(),
        plural(c.errors, "error"),
        plural(c.warnings, "warning"),
        plural(c.notes, "note")
    );
    if !report.expects.is_empty() {
        let n = report.expects.len();
        let _ = write!(
            s,
            "; {} of {} passed",
            n - c.expects_failed,
            plural(n, "expect")
        );
    }
    s.push(')');
    s
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn level(s: Severity) -> Level<'static> {
    match s {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Note => Level::NOTE,
    }
}

fn finding_group<'a>(f: &'a Finding, sources: &'a Sources) -> Group<'a> {
    let mut elems: Vec<Element<'a>> = Vec::new();
    // The carets go under the operand the rule is about, when the finding names one.
    let primary = f
        .operand
        .as_ref()
        .filter(|o| o.file == f.primary.file)
        .unwrap_or(&f.primary);
    push_locations(
        &mut elems,
        primary,
        &f.related,
        sources,
        AnnotationKind::Primary,
    );
    // `.loc` line 0 means "no line" (compilers emit it for generated code).
    if let Some(src) = f
        .source
        .as_ref()
        .filter(|s| s.line > 0 && !s.file.is_empty())
    {
        elems.push(kernel_source(src, sources.kernel_source(f)));
    }
    if let Some(ctx) = &f.context {
        elems.push(
            Level::NOTE
                .message(context_note(ctx, &f.occurrences))
                .into(),
        );
    } else if f.occurrences.count > 1 {
        elems.push(
            Level::NOTE
                .message(format!("reported {} times", f.occurrences.count))
                .into(),
        );
    }
    if f.occurrences.messages > 1 {
        elems.push(
            Level::NOTE
                .message(format!(
                    "the occurrences have {} distinct messages; the first is shown, `--format json` lists each",
                    f.occurrences.messages
                ))
                .into(),
        );
    }
    if let Some(seed) = f.seed {
        elems.push(
            Level::NOTE
                .message(format!(
                    "schedule seed {seed}; rerun with `--schedule-seed {seed}` to reproduce"
                ))
                .into(),
        );
    }
    for n in &f.notes {
        elems.push(Level::NOTE.message(n.as_str()).into());
    }
    if let Some(h) = help_line(f.rule, f.name) {
        elems.push(Level::HELP.message(h).into());
    }
    // The name (stable, greppable) on the title line, the specific message under it, so the
    // reader knows what the carets are about before reading them.
    level(f.severity)
        .primary_title(format!("{}\n{}", f.name, f.message))
        .id(f.rule)
        .elements(elems)
}

/// `in cluster (0,0,0), CTA (1,0,0) on SM 3, warp 2, lanes 0-31`, or for a group
/// `128 occurrences: lanes 0-31 of warps 0-3 in CTAs (0,0,0)-(31,0,0); first: cluster
/// (0,0,0), CTA (0,0,0) on SM 0, warp 0, lanes 0-31`.
pub fn context_note(ctx: &ExecContext, occ: &Occurrences) -> String {
    if occ.count <= 1 {
        return format!("in {ctx}");
    }
    format!("{}; first: {ctx}", occurrence_summary(occ))
}

/// `128 occurrences: lanes 0-31 of warps 0-3 in CTAs (0,0,0)-(31,0,0)`.
pub fn occurrence_summary(occ: &Occurrences) -> String {
    let mut s = format!("{} occurrences", occ.count);
    if !occ.has_ctas() {
        return s;
    }
    s.push_str(": ");
    if occ.warp_mask != 0 {
        if occ.lanes.count_ones() == 1 {
            let _ = write!(s, "lane {} of ", occ.lanes.trailing_zeros());
        } else if occ.lanes != 0 {
            let _ = write!(s, "lanes {} of ", LaneSet(occ.lanes));
        }
        if occ.warp_mask.count_ones() == 1 {
            let _ = write!(s, "warp {} in ", occ.warp_mask.trailing_zeros());
        } else {
            let _ = write!(s, "warps {} in ", LaneSet(occ.warp_mask));
        }
    }
    let xyz = |c: [u32; 3]| format!("({},{},{})", c[0], c[1], c[2]);
    if occ.ctas == 1 {
        let _ = write!(s, "CTA {}", xyz(occ.cta_min));
    } else if occ.ctas_fill_box() {
        let _ = write!(s, "CTAs {}-{}", xyz(occ.cta_min), xyz(occ.cta_max));
    } else {
        let _ = write!(
            s,
            "{} CTAs within {}-{}",
            occ.ctas,
            xyz(occ.cta_min),
            xyz(occ.cta_max)
        );
    }
    s
}

/// One file's locations to quote, with how to mark each.
type FileLocations<'a> = (&'a str, Vec<(&'a Location, AnnotationKind)>);

/// Quotes the primary and related locations: one snippet per file that could be read, with
/// the primary (or `first_kind`) annotation and context annotations for the related ones;
/// `--> file:line:col` plus a note for those that could not.
fn push_locations<'a>(
    elems: &mut Vec<Element<'a>>,
    primary: &'a Location,
    related: &'a [Location],
    sources: &'a Sources,
    first_kind: AnnotationKind,
) {
    // Files in order of appearance, primary's first, each with its locations.
    let mut by_file: Vec<FileLocations<'a>> = Vec::new();
    for (loc, kind) in std::iter::once((primary, first_kind))
        .chain(related.iter().map(|l| (l, AnnotationKind::Context)))
    {
        match by_file.iter_mut().find(|(f, _)| *f == loc.file) {
            Some((_, locs)) => locs.push((loc, kind)),
            None => by_file.push((&loc.file, vec![(loc, kind)])),
        }
    }
    for (file, locs) in by_file {
        let text = sources.file(file);
        let mut quoted: Vec<(Range<usize>, &'a Location, AnnotationKind)> = Vec::new();
        let mut unquoted: Vec<(&'a Location, AnnotationKind)> = Vec::new();
        for (loc, kind) in locs {
            match text.and_then(|t| quote_range(t, loc)) {
                Some(r) => quoted.push((r, loc, kind)),
                None => unquoted.push((loc, kind)),
            }
        }
        if let (Some(text), false) = (text, quoted.is_empty()) {
            // Quote only the lines between the first and last annotation, so a large PTX
            // file is not re-scanned for each finding.
            let lo = quoted.iter().map(|q| q.0.start).min().unwrap_or(0);
            let hi = quoted.iter().map(|q| q.0.end).max().unwrap_or(0);
            let start = text[..lo].rfind('\n').map_or(0, |i| i + 1);
            let end = text[hi..].find('\n').map_or(text.len(), |i| hi + i);
            let first_line = text[..start].bytes().filter(|&b| b == b'\n').count() + 1;
            let anns: Vec<Annotation<'a>> = quoted
                .iter()
                .map(|(r, loc, kind)| {
                    (*kind)
                        .span(r.start - start..r.end - start)
                        .label(loc.label.as_deref())
                })
                .collect();
            elems.push(
                Snippet::source(&text[start..end])
                    .line_start(first_line)
                    .path(file)
                    .annotations(anns)
                    .into(),
            );
        }
        for (loc, kind) in unquoted {
            if matches!(kind, AnnotationKind::Primary) {
                elems.push(
                    Origin::path(file)
                        .line(loc.line as usize)
                        .char_column(loc.column as usize)
                        .into(),
                );
                if let Some(l) = &loc.label {
                    elems.push(Level::NOTE.message(l.as_str()).into());
                }
            } else {
                let label = loc.label.as_deref().unwrap_or("related");
                elems.push(Level::NOTE.message(format!("{label}: {loc}")).into());
            }
        }
    }
}

/// The byte range to underline: the location's own range when it fits the text and the
/// line it claims, else from its column to the end of its line.
fn quote_range(text: &str, loc: &Location) -> Option<Range<usize>> {
    let line_start = nth_line_start(text, loc.line)?;
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |i| line_start + i);
    if let Some(r) = &loc.byte_range {
        let (s, e) = (r.start as usize, r.end as usize);
        if s <= e
            && e <= text.len()
            && s >= line_start
            && s <= line_end
            && text.is_char_boundary(s)
            && text.is_char_boundary(e)
        {
            // An empty range still gets one caret.
            let e = if e == s {
                (s + 1).min(line_end.max(s))
            } else {
                e
            };
            return Some(s..e);
        }
    }
    let s = line_start + (loc.column.max(1) as usize - 1);
    if s > line_end || !text.is_char_boundary(s) {
        return None;
    }
    let e = line_start + text[line_start..line_end].trim_end().len();
    Some(s..e.max(s))
}

fn nth_line_start(text: &str, line: u32) -> Option<usize> {
    if line == 0 {
        return None;
    }
    if line == 1 {
        return Some(0);
    }
    text.bytes()
        .enumerate()
        .filter(|&(_, b)| b == b'\n')
        .nth(line as usize - 2)
        .map(|(i, _)| i + 1)
        .filter(|&i| i <= text.len())
}

fn kernel_source<'a>(src: &'a crate::SourceLine, text: Option<&'a str>) -> Element<'a> {
    let quoted = text.and_then(|t| {
        let s = nth_line_start(t, src.line)?;
        let e = t[s..].find('\n').map_or(t.len(), |i| s + i);
        let line = &t[s..e];
        let indent = line.len() - line.trim_start().len();
        let body = line.trim_end().len();
        // From `.loc`'s column when it points into the line (compilers often write 0).
        let col = src.column as usize;
        let start = if col > indent && col <= body && line.is_char_boundary(col - 1) {
            col - 1
        } else {
            indent
        };
        (body > start).then_some((line, start..body))
    });
    match quoted {
        Some((line, span)) => Snippet::source(line)
            .line_start(src.line as usize)
            .path(src.file.as_str())
            .annotation(
                AnnotationKind::Context
                    .span(span)
                    .label("kernel source line (from `.loc`)"),
            )
            .into(),
        None => {
            let mut o = Origin::path(src.file.as_str()).line(src.line as usize);
            if src.column > 0 {
                o = o.char_column(src.column as usize);
            }
            o.into()
        }
    }
}

fn hang_group<'a>(h: &'a HangReport, sources: &'a Sources) -> Group<'a> {
    let rows = h.rows();
    let mut elems: Vec<Element<'a>> = Vec::new();
    // Quote the first row's instruction; the others are in the table.
    if let Some(first) = rows.first() {
        let loc = &first.first.location;
        push_locations(&mut elems, loc, &[], sources, AnnotationKind::Primary);
    }
    elems.push(
        Level::NOTE
            .message(format!(
                "{} blocked warps in {} places; table below",
                h.warps.len(),
                rows.len()
            ))
            .into(),
    );
    if let Some(help) = help_line(h.rule, h.name) {
        elems.push(Level::HELP.message(help).into());
    }
    Level::ERROR
        .primary_title(format!("{}\n{}", h.name, h.summary))
        .id(h.rule)
        .elements(elems)
}

/// The blocked-warp table: one row per (instruction, reason), represented by its smallest
/// (CTA, warp); `warps` says how many warps the row stands for.
pub fn hang_table(h: &HangReport) -> String {
    let rows = h.rows();
    let mut cells: Vec<[String; 7]> = vec![[
        "warps".into(),
        "CTA".into(),
        "warp".into(),
        "lanes".into(),
        "at".into(),
        "instruction".into(),
        "waiting for".into(),
    ]];
    for r in &rows {
        let c = &r.first.context;
        let [x, y, z] = c.cta;
        let o = &r.occurrences;
        cells.push([
            if o.ctas > 1 {
                format!("{} in {} CTAs", o.warps, o.ctas)
            } else {
                o.warps.to_string()
            },
            format!("({x},{y},{z})"),
            c.warp.map_or("-".into(), |w| w.to_string()),
            if c.lanes == 0 {
                "-".into()
            } else {
                LaneSet(c.lanes).to_string()
            },
            r.first.location.to_string(),
            format!("`{}`", r.first.instruction),
            r.first.waiting_for.clone(),
        ]);
    }
    let mut widths = [0usize; 7];
    for row in &cells {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    for row in &cells {
        let mut line = String::from("    ");
        for (i, c) in row.iter().enumerate() {
            if i + 1 == row.len() {
                line.push_str(c);
            } else {
                let _ = write!(line, "{c:<w$}  ", w = widths[i]);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A bad-input error (a spec, PTX or flag tmemu cannot use; exit 2): `error: message`, then
/// the line the location names with its carets when the file is in `sources`, else
/// `--> file:line:col`.
pub fn render_input_error(
    message: &str,
    location: Option<&Location>,
    sources: &Sources,
    opts: HumanOptions,
) -> String {
    let renderer = if opts.color {
        Renderer::styled()
    } else {
        Renderer::plain()
    }
    .decor_style(DecorStyle::Ascii);
    let mut elems: Vec<Element<'_>> = Vec::new();
    if let Some(loc) = location {
        push_locations(&mut elems, loc, &[], sources, AnnotationKind::Primary);
    }
    let mut out = renderer.render(&[Level::ERROR.primary_title(message).elements(elems)]);
    out.push('\n');
    out
}
