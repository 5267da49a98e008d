//! Bug reproductions (tests/corpus/bugs/*, format in tests/corpus/rules/README.md): each
//! buggy kernel goes through what `tmemu check` does (static check, then [`tmemu_host::check`])
//! and must report exactly the findings of its `expected.toml` — rule, severity and PTX line
//! (and the related line where one is given and tmemu reports related spans) — with the
//! expected verdict; the fixed kernel must be silent: no finding of any severity, verdict
//! clean.
//!
//! Reproductions tmemu cannot check yet are listed in [`PENDING`] with the reason: run,
//! printed, counted, never passed; the test fails when one starts to pass (remove it).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use tmemu_host::{check, load_ptx_source, resolve_spec, CheckOptions, ErrorClass, RunOptions};
use tmemu_spec::Spec;

/// Reproductions whose buggy or fixed kernel tmemu cannot check correctly yet.
const PENDING: &[(&str, &str)] = &[];

/// Runs are tiny; a small step budget keeps a livelock from taking seconds.
const MAX_STEPS: u64 = 20_000_000;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A finding in expected.toml's vocabulary: (severity, rule, line); a hang is
/// ("hang", rule of the report, line of a blocked warp).
type Found = (String, Option<String>, u32);

struct Checked {
    findings: BTreeSet<Found>,
    /// (rule, related line) of every finding with a related span.
    related: BTreeSet<(String, u32)>,
    verdict: String,
}

/// `nsms`: the launch's SMs (`tmemu check --sms`); `None`: the default.
fn run(dir: &Path, ptx: &str, spec: &str, nsms: Option<u32>) -> Result<Checked, String> {
    let path = dir.join(ptx);
    let src = std::fs::read_to_string(&path).map_err(|e| format!("{ptx}: {e}"))?;
    let mut findings = BTreeSet::new();
    let mut related = BTreeSet::new();
    let module = tmemu_ptx::parse(&src).map_err(|e| e.render(ptx))?;
    let mut static_error = false;
    for f in tmemu_check::static_check(&module, ptx) {
        static_error |= f.severity == tmemu_tmem::rules::Severity::Error;
        findings.insert((
            f.severity.as_str().to_string(),
            Some(f.rule.id.to_string()),
            f.span.line,
        ));
        for r in &f.related {
            related.insert((f.rule.id.to_string(), r.line));
        }
    }
    let mut spec = Spec::load(&dir.join(spec)).map_err(|e| e.to_string())?;
    let entry = spec.kernel.as_ref().map(|k| k.value.clone());
    let kernel = match load_ptx_source(&src, ptx, entry.as_deref()) {
        Ok(k) => k,
        Err(e) if e.class == ErrorClass::Unsupported => return Err(e.message),
        Err(e) => panic!("{e}"),
    };
    let resolved = resolve_spec(&mut spec, &[], &kernel).map_err(|e| e.message)?;
    let mut engine = RunOptions {
        max_steps: MAX_STEPS,
        ..Default::default()
    };
    if let Some(n) = nsms {
        engine.nsms = n;
    }
    let opts = CheckOptions {
        engine,
        ..Default::default()
    };
    let out = check(&kernel, &resolved, &opts).map_err(|e| format!("launch: {e}"))?;
    for f in &out.findings {
        let d = &f.diagnostic;
        findings.insert((
            f.severity.as_str().to_string(),
            Some(d.rule.id.to_string()),
            d.span.line,
        ));
        let engine_related = d.related.iter().map(|(s, _)| s);
        for span in engine_related.chain(f.related.iter().map(|(s, _)| s)) {
            related.insert((d.rule.id.to_string(), span.line));
        }
    }
    for h in out.hangs.iter().chain(&out.budget_exhausted) {
        for w in &h.report.warps {
            findings.insert((
                "hang".into(),
                Some(h.report.rule.id.to_string()),
                w.span.line,
            ));
        }
    }
    let verdict = if static_error && out.verdict == tmemu_host::Verdict::Clean {
        "violation".to_string()
    } else {
        out.verdict.as_str().to_string()
    };
    Ok(Checked {
        findings,
        related,
        verdict,
    })
}

fn field<'a>(t: &'a toml::Table, key: &str) -> &'a str {
    t.get(key)
        .and_then(|v| v.as_str())
        .unwrap_or_else(|| panic!("expected.toml: missing string `{key}`"))
}

/// The mismatches of one reproduction (empty: it passes), on `nsms` SMs (`None`: default).
fn compare(dir: &Path, nsms: Option<u32>) -> Vec<String> {
    let exp: toml::Table = std::fs::read_to_string(dir.join("expected.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let buggy = exp["buggy"].as_table().unwrap();
    let fixed = exp["fixed"].as_table().unwrap();
    let mut errs = Vec::new();
    let mut want = BTreeSet::new();
    let mut want_related = BTreeSet::new();
    for f in exp
        .get("finding")
        .and_then(|v| v.as_array())
        .into_iter()
        .flatten()
    {
        let f = f.as_table().unwrap();
        let severity = field(f, "severity").to_string();
        let rule = f.get("rule").and_then(|v| v.as_str()).map(str::to_string);
        let line = f["line"].as_integer().unwrap() as u32;
        assert_eq!(field(f, "file"), field(buggy, "ptx"));
        if let Some(r) = f.get("related_line").and_then(|v| v.as_integer()) {
            want_related.insert((rule.clone().unwrap_or_default(), r as u32));
        }
        want.insert((severity, rule, line));
    }
    match run(dir, field(buggy, "ptx"), field(buggy, "spec"), nsms) {
        Err(e) => errs.push(format!("buggy not checked: {e}")),
        Ok(got) => {
            // a hang mark without a rule matches a hang report of any rule at that line
            let norm = |s: &BTreeSet<Found>, rule_less_hangs: &BTreeSet<u32>| {
                s.iter()
                    .map(|(k, r, l)| {
                        if k == "hang" && rule_less_hangs.contains(l) {
                            (k.clone(), None, *l)
                        } else {
                            (k.clone(), r.clone(), *l)
                        }
                    })
                    .collect::<BTreeSet<Found>>()
            };
            let rule_less: BTreeSet<u32> = want
                .iter()
                .filter(|(k, r, _)| k == "hang" && r.is_none())
                .map(|(_, _, l)| *l)
                .collect();
            let got_set = norm(&got.findings, &rule_less);
            for m in want.difference(&got_set) {
                errs.push(format!("buggy: missing {} {:?} at line {}", m.0, m.1, m.2));
            }
            for m in got_set.difference(&want) {
                errs.push(format!(
                    "buggy: unexpected {} {:?} at line {}",
                    m.0, m.1, m.2
                ));
            }
            // related spans: checked where the expected finding names one
            for (rule, line) in &want_related {
                if !got.related.contains(&(rule.clone(), *line)) {
                    errs.push(format!("buggy: {rule} has no related span at line {line}"));
                }
            }
            if got.verdict != field(buggy, "verdict") {
                errs.push(format!(
                    "buggy: verdict {}, expected {}",
                    got.verdict,
                    field(buggy, "verdict")
                ));
            }
        }
    }
    match run(dir, field(fixed, "ptx"), field(fixed, "spec"), nsms) {
        Err(e) => errs.push(format!("fixed not checked: {e}")),
        Ok(got) => {
            for m in &got.findings {
                errs.push(format!(
                    "fixed: unexpected {} {:?} at line {}",
                    m.0, m.1, m.2
                ));
            }
            if got.verdict != "clean" {
                errs.push(format!("fixed: verdict {}, expected clean", got.verdict));
            }
        }
    }
    errs
}

#[test]
fn bug_reproductions_flag_buggy_and_pass_fixed() {
    let base = root().join("tests/corpus/bugs");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&base)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expected.toml").exists())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 6, "expected the six bug reproductions");
    let mut failures = Vec::new();
    let mut passed = 0;
    let mut pending = 0;
    for d in &dirs {
        let name = d.file_name().unwrap().to_string_lossy().to_string();
        let errs = compare(d, None);
        let listed = PENDING.iter().find(|(n, _)| *n == name).map(|(_, w)| *w);
        match (errs.is_empty(), listed) {
            (true, None) => {
                passed += 1;
                println!("ok      {name}");
            }
            (true, Some(_)) => failures.push(format!(
                "{name}: listed in PENDING but now passes: remove it"
            )),
            (false, Some(why)) => {
                pending += 1;
                println!("pending {name}: {why}");
                for e in &errs {
                    println!("          {e}");
                }
            }
            (false, None) => {
                for e in errs {
                    failures.push(format!("{name}: {e}"));
                }
            }
        }
    }
    for (n, _) in PENDING {
        assert!(
            dirs.iter().any(|d| d.ends_with(n)),
            "PENDING names {n}, which is not a reproduction"
        );
    }
    println!(
        "bugs: {} reproductions, {passed} pass, {pending} pending, {} failures",
        dirs.len(),
        failures.len()
    );
    for f in &failures {
        println!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Scope races are found by the detector inside an SM group as well as by the comparison
/// between groups: on one or two SMs the CTAs of histogram_flush_block_scope share a group
/// (so they meet in one detector), and the findings are the expected ones.
#[test]
fn scope_races_inside_one_sm_group() {
    let dir = root().join("tests/corpus/bugs/histogram_flush_block_scope");
    for nsms in [1, 2] {
        let errs = compare(&dir, Some(nsms));
        assert!(errs.is_empty(), "--sms {nsms}: {errs:#?}");
    }
}

/// `check` with threads runs its schedules side by side and merges them in plan order: the
/// outcome (findings and their runs, hangs, verdicts, per-run counts, buffers) is the one the
/// runs give one after the other on one thread, on reproductions with hangs, schedule-
/// dependent findings and several rules.
#[test]
fn check_side_by_side_equals_one_run_after_another() {
    let dirs = [
        "fresh_barrier_wait_parity_one",
        "pair_dealloc_before_peer_alloc",
        "stage_reused_wrong_parity",
        "expect_tx_overcount",
        "ld_stage_released_before_wait",
        "tmem_buffers_exceed_512_columns",
        "cluster_exit_while_peer_reads",
        "mma_overwrites_tmem_in_use",
    ];
    for name in dirs {
        let dir = root().join("tests/corpus/bugs").join(name);
        let src = std::fs::read_to_string(dir.join("buggy.ptx")).unwrap();
        let mut spec = Spec::load(&dir.join("buggy.toml")).unwrap();
        let entry = spec.kernel.as_ref().map(|k| k.value.clone());
        let kernel = load_ptx_source(&src, "buggy.ptx", entry.as_deref()).unwrap();
        let resolved = resolve_spec(&mut spec, &[], &kernel).unwrap();
        let outcome = |threads: usize| {
            let opts = CheckOptions {
                engine: RunOptions {
                    max_steps: MAX_STEPS,
                    threads,
                    ..Default::default()
                },
                ..Default::default()
            };
            let mut o = check(&kernel, &resolved, &opts).unwrap();
            // times are the one thing allowed to differ
            o.stats.wall_seconds = 0.0;
            o.runs.iter_mut().for_each(|r| r.wall_seconds = 0.0);
            format!("{o:?}")
        };
        let one = outcome(1);
        assert!(one.contains("runs: 5"), "{name}: expected five runs: {one}");
        for threads in [2, 5, 8] {
            assert!(
                outcome(threads) == one,
                "{name}: --threads {threads} differs"
            );
        }
    }
}
