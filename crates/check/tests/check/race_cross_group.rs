//! Global-memory races between SM groups (`tmemu_check::dynamic::launch_findings`) on
//! compiler output: the holdout split-K kernels synchronise through global memory and stay
//! silent; the ticket split-K with its ticket taken out (every K slice adds its partial into C
//! with a plain load/add/store) is a race between clusters on different SM groups, found under
//! the default 148 SMs with one thread and with several, identically.

use std::path::{Path, PathBuf};

use tmemu_sim::RunOptions;

use crate::common::{root, run_spec, RaceRun};

fn holdout(name: &str) -> PathBuf {
    root().join("tests/corpus/kernels/holdout").join(name)
}

fn run(spec: &Path, threads: usize) -> RaceRun {
    let opts = RunOptions {
        threads,
        ..Default::default()
    };
    assert_eq!(opts.nsms, 148, "the default GPU");
    match run_spec(spec, &opts) {
        Ok(r) => r,
        Err(e) => panic!("{}: {e:?}", spec.display()),
    }
}

/// The ticket split-K with the ticket removed: the `atom.cas.acquire` spin becomes "it is my
/// turn" and the `atom.exch.release` disappears, so the K slices' plain read-modify-write of
/// C is unordered. Written with the spec and its inputs into a fresh directory.
fn splitk_without_ticket() -> PathBuf {
    let src = holdout("ho3_splitk_ticket.ptx");
    // committed as ho3_splitk_ticket.ptx.gz (over 64 KiB): read as tmemu reads it
    let ptx = tmemu_host::read_ptx_file(&src).unwrap();
    let cas = "@%p23 atom.global.acquire.gpu.cas.b32 %r427, [ %rd445 + 0 ], %r428, %r428;";
    let exch = "@%p23 atom.global.gpu.release.exch.b32 %r719, [ %rd445 + 0 ], %r720;";
    assert!(
        ptx.contains(cas) && ptx.contains(exch),
        "the holdout kernel changed"
    );
    let ptx = ptx
        .replace(cas, "@%p23 mov.u32 %r427, %r428;")
        .replace(exch, "@%p23 mov.u32 %r719, %r720;");
    let dir = std::env::temp_dir().join(format!("tmemu-splitk-race-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(holdout("")).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("ho3_splitk_ticket.")
            && (name.ends_with(".npy") || name.ends_with(".npy.gz"))
        {
            std::fs::copy(&p, dir.join(&name)).unwrap();
        }
    }
    std::fs::write(dir.join("ho3_splitk_ticket.ptx"), ptx).unwrap();
    std::fs::copy(
        holdout("ho3_splitk_ticket.toml"),
        dir.join("ho3_splitk_ticket.toml"),
    )
    .unwrap();
    dir.join("ho3_splitk_ticket.toml")
}

type Seen = Vec<(&'static str, u32, u32, [u32; 3], [u32; 3], u32, u32)>;

fn summary(r: &RaceRun) -> Seen {
    r.findings
        .iter()
        .map(|f| {
            (
                f.rule.id,
                f.span.line,
                f.related.line,
                f.ctx.cta,
                f.related_ctx.cta,
                f.ctx.warp,
                f.related_ctx.warp,
            )
        })
        .collect()
}

#[test]
fn splitk_plain_read_modify_write_races_across_groups_with_1_and_n_threads() {
    let spec = splitk_without_ticket();
    let ptx = std::fs::read_to_string(spec.with_extension("ptx")).unwrap();
    let line_of = |n: u32| ptx.lines().nth(n as usize - 1).unwrap_or("").to_string();
    let one = run(&spec, 1);
    let many = run(&spec, 4);
    assert!(one.result.diagnostics.is_empty(), "{:?}", one.result);
    let seen = summary(&one);
    assert!(!seen.is_empty(), "the plain split-K race is missed");
    assert_eq!(seen, summary(&many), "1 and 4 threads disagree");
    for f in &one.findings {
        assert_eq!(f.rule.id, "TM0212", "{}", f.message);
        // Two CTAs of the same output tile (same x, y), different K slices (z).
        assert_ne!(f.ctx.cta, f.related_ctx.cta, "{}", f.message);
        assert_eq!(f.ctx.cta[..2], f.related_ctx.cta[..2], "{}", f.message);
        // Both sides are C's plain loads and stores of the epilogue.
        for l in [f.span.line, f.related.line] {
            let text = line_of(l);
            assert!(
                text.contains("ld.global.b32") || text.contains("st.global.b32"),
                "line {l}: {text}: {}",
                f.message
            );
        }
        assert!(f.message.contains("different clusters"), "{}", f.message);
    }
    // A store against the other slice's store, and a load against its store.
    let lines: Vec<String> = one
        .findings
        .iter()
        .map(|f| format!("{} / {}", line_of(f.span.line), line_of(f.related.line)))
        .collect();
    assert!(
        lines.iter().any(|l| l.matches("st.global").count() == 2),
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("ld.global") && l.contains("st.global")),
        "{lines:#?}"
    );
    let _ = std::fs::remove_dir_all(spec.parent().unwrap());
}

#[test]
fn splitk_with_atomics_or_a_ticket_is_silent_across_groups() {
    for name in [
        "ho3_splitk_atomic.toml",
        "ho3_splitk_f16_atomic.toml",
        "ho3_splitk_ticket.toml",
    ] {
        for threads in [1, 4] {
            let r = run(&holdout(name), threads);
            assert!(r.result.hangs.is_empty(), "{name}: {:?}", r.result.hangs);
            assert!(
                r.findings.is_empty(),
                "{name}, {threads} threads: {:#?}",
                r.findings
            );
        }
    }
}
