//! The tcgen05 programs of the rule corpus (tests/corpus/rules: TM00xx, TM010x, TM0201–TM0203,
//! hang-*, legal-*) run on the engine alone, under each async policy: every engine-level mark
//! (`~ERROR`/`~WARNING`/`~NOTE` of a TM00xx/TM01xx/TM0201–0203/TM022x/TM05xx rule, `~HANG`)
//! must be reported at its line and nothing else of those rules may be. Race rules
//! (TM0204–TM0213) belong to the race observer and static rules to the static checker, so
//! they are left out here; crates/check/tests/ui_engine.rs compares the full set.
//!
//! The launch comes from the sibling spec; only the keys this corpus uses are read (grid,
//! block, cluster, one zero-filled u32 output); a program with a tensor-map parameter is
//! skipped.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use tmemu_sim::{install_globals, load, run, AsyncPolicy, GlobalMemory, Launch, RunOptions};

use crate::support::param_block;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/rules")
}

fn dims(toml: &str, key: &str) -> Option<[u32; 3]> {
    let line = toml
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{key} =")))?;
    let inner = line.split('[').nth(1)?.split(']').next()?;
    let v: Vec<u32> = inner
        .split(',')
        .map(|x| x.trim().parse().unwrap())
        .collect();
    Some([v[0], v[1], v[2]])
}

fn engine_rule(id: &str) -> bool {
    let n: u32 = id[2..].parse().unwrap();
    matches!(n, 1..=99 | 101..=119 | 202..=203 | 220..=229 | 501..=599)
}

/// (kind, rule, line) marks of the file that the engine answers for; hang lines apart.
fn marks(src: &str) -> (BTreeSet<(String, String, u32)>, BTreeSet<u32>) {
    let mut want = BTreeSet::new();
    let mut hangs = BTreeSet::new();
    for (i, line) in src.lines().enumerate() {
        let Some(pos) = line.find("//") else { continue };
        let c = &line[pos + 2..];
        if !c.contains('~') {
            continue;
        }
        let ups = c
            .trim_start()
            .chars()
            .take_while(|&ch| ch == '~' || ch == '^')
            .filter(|&ch| ch == '^')
            .count();
        let lineno = (i + 1 - ups) as u32;
        let words: Vec<&str> = c
            .split(|ch: char| ch.is_whitespace() || ch == '~' || ch == '^')
            .filter(|w| !w.is_empty())
            .collect();
        let mut k = 0;
        while k < words.len() {
            let kind = words[k];
            let rule = words.get(k + 1).filter(|w| w.starts_with("TM"));
            match kind {
                "ERROR" | "WARNING" | "NOTE" => {
                    let r = rule.unwrap().to_string();
                    if engine_rule(&r) {
                        want.insert((kind.to_string(), r, lineno));
                    }
                    k += 2;
                }
                "RELATED" => k += 2,
                "HANG" => {
                    hangs.insert(lineno);
                    k += if rule.is_some() { 2 } else { 1 };
                }
                _ => k += 1,
            }
        }
    }
    (want, hangs)
}

fn kind_of(id: &str) -> &'static str {
    match tmemu_tmem::rules::lookup(id).map(|r| r.severity) {
        Some(tmemu_tmem::rules::Severity::Warning) => "WARNING",
        Some(tmemu_tmem::rules::Severity::Note) => "NOTE",
        _ => "ERROR",
    }
}

fn check(ptx: &Path, policy: AsyncPolicy) -> Result<(), String> {
    let src = std::fs::read_to_string(ptx).unwrap();
    if src.contains("//@ ptxas = reject") {
        return Ok(());
    }
    let toml = std::fs::read_to_string(ptx.with_extension("toml")).unwrap();
    if toml.contains("tensormap =") {
        // a tensor-map parameter needs the host's spec loader (the legal TMA programs):
        // crates/check/tests/ui_engine.rs runs those
        return Ok(());
    }
    let m = tmemu_ptx::parse(&src).map_err(|e| format!("parse: {e:?}"))?;
    let k = load(&m, &src, &ptx.display().to_string(), None).map_err(|e| format!("load: {e}"))?;
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let block = dims(&toml, "block").unwrap();
    let grid = dims(&toml, "grid").unwrap();
    let threads = (block.iter().product::<u32>() * grid.iter().product::<u32>()) as usize;
    let out = g.alloc("out", &vec![0u8; threads * 4]);
    let launch = Launch {
        grid,
        block,
        cluster: dims(&toml, "cluster"),
        dyn_shared: 0,
        params: param_block(&k, [out]),
    };
    let opts = RunOptions {
        max_steps: 2_000_000,
        async_policy: policy,
        ..Default::default()
    };
    let r = run(&k, &launch, &g, &opts).map_err(|e| format!("launch: {e}"))?;
    let (mut want, want_hang) = marks(&src);
    // TM0201 is a happens-before rule: the race observer reports it (ui_engine compares it)
    want.retain(|(_, r, _)| r != "TM0201");
    let mut got = BTreeSet::new();
    for d in &r.diagnostics {
        if engine_rule(d.rule.id) {
            got.insert((
                kind_of(d.rule.id).to_string(),
                d.rule.id.to_string(),
                d.span.line,
            ));
        }
    }
    for h in r.budget_exhausted.iter() {
        for w in &h.warps {
            got.insert(("ERROR".into(), h.rule.id.to_string(), w.span.line));
        }
    }
    let got_hang: BTreeSet<u32> = r
        .hangs
        .iter()
        .flat_map(|h| h.warps.iter().map(|w| w.span.line))
        .collect();
    if want != got || want_hang != got_hang {
        return Err(format!(
            "missing {:?}, extra {:?}; hangs missing {:?}, extra {:?}\n{}",
            want.difference(&got).collect::<Vec<_>>(),
            got.difference(&want).collect::<Vec<_>>(),
            want_hang.difference(&got_hang).collect::<Vec<_>>(),
            got_hang.difference(&want_hang).collect::<Vec<_>>(),
            r.diagnostics
                .iter()
                .map(|d| format!("  {d}\n"))
                .collect::<String>()
                + &r.hangs.iter().map(|h| format!("  {h}")).collect::<String>()
        ));
    }
    Ok(())
}

fn programs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for d in dirs {
        let name = d.file_name().unwrap().to_string_lossy().to_string();
        let take = name.starts_with("TM00")
            || name.starts_with("TM010")
            || ["TM0201", "TM0202", "TM0203"]
                .iter()
                .any(|p| name.starts_with(p))
            || name.starts_with("hang-")
            || name.starts_with("legal-");
        if !take {
            continue;
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

fn run_all(policy: AsyncPolicy) {
    let mut failures = Vec::new();
    let ps = programs();
    for p in &ps {
        if let Err(e) = check(p, policy) {
            failures.push(format!(
                "{}: {e}",
                p.strip_prefix(root()).unwrap().display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} programs under {policy:?}:\n{}",
        failures.len(),
        ps.len(),
        failures.join("\n")
    );
}

#[test]
fn rule_corpus_immediate() {
    run_all(AsyncPolicy::Immediate);
}

#[test]
fn rule_corpus_delayed() {
    run_all(AsyncPolicy::Delayed(3));
}

#[test]
fn rule_corpus_adversarial() {
    run_all(AsyncPolicy::Adversarial);
}
