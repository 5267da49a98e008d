//! What a user sees in the first minutes when something is wrong: a missing file, a bad spec
//! key, a PTX syntax error, an unsupported instruction, an impossible allocation, an unknown
//! kernel, a bad `--set`, a bad flag, a rule ptxas enforces. Each case pins the exit code (docs/cli.md) and the
//! whole output (stdout and stderr) in a snapshot: every bad input names file:line:col when
//! it has one and quotes the line, and nothing panics.
//!
//! Update with `INSTA_UPDATE=always cargo test -p tmemu-cli --test inputs` and review the diff.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const D: &str = "crates/cli/tests/data/inputs";

/// (snapshot name, arguments with `D/` for the data directory, expected exit code)
const CASES: &[(&str, &[&str], i32)] = &[
    ("missing_spec", &["run", "D/nope.toml"], 2),
    ("bad_spec_key", &["run", "D/bad_key.toml"], 2),
    ("bad_toml", &["run", "D/bad_toml.toml"], 2),
    ("missing_ptx", &["run", "D/missing_ptx.toml"], 2),
    ("ptx_syntax_error", &["run", "D/syntax.toml"], 2),
    (
        "ptx_syntax_error_json",
        &["run", "D/syntax.toml", "--format", "json"],
        2,
    ),
    (
        "ptx_syntax_error_sarif",
        &["run", "D/syntax.toml", "--format", "sarif"],
        2,
    ),
    ("unsupported_instruction", &["run", "D/unsupported.toml"], 4),
    ("impossible_alloc", &["run", "D/alloc48.toml"], 1),
    ("impossible_alloc_check", &["check", "D/alloc48.toml"], 1),
    ("unknown_kernel", &["run", "D/no_kernel.toml"], 2),
    // a PTX without any `.entry` names the spec's `ptx` key (fuzz/mutate_run.py: it named no
    // place)
    ("ptx_without_kernel", &["run", "D/no_entry.toml"], 2),
    // found by hand and by fuzz/mutate_run.py --spec-only: a PTX that is not UTF-8 names its
    // first bad byte's line and column; one that is a directory or a corrupt .ptx.xz names
    // the spec's `ptx` key (they used to name no place, or say "does not exist")
    ("ptx_not_utf8", &["run", "D/not_utf8.toml"], 2),
    ("ptx_not_utf8_check", &["check", "D/not_utf8.toml"], 2),
    ("ptx_is_a_directory", &["run", "D/ptx_is_dir.toml"], 2),
    ("ptx_xz_corrupt", &["run", "D/corrupt_xz.toml"], 2),
    ("spec_not_utf8", &["run", "D/spec_not_utf8.toml"], 2),
    // found by fuzz/mutate_run.py: a bulk copy sized far past shared memory is an
    // out-of-bounds error at the copy; the race detector used to be told of the whole 4 GiB
    // range before the copy faulted and ran out of memory shadowing it
    (
        "bulk_copy_past_shared_memory_races",
        &["run", "D/bulk_oob.toml", "--races"],
        1,
    ),
    // a launch the hardware cannot run names the spec key that asked for it
    (
        "launch_shared_memory_over_limit",
        &["run", "D/smem_over.toml"],
        2,
    ),
    (
        "launch_shared_memory_over_limit_check",
        &["check", "D/smem_over.toml"],
        2,
    ),
    // static shared memory alone past the limit names its largest declaration in the PTX
    // (it named no place: the spec has no shared_bytes key)
    (
        "launch_static_shared_memory_over_limit",
        &["run", "D/smem_static_over.toml"],
        2,
    ),
    ("shared_variable_of_4_gib", &["run", "D/smem_4gib.toml"], 2),
    (
        "launch_cluster_over_sms",
        &["explore", "D/cluster4.toml", "--runs", "1", "--sms", "2"],
        2,
    ),
    // no run proves nothing: it used to end "verdict: clean", exit 0
    (
        "explore_zero_runs",
        &["explore", "D/alloc48.toml", "--runs", "0"],
        2,
    ),
    // rules ptxas enforces are reported before running (and instead of a bare "bad input"
    // when the loader cannot take the kernel)
    (
        "static_target_unsupported",
        &[
            "check",
            "tests/corpus/rules/TM0409-target-unsupported/break.toml",
        ],
        1,
    ),
    (
        "static_vector_length_unloadable",
        &[
            "run",
            "tests/corpus/rules/TM0402-ldst-vector-length/break.toml",
        ],
        1,
    ),
    (
        "set_unknown_name",
        &["run", "D/alloc48.toml", "--set", "n=3"],
        2,
    ),
    // --set on a kernel with parameters: an unknown name lists them, an index past them says
    // how many there are, a non-scalar argument points at its place in the spec
    (
        "set_unknown_name_lists_parameters",
        &[
            "run",
            "tests/corpus/rules/TM0130-tma-store-outside-tensor/break.toml",
            "--set",
            "n=4",
        ],
        2,
    ),
    (
        "set_index_out_of_range",
        &[
            "run",
            "tests/corpus/rules/TM0130-tma-store-outside-tensor/break.toml",
            "--set",
            "5=1",
        ],
        2,
    ),
    (
        "set_not_a_scalar",
        &[
            "run",
            "tests/corpus/rules/TM0130-tma-store-outside-tensor/break.toml",
            "--set",
            "rule_kernel_out=1",
        ],
        2,
    ),
    (
        "set_without_value",
        &["run", "D/alloc48.toml", "--set", "n"],
        2,
    ),
    (
        "unknown_flag",
        &["run", "D/alloc48.toml", "--frobnicate"],
        2,
    ),
    ("explain_unknown_rule", &["explain", "TM9999"], 2),
    ("parse_missing_file", &["parse", "D/nope.ptx"], 2),
    ("parse_syntax_error", &["parse", "D/syntax.ptx"], 2),
    (
        "check_bad_and_good",
        &["check", "D/syntax.toml", "D/bad_key.toml", "D/alloc48.toml"],
        1,
    ),
    (
        "check_bad_json",
        &["check", "D/syntax.toml", "--format", "json"],
        2,
    ),
    ("explore_missing_spec", &["explore", "D/nope.toml"], 2),
    (
        "explore_seed_without_trace",
        &["explore", "D/alloc48.toml", "--seed", "3"],
        2,
    ),
    (
        "explore_trace_unknown_seed",
        &[
            "explore",
            "D/alloc48.toml",
            "--runs",
            "2",
            "--trace",
            "T/unused.json",
            "--seed",
            "99",
        ],
        2,
    ),
    (
        "check_trace_two_specs",
        &[
            "check",
            "D/alloc48.toml",
            "D/syntax.toml",
            "--trace",
            "T/unused.json",
        ],
        2,
    ),
];

fn tmemu(args: &[&str]) -> (i32, String, String) {
    let tmp = env!("CARGO_TARGET_TMPDIR");
    let args: Vec<String> = args
        .iter()
        .map(|a| {
            a.replace("D/", &format!("{D}/"))
                .replace("T/", &format!("{tmp}/"))
        })
        .collect();
    let o = Command::new(env!("CARGO_BIN_EXE_tmemu"))
        .args(&args)
        .args(["--color", "never", "--quiet"].iter().filter(|_| {
            // clap rejects flags a subcommand does not have
            !matches!(args[0].as_str(), "explain" | "parse")
        }))
        .current_dir(root())
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

#[test]
fn every_bad_input_says_where_and_exits_with_its_code() {
    for &(name, args, code) in CASES {
        let (got, stdout, stderr) = tmemu(args);
        assert_eq!(got, code, "{name}: exit code\n{stdout}\n{stderr}");
        assert!(
            !stderr.contains("panicked") && !stdout.contains("panicked"),
            "{name}: {stderr}"
        );
        let shown = format!("exit code: {got}\n--- stdout\n{stdout}--- stderr\n{stderr}");
        insta::assert_snapshot!(name, shown);
    }
}

#[test]
fn a_bad_input_in_json_mode_is_one_error_object_on_stdout() {
    let (code, stdout, _) = tmemu(&["run", "D/syntax.toml", "--format", "json"]);
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["type"], "error");
    assert_eq!(v["file"], format!("{D}/syntax.ptx"));
    assert_eq!(
        (v["line"].as_u64(), v["column"].as_u64()),
        (Some(8), Some(15))
    );
    assert_eq!(v["exit_code"], 2);
}

#[test]
fn every_subcommand_has_help_with_examples() {
    for sub in ["run", "check", "explore", "explain", "parse"] {
        let o = Command::new(env!("CARGO_BIN_EXE_tmemu"))
            .args([sub, "--help"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{sub} --help");
        assert!(text.contains("Examples:"), "{sub} --help has no examples");
    }
    let o = Command::new(env!("CARGO_BIN_EXE_tmemu"))
        .arg("--help")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("Exit codes: 0 clean, 1 violation"), "{text}");
    for flag in ["--trace", "--tmem-map", "--seed"] {
        for sub in ["check", "explore"] {
            let o = Command::new(env!("CARGO_BIN_EXE_tmemu"))
                .args([sub, "--help"])
                .output()
                .unwrap();
            assert!(
                String::from_utf8_lossy(&o.stdout).contains(flag),
                "{sub} --help lacks {flag}"
            );
        }
    }
}

/// `tmemu run` with threads makes the inputs on worker threads while the PTX loads: a bad
/// input found there is reported as the serial run reports it (same text with its file:line:col,
/// same exit code), and when the PTX is bad too, the PTX's error wins, as in the serial order.
#[test]
fn an_input_error_on_a_worker_thread_reads_as_a_serial_one() {
    for (spec, place) in [
        ("D/big_fill_bad_npy.toml", "big_fill_bad_npy.toml:16:8"),
        ("D/big_fill_bad_ptx.toml", "syntax.ptx:8:15"),
    ] {
        let serial = tmemu(&["run", spec, "--threads", "1"]);
        assert_eq!(serial.0, 2, "{spec}: {serial:?}");
        assert!(serial.2.contains(place), "{spec}: {}", serial.2);
        for threads in ["2", "4", "16"] {
            let got = tmemu(&["run", spec, "--threads", threads]);
            assert_eq!(got, serial, "{spec} with {threads} threads");
        }
    }
}
