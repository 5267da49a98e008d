//! `tmemu run --races --format json` on every bug reproduction of tests/corpus/bugs: each
//! finding that `expected.toml` lists is reported with its rule, severity and PTX line (and its
//! related line, when the file names one); the verdict is the expected one; the fixed variant
//! reports no finding at all.
//!
//! Expectations the engine cannot meet yet are listed in `PENDING` and printed; the test fails
//! when one of them starts to pass, so the list only shrinks.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// (bug, what is still missing).
const PENDING: &[(&str, &str)] = &[
    (
        "stage_reused_wrong_parity",
        "the overwrite (TM0209), the early epilogue (TM0206, TM0204) and the commit arriving in \
     an unobserved phase's successor (TM0232) need a delayed MMA completion; `run` uses the immediate policy, under which the same stale parity hangs \
     (TM0225). `tmemu check` runs both and reports all (crates/host/tests/bugs.rs)",
    ),
    (
        "dsmem_copy_issued_per_warp",
        "the early read (TM0213) needs a copy still in flight when the first one completes the \
     phase; under `run`'s immediate policy all four copies land before the peer's expect_tx, \
     the tx-count ends at -384 and only the hang (TM0225) is seen. `tmemu check` reports both",
    ),
    (
        "multicast_stage_reused_before_peer_release",
        "the hang (TM0225) needs the leader's refill to reach the peer's full barrier before the \
     peer armed that phase; `run`'s one schedule lets the peer arm it first, so only the early \
     read (TM0213) is seen. `tmemu check` runs further schedules and reports both",
    ),
    (
        "multicast_bytes_missing_from_receiver_expect_tx",
        "the early read of A (TM0213) needs the multicast's complete_tx to reach rank 1's \
     barrier before its own A copy; `run`'s one schedule lands A first, so only the read of B \
     racing the multicast (TM0211) is seen. `tmemu check` runs further schedules and reports both",
    ),
    (
        "st_bulk_clear_without_barrier",
        "the race is reported at whichever access comes second: `run`'s one schedule runs \
     thread 0's st.bulk before warp 1, so it reports the read and the store (TM0211), never the \
     clear racing an earlier store; `tmemu check`'s seeded schedules report all three",
    ),
    (
        "aliased_scratch_overwrites_operand",
        "the race is reported at whichever access comes second: `run`'s one schedule runs each \
     warp's operand read before the next warp's partial-sum store, so only the store is \
     reported (TM0211); `tmemu check`'s seeded schedules also report the read",
    ),
    (
        "aligned_barrier_split_roles",
        "TM0507 is reported at whichever site joins the barrier instance second: `run`'s one \
     schedule runs the producer warp first, so only the consumer's bar.sync is reported; \
     `tmemu check`'s seeded schedules report both",
    ),
    (
        "pair_cp_reads_unwaited_peer_stage",
        "the race is reported at whichever access comes second: `run`'s one schedule runs the \
     peer's bulk copy before the leader's tcgen05.cp, so only the copy's read (TM0213) is \
     reported; `tmemu check`'s seeded schedules also report the late copy (TM0209)",
    ),
    (
        "named_barrier_id_collision",
        "the race is reported at whichever access comes second: `run`'s one schedule runs the \
     early warps' reads before the late warp's store, so only the store is reported \
     (TM0211); `tmemu check`'s seeded schedules also report the read",
    ),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run_json(spec: &Path) -> (i32, Vec<Value>) {
    let o = Command::new(env!("CARGO_BIN_EXE_tmemu"))
        .arg("run")
        .arg(spec)
        .args(["--races", "--quiet", "--format", "json"])
        .current_dir(root())
        .output()
        .unwrap();
    let objs = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", spec.display())))
        .collect();
    (o.status.code().unwrap_or(-1), objs)
}

/// Why an expected finding is not in the output, if it is not.
fn missing(expected: &toml::Value, objs: &[Value], ptx: &str) -> Option<String> {
    let line = expected["line"].as_integer()?;
    let severity = expected["severity"].as_str().unwrap_or("");
    let at_line =
        |o: &Value| o["file"].as_str().is_some_and(|f| f.ends_with(ptx)) && o["line"] == line;
    if severity == "hang" {
        let hang = objs.iter().find(|o| o["type"] == "hang");
        let ok = hang.is_some_and(|h| {
            h["blocked"]
                .as_array()
                .is_some_and(|rows| rows.iter().any(at_line))
        });
        return (!ok).then(|| format!("no hang blocked at line {line}"));
    }
    let rule = expected["rule"].as_str().unwrap_or("");
    let Some(f) = objs
        .iter()
        .find(|o| o["type"] == "finding" && o["rule"] == rule && at_line(o))
    else {
        return Some(format!("no {rule} finding at line {line}"));
    };
    if f["severity"] != severity {
        return Some(format!(
            "{rule} at line {line} has severity {}",
            f["severity"]
        ));
    }
    if let Some(rel) = expected.get("related_line").and_then(|v| v.as_integer()) {
        let has = f["related"]
            .as_array()
            .is_some_and(|r| r.iter().any(|x| x["line"] == rel));
        if !has {
            return Some(format!("{rule} at line {line} lacks related line {rel}"));
        }
    }
    None
}

#[test]
fn json_findings_point_at_the_expected_ptx_lines() {
    let dir = root().join("tests/corpus/bugs");
    let mut bugs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.toml").is_file())
        .collect();
    bugs.sort();
    assert!(bugs.len() >= 6, "bug corpus not found");
    let mut failures = Vec::new();
    let mut pending_seen = Vec::new();
    for bug in &bugs {
        let name = bug.file_name().unwrap().to_string_lossy().to_string();
        let exp: toml::Value =
            toml::from_str(&std::fs::read_to_string(bug.join("expected.toml")).unwrap()).unwrap();
        let mut problems = Vec::new();

        let buggy = &exp["buggy"];
        let ptx = buggy["ptx"].as_str().unwrap();
        let (code, objs) = run_json(&bug.join(buggy["spec"].as_str().unwrap()));
        let summary = objs.last().expect("a summary line");
        if summary["verdict"].as_str() != buggy["verdict"].as_str() {
            problems.push(format!(
                "buggy verdict {} (exit {code}), expected {}",
                summary["verdict"], buggy["verdict"]
            ));
        }
        for f in exp
            .get("finding")
            .and_then(|f| f.as_array())
            .into_iter()
            .flatten()
        {
            problems.extend(missing(f, &objs, ptx));
        }

        let fixed = &exp["fixed"];
        let (_, objs) = run_json(&bug.join(fixed["spec"].as_str().unwrap()));
        let noisy: Vec<&Value> = objs
            .iter()
            .filter(|o| o["type"] == "finding" || o["type"] == "hang")
            .collect();
        if !noisy.is_empty() {
            problems.push(format!("fixed variant reports {noisy:?}"));
        }
        if objs.last().map(|s| &s["verdict"])
            != Some(&Value::from(fixed["verdict"].as_str().unwrap()))
        {
            problems.push(format!(
                "fixed verdict {:?}",
                objs.last().map(|s| &s["verdict"])
            ));
        }

        match PENDING.iter().find(|(b, _)| *b == name) {
            Some((_, why)) => {
                println!("pending: {name}: {why}; now: {problems:?}");
                if problems.is_empty() {
                    failures.push(format!("{name} passes now: remove it from PENDING"));
                }
                pending_seen.push(name);
            }
            None if !problems.is_empty() => failures.push(format!("{name}: {problems:?}")),
            None => println!("ok: {name}"),
        }
    }
    for (b, _) in PENDING {
        assert!(
            pending_seen.iter().any(|s| s == b),
            "PENDING names unknown bug {b}"
        );
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
