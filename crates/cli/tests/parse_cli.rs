//! `tmemu parse`: summary lines and exit 0 on good files; file:line:col and exit 2 on bad ones.

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus")
        .join(rel)
}

fn tmemu(args: &[&Path]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tmemu"))
        .arg("parse")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn good_files_print_summaries_and_exit_0() {
    let a = corpus("parse/ok/grammar_features.ptx");
    let b = corpus("parse/ok/unknown_opcode.ptx");
    let (code, out, err) = tmemu(&[&a, &b]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2);
    // Counts checked by hand against the file: 4 kernels, 69 instructions.
    assert_eq!(
        lines[0],
        format!(
            "{}: 4 entries, 69 instructions, PTX 8.7, target sm_100a",
            a.display()
        )
    );
    assert_eq!(
        lines[1],
        format!(
            "{}: 1 entries, 2 instructions, PTX 9.0, target sm_100a",
            b.display()
        )
    );
}

#[test]
fn bad_file_prints_position_and_exits_2() {
    let good = corpus("parse/ok/unknown_opcode.ptx");
    let bad = corpus("parse/err/unknown_directive_body.ptx");
    let (code, out, err) = tmemu(&[&good, &bad]);
    assert_eq!(code, 2);
    assert_eq!(
        out.lines().count(),
        1,
        "the good file still gets its summary"
    );
    assert_eq!(
        err.trim_end(),
        format!(
            "{}:7:2: error: unknown or misplaced directive `.frobnicate`\n  |\n7 | \t.frobnicate 3;\n  | \t^",
            bad.display()
        )
    );
}

#[test]
fn unreadable_and_non_utf8_files_exit_2() {
    let dir = std::env::temp_dir().join(format!("tmemu-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = dir.join("garbage.ptx");
    std::fs::write(&bin, b".version 9.0\n.target sm_100a\n\xff\xfe garbage").unwrap();
    let (code, _, err) = tmemu(&[&bin]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!("{}:3:1: error: invalid UTF-8", bin.display())),
        "{err}"
    );
    let missing = dir.join("missing.ptx");
    let (code, _, err) = tmemu(&[&missing]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_files_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_tmemu"))
        .arg("parse")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn print_flag_prints_ptx_that_parses_to_the_same_tree() {
    let a = corpus("parse/ok/grammar_features.ptx");
    let out = Command::new(env!("CARGO_BIN_EXE_tmemu"))
        .args(["parse", "--print"])
        .arg(&a)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let printed = String::from_utf8(out.stdout).unwrap();
    let src = std::fs::read_to_string(&a).unwrap();
    use tmemu_ptx::spanless::ClearSpans;
    let mut x = tmemu_ptx::parse(&src).unwrap();
    let mut y = tmemu_ptx::parse(&printed).unwrap();
    x.clear_spans();
    y.clear_spans();
    assert!(x == y);
}
