//! `tmemu run --trace out.json --tmem-map out.svg` on a corpus kernel with TMEM allocations,
//! barrier and mbarrier waits and tcgen05 operations: the trace is well-formed Chrome Trace
//! Event JSON with ordered, balanced tracks; the map is well-formed SVG with one rectangle per
//! TMEM allocation the trace shows.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `spec` with both outputs into a fresh directory; returns (trace, svg).
fn traced(spec: &str, tag: &str) -> (Value, String) {
    let dir = std::env::temp_dir().join(format!("tmemu-trace-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (trace, svg) = (dir.join("t.json"), dir.join("t.svg"));
    let o = Command::new(env!("CARGO_BIN_EXE_tmemu"))
        .args(["run", spec, "--quiet", "--trace"])
        .arg(&trace)
        .arg("--tmem-map")
        .arg(&svg)
        .current_dir(root())
        .output()
        .unwrap();
    let code = o.status.code().unwrap_or(-1);
    assert!(
        [0, 1, 3].contains(&code),
        "{spec}: exit {code}: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let s = std::fs::read_to_string(&svg).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (t, s)
}

fn check_trace(t: &Value) -> HashMap<String, usize> {
    let events = t["traceEvents"].as_array().expect("traceEvents array");
    assert!(!events.is_empty());
    let mut seen_non_meta = false;
    // per (pid, tid): last ts and the B/E stack
    let mut tracks: HashMap<(u64, u64), (u64, Vec<String>)> = HashMap::new();
    // per (cat, id): begun, ended
    let mut asyncs: HashMap<(String, String), (Option<u64>, Option<u64>)> = HashMap::new();
    let mut count: HashMap<String, usize> = HashMap::new();
    for e in events {
        let ph = e["ph"].as_str().expect("ph");
        let name = e["name"].as_str().expect("name").to_string();
        let pid = e["pid"].as_u64().expect("pid");
        let tid = e["tid"].as_u64().expect("tid");
        *count
            .entry(format!("{ph}:{}", e["cat"].as_str().unwrap_or("")))
            .or_default() += 1;
        if ph == "M" {
            assert!(!seen_non_meta, "metadata after events: {e}");
            continue;
        }
        seen_non_meta = true;
        let ts = e["ts"].as_u64().expect("ts");
        let track = tracks.entry((pid, tid)).or_insert((0, Vec::new()));
        assert!(
            ts >= track.0,
            "timestamps go back on track {pid}/{tid}: {e}"
        );
        track.0 = ts;
        match ph {
            "B" => track.1.push(name),
            "E" => {
                let open = track.1.pop().unwrap_or_else(|| panic!("E without B: {e}"));
                assert_eq!(open, name, "E closes another slice");
            }
            "X" => assert!(e["dur"].as_u64().is_some(), "X without dur: {e}"),
            "b" | "e" => {
                let key = (
                    e["cat"].as_str().expect("cat").to_string(),
                    e["id"].as_str().expect("id").to_string(),
                );
                let slot = asyncs.entry(key).or_default();
                if ph == "b" {
                    assert!(slot.0.is_none(), "second b for one id: {e}");
                    slot.0 = Some(ts);
                } else {
                    let b = slot.0.unwrap_or_else(|| panic!("e before b: {e}"));
                    assert!(slot.1.is_none() && ts >= b, "bad e: {e}");
                    slot.1 = Some(ts);
                }
            }
            "i" | "C" => {}
            other => panic!("unexpected phase {other}: {e}"),
        }
    }
    for ((pid, tid), (_, open)) in &tracks {
        assert!(open.is_empty(), "unbalanced B on {pid}/{tid}: {open:?}");
    }
    for (k, (b, e)) in &asyncs {
        assert!(b.is_some() && e.is_some(), "async {k:?} not closed");
    }
    count
}

#[test]
fn trace_of_a_tcgen05_kernel_is_well_formed_and_ordered() {
    let (t, svg) = traced("tests/corpus/kernels/nvcc/tmem_mma.mma_f16_ss.toml", "mma");
    let count = check_trace(&t);
    let n = |k: &str| count.get(k).copied().unwrap_or(0);
    // one CTA and its four warps have residency tracks
    assert_eq!(n("B:cta"), 1, "{count:?}");
    assert_eq!(n("B:warp"), 4, "{count:?}");
    // blocking waits (bar.sync, mbarrier.try_wait), the TMEM allocation, tcgen05 ops
    assert!(n("X:wait") >= 1, "{count:?}");
    assert_eq!(n("b:tmem"), 1, "{count:?}");
    assert!(n("b:tensor_pipe") >= 1, "{count:?}");

    let doc = roxmltree::Document::parse(&svg).expect("SVG is XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let allocs = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("class") == Some("alloc"))
        .count();
    assert_eq!(allocs, n("b:tmem"), "one rectangle per TMEM allocation");
}

#[test]
fn trace_of_a_triton_tma_gemm_is_well_formed_and_ordered() {
    let (t, svg) = traced("tests/corpus/kernels/triton/matmul_tma_host.toml", "gemm");
    let count = check_trace(&t);
    let n = |k: &str| count.get(k).copied().unwrap_or(0);
    // 2 CTAs of 4 warps; TMA loads and tcgen05 ops from issue to completion; mbarrier
    // phases (instant + counter); mbarrier / barrier waits; one TMEM allocation per CTA
    assert_eq!(n("B:cta"), 2, "{count:?}");
    assert_eq!(n("B:warp"), 8, "{count:?}");
    assert!(n("b:tma") >= 2 && n("b:tma") == n("e:tma"), "{count:?}");
    assert!(n("b:tensor_pipe") >= 2, "{count:?}");
    assert!(
        n("i:mbarrier") >= 1 && n("C:mbarrier") == n("i:mbarrier"),
        "{count:?}"
    );
    assert!(n("X:wait") >= 1, "{count:?}");
    assert_eq!(n("b:tmem"), 2, "{count:?}");
    let doc = roxmltree::Document::parse(&svg).expect("SVG is XML");
    let allocs = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && n.attribute("class") == Some("alloc"))
        .count();
    assert_eq!(allocs, 2);
}

#[test]
fn trace_of_a_plain_kernel_has_every_cta_and_no_tmem() {
    let (t, svg) = traced("tests/corpus/kernels/triton/softmax.toml", "softmax");
    let count = check_trace(&t);
    assert_eq!(count.get("B:cta").copied(), Some(64), "{count:?}");
    assert_eq!(count.get("b:tmem"), None, "{count:?}");
    let doc = roxmltree::Document::parse(&svg).expect("SVG is XML");
    assert_eq!(
        doc.descendants()
            .filter(|n| n.attribute("class") == Some("alloc"))
            .count(),
        0
    );
}

/// Non-bulk `cp.async` copies get their own track, from issue to the `cp.async.wait_group`
/// that observes them: every span begun is ended.
#[test]
fn trace_shows_cp_async_copies() {
    let (t, _) = traced("tests/corpus/kernels/triton/dot_sync_fp64.toml", "cp_async");
    let count = check_trace(&t);
    let n = |k: &str| count.get(k).copied().unwrap_or(0);
    assert!(n("b:cp_async") >= 1, "{count:?}");
    assert_eq!(n("b:cp_async"), n("e:cp_async"), "{count:?}");
}

/// `tmemu check --trace` and `tmemu explore --trace` trace the run that reproduces the first
/// finding (or hang): the same trace `tmemu run` writes with the flags the report prints.
#[test]
fn check_and_explore_trace_the_run_that_reproduces_the_finding() {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let run = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_tmemu"))
            .args(args)
            .current_dir(root())
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    let read = |p: &PathBuf| -> Value {
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    for (cmd, spec, extra) in [
        (
            "check",
            "tests/corpus/bugs/tmem_without_alloc/buggy.toml",
            &[][..],
        ),
        (
            "explore",
            "tests/corpus/bugs/expect_tx_overcount/buggy.toml",
            &["--runs", "3"][..],
        ),
    ] {
        let out = tmp.join(format!("{cmd}_trace.json"));
        let mut args = vec![cmd, spec, "--color", "never", "--trace"];
        let out_s = out.to_str().unwrap().to_string();
        args.push(&out_s);
        args.extend_from_slice(extra);
        let (code, stderr) = run(&args);
        assert!(
            matches!(code, Some(1) | Some(3)),
            "{cmd}: {code:?} {stderr}"
        );
        // `traced run N that ...: `tmemu run <spec> FLAGS` → OUT`
        let flags = stderr
            .split("`tmemu run <spec> ")
            .nth(1)
            .and_then(|s| s.split('`').next())
            .unwrap_or_else(|| panic!("{cmd}: no traced run named: {stderr}"));
        let again = tmp.join(format!("{cmd}_again.json"));
        let mut rargs = vec!["run", spec, "--quiet", "--trace", again.to_str().unwrap()];
        rargs.extend(flags.split_whitespace());
        run(&rargs);
        let (a, b) = (read(&out), read(&again));
        check_trace(&a);
        assert_eq!(
            a, b,
            "{cmd}: the traced run is the reproducing run ({flags})"
        );
    }
}
