//! Snapshots (insta) of what `tmemu run` prints for a dozen corpus cases, in the human, JSON
//! Lines and SARIF formats: hangs, a race with its two spans, a grouped finding, TMEM bugs
//! with their kernel source line, notes, an unmodelled form, clean runs with expects.
//!
//! Runs use `--quiet` (no timing line) and `--color never`, from the repository root, so the
//! output is byte-for-byte deterministic. Update with `INSTA_UPDATE=always cargo test -p
//! tmemu-cli --test snapshots` and review the diff.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// (snapshot name, spec, extra flags, expected exit code)
const CASES: &[(&str, &str, &[&str], i32)] = &[
    (
        "hang_barrier_deadlock",
        "tests/corpus/engine/barrier_deadlock.toml",
        &[],
        3,
    ),
    (
        "hang_mbarrier_spin",
        "tests/corpus/engine/mbarrier_spin.toml",
        &[],
        3,
    ),
    (
        "hang_expect_tx_overcount",
        "tests/corpus/bugs/expect_tx_overcount/buggy.toml",
        &[],
        3,
    ),
    (
        "grouped_oob_96_ctas",
        "crates/cli/tests/data/oob_grid.toml",
        &[],
        1,
    ),
    (
        "race_alloc_address_unsynchronised",
        "tests/corpus/bugs/alloc_address_unsynchronised/buggy.toml",
        &["--races"],
        1,
    ),
    (
        "race_ld_stage_released_before_wait",
        "tests/corpus/bugs/ld_stage_released_before_wait/buggy.toml",
        &["--races"],
        1,
    ),
    (
        "tmem_without_alloc",
        "tests/corpus/bugs/tmem_without_alloc/buggy.toml",
        &[],
        1,
    ),
    (
        "notes_missing_relinquish",
        "tests/corpus/bugs/missing_relinquish/buggy.toml",
        &[],
        0,
    ),
    (
        "incomplete_recursion",
        "crates/cli/tests/data/unsupported.toml",
        &[],
        4,
    ),
    (
        "clean_tmem_ldst",
        "tests/corpus/kernels/nvcc/tmem_ldst.alloc_st_ld_32x32b.toml",
        &[],
        0,
    ),
    (
        "clean_divergence",
        "tests/corpus/engine/divergence.toml",
        &[],
        0,
    ),
    (
        "failed_expect",
        "tests/corpus/engine/divergence.toml",
        &["--set", "n=32"],
        1,
    ),
];

fn tmemu(spec: &str, extra: &[&str], format: &str) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_tmemu"))
        .args([
            "run", spec, "--quiet", "--color", "never", "--format", format,
        ])
        .args(extra)
        .current_dir(root())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.is_empty(), "{spec}: unexpected stderr: {stderr}");
    (o.status.code().unwrap_or(-1), stdout)
}

fn snapshot(format: &str) {
    for &(name, spec, extra, code) in CASES {
        let (got, out) = tmemu(spec, extra, format);
        assert_eq!(got, code, "{name}: exit code\n{out}");
        insta::assert_snapshot!(format!("{format}__{name}"), out);
    }
}

#[test]
fn human() {
    snapshot("human");
}

#[test]
fn json() {
    snapshot("json");
    // Every line is one JSON object, the last the summary with the exit code.
    for &(name, spec, extra, code) in CASES {
        let (_, out) = tmemu(spec, extra, "json");
        let objs: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{name}: {e}: {l}")))
            .collect();
        let last = objs.last().unwrap();
        assert_eq!(last["type"], "summary", "{name}");
        assert_eq!(last["exit_code"], code, "{name}");
        assert_eq!(
            objs.iter().filter(|o| o["type"] == "summary").count(),
            1,
            "{name}"
        );
    }
}

#[test]
fn sarif() {
    snapshot("sarif");
    for &(name, spec, extra, code) in CASES {
        let (_, out) = tmemu(spec, extra, "sarif");
        let log: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(log["version"], "2.1.0", "{name}");
        let run = &log["runs"][0];
        assert_eq!(run["invocations"][0]["exitCode"], code, "{name}");
        // every result names a rule the driver lists
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        for r in run["results"].as_array().unwrap() {
            let i = r["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[i]["id"], r["ruleId"], "{name}");
        }
    }
}

/// A race is reported with both of its accesses: the primary (the later access) and the
/// related one (the earlier access), each with its line.
#[test]
fn race_findings_carry_both_spans() {
    let (_, out) = tmemu(
        "tests/corpus/bugs/ld_stage_released_before_wait/buggy.toml",
        &["--races"],
        "json",
    );
    let f: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(f["rule"], "TM0205");
    assert_eq!(f["line"], 232);
    assert_eq!(f["related"][0]["line"], 139);
    assert!(f["related"][0]["label"].as_str().unwrap().contains("read"));
    assert_eq!(
        f["source"]["file"],
        "kernels/bugs/ld_stage_released_before_wait.cu"
    );
}

/// The grouped finding stands for every CTA.
#[test]
fn grouped_finding_counts_every_cta() {
    let (_, out) = tmemu("crates/cli/tests/data/oob_grid.toml", &[], "json");
    let f: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(f["occurrences"]["count"], 96);
    assert_eq!(f["occurrences"]["ctas"], 96);
    assert_eq!(f["context"]["cta"], serde_json::json!([0, 0, 0]));
}
