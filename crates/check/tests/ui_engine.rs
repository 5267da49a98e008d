//! Dynamic ui test: runs rule-corpus programs (tests/corpus/rules/README.md) on the execution
//! engine and compares its diagnostics and hang report with the marks, exactly.
//!
//! Selected: every program whose marks all name engine rules (TM022x, TM05xx, or a bare
//! `~HANG`), and every keep/legal program without marks. Programs that use `tcgen05` (the
//! engine's TMEM model is compared elsewhere), take a tensor map, or that ptxas rejects are
//! listed as pending with the reason — counted and printed, never passed.
//!
//! Comparison (README "How the runner compares"): the engine's findings as a set of
//! (kind, rule, line) — kind from the rule's catalogue severity — equal to the primary marks;
//! each warp of a hang report is a `HANG` at its line (a `~HANG TMxxxx` mark also fixes the
//! report's rule); a step-budget report (TM0506) counts as an ERROR at each running warp's
//! line; the verdict is derived as `tmemu run` does (hang > incomplete > violation > clean).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use tmemu_check::annotations::{self, Mark, MarkKind};
use tmemu_host::{resolve_spec, RunOptions, Session};
use tmemu_spec::Spec;
use tmemu_tmem::rules;

/// The step budget of these runs. Every program here is tiny (well under 10^5
/// warp-instructions when it terminates), so a far smaller budget than the CLI's 2·10^9 keeps
/// the TM0506 break fast without changing any other verdict.
const MAX_STEPS: u64 = 2_000_000;

/// Programs whose marks follow the catalogue but where the engine does not (yet) do what the
/// catalogue says. Each is run and must still disagree (so a fix shows up here), and is
/// printed as pending with the reason; its rule does not count as checked.
const ENGINE_GAPS: &[(&str, &str)] = &[
    (
        "TM0228-mbarrier-nocomplete-completes/break.ptx",
        "the loader refuses mbarrier.arrive.noComplete (crates/sim/src/loader/decode.rs), so \
         TM0228 can never fire",
    ),
    (
        "TM0228-mbarrier-nocomplete-completes/keep.ptx",
        "the loader refuses mbarrier.arrive.noComplete",
    ),
    (
        "TM0510-call-depth-exceeded/break.ptx",
        "the engine reports TM0510 at the right line but traps, so the verdict is violation; \
         the catalogue says incomplete",
    ),
];

fn gap(path: &Path) -> Option<&'static str> {
    let p = path.to_string_lossy().replace('\\', "/");
    ENGINE_GAPS
        .iter()
        .find(|(suffix, _)| p.ends_with(suffix))
        .map(|(_, why)| *why)
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn is_engine_rule(id: &str) -> bool {
    id.starts_with("TM022") || id.starts_with("TM05")
}

/// What the engine reported: primary findings, hang marks (line, rule), verdict.
struct Reported {
    primary: BTreeSet<Mark>,
    hangs: BTreeSet<(u32, String)>,
    verdict: &'static str,
}

enum Outcome {
    Ran(Reported),
    Pending(String),
}

fn run_program(ptx: &Path) -> Outcome {
    let spec_path = ptx.with_extension("toml");
    let mut spec = Spec::load(&spec_path).unwrap_or_else(|e| panic!("{e}"));
    let src = std::fs::read_to_string(ptx).unwrap();
    let shown = ptx.display().to_string();
    let module = tmemu_ptx::parse(&src).unwrap_or_else(|e| panic!("{}", e.render(&shown)));
    let kernel = match tmemu_sim::load(
        &module,
        &src,
        &shown,
        spec.kernel.as_ref().map(|k| k.value.as_str()),
    ) {
        Ok(k) => k,
        Err(tmemu_sim::LoadError::Unsupported { form, span }) => {
            return Outcome::Pending(format!(
                "engine does not support {form} (line {})",
                span.line
            ))
        }
        Err(tmemu_sim::LoadError::Invalid { message, span }) => {
            panic!("{shown}:{span}: engine refused the program: {message}")
        }
    };
    let launch_spec = resolve_spec(&mut spec, &[], &kernel).unwrap_or_else(|e| panic!("{e}"));
    if !launch_spec.tensor_maps.is_empty() {
        return Outcome::Pending("tensor-map argument".into());
    }
    let opts = RunOptions {
        max_steps: MAX_STEPS,
        ..Default::default()
    };
    let r = Session::new(&kernel, &launch_spec)
        .and_then(|s| s.run(&opts))
        .unwrap_or_else(|e| panic!("{shown}: launch: {e}"))
        .result;

    let mut primary = BTreeSet::new();
    for d in &r.diagnostics {
        let rule = rules::lookup(d.rule.id)
            .unwrap_or_else(|| panic!("engine reported uncatalogued rule {}", d.rule.id));
        primary.insert(Mark {
            kind: MarkKind::of_severity(rule.severity),
            rule: Some(d.rule.id.to_string()),
            line: d.span.line,
        });
    }
    let mut hangs = BTreeSet::new();
    for h in &r.hangs {
        for w in &h.warps {
            hangs.insert((w.span.line, h.rule.id.to_string()));
        }
    }
    for h in &r.budget_exhausted {
        for w in &h.warps {
            primary.insert(Mark {
                kind: MarkKind::Error,
                rule: Some(h.rule.id.to_string()),
                line: w.span.line,
            });
        }
    }
    let verdict = if !r.hangs.is_empty() {
        "hang"
    } else if !r.budget_exhausted.is_empty() {
        "incomplete"
    } else if !r.diagnostics.is_empty() || r.trapped {
        "violation"
    } else {
        "clean"
    };
    Outcome::Ran(Reported {
        primary,
        hangs,
        verdict,
    })
}

fn corpus_programs() -> Vec<PathBuf> {
    let dir = root().join("tests/corpus/rules");
    let mut dirs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !p.ends_with("__pycache__"))
        .collect();
    dirs.sort();
    let mut out = Vec::new();
    for d in dirs {
        let mut files: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

/// Compares one program; returns the mismatches (empty: it passes).
fn compare(path: &Path, ann: &annotations::Annotations, got: &Reported) -> Vec<String> {
    let mut errs = Vec::new();
    let want: BTreeSet<Mark> = ann
        .marks
        .iter()
        .filter(|m| !matches!(m.kind, MarkKind::Related | MarkKind::Hang))
        .cloned()
        .collect();
    for m in want.difference(&got.primary) {
        errs.push(format!(
            "missing {:?} {:?} at line {}",
            m.kind, m.rule, m.line
        ));
    }
    for m in got.primary.difference(&want) {
        errs.push(format!(
            "unexpected {:?} {:?} at line {}",
            m.kind, m.rule, m.line
        ));
    }
    let want_hang_lines: BTreeSet<u32> = ann
        .marks
        .iter()
        .filter(|m| m.kind == MarkKind::Hang)
        .map(|m| m.line)
        .collect();
    let got_hang_lines: BTreeSet<u32> = got.hangs.iter().map(|(l, _)| *l).collect();
    if want_hang_lines != got_hang_lines {
        errs.push(format!(
            "hang lines: expected {want_hang_lines:?}, engine {got_hang_lines:?}"
        ));
    }
    for m in ann.marks.iter().filter(|m| m.kind == MarkKind::Hang) {
        if let Some(rule) = &m.rule {
            if !got.hangs.iter().any(|(l, r)| *l == m.line && r == rule) {
                errs.push(format!("line {}: hang report does not name {rule}", m.line));
            }
        }
    }
    let verdict = ann.header("verdict").unwrap_or("clean");
    if verdict != got.verdict {
        errs.push(format!(
            "verdict: expected {verdict}, engine {}",
            got.verdict
        ));
    }
    errs.into_iter()
        .map(|e| format!("{}: {e}", path.display()))
        .collect()
}

#[test]
fn engine_rules_match_corpus_marks() {
    let mut ran = 0;
    let mut passed = Vec::new();
    let mut pending: Vec<(PathBuf, String)> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let mut engine_rules_broken = BTreeSet::new();
    for path in corpus_programs() {
        let text = std::fs::read_to_string(&path).unwrap();
        let ann = annotations::parse(&text)
            .unwrap_or_else(|e| panic!("{}:{}: {}", path.display(), e.line, e.message));
        let engine_marks = ann.marks.iter().all(|m| match &m.rule {
            Some(r) => is_engine_rule(r),
            None => m.kind == MarkKind::Hang,
        });
        if !engine_marks {
            continue; // a static/TMEM rule: crates/check/tests/ui.rs and the tmem tests
        }
        if ann.header("ptxas") == Some("reject") {
            pending.push((path, "ptxas rejects it (static)".into()));
            continue;
        }
        if text.contains("tcgen05.") {
            pending.push((path, "uses tcgen05".into()));
            continue;
        }
        let known_gap = gap(&path);
        let got = match run_program(&path) {
            Outcome::Ran(r) => r,
            Outcome::Pending(why) => {
                match known_gap {
                    Some(g) => pending.push((path, format!("engine gap: {g}"))),
                    None => pending.push((path, why)),
                }
                continue;
            }
        };
        if let Some(g) = known_gap {
            let errs = compare(&path, &ann, &got);
            if errs.is_empty() {
                failures.push(format!(
                    "{}: listed in ENGINE_GAPS but now matches its marks: remove it",
                    path.display()
                ));
            } else {
                pending.push((path, format!("engine gap: {g} ({})", errs.join("; "))));
            }
            continue;
        }
        ran += 1;
        for m in &ann.marks {
            if let Some(r) = &m.rule {
                engine_rules_broken.insert(r.clone());
            }
        }
        let errs = compare(&path, &ann, &got);
        if errs.is_empty() {
            passed.push(path);
        } else {
            failures.extend(errs);
        }
    }
    println!(
        "ui_engine: {ran} programs run, {} passed, {} failed, {} pending",
        passed.len(),
        ran - passed.len(),
        pending.len()
    );
    println!("engine rules with a checked break: {engine_rules_broken:?}");
    let tcgen05 = pending.iter().filter(|(_, w)| w == "uses tcgen05").count();
    println!("  pending: {tcgen05} programs use tcgen05 (not run here)");
    for (p, why) in pending.iter().filter(|(_, w)| w != "uses tcgen05") {
        println!("  pending {}: {why}", p.display());
    }
    for f in &failures {
        println!("  FAIL {f}");
    }
    assert!(
        failures.is_empty(),
        "{} mismatches (see above)",
        failures.len()
    );
    // every engine rule of the catalogue has a break that ran here
    for r in rules::RULES {
        let gap_rule = ENGINE_GAPS
            .iter()
            .any(|(p, _)| p.starts_with(r.id) && p.ends_with("break.ptx"));
        if is_engine_rule(r.id) && !gap_rule {
            assert!(
                engine_rules_broken.contains(r.id),
                "engine rule {} has no break program checked by the engine",
                r.id
            );
        }
    }
}
