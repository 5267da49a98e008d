//! Register compaction (`tmemu_sim` `loader/compact.rs`: registers whose live ranges never
//! meet share a slot) changes nothing a run computes or reports. Every launch spec of
//! tests/corpus (compiled kernels, hold-out sets, engine programs, bug reproductions) and of
//! crates/cli/tests/data is loaded with compaction off and on and run both ways; the buffers
//! after the run, the diagnostics, hangs, exhausted budgets and traps must be identical. The
//! bug reproductions also go through `check` (adversarial schedules, race observer) both
//! ways, with identical findings, hangs, verdict and buffers. `bench/compact_same.py` makes
//! the same comparison through the CLI (JSON reports, stderr, exit codes).

use std::path::{Path, PathBuf};

use tmemu_host::{
    check, parse_ptx, read_ptx_file, resolve_spec, CheckOptions, RunOptions, Session,
};
use tmemu_sim::{load_with, LoadOptions};
use tmemu_spec::Spec;

use crate::corpus::specs;

/// Keeps a livelock (a hang report is compared too) from taking seconds.
const MAX_STEPS: u64 = 20_000_000;

/// What a run (and, for a bug reproduction, a check) of `path` shows with compaction `on`;
/// `None` where the spec or its kernel does not load (the same either way: the loader's
/// refusals come before compaction).
fn outcome(path: &Path, on: bool, with_check: bool) -> Option<(u16, String)> {
    let mut spec = Spec::load(path).ok()?;
    let entry = spec.kernel.as_ref().map(|k| k.value.clone());
    let src = read_ptx_file(&spec.ptx.value).ok()?;
    let module = parse_ptx(&src, "k.ptx").ok()?;
    let opts = LoadOptions {
        compact_registers: on,
    };
    let k = load_with(&module, &src, "k.ptx", entry.as_deref(), &opts).ok()?;
    let l = resolve_spec(&mut spec, &[], &k).ok()?;
    let engine = RunOptions {
        threads: 2,
        max_steps: MAX_STEPS,
        ..Default::default()
    };
    let mut shown = match Session::new(&k, &l).map(|s| s.run(&engine)) {
        Ok(Ok(out)) => {
            let r = &out.result;
            format!(
                "buffers {:?}\ndiagnostics {:?}\nhangs {:?}\nbudget {:?}\ntrapped {}",
                out.buffers, r.diagnostics, r.hangs, r.budget_exhausted, r.trapped
            )
        }
        Ok(Err(e)) => format!("launch: {e}"),
        Err(e) => format!("session: {e}"),
    };
    if with_check {
        let opts = CheckOptions {
            engine,
            ..Default::default()
        };
        shown += &match check(&k, &l, &opts) {
            Ok(c) => format!(
                "\ncheck findings {:?}\nhangs {:?}\nbudget {:?}\nincomplete {:?}\nexpects {:?}\nverdict {:?}\nbuffers {:?}",
                c.findings,
                c.hangs,
                c.budget_exhausted,
                c.incomplete,
                c.expects_failed,
                c.verdict,
                c.buffers
            ),
            Err(e) => format!("check launch: {e}"),
        };
    }
    Some((k.n_r32, shown))
}

#[test]
fn register_compaction_changes_no_result_or_finding() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut all = Vec::new();
    specs(&root.join("tests/corpus"), &mut all);
    specs(&root.join("crates/cli/tests/data"), &mut all);
    // `TMEMU_COMPACT_ONLY=triton` compares only the specs whose path contains it (to see a
    // deliberately broken pass fail quickly: a wrong renumbering can livelock a kernel)
    let only = std::env::var("TMEMU_COMPACT_ONLY").ok();
    if let Some(o) = &only {
        all.retain(|p| p.display().to_string().contains(o.as_str()));
    }
    let (mut compared, mut smaller) = (0, 0);
    let mut diffs = Vec::new();
    for p in &all {
        let bug = p.starts_with(root.join("tests/corpus/bugs"));
        let (Some((n_off, off)), Some((n_on, on))) =
            (outcome(p, false, bug), outcome(p, true, bug))
        else {
            continue;
        };
        compared += 1;
        smaller += usize::from(n_on < n_off);
        if off != on {
            diffs.push(p.strip_prefix(&root).unwrap().display().to_string());
        }
    }
    println!("{compared} specs compared, {smaller} with fewer r32 slots compacted");
    assert!(
        only.is_some() || compared > 250 && smaller > 200,
        "{compared} compared, {smaller} compacted"
    );
    assert!(
        diffs.is_empty(),
        "results differ with compaction: {diffs:#?}"
    );
}
