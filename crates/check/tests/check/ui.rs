//! Miri-style ui test of the static checker against the rule corpus
//! (tests/corpus/rules/README.md) and the bug reproductions, plus the no-false-positive run
//! over real compiler output.
//!
//! A mark is checked statically when its rule's catalogue detection is `static`, or
//! `static/dynamic` in a file ptxas rejects (`//@ ptxas = reject`: the value is an immediate
//! ptxas can see). Every other mark is pending (needs the engine); the test asserts that no
//! pending mark belongs to a static rule. Static findings are compared exactly: every
//! expected static mark reported at its line, nothing else reported anywhere.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use tmemu_check::annotations::{self, Mark, MarkKind};
use tmemu_check::{static_check, StaticFinding};
use tmemu_tmem::rules::{self, Detection};

use crate::common::{files_with_extension, root};

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    files_with_extension(dir, "ptx", out);
}

/// Every PTX under `dir` as tmemu names it: `NAME.ptx`, also where the corpus commits it
/// compressed as `NAME.ptx.gz` or `NAME.ptx.xz` (read with tmemu_host::read_ptx_file).
fn ptx_files_committed(dir: &Path, out: &mut Vec<PathBuf>) {
    ptx_files(dir, out);
    for ext in ["gz", "xz"] {
        let mut packed = Vec::new();
        files_with_extension(dir, ext, &mut packed);
        out.extend(
            packed
                .iter()
                .filter_map(|p| p.to_str()?.strip_suffix(&format!(".{ext}")))
                .filter(|p| p.ends_with(".ptx"))
                .map(PathBuf::from),
        );
    }
    out.sort();
}

fn check_file(path: &Path) -> Vec<StaticFinding> {
    let text = tmemu_host::read_ptx_file(path).unwrap_or_else(|e| panic!("{}", e.message));
    let module = tmemu_ptx::parse(&text)
        .unwrap_or_else(|e| panic!("{}", e.render(&path.display().to_string())));
    static_check(&module, &path.display().to_string())
}

/// (kind, rule, line) of every primary finding, and (RELATED, rule, line) of related spans.
fn found_set(findings: &[StaticFinding]) -> (BTreeSet<Mark>, BTreeSet<Mark>) {
    let mut primary = BTreeSet::new();
    let mut related = BTreeSet::new();
    for f in findings {
        assert_eq!(f.severity, f.rule.severity);
        primary.insert(Mark {
            kind: MarkKind::of_severity(f.severity),
            rule: Some(f.rule.id.to_string()),
            line: f.span.line,
        });
        for r in &f.related {
            related.insert(Mark {
                kind: MarkKind::Related,
                rule: Some(f.rule.id.to_string()),
                line: r.line,
            });
        }
    }
    (primary, related)
}

fn is_static(rule: &str, ptxas_rejects: bool) -> bool {
    let r = rules::lookup(rule).unwrap_or_else(|| panic!("mark names unknown rule {rule}"));
    match r.detection {
        Detection::Static => true,
        Detection::StaticOrDynamic => ptxas_rejects,
        Detection::Dynamic => false,
    }
}

#[derive(Default)]
struct Tally {
    files: usize,
    checked: usize,
    pending: usize,
    pending_rules: BTreeSet<String>,
}

/// Compares one program's static findings with its expected marks; returns problems.
fn compare(path: &Path, marks: &[Mark], ptxas_rejects: bool, tally: &mut Tally) -> Vec<String> {
    let findings = check_file(path);
    let (found, found_related) = found_set(&findings);
    let mut expected = BTreeSet::new();
    let mut expected_related = BTreeSet::new();
    let mut problems = Vec::new();
    for m in marks {
        let static_mark = m
            .rule
            .as_deref()
            .is_some_and(|r| is_static(r, ptxas_rejects));
        if !static_mark {
            tally.pending += 1;
            if let Some(r) = &m.rule {
                let rule = rules::lookup(r).unwrap();
                assert_ne!(
                    rule.detection,
                    Detection::Static,
                    "{}: pending static mark {r}",
                    path.display()
                );
                tally.pending_rules.insert(r.clone());
            }
            continue;
        }
        tally.checked += 1;
        if m.kind == MarkKind::Related {
            expected_related.insert(m.clone());
        } else {
            expected.insert(m.clone());
        }
    }
    let d = path.display();
    for m in expected.difference(&found) {
        problems.push(format!(
            "{d}:{}: expected {:?} {:?}, not reported",
            m.line, m.kind, m.rule
        ));
    }
    for m in found.difference(&expected) {
        let f = findings.iter().find(|f| f.span.line == m.line).unwrap();
        problems.push(format!(
            "{d}:{}: unexpected {:?} {:?}: {f}",
            m.line, m.kind, m.rule
        ));
    }
    // Related spans only for rules with at least one ~RELATED mark (README "How the runner
    // compares").
    let constrained: BTreeSet<_> = expected_related.iter().map(|m| m.rule.clone()).collect();
    let got: BTreeSet<_> = found_related
        .into_iter()
        .filter(|m| constrained.contains(&m.rule))
        .collect();
    if got != expected_related {
        problems.push(format!(
            "{d}: related spans {got:?}, expected {expected_related:?}"
        ));
    }
    tally.files += 1;
    problems
}

#[test]
fn rule_corpus_static_marks() {
    let dir = root().join("tests/corpus/rules");
    let mut files = Vec::new();
    ptx_files(&dir, &mut files);
    assert!(
        files.len() > 100,
        "rule corpus not found at {}",
        dir.display()
    );
    let mut tally = Tally::default();
    let mut problems = Vec::new();
    let mut fired: BTreeSet<String> = BTreeSet::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let ann = annotations::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let rejects = ann.header("ptxas") == Some("reject");
        for m in &ann.marks {
            if let Some(r) = &m.rule {
                // Catalogued severity and mark kind agree (also check_corpus.py's rule).
                let rule = rules::lookup(r).unwrap();
                // The severity of a static mark is ours to get right; a dynamic rule's
                // disagreement is listed (the engine's runner will enforce it).
                if m.kind != MarkKind::Related && m.kind != MarkKind::of_severity(rule.severity) {
                    if is_static(r, rejects) {
                        problems.push(format!(
                            "{}:{}: mark {:?} but {r} is {}",
                            path.display(),
                            m.line,
                            m.kind,
                            rule.severity.as_str()
                        ));
                    } else {
                        println!(
                            "note: {}:{}: mark {:?} but catalogue says {r} is {}",
                            path.display(),
                            m.line,
                            m.kind,
                            rule.severity.as_str()
                        );
                    }
                }
                if is_static(r, rejects) && m.kind != MarkKind::Related {
                    fired.insert(r.clone());
                }
            }
        }
        problems.extend(compare(path, &ann.marks, rejects, &mut tally));
    }
    // Every static rule of the catalogue range TM04xx, and the static TM0001–3, has a break
    // that was checked above.
    for id in ["TM0001", "TM0002", "TM0003"].into_iter().chain(
        rules::RULES
            .iter()
            .filter(|r| r.id.starts_with("TM04"))
            .map(|r| r.id),
    ) {
        assert!(fired.contains(id), "no static break mark checked for {id}");
    }
    println!(
        "rule corpus: {} files, {} static marks checked, {} marks pending (dynamic rules: {})",
        tally.files,
        tally.checked,
        tally.pending,
        tally
            .pending_rules
            .iter()
            .cloned()
            .collect::<Vec<_>>()
            .join(" ")
    );
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn bug_reproductions_static_findings() {
    let dir = root().join("tests/corpus/bugs");
    let mut tally = Tally::default();
    let mut problems = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    for d in dirs.iter().filter(|d| d.join("expected.toml").exists()) {
        let exp: toml::Table = std::fs::read_to_string(d.join("expected.toml"))
            .unwrap()
            .parse()
            .unwrap();
        let section = |s: &str| exp[s]["ptx"].as_str().unwrap().to_string();
        let (buggy, fixed) = (section("buggy"), section("fixed"));
        let mut marks = Vec::new();
        for f in exp
            .get("finding")
            .and_then(|f| f.as_array())
            .into_iter()
            .flatten()
        {
            let file = f["file"].as_str().unwrap();
            assert_eq!(file, buggy);
            let rule = f.get("rule").and_then(|r| r.as_str()).map(String::from);
            let kind = match f["severity"].as_str().unwrap() {
                "error" => MarkKind::Error,
                "warning" => MarkKind::Warning,
                "note" => MarkKind::Note,
                _ => MarkKind::Hang,
            };
            let line = f["line"].as_integer().unwrap() as u32;
            if let Some(rl) = f.get("related_line").and_then(|v| v.as_integer()) {
                marks.push(Mark {
                    kind: MarkKind::Related,
                    rule: rule.clone(),
                    line: rl as u32,
                });
            }
            marks.push(Mark { kind, rule, line });
        }
        problems.extend(compare(&d.join(&buggy), &marks, false, &mut tally));
        problems.extend(compare(&d.join(&fixed), &[], false, &mut tally));
    }
    assert!(tally.files >= 2);
    println!(
        "bugs: {} files, {} static marks checked, {} pending",
        tally.files, tally.checked, tally.pending
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Real compiler output (nvcc, Triton, Gluon, CuTe DSL, the diff corpus) and the parser's
/// accepted-grammar files: ptxas accepts all of them, so no static finding is allowed.
#[test]
fn compiler_corpus_has_no_static_findings() {
    let mut files = Vec::new();
    for sub in [
        "tests/corpus/kernels",
        "tests/corpus/diff",
        "tests/corpus/parse/ok",
    ] {
        ptx_files_committed(&root().join(sub), &mut files);
    }
    let mut with_tcgen05 = 0;
    let mut problems = Vec::new();
    for path in &files {
        let text = tmemu_host::read_ptx_file(path).unwrap_or_else(|e| panic!("{}", e.message));
        if text.starts_with("// expect-error") {
            continue;
        }
        with_tcgen05 += usize::from(text.contains("tcgen05."));
        for f in check_file(path) {
            problems.push(f.to_string());
        }
    }
    println!(
        "compiler corpus: {} files ({} with tcgen05), {} findings",
        files.len(),
        with_tcgen05,
        problems.len()
    );
    assert!(with_tcgen05 >= 5, "expected tcgen05 kernels in the corpus");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
