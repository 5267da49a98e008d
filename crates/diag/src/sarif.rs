//! SARIF 2.1.0 (OASIS), the format code-scanning services read.
//!
//! Hand-written structs for the subset we emit: the SARIF crates on crates.io are large
//! generated schema bindings, and our subset is a few dozen lines. Field names follow the
//! SARIF 2.1.0 schema exactly (camelCase); optional ones are left out when empty.

use serde::Serialize;

use crate::catalogue::{catalogued, doc_anchor};
use crate::hang::HangReport;
use crate::human::{context_note, hang_table, occurrence_summary};
use crate::model::{Finding, Location, Severity};
use crate::report::Report;

pub const SARIF_VERSION: &str = "2.1.0";
pub const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// Options of the SARIF renderer.
#[derive(Clone, Debug)]
pub struct SarifOptions {
    /// The tool version to report (the CLI passes its own).
    pub tool_version: String,
    /// Absolute URI of docs/rules.md (e.g. the repository's web address); rules get
    /// `helpUri` = this + `#tm0009`. The schema requires `helpUri` to be an absolute URI, so
    /// without one (the default) — or with a relative one — `helpUri` is left out, and the
    /// help text names `docs/rules.md#tm0009` instead.
    pub rules_doc_uri: Option<String>,
}

impl Default for SarifOptions {
    fn default() -> Self {
        SarifOptions {
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            rules_doc_uri: None,
        }
    }
}

/// `scheme:...` with an RFC 3986 scheme (letter, then letters, digits, `+`, `-`, `.`).
fn is_absolute_uri(s: &str) -> bool {
    match s.split_once(':') {
        Some((scheme, rest)) => {
            !rest.is_empty()
                && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
                && !s.contains(char::is_whitespace)
        }
        None => false,
    }
}

#[derive(Serialize)]
pub struct Log {
    #[serde(rename = "$schema")]
    pub schema: &'static str,
    pub version: &'static str,
    pub runs: Vec<Run>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    pub tool: Tool,
    pub invocations: Vec<Invocation>,
    /// Our columns count bytes; PTX is ASCII, where bytes and code points agree.
    pub column_kind: &'static str,
    pub results: Vec<SarifResult>,
}

#[derive(Serialize)]
pub struct Tool {
    pub driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Driver {
    pub name: &'static str,
    pub version: String,
    pub rules: Vec<ReportingDescriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportingDescriptor {
    pub id: String,
    pub name: String,
    pub short_description: Text,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_description: Option<Text>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help_uri: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<Text>,
    pub default_configuration: Configuration,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<RuleProperties>,
}

#[derive(Serialize)]
pub struct Configuration {
    pub level: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleProperties {
    /// PTX ISA section the rule comes from.
    pub section: &'static str,
    pub detection: &'static str,
    /// `None` while the rule is reserved (nothing reports it yet).
    pub checked_by: Option<&'static str>,
}

#[derive(Serialize)]
pub struct Text {
    pub text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Invocation {
    pub execution_successful: bool,
    pub exit_code: u8,
    /// What was not modelled (verdict `incomplete`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_execution_notifications: Vec<Notification>,
    pub properties: InvocationProperties,
}

#[derive(Serialize)]
pub struct Notification {
    pub level: &'static str,
    pub message: Text,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<SarifLocation>,
}

#[derive(Serialize)]
pub struct InvocationProperties {
    pub verdict: crate::Verdict,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifResult {
    pub rule_id: String,
    pub rule_index: usize,
    pub level: &'static str,
    pub message: Text,
    pub locations: Vec<SarifLocation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related_locations: Vec<SarifLocation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub occurrence_count: Option<u32>,
    pub properties: ResultProperties,
}

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ResultProperties {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<ContextProperties>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ctas: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warps: Option<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// `128 occurrences: lanes 0-31 of warps 0-3 in CTAs (0,0,0)-(31,0,0)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub occurrences: Option<String>,
    /// How many distinct messages the occurrences had (the first is the result's message).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distinct_messages: Option<u32>,
}

#[derive(Serialize)]
pub struct ContextProperties {
    pub cluster: [u32; 3],
    pub cta: [u32; 3],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sm: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warp: Option<u32>,
    pub lanes: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifLocation {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<usize>,
    pub physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<Text>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PhysicalLocation {
    pub artifact_location: ArtifactLocation,
    pub region: Region,
}

#[derive(Serialize)]
pub struct ArtifactLocation {
    pub uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Region {
    pub start_line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_column: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub byte_offset: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub byte_length: Option<u32>,
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// A path as a URI reference: forward slashes, and the characters URIs reserve escaped.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            '\\' => out.push('/'),
            ' ' => out.push_str("%20"),
            '%' => out.push_str("%25"),
            '#' => out.push_str("%23"),
            '?' => out.push_str("%3F"),
            c => out.push(c),
        }
    }
    out
}

fn location(l: &Location, id: Option<usize>, message: Option<String>) -> SarifLocation {
    SarifLocation {
        id,
        physical_location: PhysicalLocation {
            artifact_location: ArtifactLocation { uri: uri(&l.file) },
            region: Region {
                // SARIF lines are 1-based and a region needs one; clamp a missing 0.
                start_line: l.line.max(1),
                start_column: (l.column > 0).then_some(l.column),
                byte_offset: l.byte_range.as_ref().map(|r| r.start),
                byte_length: l.byte_range.as_ref().map(|r| r.end.saturating_sub(r.start)),
            },
        },
        message: message.map(|text| Text { text }),
    }
}

/// Rules in order of first use, so `ruleIndex` is stable for a given report.
struct RuleTable {
    rules: Vec<ReportingDescriptor>,
    ids: Vec<(&'static str, &'static str)>,
}

impl RuleTable {
    fn index(&mut self, id: &'static str, name: &'static str, opts: &SarifOptions) -> usize {
        if let Some(i) = self.ids.iter().position(|&k| k == (id, name)) {
            return i;
        }
        self.ids.push((id, name));
        self.rules.push(descriptor(id, name, opts));
        self.rules.len() - 1
    }
}

fn descriptor(id: &str, name: &str, opts: &SarifOptions) -> ReportingDescriptor {
    match catalogued(id, name) {
        Some(r) => ReportingDescriptor {
            id: r.id.into(),
            name: r.name.into(),
            short_description: Text {
                text: r.summary.into(),
            },
            full_description: Some(Text {
                text: format!(
                    "{} When broken: {} (PTX ISA {})",
                    r.summary, r.hardware, r.section
                ),
            }),
            help_uri: opts
                .rules_doc_uri
                .as_deref()
                .filter(|u| is_absolute_uri(u))
                .map(|u| format!("{u}#{}", doc_anchor(r.id))),
            help: Some(Text {
                text: format!(
                    "{}\nWhen broken: {}\nSee PTX ISA {}; run `tmemu explain {}`; docs/rules.md#{}.",
                    r.summary,
                    r.hardware,
                    r.section,
                    r.id,
                    doc_anchor(r.id)
                ),
            }),
            default_configuration: Configuration {
                level: level(r.severity.into()),
            },
            properties: Some(RuleProperties {
                section: r.section,
                detection: r.detection.as_str(),
                checked_by: r.checked_by,
            }),
        },
        // An engine rule the catalogue does not (yet) describe.
        None => ReportingDescriptor {
            id: id.into(),
            name: name.into(),
            short_description: Text { text: name.into() },
            full_description: None,
            help_uri: None,
            help: None,
            default_configuration: Configuration { level: "error" },
            properties: None,
        },
    }
}

fn finding(f: &Finding, rule_index: usize) -> SarifResult {
    let mut text = f.message.clone();
    if let Some(c) = &f.context {
        text.push_str(&format!(" ({})", context_note(c, &f.occurrences)));
    }
    let mut related: Vec<SarifLocation> = f
        .related
        .iter()
        .enumerate()
        .map(|(i, l)| location(l, Some(i + 1), l.label.clone()))
        .collect();
    if let Some(s) = &f.source {
        let l = Location::new(s.file.clone(), s.line, s.column);
        related.push(location(
            &l,
            Some(related.len() + 1),
            Some("kernel source line (from .loc)".into()),
        ));
    }
    SarifResult {
        rule_id: f.rule.into(),
        rule_index,
        level: level(f.severity),
        message: Text { text },
        // The operand the rule is about, when known: a code-scanning view highlights it.
        locations: vec![
            match f.operand.as_ref().filter(|o| o.file == f.primary.file) {
                Some(o) => location(o, None, o.label.clone().or_else(|| f.primary.label.clone())),
                None => location(&f.primary, None, f.primary.label.clone()),
            },
        ],
        related_locations: related,
        occurrence_count: (f.occurrences.count > 1).then_some(f.occurrences.count),
        properties: ResultProperties {
            context: f.context.as_ref().map(|c| ContextProperties {
                cluster: c.cluster,
                cta: c.cta,
                sm: c.sm,
                warp: c.warp,
                lanes: c.lanes,
            }),
            seed: f.seed,
            ctas: (f.occurrences.count > 1).then_some(f.occurrences.ctas),
            warps: (f.occurrences.count > 1).then_some(f.occurrences.warps),
            occurrences: (f.occurrences.count > 1).then(|| occurrence_summary(&f.occurrences)),
            distinct_messages: (f.occurrences.messages > 1).then_some(f.occurrences.messages),
            notes: f.notes.clone(),
        },
    }
}

fn hang(h: &HangReport, rule_index: usize) -> SarifResult {
    let rows = h.rows();
    let related = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let c = &r.first.context;
            let mut who = format!("CTA ({},{},{})", c.cta[0], c.cta[1], c.cta[2]);
            if let Some(w) = c.warp {
                who.push_str(&format!(" warp {w}"));
            }
            if r.occurrences.warps > 1 {
                who.push_str(&format!(" and {} more warps", r.occurrences.warps - 1));
            }
            location(
                &r.first.location,
                Some(i + 1),
                Some(format!(
                    "{who} blocked in `{}`: waiting for {}",
                    r.first.instruction, r.first.waiting_for
                )),
            )
        })
        .collect();
    SarifResult {
        rule_id: h.rule.into(),
        rule_index,
        level: "error",
        message: Text {
            text: format!("{}\n{}", h.summary, hang_table(h)),
        },
        locations: rows
            .first()
            .map(|r| vec![location(&r.first.location, None, None)])
            .unwrap_or_default(),
        related_locations: related,
        occurrence_count: None,
        properties: ResultProperties::default(),
    }
}

/// The SARIF log as a value (for tests and for embedding).
pub fn sarif_log(report: &Report, opts: &SarifOptions) -> Log {
    let mut table = RuleTable {
        rules: Vec::new(),
        ids: Vec::new(),
    };
    let mut results = Vec::new();
    for f in &report.findings {
        let i = table.index(f.rule, f.name, opts);
        results.push(finding(f, i));
    }
    if let Some(h) = &report.hang {
        let i = table.index(h.rule, h.name, opts);
        results.push(hang(h, i));
    }
    let verdict = report.verdict();
    Log {
        schema: SARIF_SCHEMA,
        version: SARIF_VERSION,
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "tmemu",
                    version: opts.tool_version.clone(),
                    rules: table.rules,
                },
            },
            invocations: vec![Invocation {
                // The tool itself ran to the end; the verdict says what it found.
                execution_successful: true,
                exit_code: verdict.exit_code(),
                tool_execution_notifications: report
                    .incomplete
                    .iter()
                    .map(|i| Notification {
                        level: "warning",
                        message: Text {
                            text: format!("incomplete: {}", i.message),
                        },
                        locations: i.location.iter().map(|l| location(l, None, None)).collect(),
                    })
                    .chain(
                        report
                            .expects
                            .iter()
                            .filter(|e| !e.passed)
                            .map(|e| Notification {
                                level: "error",
                                message: Text {
                                    text: format!(
                                        "expect {} == {} failed: {}",
                                        e.buffer, e.reference, e.detail
                                    ),
                                },
                                locations: Vec::new(),
                            }),
                    )
                    .collect(),
                properties: InvocationProperties { verdict },
            }],
            column_kind: "unicodeCodePoints",
            results,
        }],
    }
}

/// The SARIF log, pretty-printed.
pub fn render_sarif(report: &Report, opts: &SarifOptions) -> String {
    let mut s = serde_json::to_string_pretty(&sarif_log(report, opts)).unwrap_or_default();
    s.push('\n');
    s
}

/// A SARIF log for input tmemu could not use (exit 2): one run with no results, whose
/// invocation failed (`executionSuccessful: false`, `exitCode: 2`, verdict `bad_input`) and
/// carries the message (and its place, when known) as an error notification. A CI step that
/// uploads the SARIF file then shows why nothing was checked instead of an empty file.
pub fn render_sarif_error(message: &str, place: Option<&Location>, opts: &SarifOptions) -> String {
    let mut log = sarif_log(&Report::default(), opts);
    for run in &mut log.runs {
        for inv in &mut run.invocations {
            inv.execution_successful = false;
            inv.exit_code = crate::EXIT_BAD_INPUT;
            inv.tool_execution_notifications = vec![Notification {
                level: "error",
                message: Text {
                    text: message.to_string(),
                },
                locations: place.iter().map(|l| location(l, None, None)).collect(),
            }];
        }
    }
    let mut v = serde_json::to_value(&log).unwrap_or_default();
    if let Some(p) = v.pointer_mut("/runs/0/invocations/0/properties/verdict") {
        *p = serde_json::Value::from("bad_input");
    }
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::is_absolute_uri;

    #[test]
    fn absolute_uris_have_a_scheme() {
        assert!(is_absolute_uri("https://example.org/docs/rules.md"));
        assert!(is_absolute_uri("file:///work/docs/rules.md"));
        assert!(!is_absolute_uri("docs/rules.md"));
        assert!(!is_absolute_uri("C:"));
        assert!(!is_absolute_uri("1http://x"));
        assert!(!is_absolute_uri("https://a b"));
        assert!(!is_absolute_uri(""));
    }
}
