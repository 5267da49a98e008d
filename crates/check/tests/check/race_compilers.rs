//! Zero race findings on correct compiler output: every launch spec of
//! tests/corpus/kernels/{triton,gluon,cutedsl,nvcc,holdout} that the engine can run is run under the
//! race observer and must give no race finding at all (errors, warnings or notes). Specs the
//! engine cannot run yet are listed, printed and counted as pending, never passed. The
//! benchmark-sized specs (`*_bench*.toml`) are left to the cost measurement
//! (docs/arch/race.md).

use crate::common;

use std::path::{Path, PathBuf};

use common::{files_with_extension, print_tally, root, run_spec, NotRun};
use tmemu_sim::AsyncPolicy;
use tmemu_sim::RunOptions;

/// Specs (path under tests/corpus/kernels) on which the race observer reports a finding that
/// is a tmemu false positive, with the root cause; printed as pending, never passed, and the
/// test fails when one of them runs clean (remove it then).
const KNOWN_FALSE_POSITIVES: &[(&str, &str)] = &[(
    "holdout/ho6_gluon_i8_tma_minmax.toml",
    "two cp.reduce.async.bulk.tensor .max (and two .min) by one thread into the same global \
     bytes with no wait between them are reported as TM0213 async-write-in-flight; each \
     element's reduction is atomic (.relaxed.gpu), so they are morally strong and never race: \
     a race-observer false positive (race::detector::op_access records op accesses as weak)",
)];

/// The launch specs under `dir`, without the benchmark-sized ones.
fn specs(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut found = Vec::new();
    files_with_extension(dir, "toml", &mut found);
    found.retain(|p| !p.file_name().unwrap().to_string_lossy().contains("_bench"));
    out.extend(found);
}

#[test]
fn compiler_corpus_has_no_race_findings() {
    let mut all = Vec::new();
    for sub in ["triton", "gluon", "cutedsl", "nvcc", "holdout"] {
        specs(&root().join("tests/corpus/kernels").join(sub), &mut all);
    }
    let (mut clean, mut pending, mut failed) = (Vec::new(), Vec::new(), Vec::new());
    // `tmemu check`'s adversarial policy (ops complete as late as the rules allow) and the
    // immediate one.
    for (p, policy) in all
        .iter()
        .flat_map(|p| [AsyncPolicy::Adversarial, AsyncPolicy::Immediate].map(|q| (p, q)))
    {
        let opts = RunOptions {
            async_policy: policy,
            ..Default::default()
        };
        let shown = format!(
            "{} [{policy:?}]",
            p.strip_prefix(root()).unwrap_or(p).display()
        );
        match run_spec(p, &opts) {
            Ok(run)
                if !run.result.diagnostics.is_empty()
                    || !run.result.hangs.is_empty()
                    || !run.result.budget_exhausted.is_empty() =>
            {
                // The engine could not run it as the hardware would (a form it reports as not
                // modelled, a hang): a race verdict on that run would mean nothing.
                pending.push(format!(
                    "{shown}: engine: {}",
                    run.result
                        .diagnostics
                        .first()
                        .map(|d| d.to_string())
                        .or(run.result.hangs.first().map(|h| h.summary.clone()))
                        .or(run
                            .result
                            .budget_exhausted
                            .first()
                            .map(|h| h.summary.clone()))
                        .unwrap_or_default()
                ))
            }
            Ok(run)
                if run.findings.is_empty()
                    && KNOWN_FALSE_POSITIVES
                        .iter()
                        .any(|(k, _)| p.ends_with(format!("tests/corpus/kernels/{k}")))
                    && policy == AsyncPolicy::Immediate =>
            {
                failed.push(format!(
                    "{shown}: listed in KNOWN_FALSE_POSITIVES but clean now: remove it"
                ))
            }
            Ok(run) if run.findings.is_empty() => clean.push(format!(
                "{shown} ({} thread accesses, {} async ops, {:.2}s)",
                run.stats.thread_accesses, run.stats.ops_issued, run.seconds
            )),
            Ok(run)
                if KNOWN_FALSE_POSITIVES
                    .iter()
                    .any(|(k, _)| p.ends_with(format!("tests/corpus/kernels/{k}"))) =>
            {
                let why = KNOWN_FALSE_POSITIVES
                    .iter()
                    .find(|(k, _)| p.ends_with(format!("tests/corpus/kernels/{k}")))
                    .map_or("", |(_, w)| *w);
                pending.push(format!(
                    "{shown}: {} findings (known false positive: {why})",
                    run.findings.len()
                ))
            }
            Ok(run) => failed.push(format!(
                "{shown}: {} findings, first: {} [{} line {}; related line {}]",
                run.findings.len(),
                run.findings[0].message,
                run.findings[0].rule.id,
                run.findings[0].span.line,
                run.findings[0].related.line
            )),
            Err(NotRun::Unsupported(why)) => pending.push(format!("{shown}: {why}")),
            Err(NotRun::Error(e)) => pending.push(format!("{shown}: does not run: {e}")),
        }
    }
    print_tally(
        "race on the compiler corpus",
        &[
            ("clean", "clean", &clean),
            ("pending", "pending", &pending),
            ("with findings", "FAIL", &failed),
        ],
    );
    assert!(
        failed.is_empty(),
        "{} kernels with race findings",
        failed.len()
    );
    assert!(!clean.is_empty());
}
