//! `tmemu explain`: a known rule prints its documentation (exit 0); an unknown one exits 2 with
//! close matches; `--list` lists the whole catalogue.

use std::process::Command;

use tmemu_diag::rules;

fn tmemu(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tmemu"))
        .arg("explain")
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
fn known_id_prints_the_catalogue_entry() {
    let (code, out, err) = tmemu(&["TM0009"]);
    assert_eq!(code, 0, "{err}");
    let r = rules::lookup("TM0009").unwrap();
    assert!(out.starts_with("TM0009 alloc-after-relinquish\n"), "{out}");
    for part in [
        r.section,
        r.summary,
        r.hardware,
        "error",
        "tmemu_tmem::alloc",
    ] {
        assert!(out.contains(part), "missing {part:?} in:\n{out}");
    }
    // Lower case and names work too.
    let (code, lower, _) = tmemu(&["tm0009"]);
    assert_eq!((code, lower.as_str()), (0, out.as_str()));
    let (code, by_name, _) = tmemu(&["alloc-after-relinquish"]);
    assert_eq!((code, by_name.as_str()), (0, out.as_str()));
}

#[test]
fn planned_rule_says_nothing_checks_it() {
    let planned = rules::RULES.iter().find(|r| !r.is_checked()).unwrap();
    let (code, out, _) = tmemu(&[planned.id]);
    assert_eq!(code, 0);
    assert!(out.contains("nothing yet (planned)"), "{out}");
}

#[test]
fn unknown_id_exits_2_with_close_matches() {
    let (code, out, err) = tmemu(&["TM0O09"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("no rule `TM0O09`"), "{err}");
    assert!(err.contains("TM0009 alloc-after-relinquish"), "{err}");
    let (code, _, err) = tmemu(&["nothing-like-any-rule-at-all"]);
    assert_eq!(code, 2);
    assert!(err.contains("--list"), "{err}");
}

#[test]
fn list_prints_every_rule_and_usage_errors_exit_2() {
    let (code, out, _) = tmemu(&["--list"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), rules::RULES.len());
    for r in rules::RULES {
        assert!(out.contains(r.id) && out.contains(r.name), "{}", r.id);
    }
    // Neither an ID nor --list, or both: usage errors.
    assert_eq!(tmemu(&[]).0, 2);
    assert_eq!(tmemu(&["TM0009", "--list"]).0, 2);
}
