//! JSON Lines: one object per finding, hang and incomplete item, then one summary object.
//! Field names are a contract, documented in docs/cli.md; add fields, never rename.

use serde::Serialize;

use crate::catalogue::help_line;
use crate::hang::HangReport;
use crate::model::{ExecContext, Finding, Location, Occurrences, Severity};
use crate::report::{ExpectResult, Incomplete, Report};

#[derive(Serialize)]
struct JsonFinding<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    rule: &'a str,
    name: &'a str,
    severity: Severity,
    message: &'a str,
    file: &'a str,
    line: u32,
    column: u32,
    byte_range: Option<[u32; 2]>,
    label: Option<&'a str>,
    related: Vec<JsonRelated<'a>>,
    context: Option<JsonContext>,
    source: Option<JsonSource<'a>>,
    seed: Option<u64>,
    notes: &'a [String],
    occurrences: Occurrences,
    help: Option<String>,
    /// The operand the rule is about (added after the first release: additive).
    operand: Option<JsonOperand<'a>>,
    /// Every raw occurrence (context and message), sorted by CTA, warp, lanes.
    instances: Vec<JsonInstance>,
}

#[derive(Serialize)]
struct JsonOperand<'a> {
    file: &'a str,
    line: u32,
    column: u32,
    byte_range: Option<[u32; 2]>,
    label: Option<&'a str>,
}

#[derive(Serialize)]
struct JsonInstance {
    context: Option<JsonContext>,
    message: String,
}

#[derive(Serialize)]
struct JsonRelated<'a> {
    file: &'a str,
    line: u32,
    column: u32,
    label: Option<&'a str>,
}

#[derive(Serialize)]
struct JsonContext {
    cluster: [u32; 3],
    cta: [u32; 3],
    sm: Option<u32>,
    warp: Option<u32>,
    lanes: u32,
}

#[derive(Serialize)]
struct JsonSource<'a> {
    file: &'a str,
    line: u32,
    column: u32,
}

#[derive(Serialize)]
struct JsonHang<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    rule: &'a str,
    name: &'a str,
    severity: Severity,
    message: &'a str,
    blocked: Vec<JsonBlocked<'a>>,
}

#[derive(Serialize)]
struct JsonBlocked<'a> {
    context: JsonContext,
    file: &'a str,
    line: u32,
    column: u32,
    instruction: &'a str,
    waiting_for: &'a str,
    occurrences: Occurrences,
}

#[derive(Serialize)]
struct JsonIncomplete<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    message: &'a str,
    file: Option<&'a str>,
    line: Option<u32>,
    column: Option<u32>,
}

#[derive(Serialize)]
struct JsonExpect<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    buffer: &'a str,
    reference: &'a str,
    passed: bool,
    detail: &'a str,
}

#[derive(Serialize)]
struct JsonSummary {
    #[serde(rename = "type")]
    kind: &'static str,
    verdict: crate::Verdict,
    exit_code: u8,
    findings: usize,
    errors: usize,
    warnings: usize,
    notes: usize,
    hang: bool,
    incomplete: usize,
    expects: usize,
    expects_failed: usize,
}

fn context(c: &ExecContext) -> JsonContext {
    JsonContext {
        cluster: c.cluster,
        cta: c.cta,
        sm: c.sm,
        warp: c.warp,
        lanes: c.lanes,
    }
}

fn related(l: &Location) -> JsonRelated<'_> {
    JsonRelated {
        file: &l.file,
        line: l.line,
        column: l.column,
        label: l.label.as_deref(),
    }
}

fn finding(f: &Finding) -> JsonFinding<'_> {
    JsonFinding {
        kind: "finding",
        rule: f.rule,
        name: f.name,
        severity: f.severity,
        message: &f.message,
        file: &f.primary.file,
        line: f.primary.line,
        column: f.primary.column,
        byte_range: f.primary.byte_range.as_ref().map(|r| [r.start, r.end]),
        label: f.primary.label.as_deref(),
        related: f.related.iter().map(related).collect(),
        context: f.context.as_ref().map(context),
        source: f.source.as_ref().map(|s| JsonSource {
            file: &s.file,
            line: s.line,
            column: s.column,
        }),
        seed: f.seed,
        notes: &f.notes,
        occurrences: f.occurrences,
        help: help_line(f.rule, f.name),
        operand: f.operand.as_ref().map(|o| JsonOperand {
            file: &o.file,
            line: o.line,
            column: o.column,
            byte_range: o.byte_range.as_ref().map(|r| [r.start, r.end]),
            label: o.label.as_deref(),
        }),
        instances: f
            .instances()
            .into_iter()
            .map(|i| JsonInstance {
                context: i.context.as_ref().map(context),
                message: i.message,
            })
            .collect(),
    }
}

fn hang(h: &HangReport) -> JsonHang<'_> {
    JsonHang {
        kind: "hang",
        rule: h.rule,
        name: h.name,
        severity: Severity::Error,
        message: &h.summary,
        blocked: h
            .rows()
            .into_iter()
            .map(|r| JsonBlocked {
                context: context(&r.first.context),
                file: &r.first.location.file,
                line: r.first.location.line,
                column: r.first.location.column,
                instruction: &r.first.instruction,
                waiting_for: &r.first.waiting_for,
                occurrences: r.occurrences,
            })
            .collect(),
    }
}

fn expect(e: &ExpectResult) -> JsonExpect<'_> {
    JsonExpect {
        kind: "expect",
        buffer: &e.buffer,
        reference: &e.reference,
        passed: e.passed,
        detail: &e.detail,
    }
}

fn incomplete(i: &Incomplete) -> JsonIncomplete<'_> {
    JsonIncomplete {
        kind: "incomplete",
        message: &i.message,
        file: i.location.as_ref().map(|l| l.file.as_str()),
        line: i.location.as_ref().map(|l| l.line),
        column: i.location.as_ref().map(|l| l.column),
    }
}

fn line(out: &mut String, v: &impl Serialize) {
    // Serialising these plain structs cannot fail (no maps with non-string keys, no I/O).
    if let Ok(s) = serde_json::to_string(v) {
        out.push_str(&s);
        out.push('\n');
    }
}

/// The final `{"type":"summary",...}` object, on one line.
pub fn summary_json(report: &Report) -> String {
    let c = report.counts();
    let v = report.verdict();
    let mut out = String::new();
    line(
        &mut out,
        &JsonSummary {
            kind: "summary",
            verdict: v,
            exit_code: v.exit_code(),
            findings: c.findings,
            errors: c.errors,
            warnings: c.warnings,
            notes: c.notes,
            hang: report.hang.is_some(),
            incomplete: report.incomplete.len(),
            expects: report.expects.len(),
            expects_failed: c.expects_failed,
        },
    );
    out
}

/// The whole report as JSON Lines (each line one object, ending with the summary).
pub fn render_json(report: &Report) -> String {
    let mut out = String::new();
    for f in &report.findings {
        line(&mut out, &finding(f));
    }
    if let Some(h) = &report.hang {
        line(&mut out, &hang(h));
    }
    for i in &report.incomplete {
        line(&mut out, &incomplete(i));
    }
    for e in &report.expects {
        line(&mut out, &expect(e));
    }
    out.push_str(&summary_json(report));
    out
}
