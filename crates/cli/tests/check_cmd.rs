//! `tmemu check` over several specs (per-spec reports, one overall exit code, JSON Lines with a
//! `spec` field and a final `check_summary`) and `tmemu explore` (the reproducing flags).

use std::path::PathBuf;
use std::process::Command;

fn tmemu(args: &[&str]) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_tmemu"))
        .args(args)
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr),
    )
}

const CLEAN: &str = "tests/corpus/engine/divergence.toml";
const HANG: &str = "tests/corpus/engine/barrier_deadlock.toml";
const MISSING: &str = "tests/corpus/engine/no_such_spec.toml";

#[test]
fn check_reports_per_spec_and_exits_with_the_worst() {
    let (code, out) = tmemu(&["check", CLEAN, HANG, "--quiet", "--color", "never"]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains(&format!("==> {CLEAN}")), "{out}");
    assert!(out.contains(&format!("==> {HANG}")), "{out}");
    assert!(out.contains("error[TM0504]: barrier-deadlock"), "{out}");
    assert!(
        out.contains("checked 2 specs: 1 hang, 1 clean; verdict: hang"),
        "{out}"
    );
    // bad input outranks clean but not a hang
    let (code, out) = tmemu(&["check", CLEAN, MISSING, "--quiet"]);
    assert_eq!(code, 2, "{out}");
    let (code, _) = tmemu(&["check", CLEAN]);
    assert_eq!(code, 0);
}

#[test]
fn check_json_names_the_spec_of_every_object() {
    let (code, out) = tmemu(&["check", CLEAN, HANG, MISSING, "--format", "json"]);
    assert_eq!(code, 3, "{out}");
    let objs: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (last, rest) = objs.split_last().unwrap();
    assert_eq!(last["type"], "check_summary");
    assert_eq!(last["specs"], 3);
    assert_eq!(last["hang"], 1);
    assert_eq!(last["clean"], 1);
    assert_eq!(last["bad_input"], 1);
    assert_eq!(last["exit_code"], 3);
    for o in rest {
        assert!(o["spec"].is_string(), "{o}");
    }
    assert!(rest
        .iter()
        .any(|o| o["type"] == "hang" && o["spec"] == HANG));
    assert!(rest
        .iter()
        .any(|o| o["type"] == "error" && o["spec"] == MISSING));
}

#[test]
fn check_sarif_has_one_run_per_readable_spec() {
    let (code, out) = tmemu(&["check", CLEAN, HANG, "--format", "sarif"]);
    assert_eq!(code, 3, "{out}");
    let log: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(log["runs"].as_array().unwrap().len(), 2);
}

#[test]
fn explore_prints_the_flags_that_reproduce_a_hang() {
    let spec = "tests/corpus/bugs/expect_tx_overcount/buggy.toml";
    let (code, out) = tmemu(&[
        "explore", spec, "--runs", "2", "--quiet", "--color", "never",
    ]);
    assert_eq!(code, 3, "{out}");
    let line = out
        .lines()
        .find(|l| l.starts_with("first hang: tmemu run "))
        .unwrap_or_else(|| panic!("{out}"));
    // the printed command reproduces the hang
    let args: Vec<&str> = line["first hang: tmemu ".len()..].split(' ').collect();
    let (code, out) = tmemu(&args);
    assert_eq!(code, 3, "{out}");
}

/// A finding in PTX committed gzip-compressed (the spec names NAME.ptx, the tree holds
/// NAME.ptx.gz) is quoted as in a plain file: the human report shows the PTX line under the
/// location, read the way the run read the PTX.
#[test]
fn findings_in_compressed_ptx_quote_the_line() {
    let spec = "tests/corpus/kernels/holdout_bugs/ho6_cutlass_mxf8.toml";
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/kernels");
    assert!(dir.join("holdout_bugs/ho6_cutlass_mxf8.ptx.gz").is_file());
    assert!(!dir.join("holdout_bugs/ho6_cutlass_mxf8.ptx").exists());
    let (code, out) = tmemu(&["run", spec, "--color", "never", "--quiet"]);
    assert_eq!(code, 0, "{out}");
    let (code, out) = tmemu(&["check", spec, "--quiet", "--color", "never"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("--> tests/corpus/kernels/holdout_bugs/ho6_cutlass_mxf8.ptx:2850:41"),
        "{out}"
    );
    assert!(
        out.contains("2850 |     tcgen05.cp.cta_group::1.32x128b.warpx4 [%r968], %rd42;"),
        "{out}"
    );
}

/// Loads never waited for stay in flight in the race detector, each with clocks as long as all
/// the ops before it (fuzz/mutate_run.py: memory grew as the square of their number until the
/// process aborted). Past its op budget (`TMEMU_RACE_MAX_OPS`, here 256; default 8192) the
/// check fails closed, `incomplete` (exit 4), saying which budget and how to raise it; under
/// the default the same 300-load loop is checked to the end and is clean.
#[test]
fn race_op_budget_makes_a_never_waited_load_loop_incomplete() {
    let spec =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/inputs/ld_no_wait_loop.toml");
    let run = |budget: Option<&str>, args: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_tmemu"));
        c.args(args).args(["--threads", "1"]).arg(&spec);
        match budget {
            Some(b) => c.env("TMEMU_RACE_MAX_OPS", b),
            None => c.env_remove("TMEMU_RACE_MAX_OPS"),
        };
        let o = c.output().unwrap();
        (
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr),
        )
    };
    for args in [&["check"][..], &["run", "--races"][..]] {
        let (code, out) = run(Some("256"), args);
        assert_eq!(code, 4, "{args:?}: {out}");
        assert!(
            out.contains("the race detector's budget of 256 asynchronous operations in flight"),
            "{args:?}: {out}"
        );
        assert!(out.contains("TMEMU_RACE_MAX_OPS=N"), "{out}");
    }
    let (code, out) = run(None, &["check"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("verdict: clean"), "{out}");
}

/// A wide grid on one SM group is checked to the end in generations (docs/arch/race.md,
/// "Generations"): 160 CTAs of 4 warps on one SM, generations of 64 warps (16 CTAs) here so
/// that there are ten. CTA 159's stores wrap onto CTA 0's elements: the two are in different
/// generations, so only the comparison of the generations' global logs can see the race,
/// and it must (at the store's line, the same store as related). Without the wrap each CTA
/// has its own elements and the check is clean, so the finding is the wrap's.
#[test]
fn race_generations_check_a_wide_grid_and_compare_across_generations() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("race_generations");
    std::fs::create_dir_all(&dir).unwrap();
    let run = |wrap: u32, gen: Option<&str>| {
        let ptx = format!(
            ".version 8.8\n.target sm_100a\n.address_size 64\n\n\
             .visible .entry wrap(.param .u64 out)\n{{\n\
             .reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n\
             ld.param.u64 %rd1, [out];\n\
             cvta.to.global.u64 %rd1, %rd1;\n\
             mov.u32 %r1, %ctaid.x;\n\
             mov.u32 %r2, %tid.x;\n\
             mad.lo.u32 %r3, %r1, 128, %r2;\n\
             rem.u32 %r3, %r3, {wrap};\n\
             mul.wide.u32 %rd2, %r3, 4;\n\
             add.s64 %rd2, %rd1, %rd2;\n\
             st.global.u32 [%rd2], %r1;\n\
             ret;\n}}\n"
        );
        let name = format!("wrap{wrap}");
        std::fs::write(dir.join(format!("{name}.ptx")), ptx).unwrap();
        let spec = format!(
            "ptx = \"{name}.ptx\"\nkernel = \"wrap\"\ngrid = [160, 1, 1]\nblock = [128, 1, 1]\n\n\
             [buffers.out]\ndtype = \"u32\"\nshape = [20480]\nfill = \"zeros\"\n\n\
             [[arg]]\nbuffer = \"out\"\n"
        );
        let path = dir.join(format!("{name}.toml"));
        std::fs::write(&path, spec).unwrap();
        let mut c = Command::new(env!("CARGO_BIN_EXE_tmemu"));
        c.args(["check", "--sms", "1", "--threads", "1", "--color", "never"])
            .arg(&path);
        match gen {
            Some(g) => c.env("TMEMU_RACE_GEN_WARPS", g),
            None => c.env_remove("TMEMU_RACE_GEN_WARPS"),
        };
        let o = c.output().unwrap();
        (
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr),
        )
    };
    for gen in [Some("64"), None] {
        let (code, out) = run(159 * 128, gen);
        assert_eq!(code, 1, "{gen:?}: {out}");
        assert!(out.contains("error[TM0212]"), "{gen:?}: {out}");
        assert!(out.contains("wrap20352.ptx:17:15"), "{gen:?}: {out}");
        assert!(out.contains("CTA (159,0,0)"), "{gen:?}: {out}");
        assert!(out.contains("CTA (0,0,0)"), "{gen:?}: {out}");
        let (code, out) = run(160 * 128, gen);
        assert_eq!(code, 0, "{gen:?}: {out}");
        assert!(out.contains("verdict: clean"), "{gen:?}: {out}");
    }
}
