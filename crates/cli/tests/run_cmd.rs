//! `tmemu run` end to end: exit codes, hang reports, expects, determinism across --threads.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tmemu(args: &[&str]) -> (i32, String, Duration) {
    let t = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_tmemu"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    (o.status.code().unwrap_or(-1), text, t.elapsed())
}

#[test]
fn barrier_deadlock_exits_3_with_a_hang_report() {
    let (code, out, took) = tmemu(&["run", "tests/corpus/engine/barrier_deadlock.toml"]);
    assert_eq!(code, 3, "{out}");
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert!(out.contains("error[TM0504]: barrier-deadlock"), "{out}");
    assert!(
        out.contains("--> tests/corpus/engine/barrier_deadlock.ptx:17:5"),
        "{out}"
    );
    assert!(
        out.contains("`bar.sync`") && out.contains("CTA barrier 1: 32 of 64 threads arrived"),
        "{out}"
    );
    assert!(out.contains("verdict: hang"), "{out}");
}

#[test]
fn mbarrier_spin_exits_3_with_a_hang_report() {
    let (code, out, took) = tmemu(&["run", "tests/corpus/engine/mbarrier_spin.toml"]);
    assert_eq!(code, 3, "{out}");
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert!(out.contains("error[TM0225]: mbarrier-hang"), "{out}");
    assert!(out.contains("mbarrier_spin.ptx:21:5"), "{out}");
    assert!(
        out.contains("`mbarrier.try_wait.parity.shared::cta.b64`  mbarrier at shared offset 0x400 (CTA rank 0) to leave phase parity 0: phase 0, pending arrivals 1 of 2, tx-count 0"),
        "{out}"
    );
}

#[test]
fn clean_runs_exit_0_and_check_their_expects() {
    for spec in [
        "tests/corpus/engine/divergence.toml",
        "tests/corpus/engine/mbarrier_phases.toml",
        "tests/corpus/kernels/triton/softmax.toml",
    ] {
        let (code, out, _) = tmemu(&["run", spec]);
        assert_eq!(code, 0, "{spec}: {out}");
        assert!(
            out.contains("verdict: clean") && !out.contains("FAILED"),
            "{spec}: {out}"
        );
    }
}

#[test]
fn set_override_changes_a_scalar_and_a_wrong_expect_exits_1() {
    // n = 32 puts the per-warp counts at out[32..34], so the reference no longer matches
    let (code, out, _) = tmemu(&[
        "run",
        "tests/corpus/engine/divergence.toml",
        "--set",
        "n=32",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("expect out == ") && out.contains("FAILED"),
        "{out}"
    );
}

#[test]
fn stats_and_thread_count_do_not_change_outputs() {
    let dir = std::env::temp_dir().join(format!("tmemu-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut saved = Vec::new();
    for t in ["1", "2"] {
        let stats = dir.join(format!("stats{t}.json"));
        let (code, out, _) = tmemu(&[
            "run",
            "tests/corpus/kernels/triton/softmax.toml",
            "--threads",
            t,
            "--stats",
            stats.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{out}");
        let s = std::fs::read_to_string(&stats).unwrap();
        for key in [
            "\"warp_instructions\": 38400",
            "\"thread_instructions\":",
            "\"wall_seconds\":",
            "\"ctas\": 64",
        ] {
            assert!(s.contains(key), "{key} missing in {s}");
        }
        saved.push(s.split("\"wall_seconds\"").next().unwrap().to_string());
    }
    assert_eq!(saved[0], saved[1]);
}

#[test]
fn unsupported_forms_exit_4_and_bad_specs_exit_2() {
    let (code, out, _) = tmemu(&["run", "crates/cli/tests/data/unsupported.toml"]);
    assert_eq!(code, 4, "{out}");
    assert!(
        out.contains("unsupported: ") && out.contains("verdict: incomplete"),
        "{out}"
    );
    let (code, out, _) = tmemu(&["run", "tests/corpus/engine/no_such_spec.toml"]);
    assert_eq!(code, 2, "{out}");
}

/// `--threads` defaults to every available core (`0`: auto), and what a run reports does not
/// depend on it: the human report (its stats line's time and thread count masked), the JSON
/// report and the saved statistics other than time and thread count are those of `--threads 1`.
/// atomic_hist.toml has global atomics, so the engine runs it on one thread whatever is asked.
#[test]
fn default_threads_are_every_core_and_change_nothing() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let dir = std::env::temp_dir().join(format!("tmemu-run-default-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stats_line = |out: &str| {
        out.lines()
            .find(|l| l.contains(" M warp-instr/s, "))
            .unwrap_or_else(|| panic!("no stats line in {out}"))
            .to_string()
    };
    // the stats line up to ") in <time>", and the rest of the report
    let masked = |out: &str| {
        out.lines()
            .map(|l| l.split(") in ").next().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    for (spec, atomics) in [
        ("tests/corpus/kernels/triton/softmax.toml", false),
        ("tests/corpus/engine/triton/atomic_hist.toml", true),
    ] {
        let mut reports = Vec::new();
        for threads in [None, Some("0"), Some("1")] {
            let stats = dir.join("stats.json");
            let mut args = vec!["run", spec, "--stats", stats.to_str().unwrap()];
            args.extend(threads.map(|t| ["--threads", t]).into_iter().flatten());
            let (code, out, _) = tmemu(&args);
            assert_eq!(code, 0, "{spec} {threads:?}: {out}");
            let want = if threads == Some("1") || atomics {
                1
            } else {
                cores
            };
            let plural = if want == 1 { "" } else { "s" };
            assert!(
                stats_line(&out).ends_with(&format!(", {want} thread{plural})")),
                "{spec} {threads:?}: {out}"
            );
            let s = std::fs::read_to_string(&stats).unwrap();
            assert!(
                s.contains(&format!("\"threads\": {want},")),
                "{spec} {threads:?}: {s}"
            );
            let (json_code, json, _) =
                tmemu(&[&args[..2], &["--format", "json"], &args[4..]].concat());
            assert_eq!(json_code, 0, "{json}");
            let s = s.split("\"wall_seconds\"").next().unwrap().to_string();
            reports.push((masked(&out), json, s));
        }
        assert!(
            reports.windows(2).all(|w| w[0] == w[1]),
            "{spec}: reports differ across --threads: {reports:#?}"
        );
    }
}

/// `run --races` compares the SM groups' global memory after the launch, as `check` does: two
/// CTAs of different clusters (so different SM groups) storing to the same bytes race (TM0212
/// at the store, related to the other CTA's), with any thread count; the release/acquire
/// version is silent.
#[test]
fn run_races_compares_sm_groups() {
    let spec = "tests/corpus/rules/TM0212-global-data-race/break-cross-cta.toml";
    for threads in ["1", "2"] {
        let (code, out, _) = tmemu(&["run", "--races", "--threads", threads, spec]);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("error[TM0212]: global-data-race"), "{out}");
        assert!(
            out.contains("--> tests/corpus/rules/TM0212-global-data-race/break-cross-cta.ptx:45:"),
            "{out}"
        );
        assert!(out.contains("verdict: violation (1 error"), "{out}");
    }
    let (code, out, _) = tmemu(&[
        "run",
        "--races",
        "tests/corpus/rules/legal-cross-cta-release-acquire/keep.toml",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("verdict: clean"), "{out}");
}

/// `save`s are written from the device buffers in place, one pool task each, as header +
/// bytes: the files are `.npy` encodings of exactly the run's buffers (an input saved
/// unchanged is its source array), the same at 1 and 4 threads; `TMEMU_PHASES=1` adds its
/// phase lines on stderr, in order, and changes nothing else.
#[test]
fn saves_are_the_buffers_in_place_and_phases_change_nothing() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("saves_in_place");
    std::fs::create_dir_all(&dir).unwrap();
    let k = root().join("tests/corpus/kernels/triton");
    let spec = std::fs::read_to_string(k.join("softmax.toml")).unwrap();
    let spec = spec
        .replace("ptx = \"", &format!("ptx = \"{}/", k.display()))
        .replace(
            "from = \"",
            &format!("save = \"x.npy\"\nfrom = \"{}/", k.display()),
        )
        .replace("fill = \"zeros\"", "save = \"y.npy\"\nfill = \"zeros\"")
        .replace("npy = \"", &format!("npy = \"{}/", k.display()));
    let path = dir.join("softmax.toml");
    std::fs::write(&path, spec).unwrap();
    let path = path.to_str().unwrap();
    let phases = [
        "arguments parsed",
        "spec read",
        "threads started",
        "launch resolved",
        "buffers placed",
        "engine start",
        "engine end",
        "saves written",
        "results checked",
        "report printed",
        "exit",
    ];
    let mut runs = Vec::new();
    for threads in ["1", "4"] {
        for on in [false, true] {
            let mut c = Command::new(env!("CARGO_BIN_EXE_tmemu"));
            c.args(["run", path, "--quiet", "--threads", threads]);
            if on {
                c.env("TMEMU_PHASES", "1");
            } else {
                c.env_remove("TMEMU_PHASES");
            }
            let o = c.output().unwrap();
            let (stdout, stderr) = (
                String::from_utf8_lossy(&o.stdout).to_string(),
                String::from_utf8_lossy(&o.stderr).to_string(),
            );
            assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
            let lines: Vec<&str> = stderr.lines().collect();
            if on {
                let names: Vec<&str> = lines
                    .iter()
                    .map(|l| {
                        let rest = l.strip_prefix("tmemu phase:").expect(l);
                        rest.split_once(" us ").expect(l).1
                    })
                    .filter(|n| phases.contains(n))
                    .collect();
                assert_eq!(names, phases, "{stderr}");
            } else {
                assert!(lines.is_empty(), "{stderr}");
            }
            let x = std::fs::read(dir.join("x.npy")).unwrap();
            let y = std::fs::read(dir.join("y.npy")).unwrap();
            runs.push((stdout, x, y));
        }
    }
    for r in &runs[1..] {
        assert!(r == &runs[0], "saves or report differ between runs");
    }
    let (_, x, y) = &runs[0];
    let source = tmemu_spec::read_maybe_gz(&k.join("softmax.x.npy")).unwrap();
    let source = tmemu_spec::NpyArray::parse(&source).unwrap();
    let dtype = tmemu_spec::DType::F32;
    assert_eq!(
        x,
        &tmemu_spec::NpyArray::encode(dtype, &source.shape, &source.data)
    );
    let y = tmemu_spec::NpyArray::parse(y).unwrap();
    assert_eq!(y.shape, vec![64, 200]);
    // each row of a softmax sums to 1 (the run's own expect compares it element by element)
    for row in y.data.chunks_exact(200 * 4) {
        let sum: f32 = row
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .sum();
        assert!((sum - 1.0).abs() < 1e-4, "{sum}");
    }
}

/// The corpus commits PTX over 64 KiB as NAME.ptx.gz while its specs name NAME.ptx: a run
/// reads the compressed file where the plain one is absent and reports the same; a corrupt
/// .gz is a bad-input error (exit 2) naming it, never a panic or a run of partial text.
#[test]
fn ptx_committed_gzip_compressed_is_read_and_a_corrupt_one_is_an_error() {
    let k = root().join("tests/corpus/kernels/triton");
    let dir = std::env::temp_dir().join(format!("tmemu-ptxgz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for f in std::fs::read_dir(&k).unwrap() {
        let f = f.unwrap().path();
        let name = f.file_name().unwrap().to_str().unwrap().to_string();
        if name.starts_with("matmul_bf16.") {
            std::fs::copy(&f, dir.join(&name)).unwrap();
        }
    }
    let gz = dir.join("matmul_bf16.ptx.gz");
    assert!(gz.is_file() && !dir.join("matmul_bf16.ptx").exists());
    let spec = dir.join("matmul_bf16.toml");
    let spec = spec.to_str().unwrap();
    let (code, from_gz, _) = tmemu(&["run", spec, "--threads", "1", "--format", "json"]);
    assert_eq!(code, 0, "{from_gz}");
    // the same run from the plain text (the plain file wins where both exist)
    let plain = tmemu_spec::read_maybe_gz(&dir.join("matmul_bf16.ptx")).unwrap();
    assert!(plain.starts_with(b"//") && plain.len() > 64 * 1024);
    let packed = std::fs::read(&gz).unwrap();
    std::fs::remove_file(&gz).unwrap();
    std::fs::write(dir.join("matmul_bf16.ptx"), &plain).unwrap();
    let (code, from_plain, _) = tmemu(&["run", spec, "--threads", "1", "--format", "json"]);
    assert_eq!(code, 0, "{from_plain}");
    assert!(from_gz.contains(r#""verdict":"clean""#), "{from_gz}");
    assert_eq!(from_gz, from_plain);
    std::fs::remove_file(dir.join("matmul_bf16.ptx")).unwrap();
    // truncated (the deflate stream ends early) and not gzip at all
    for bad in [&packed[..packed.len() / 2], b"not gzip".as_slice()] {
        std::fs::write(&gz, bad).unwrap();
        let (code, out, _) = tmemu(&["run", spec]);
        assert_eq!(code, 2, "{out}");
        assert!(
            out.contains("matmul_bf16.ptx.gz") && out.contains("not a valid gzip file"),
            "{out}"
        );
    }
    std::fs::remove_file(&gz).unwrap();
    let (code, out, _) = tmemu(&["run", spec]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("matmul_bf16.ptx"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}
