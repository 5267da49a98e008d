//! The README's `tmemu run` examples, run as written: every ```sh block holding one
//! `cargo run --release -p tmemu-cli -- run ...` command that is followed by a ``` block of its
//! output must print exactly that output (timings masked: "(timings vary)").

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `) in 0.012 s (2.2 M warp-instr/s, 2 threads)` → `) in <time> M warp-instr/s, <threads>)`:
/// the timings, and the thread count, which is the machine's core count under the default
/// `--threads` (results never depend on it).
fn mask_timing(s: &str) -> String {
    const RATE: &str = " M warp-instr/s";
    s.lines()
        .map(|l| match (l.find(") in "), l.find(RATE)) {
            (Some(a), Some(b)) if a < b => {
                let rest = &l[b + RATE.len()..];
                let rest = match rest.split_once(')') {
                    Some((n, tail)) if n.ends_with(" thread") || n.ends_with(" threads") => {
                        format!(", <threads>){tail}")
                    }
                    _ => rest.to_string(),
                };
                format!("{}) in <time>{RATE}{rest}", &l[..a])
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// (arguments after `--`, the output block that follows).
fn examples(readme: &str) -> Vec<(Vec<String>, String)> {
    const PREFIX: &str = "cargo run --release -p tmemu-cli -- ";
    let blocks: Vec<&str> = readme.split("```").collect();
    let mut out = Vec::new();
    // blocks alternate text / code; a code block starts with its info string line
    let mut i = 1;
    while i + 2 < blocks.len() {
        let code = blocks[i];
        let next = blocks[i + 2];
        let is_sh = code.starts_with("sh\n");
        let lines: Vec<&str> = code.lines().skip(1).filter(|l| !l.is_empty()).collect();
        if is_sh && lines.len() == 1 && lines[0].starts_with(PREFIX) && next.starts_with('\n') {
            let args = lines[0][PREFIX.len()..]
                .split_whitespace()
                .map(String::from)
                .collect();
            out.push((args, next.trim_start_matches('\n').to_string()));
        }
        i += 2;
    }
    out
}

#[test]
fn readme_run_examples_print_what_the_readme_shows() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let ex = examples(&readme);
    assert!(
        ex.len() >= 3,
        "expected the quick start examples, found {ex:?}"
    );
    for (args, shown) in ex {
        let o = Command::new(env!("CARGO_BIN_EXE_tmemu"))
            .args(&args)
            .current_dir(root())
            .output()
            .unwrap();
        let got = String::from_utf8_lossy(&o.stdout);
        assert_eq!(
            mask_timing(got.trim_end()),
            mask_timing(shown.trim_end()),
            "README example `tmemu {}` prints something else",
            args.join(" ")
        );
    }
}
