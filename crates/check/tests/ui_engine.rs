//! The ui test of the whole rule corpus (tests/corpus/rules/README.md), Miri-style: every
//! break / keep / legal / hang program goes through what `tmemu check` does — the static
//! check ([`tmemu_check::static_check`]) and then [`tmemu_host::check`] (several schedules,
//! adversarial and immediate async policies, union of findings) — and the full set of
//! diagnostics is compared exactly with the `//@` / `~` marks: none missing, none extra.
//!
//! - Files ptxas rejects (`//@ ptxas = reject`) never run on hardware: all their marks must
//!   come from the static check alone.
//! - Every other file: static findings ∪ check findings, as a set of (kind, rule, line), kind
//!   from the rule's catalogue severity, must equal the primary marks; related spans are
//!   compared for the rules that have a `~RELATED` mark in the file; each warp of a hang
//!   report is a `HANG` at its line (a `~HANG TMxxxx` mark also fixes the report's rule); a
//!   step-budget report (TM0506) is an ERROR at each running warp's line; the verdict is
//!   check's (hang > incomplete > violation > clean; unsupported → incomplete).
//!
//! Programs tmemu cannot check correctly yet are listed in `tests/data/ui_pending.tsv`
//! (`path<TAB>reason`): run, counted and printed, never passed. A listed program that starts
//! matching fails the test (remove its line), so the list only shrinks. `BLESS=1 cargo test
//! --test ui_engine` rewrites the list from the current mismatches, keeping existing reasons
//! (review the diff: a new line is a regression unless the engine never ran that program).
//! A mismatch prints a diff: `-` expected and not reported, `+` reported and not expected,
//! each with its source line (`UI_VERBOSE=1` prints it for pending programs too).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use common::{root, rule_corpus_programs};
use tmemu_check::annotations::{self, Annotations, Mark, MarkKind};
use tmemu_host::{
    check, load_ptx_source, parse_pair, resolve_spec, CheckOptions, ErrorClass, RunOptions,
};
use tmemu_spec::Spec;
use tmemu_tmem::rules;

/// The step budget of these runs. Every program here is tiny (well under 10^5
/// warp-instructions when it terminates), so a far smaller budget than the CLI's 2·10^9 keeps
/// the TM0506 break fast without changing any other verdict.
const MAX_STEPS: u64 = 2_000_000;

const PENDING_FILE: &str = "crates/check/tests/data/ui_pending.tsv";

/// What tmemu reported for one program, in the vocabulary of the marks.
#[derive(Default)]
struct Reported {
    primary: BTreeSet<Mark>,
    related: BTreeSet<Mark>,
    /// (line, rule of the hang report)
    hangs: BTreeSet<(u32, String)>,
    verdict: String,
    /// Why the engine could not run it, when it could not.
    unsupported: Option<String>,
}

fn mark(kind: MarkKind, rule: &str, line: u32) -> Mark {
    Mark {
        kind,
        rule: Some(rule.to_string()),
        line,
    }
}

fn severity_mark(id: &str) -> MarkKind {
    MarkKind::of_severity(
        rules::lookup(id)
            .unwrap_or_else(|| panic!("tmemu reported uncatalogued rule {id}"))
            .severity,
    )
}

/// The static check, as the front end runs it before the engine.
fn static_findings(src: &str, shown: &str, got: &mut Reported) {
    let module = tmemu_ptx::parse(src).unwrap_or_else(|e| panic!("{}", e.render(shown)));
    for f in tmemu_check::static_check(&module, shown) {
        got.primary.insert(mark(
            MarkKind::of_severity(f.severity),
            f.rule.id,
            f.span.line,
        ));
        for r in &f.related {
            got.related
                .insert(mark(MarkKind::Related, f.rule.id, r.line));
        }
    }
}

fn run_program(ptx: &Path, ann: &Annotations) -> Reported {
    let ptxas_rejects = ann.header("ptxas") == Some("reject");
    let src = std::fs::read_to_string(ptx).unwrap();
    // messages (and blessed reasons) name the file as the pending list does
    let shown = key(ptx);
    let mut got = Reported::default();
    static_findings(&src, &shown, &mut got);
    if ptxas_rejects {
        // never runs on hardware: what the static check reports is everything
        got.verdict = if got.primary.iter().any(|m| m.kind == MarkKind::Error) {
            "violation".into()
        } else {
            "clean".into()
        };
        return got;
    }
    let mut spec = Spec::load(&ptx.with_extension("toml")).unwrap_or_else(|e| panic!("{e}"));
    let entry = spec.kernel.as_ref().map(|k| k.value.clone());
    let kernel = match load_ptx_source(&src, &shown, entry.as_deref()) {
        Ok(k) => k,
        Err(e) if e.class == ErrorClass::Unsupported => {
            got.verdict = "incomplete".into();
            got.unsupported = Some(e.message);
            return got;
        }
        Err(e) => panic!("{e}"),
    };
    let resolved = resolve_spec(&mut spec, &[], &kernel).unwrap_or_else(|e| panic!("{e}"));
    let mut engine = RunOptions {
        max_steps: MAX_STEPS,
        ..Default::default()
    };
    if let Some(p) = ann.header("pair_collective") {
        engine.pair_collective =
            parse_pair(p).unwrap_or_else(|| panic!("{shown}: pair_collective = {p}?"));
    }
    let opts = CheckOptions {
        engine,
        ..Default::default()
    };
    let out = check(&kernel, &resolved, &opts).unwrap_or_else(|e| panic!("{shown}: launch: {e}"));
    for f in &out.findings {
        let id = f.diagnostic.rule.id;
        got.primary
            .insert(mark(severity_mark(id), id, f.diagnostic.span.line));
        let engine_related = f.diagnostic.related.iter().map(|(s, _)| s);
        for s in engine_related.chain(f.related.iter().map(|(s, _)| s)) {
            got.related.insert(mark(MarkKind::Related, id, s.line));
        }
    }
    for h in &out.hangs {
        for w in &h.report.warps {
            got.hangs
                .insert((w.span.line, h.report.rule.id.to_string()));
        }
    }
    for h in &out.budget_exhausted {
        for w in &h.report.warps {
            got.primary
                .insert(mark(MarkKind::Error, h.report.rule.id, w.span.line));
        }
    }
    got.verdict = out.verdict.as_str().to_string();
    got
}

fn corpus_programs() -> Vec<PathBuf> {
    rule_corpus_programs(|dir| dir != "__pycache__")
}

/// `tests/corpus/rules/<dir>/<file>.ptx` → `<dir>/<file>.ptx`, the key of the pending list.
fn key(path: &Path) -> String {
    let mut it = path.iter().rev();
    let file = it.next().unwrap().to_string_lossy();
    let dir = it.next().unwrap().to_string_lossy();
    format!("{dir}/{file}")
}

fn describe(m: &Mark) -> String {
    let kind = match m.kind {
        MarkKind::Error => "ERROR",
        MarkKind::Warning => "WARNING",
        MarkKind::Note => "NOTE",
        MarkKind::Related => "RELATED",
        MarkKind::Hang => "HANG",
    };
    match &m.rule {
        Some(r) => format!("{kind} {r}"),
        None => kind.to_string(),
    }
}

/// The mismatches of one program, as diff lines (empty: it matches).
fn compare(ann: &Annotations, got: &Reported, src: &str) -> Vec<String> {
    let lines: Vec<&str> = src.lines().collect();
    let text = |l: u32| {
        lines
            .get(l.saturating_sub(1) as usize)
            .map_or("", |s| s.trim())
            .split("//")
            .next()
            .unwrap_or("")
            .trim()
            .to_string()
    };
    let mut diff = Vec::new();
    if let Some(why) = &got.unsupported {
        diff.push(format!("! not run: {why}"));
    }
    let put = |diff: &mut Vec<String>, sign: char, m: &Mark| {
        diff.push(format!(
            "{sign} {:<16} line {:>4}: {}",
            describe(m),
            m.line,
            text(m.line)
        ));
    };
    let want: BTreeSet<Mark> = ann
        .marks
        .iter()
        .filter(|m| !matches!(m.kind, MarkKind::Related | MarkKind::Hang))
        .cloned()
        .collect();
    for m in want.difference(&got.primary) {
        put(&mut diff, '-', m);
    }
    for m in got.primary.difference(&want) {
        put(&mut diff, '+', m);
    }
    // related spans: only for rules with a ~RELATED mark in the file
    let constrained: BTreeSet<&String> = ann
        .marks
        .iter()
        .filter(|m| m.kind == MarkKind::Related)
        .filter_map(|m| m.rule.as_ref())
        .collect();
    let want_rel: BTreeSet<Mark> = ann
        .marks
        .iter()
        .filter(|m| m.kind == MarkKind::Related)
        .cloned()
        .collect();
    let got_rel: BTreeSet<Mark> = got
        .related
        .iter()
        .filter(|m| m.rule.as_ref().is_some_and(|r| constrained.contains(r)))
        .cloned()
        .collect();
    for m in want_rel.difference(&got_rel) {
        put(&mut diff, '-', m);
    }
    for m in got_rel.difference(&want_rel) {
        put(&mut diff, '+', m);
    }
    let want_hang: BTreeSet<u32> = ann
        .marks
        .iter()
        .filter(|m| m.kind == MarkKind::Hang)
        .map(|m| m.line)
        .collect();
    let got_hang: BTreeSet<u32> = got.hangs.iter().map(|(l, _)| *l).collect();
    for &l in want_hang.difference(&got_hang) {
        put(
            &mut diff,
            '-',
            &Mark {
                kind: MarkKind::Hang,
                rule: None,
                line: l,
            },
        );
    }
    for &l in got_hang.difference(&want_hang) {
        let rule = got
            .hangs
            .iter()
            .find(|(x, _)| *x == l)
            .map(|(_, r)| r.clone());
        put(
            &mut diff,
            '+',
            &Mark {
                kind: MarkKind::Hang,
                rule,
                line: l,
            },
        );
    }
    for m in ann.marks.iter().filter(|m| m.kind == MarkKind::Hang) {
        if let Some(rule) = &m.rule {
            if !got.hangs.iter().any(|(l, r)| *l == m.line && r == rule)
                && got_hang.contains(&m.line)
            {
                diff.push(format!(
                    "- HANG {rule:<11} line {:>4}: the hang report names another rule",
                    m.line
                ));
            }
        }
    }
    let verdict = ann.header("verdict").unwrap_or("clean");
    if verdict != got.verdict {
        diff.push(format!("verdict: expected {verdict}, got {}", got.verdict));
    }
    diff
}

fn read_pending() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(root().join(PENDING_FILE)).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (k, why) = l
                .split_once('\t')
                .unwrap_or_else(|| panic!("{PENDING_FILE}: `{l}`: expected `path<TAB>reason`"));
            (k.to_string(), why.to_string())
        })
        .collect()
}

fn write_pending(list: &BTreeMap<String, String>) {
    let mut s = String::from(
        "# Rule-corpus programs tmemu cannot check correctly yet (crates/check/tests/ui_engine.rs).\n\
         # path<TAB>reason. Each is run and must still mismatch; remove a line when it passes.\n\
         # BLESS=1 cargo test -p tmemu-check --test ui_engine rewrites this file.\n",
    );
    for (k, why) in list {
        let _ = writeln!(s, "{k}\t{why}");
    }
    std::fs::write(root().join(PENDING_FILE), s).unwrap();
}

/// A one-line reason for a blessed entry: why it was not run, or its first mismatch.
fn auto_reason(diff: &[String]) -> String {
    let first = diff.first().map_or("", |s| s.as_str());
    let first = first.strip_prefix("! not run: ").unwrap_or(first);
    let first = first.split_whitespace().collect::<Vec<_>>().join(" ");
    if diff.len() > 1 {
        format!("{first} (+{} more)", diff.len() - 1)
    } else {
        first
    }
}

#[test]
fn whole_rule_corpus_matches_marks() {
    let bless = std::env::var_os("BLESS").is_some();
    let pending = read_pending();
    let mut passed = 0usize;
    let mut now_pending: BTreeMap<String, (String, Vec<String>)> = BTreeMap::new();
    let mut failures: Vec<(String, Vec<String>)> = Vec::new();
    let mut newly_passing = Vec::new();
    let mut broken_rules = BTreeSet::new();
    let mut seen = BTreeSet::new();
    for path in corpus_programs() {
        let k = key(&path);
        seen.insert(k.clone());
        let src = std::fs::read_to_string(&path).unwrap();
        let ann = annotations::parse(&src)
            .unwrap_or_else(|e| panic!("{}:{}: {}", path.display(), e.line, e.message));
        let got = run_program(&path, &ann);
        let diff = compare(&ann, &got, &src);
        match (diff.is_empty(), pending.get(&k)) {
            (true, None) => {
                passed += 1;
                for m in &ann.marks {
                    if let (Some(r), true) = (&m.rule, m.kind != MarkKind::Related) {
                        broken_rules.insert(r.clone());
                    }
                }
            }
            (true, Some(_)) => newly_passing.push(k),
            (false, Some(why)) => {
                now_pending.insert(k, (why.clone(), diff));
            }
            (false, None) => failures.push((k, diff)),
        }
    }
    let stale: Vec<&String> = pending.keys().filter(|k| !seen.contains(*k)).collect();

    println!(
        "ui_engine: {} programs, {passed} match their marks, {} pending, {} fail, {} listed as pending now match",
        seen.len(),
        now_pending.len(),
        failures.len(),
        newly_passing.len()
    );
    // the diff of a pending program with UI_VERBOSE=1
    let verbose = std::env::var_os("UI_VERBOSE").is_some();
    for (k, (why, diff)) in &now_pending {
        println!("  pending {k}: {why}");
        for d in diff.iter().filter(|_| verbose) {
            println!("      {d}");
        }
    }
    for (k, diff) in &failures {
        println!("FAIL tests/corpus/rules/{k}");
        for d in diff {
            println!("    {d}");
        }
    }
    for k in &newly_passing {
        println!("NOW PASSES (remove from {PENDING_FILE}): {k}");
    }
    for k in &stale {
        println!("STALE entry in {PENDING_FILE} (no such program): {k}");
    }
    // rules whose every break is pending are named, so the gap is visible
    let unchecked: Vec<&str> = rules::RULES
        .iter()
        .map(|r| r.id)
        .filter(|id| !broken_rules.contains(*id))
        .collect();
    println!(
        "rules with a matching break: {}; without one: {}",
        broken_rules.len(),
        unchecked.join(" ")
    );

    if bless {
        // a reason written by an earlier BLESS (it starts with the file's name) is refreshed;
        // a reason a person wrote is kept
        let mut list: BTreeMap<String, String> = now_pending
            .into_iter()
            .map(|(k, (why, diff))| {
                let auto = why.starts_with(&k) || why.starts_with(['-', '+']);
                let why = if auto { auto_reason(&diff) } else { why };
                (k, why)
            })
            .collect();
        for (k, diff) in &failures {
            list.insert(k.clone(), auto_reason(diff));
        }
        write_pending(&list);
        println!("BLESS: wrote {PENDING_FILE} ({} entries)", list.len());
        return;
    }
    assert!(
        failures.is_empty() && newly_passing.is_empty() && stale.is_empty(),
        "{} programs mismatch, {} pending programs now pass, {} stale pending entries (see the output above; BLESS=1 rewrites {PENDING_FILE})",
        failures.len(),
        newly_passing.len(),
        stale.len()
    );
}
