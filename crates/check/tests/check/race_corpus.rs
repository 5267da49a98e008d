//! The race rules (TM0204–TM0214) on real runs: every rule-corpus program of those rules and
//! every `legal-*` program runs on the engine under the race observer, and its race findings
//! are compared exactly with the marks (none missing, none extra), related spans included:
//! `(kind, rule, line)` of each finding against the `~ERROR/~WARNING` marks of race rules,
//! and the earlier access's line against the `~RELATED` marks of the same rule (a program
//! without a `~RELATED` mark for a rule does not constrain the related line).
//! Then the bug reproductions of tests/corpus/bugs whose expected findings are race rules:
//! buggy flagged with the expected rule at the expected line, fixed silent.
//!
//! Programs the engine cannot run yet (a form it does not model) are listed as pending,
//! printed and counted, never passed.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::{is_race_rule, print_tally, root, rule_corpus_programs, run_spec, NotRun};
use tmemu_check::annotations::{self, Mark, MarkKind};
use tmemu_sim::AsyncPolicy;
use tmemu_sim::RunOptions;

/// The async policies every program runs under: `tmemu check`'s adversarial one (ops
/// complete as late as the rules allow) and the immediate one.
const POLICIES: [AsyncPolicy; 2] = [AsyncPolicy::Adversarial, AsyncPolicy::Immediate];

fn opts_with(policy: AsyncPolicy) -> RunOptions {
    RunOptions {
        max_steps: 5_000_000,
        async_policy: policy,
        ..Default::default()
    }
}

fn opts() -> RunOptions {
    opts_with(AsyncPolicy::Adversarial)
}

fn programs() -> Vec<PathBuf> {
    rule_corpus_programs(|n| n.starts_with("legal-") || n.get(..6).is_some_and(is_race_rule))
}

/// Compares one program's race findings with its marks; `Err` lists the mismatches.
fn compare(path: &Path) -> Result<(), Result<String, String>> {
    for policy in POLICIES {
        compare_under(path, policy).map_err(|e| e.map(|m| format!("{policy:?}: {m}")))?;
    }
    Ok(())
}

fn compare_under(path: &Path, policy: AsyncPolicy) -> Result<(), Result<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let ann = annotations::parse(&text)
        .unwrap_or_else(|e| panic!("{}:{}: {}", path.display(), e.line, e.message));
    let run = match run_spec(&path.with_extension("toml"), &opts_with(policy)) {
        Ok(r) => r,
        Err(NotRun::Unsupported(why)) => return Err(Ok(why)),
        Err(NotRun::Error(e)) => return Err(Err(e)),
    };
    if let Some(why) = engine_gap(&run.result, &ann) {
        return Err(Ok(why));
    }
    let want: BTreeSet<Mark> = ann
        .marks
        .iter()
        .filter(|m| {
            !matches!(m.kind, MarkKind::Related | MarkKind::Hang)
                && m.rule.as_deref().is_some_and(is_race_rule)
        })
        .cloned()
        .collect();
    let got: BTreeSet<Mark> = run
        .findings
        .iter()
        .map(|f| Mark {
            kind: MarkKind::of_severity(f.rule.severity),
            rule: Some(f.rule.id.to_string()),
            line: f.span.line,
        })
        .collect();
    let mut errs = Vec::new();
    for m in want.difference(&got) {
        errs.push(format!(
            "missing {:?} {:?} at line {}",
            m.kind, m.rule, m.line
        ));
    }
    for m in got.difference(&want) {
        let f = run
            .findings
            .iter()
            .find(|f| f.span.line == m.line && Some(f.rule.id.to_string()) == m.rule)
            .unwrap();
        errs.push(format!(
            "unexpected {:?} {:?} at line {}: {}",
            m.kind, m.rule, m.line, f.message
        ));
    }
    for f in &run.findings {
        let related: BTreeSet<u32> = ann
            .marks
            .iter()
            .filter(|m| m.kind == MarkKind::Related && m.rule.as_deref() == Some(f.rule.id))
            .map(|m| m.line)
            .collect();
        if !related.is_empty() && !related.contains(&f.related.line) {
            errs.push(format!(
                "{} at line {}: related line {}, marks say {related:?}",
                f.rule.id, f.span.line, f.related.line
            ));
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(Err(errs.join("; ")))
    }
}

/// Programs (rule corpus path or `bug/variant`) the race model is known to miss, with the
/// reason; each must still fail (remove it when it passes), like ui_pending.tsv.
const KNOWN_MISSES: &[(&str, &str)] = &[
    (
        "st_bulk_clear_without_barrier/buggy",
        "one schedule: a race is reported at whichever access comes second, and this test's \
         run puts thread 0's st.bulk (line 38) before warp 1's accesses, so the report at the \
         st.bulk, which needs it second, never comes; `tmemu check`'s seeded schedules report all three \
         (crates/host/tests/bugs.rs)",
    ),
    (
        "aliased_scratch_overwrites_operand/buggy",
        "one schedule: a race is reported at whichever access comes second, and this test's \
         run puts each warp's operand read (line 107) before the next warp's partial-sum store, \
         so only the store is reported; `tmemu check`'s seeded schedules also report the read \
         (crates/host/tests/bugs.rs)",
    ),
    (
        "pair_cp_reads_unwaited_peer_stage/buggy",
        "one schedule: a race is reported at whichever access comes second, and this test's \
         run issues the peer's bulk copy (line 151) before the leader's tcgen05.cp (line 197), \
         so only the read is reported (TM0213); `tmemu check`'s seeded schedules also report \
         the copy (TM0209; crates/host/tests/bugs.rs)",
    ),
    (
        "named_barrier_id_collision/buggy",
        "one schedule: a race is reported at whichever access comes second, and this test's \
         run puts the early warps' reads (line 89) before the late warp's store (line 71), so \
         only the store is reported; `tmemu check`'s seeded schedules also report the read \
         (crates/host/tests/bugs.rs)",
    ),
    (
        "multicast_bytes_missing_from_receiver_expect_tx/buggy",
        "one schedule: this test's run lands rank 1's A copy before rank 0's multicast, so its \
         phase completes on A and only the multicast racing the read of B (TM0211, line 108) is \
         reported; the read of A racing its own copy (TM0213, line 142) needs the multicast's \
         complete_tx first, which `tmemu check`'s seeded schedules reach \
         (crates/host/tests/bugs.rs)",
    ),
];

/// Moves the known misses out of `failed` into `pending`; a listed program that passes fails.
fn known_misses(failed: &mut Vec<String>, pending: &mut Vec<String>, passed: &[String]) {
    for (name, why) in KNOWN_MISSES {
        if let Some(i) = failed
            .iter()
            .position(|f| f.starts_with(&format!("{name}:")))
        {
            failed.remove(i);
            pending.push(format!("{name}: {why}"));
        } else if passed.iter().any(|p| p == name) {
            failed.push(format!(
                "{name}: listed in KNOWN_MISSES but passes now: remove it"
            ));
        }
    }
}

#[test]
fn race_rules_match_corpus_marks() {
    let (mut passed, mut pending, mut failed) = (Vec::new(), Vec::new(), Vec::new());
    for p in programs() {
        let shown = p.strip_prefix(root()).unwrap_or(&p).display().to_string();
        match compare(&p) {
            Ok(()) => passed.push(shown),
            Err(Ok(why)) => pending.push(format!("{shown}: {why}")),
            Err(Err(e)) => failed.push(format!("{shown}: {e}")),
        }
    }
    known_misses(&mut failed, &mut pending, &passed);
    print_tally(
        "race corpus",
        &[
            ("passed", "ok", &passed),
            ("pending", "pending", &pending),
            ("failed", "FAIL", &failed),
        ],
    );
    assert!(
        failed.is_empty(),
        "{} programs disagree with their marks",
        failed.len()
    );
    assert!(!passed.is_empty());
}

/// tests/corpus/bugs/*/expected.toml: `[[buggy]]`-style rule/line lists. Only the race rules
/// are this test's business; the rest belong to crates/host/tests/bugs.rs.
#[test]
fn race_bug_reproductions() {
    let dir = root().join("tests/corpus/bugs");
    let mut dirs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let (mut checked, mut pending, mut failed) = (0, Vec::new(), Vec::new());
    let mut passed = Vec::new();
    for d in dirs {
        let expected: toml::Table =
            toml::from_str(&std::fs::read_to_string(d.join("expected.toml")).unwrap()).unwrap();
        let want = expected_race_marks(&expected);
        if want.is_empty() {
            continue;
        }
        for (variant, want) in [("buggy", want), ("fixed", BTreeSet::new())] {
            let shown = format!("{}/{variant}", d.file_name().unwrap().to_string_lossy());
            match run_spec(&d.join(format!("{variant}.toml")), &opts()) {
                Ok(run) if !engine_clean(&run.result, &expected, variant) => pending.push(format!(
                    "{shown}: the engine did not run it cleanly: {:?} {:?}",
                    run.result.diagnostics.first().map(|d| d.to_string()),
                    run.result.hangs.first().map(|h| h.summary.clone())
                )),
                Ok(run) => {
                    checked += 1;
                    let got: BTreeSet<(String, u32)> = run
                        .findings
                        .iter()
                        .map(|f| (f.rule.id.to_string(), f.span.line))
                        .collect();
                    if got != want {
                        failed.push(format!(
                            "{shown}: expected {want:?}, got {:?}",
                            run.findings.iter().map(|f| &f.message).collect::<Vec<_>>()
                        ));
                    } else {
                        passed.push(shown.clone());
                    }
                    for f in &run.findings {
                        let rel = related_line(&expected, f.rule.id, f.span.line);
                        if rel.is_some_and(|l| l != f.related.line) {
                            failed.push(format!(
                                "{shown}: {} at line {}: related line {}, expected {rel:?}",
                                f.rule.id, f.span.line, f.related.line
                            ));
                        }
                    }
                }
                Err(NotRun::Unsupported(why)) => pending.push(format!("{shown}: {why}")),
                Err(NotRun::Error(e)) => failed.push(format!("{shown}: {e}")),
            }
        }
    }
    known_misses(&mut failed, &mut pending, &passed);
    println!(
        "race bugs: {checked} runs checked, {} pending",
        pending.len()
    );
    for p in &pending {
        println!("  pending {p}");
    }
    for f in &failed {
        println!("  FAIL    {f}");
    }
    assert!(failed.is_empty());
}

/// The (rule, line) pairs of race rules that expected.toml lists for the buggy variant.
fn expected_race_marks(t: &toml::Table) -> BTreeSet<(String, u32)> {
    let mut out = BTreeSet::new();
    let mut visit = |v: &toml::Value| {
        if let Some(tab) = v.as_table() {
            if let (Some(rule), Some(line)) = (
                tab.get("rule").and_then(|r| r.as_str()),
                tab.get("line").and_then(|l| l.as_integer()),
            ) {
                if is_race_rule(rule) && tab.get("kind").and_then(|k| k.as_str()) != Some("related")
                {
                    out.insert((rule.to_string(), line as u32));
                }
            }
        }
    };
    for (_, v) in t {
        match v {
            toml::Value::Array(a) => a.iter().for_each(&mut visit),
            v => visit(v),
        }
    }
    out
}

/// The `related_line` expected.toml gives for the finding (rule, line), if any.
fn related_line(t: &toml::Table, rule: &str, line: u32) -> Option<u32> {
    t.get("finding")?.as_array()?.iter().find_map(|f| {
        let f = f.as_table()?;
        (f.get("rule")?.as_str()? == rule && f.get("line")?.as_integer()? == line as i64)
            .then(|| f.get("related_line")?.as_integer().map(|l| l as u32))
            .flatten()
    })
}

/// Why the engine's own verdict makes the race comparison meaningless (a diagnostic or hang
/// the marks do not expect, e.g. a form it reports as not modelled): the program is pending.
fn engine_gap(r: &tmemu_sim::RunResult, ann: &annotations::Annotations) -> Option<String> {
    let expected: BTreeSet<(&str, u32)> = ann
        .marks
        .iter()
        .filter(|m| !matches!(m.kind, MarkKind::Related | MarkKind::Hang))
        .filter_map(|m| Some((m.rule.as_deref()?, m.line)))
        .collect();
    if let Some(d) = r
        .diagnostics
        .iter()
        .find(|d| !expected.contains(&(d.rule.id, d.span.line)))
    {
        return Some(format!("engine reports {d}"));
    }
    let hang_marks = ann.marks.iter().any(|m| m.kind == MarkKind::Hang);
    if let Some(h) = r.hangs.first().filter(|_| !hang_marks) {
        return Some(format!("engine hangs: {}", h.summary));
    }
    if let Some(h) = r.budget_exhausted.first() {
        return Some(format!("engine: {}", h.summary));
    }
    None
}

/// Whether the engine ran a bug reproduction with only the findings expected.toml lists.
fn engine_clean(r: &tmemu_sim::RunResult, t: &toml::Table, variant: &str) -> bool {
    let expected: BTreeSet<(String, u32)> = if variant == "buggy" {
        t.get("finding")
            .and_then(|f| f.as_array())
            .into_iter()
            .flatten()
            .filter_map(|f| {
                let f = f.as_table()?;
                Some((
                    f.get("rule")?.as_str()?.to_string(),
                    f.get("line")?.as_integer()? as u32,
                ))
            })
            .collect()
    } else {
        BTreeSet::new()
    };
    r.diagnostics
        .iter()
        .all(|d| expected.contains(&(d.rule.id.to_string(), d.span.line)))
        && r.hangs.is_empty()
        && r.budget_exhausted.is_empty()
}
