//! Structure of the outputs (what consumers rely on), grouping, verdicts, robustness.

mod common;

use serde_json::Value;
use tmemu_diag::{
    explain, group, render_human, render_json, render_sarif, resolve_kernel_source, ColorChoice,
    ExecContext, Finding, HumanOptions, LaneSet, Location, Report, SarifOptions, Severity,
    SourceLine, Sources, Verdict,
};
use tmemu_tmem::rules;

fn sarif_value(report: &Report) -> Value {
    serde_json::from_str(&render_sarif(report, &SarifOptions::default()))
        .expect("SARIF output must be JSON")
}

#[test]
fn json_lines_each_parse_and_end_with_a_consistent_summary() {
    let report = common::everything();
    let text = render_json(&report);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let (summary, items) = lines.split_last().unwrap();
    assert_eq!(summary["type"], "summary");
    let findings: Vec<&Value> = items.iter().filter(|v| v["type"] == "finding").collect();
    let count = |sev: &str| findings.iter().filter(|f| f["severity"] == sev).count();
    assert_eq!(summary["findings"], findings.len());
    assert_eq!(summary["errors"], count("error"));
    assert_eq!(summary["warnings"], count("warning"));
    assert_eq!(summary["notes"], count("note"));
    assert_eq!(summary["verdict"], "hang");
    assert_eq!(summary["exit_code"], 3);
    assert_eq!(items.iter().filter(|v| v["type"] == "hang").count(), 1);
    assert_eq!(
        items.iter().filter(|v| v["type"] == "incomplete").count(),
        1
    );
    for f in &findings {
        for key in [
            "rule",
            "name",
            "severity",
            "message",
            "file",
            "line",
            "column",
            "related",
            "context",
            "source",
            "seed",
            "notes",
            "occurrences",
        ] {
            assert!(f.get(key).is_some(), "finding lacks `{key}`: {f}");
        }
        assert!(f["line"].as_u64().unwrap() >= 1);
        for r in f["related"].as_array().unwrap() {
            for key in ["file", "line", "column", "label"] {
                assert!(r.get(key).is_some(), "related lacks `{key}`: {r}");
            }
        }
    }
    // The 96-CTA group is one line, not 96.
    let grouped: Vec<_> = findings.iter().filter(|f| f["rule"] == "TM0009").collect();
    assert_eq!(grouped.len(), 1);
    assert_eq!(grouped[0]["occurrences"]["ctas"], 96);
    assert_eq!(grouped[0]["context"]["cta"], serde_json::json!([0, 0, 0]));
}

#[test]
fn json_of_a_clean_report_is_only_the_summary() {
    let text = render_json(&Report::new(vec![]));
    assert_eq!(text.lines().count(), 1);
    let v: Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(v["verdict"], "clean");
    assert_eq!(v["exit_code"], 0);
}

fn assert_camel_case_keys(v: &Value, path: &str) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                // `properties` bags are ours to name; SARIF's own keys are camelCase.
                if path.ends_with("properties") {
                    continue;
                }
                assert!(
                    k == "$schema" || !k.contains('_'),
                    "SARIF key `{k}` at {path} is not camelCase"
                );
                assert_camel_case_keys(x, &format!("{path}.{k}"));
            }
        }
        Value::Array(a) => a.iter().for_each(|x| assert_camel_case_keys(x, path)),
        _ => {}
    }
}

fn assert_location(l: &Value) {
    let phys = &l["physicalLocation"];
    let uri = phys["artifactLocation"]["uri"].as_str().expect("uri");
    assert!(!uri.is_empty() && !uri.contains(' ') && !uri.contains('\\'));
    assert!(phys["region"]["startLine"].as_u64().expect("startLine") >= 1);
    if let Some(c) = phys["region"].get("startColumn") {
        assert!(c.as_u64().unwrap() >= 1);
    }
}

/// The properties the SARIF 2.1.0 schema requires, and the links between them.
#[test]
fn sarif_has_the_required_structure() {
    let log = sarif_value(&common::everything());
    assert_eq!(log["version"], "2.1.0");
    assert!(log["$schema"]
        .as_str()
        .unwrap()
        .ends_with("sarif-schema-2.1.0.json"));
    assert_camel_case_keys(&log, "");
    let runs = log["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run["tool"]["driver"]["name"], "tmemu");
    let rules_v = run["tool"]["driver"]["rules"].as_array().unwrap();
    for r in rules_v {
        let id = r["id"].as_str().unwrap();
        assert!(!r["shortDescription"]["text"].as_str().unwrap().is_empty());
        if let Some(c) = rules::lookup(id).filter(|c| r["name"] == c.name) {
            assert_eq!(r["shortDescription"]["text"], c.summary);
            let full = r["fullDescription"]["text"].as_str().unwrap();
            assert!(
                full.contains(c.summary) && full.contains(c.hardware) && full.contains(c.section)
            );
            // No absolute base configured: no helpUri (the schema wants an absolute URI).
            assert!(r.get("helpUri").is_none());
            assert!(r["help"]["text"].as_str().unwrap().contains(c.section));
            assert_eq!(r["defaultConfiguration"]["level"], c.severity.as_str());
        } else {
            assert!(
                id.starts_with("TM05") || id == "TM0001",
                "unexpected uncatalogued {id}"
            );
        }
    }
    let mut ids: Vec<&str> = rules_v.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let n = ids.len();
    ids.dedup();
    // TM0001 appears twice on purpose: once catalogued, once under another name.
    assert!(ids.len() == n);
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 11, "10 findings and the hang");
    for res in results {
        let text = res["message"]["text"].as_str().unwrap();
        assert!(!text.is_empty());
        let idx = res["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules_v[idx]["id"], res["ruleId"]);
        assert!(["none", "note", "warning", "error"].contains(&res["level"].as_str().unwrap()));
        let locs = res["locations"].as_array().unwrap();
        assert_eq!(locs.len(), 1);
        locs.iter().for_each(assert_location);
        if let Some(rel) = res.get("relatedLocations") {
            let rel = rel.as_array().unwrap();
            rel.iter().for_each(assert_location);
            let mut ids: Vec<u64> = rel.iter().map(|l| l["id"].as_u64().unwrap()).collect();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), rel.len(), "relatedLocation ids must be unique");
        }
    }
    let inv = &run["invocations"][0];
    assert_eq!(inv["executionSuccessful"], true);
    assert_eq!(inv["exitCode"], 3);
    assert_eq!(
        inv["toolExecutionNotifications"].as_array().unwrap().len(),
        1
    );
    // The race result points at its two spans: the read, and the mma as a related location.
    let race = results.iter().find(|r| r["ruleId"] == "TM0204").unwrap();
    assert_eq!(
        race["locations"][0]["physicalLocation"]["region"]["startLine"],
        29
    );
    assert_eq!(
        race["relatedLocations"][0]["physicalLocation"]["region"]["startLine"],
        28
    );
    // The hang names each blocked place.
    let hang = results.iter().find(|r| r["ruleId"] == "TM0504").unwrap();
    assert_eq!(hang["relatedLocations"].as_array().unwrap().len(), 2);
}

#[test]
fn sarif_help_uri_only_when_absolute() {
    let report = Report::new(vec![common::leak(), common::engine_rule()]);
    let with = |base: &str| -> Value {
        let opts = SarifOptions {
            rules_doc_uri: Some(base.into()),
            ..SarifOptions::default()
        };
        serde_json::from_str(&render_sarif(&report, &opts)).unwrap()
    };
    let log = with("https://example.org/tmemu/docs/rules.md");
    let rules_v = &log["runs"][0]["tool"]["driver"]["rules"];
    assert_eq!(
        rules_v[0]["helpUri"],
        "https://example.org/tmemu/docs/rules.md#tm0012"
    );
    // The uncatalogued rule has no documentation to point at.
    assert!(rules_v[1].get("helpUri").is_none());
    let log = with("docs/rules.md");
    assert!(log["runs"][0]["tool"]["driver"]["rules"][0]
        .get("helpUri")
        .is_none());
}

#[test]
fn grouping_merges_by_rule_place_and_message_and_keeps_the_smallest_context() {
    let raw = common::grouped_raw();
    assert_eq!(raw.len(), 96);
    let g = group(raw.clone());
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].occurrences.count, 96);
    assert_eq!(g[0].occurrences.ctas, 96);
    assert_eq!(g[0].occurrences.warps, 96);
    assert_eq!(g[0].context.unwrap().cta, [0, 0, 0]);

    // Same warp twice: two occurrences, one CTA, one warp.
    let twice = group(vec![common::warning(), common::warning()]);
    assert_eq!(twice.len(), 1);
    assert_eq!(
        (
            twice[0].occurrences.count,
            twice[0].occurrences.ctas,
            twice[0].occurrences.warps
        ),
        (2, 1, 1)
    );

    // A different message at the same place (an address or a lane in it) merges, keeping
    // the smallest context's message and every occurrence; a different place stays
    // separate; order of first appearance.
    // (raw runs from CTA 95 down to CTA 0)
    let mut other = raw[93].clone();
    other.message.push_str(" (again)");
    let mut elsewhere = raw[1].clone();
    elsewhere.primary.line += 1;
    let g = group(vec![other, raw[95].clone(), elsewhere, raw[92].clone()]);
    assert_eq!(g.len(), 2);
    assert_eq!(g[0].occurrences.count, 3);
    assert_eq!(g[0].occurrences.messages, 2);
    assert_eq!(g[0].message, raw[95].message, "the first CTA's message");
    let ctas: Vec<[u32; 3]> = g[0]
        .instances
        .iter()
        .map(|i| i.context.unwrap().cta)
        .collect();
    assert_eq!(ctas, [[0, 0, 0], [2, 0, 0], [3, 0, 0]], "sorted by CTA");
    assert!(g[0].instances[1].message.ends_with("(again)"));
    assert_eq!(g[1].primary.line, raw[1].primary.line + 1);
    assert_eq!(g[1].occurrences.count, 1);
    assert!(
        g[1].instances.is_empty(),
        "a lone finding stands for itself"
    );

    // The group note says how many, which threads, and which came first.
    let report = Report::new(common::grouped_raw());
    let text = render_human(&report, &Sources::default(), HumanOptions::default());
    assert!(
        text.contains("96 occurrences: lanes 0-31 of warp 1 in CTAs (0,0,0)-(95,0,0); first: cluster (0,0,0), CTA (0,0,0)"),
        "{text}"
    );
    assert_eq!(
        text.matches("TM0009").count(),
        2,
        "title and help only: {text}"
    );
}

#[test]
fn verdicts_and_exit_codes() {
    assert_eq!(Verdict::Clean.exit_code(), 0);
    assert_eq!(Verdict::Violation.exit_code(), 1);
    assert_eq!(tmemu_diag::EXIT_BAD_INPUT, 2);
    assert_eq!(Verdict::Hang.exit_code(), 3);
    assert_eq!(Verdict::Incomplete.exit_code(), 4);
    assert_eq!(Verdict::decide(false, 0, false), Verdict::Clean);
    assert_eq!(Verdict::decide(false, 1, false), Verdict::Violation);
    // hang > incomplete > violation (tests/corpus/rules/README.md)
    assert_eq!(Verdict::decide(false, 1, true), Verdict::Incomplete);
    assert_eq!(Verdict::decide(false, 0, true), Verdict::Incomplete);
    assert_eq!(Verdict::decide(true, 5, true), Verdict::Hang);
    // Warnings and notes alone do not fail a check.
    let r = Report::new(vec![common::warning(), common::note_in_memory()]);
    assert_eq!(r.verdict(), Verdict::Clean);
    let r = Report::new(vec![common::warning(), common::leak()]);
    assert_eq!(r.verdict(), Verdict::Violation);
    assert_eq!(r.counts().errors, 1);
    assert_eq!(r.counts().warnings, 1);
}

#[test]
fn lane_sets_print_as_ranges() {
    assert_eq!(LaneSet(u32::MAX).to_string(), "0-31");
    assert_eq!(LaneSet(0b1111_0101).to_string(), "0,2,4-7");
    assert_eq!(LaneSet(1 << 31).to_string(), "31");
    assert_eq!(LaneSet(0x8000_0001).to_string(), "0,31");
    assert_eq!(LaneSet(0).to_string(), "none");
    assert_eq!(LaneSet(0xffff_0000).to_string(), "16-31");
}

#[test]
fn colour_only_when_asked() {
    let report = Report::new(vec![common::leak()]);
    let sources = common::sources(&report);
    let plain = render_human(&report, &sources, HumanOptions { color: false });
    let coloured = render_human(&report, &sources, HumanOptions { color: true });
    assert!(!plain.contains('\x1b'));
    let body = tmemu_diag::render_human_body(&report, &sources, HumanOptions { color: false });
    assert_eq!(
        format!("{body}{}\n", tmemu_diag::summary_line(&report)),
        plain
    );
    assert!(coloured.contains("\x1b["));
    assert_eq!("never".parse::<ColorChoice>(), Ok(ColorChoice::Never));
    assert_eq!("always".parse::<ColorChoice>(), Ok(ColorChoice::Always));
    assert_eq!("auto".parse::<ColorChoice>(), Ok(ColorChoice::Auto));
    assert!("sometimes".parse::<ColorChoice>().is_err());
    assert!(ColorChoice::Always.use_color(&std::io::stdout()));
    assert!(!ColorChoice::Never.use_color(&std::io::stdout()));
    // Test output is captured, not a terminal.
    let f = std::fs::File::open(common::PTX).unwrap();
    assert!(!ColorChoice::Auto.use_color(&f));
}

#[test]
fn kernel_sources_resolve_as_written_then_next_to_the_ptx_and_its_ancestors() {
    let ptx = std::path::Path::new(common::PTX);
    // tests/data/kernels/alloc.ptx + src/matmul.py -> tests/data/src/matmul.py (an ancestor).
    assert_eq!(
        resolve_kernel_source("src/matmul.py", ptx).unwrap(),
        std::path::Path::new("tests/data/src/matmul.py")
    );
    // As written, relative to the current directory.
    assert_eq!(
        resolve_kernel_source("tests/data/src/matmul.py", ptx).unwrap(),
        std::path::Path::new("tests/data/src/matmul.py")
    );
    assert!(resolve_kernel_source("kernels/triton/missing.py", ptx).is_none());
    assert!(resolve_kernel_source("/nonexistent/matmul.py", ptx).is_none());
    // Rendered: the quoted line when found, `--> file:line` when not.
    let report = Report::new(vec![common::race()]);
    let text = render_human(&report, &common::sources(&report), HumanOptions::default());
    assert!(text.contains("acc = tl.dot(a, b, acc)"), "{text}");
    let report = Report::new(common::grouped_raw());
    let text = render_human(&report, &common::sources(&report), HumanOptions::default());
    assert!(text.contains("kernels/triton/missing.py:42"), "{text}");
}

/// Locations that do not fit the text (stale spans, wrong lines, UTF-8 boundaries) fall back
/// to `file:line:col` and never panic, in every format.
#[test]
#[allow(clippy::reversed_empty_ranges)]
fn bad_locations_never_panic() {
    let text = "é\tinstr;\nline two\n";
    let mut sources = Sources::default();
    sources.insert("u.ptx", text);
    let odd = [
        Location::new("u.ptx", 0, 0),
        Location::new("u.ptx", 1, 1).with_range(1..2), // inside `é`
        Location::new("u.ptx", 1, 400),
        Location::new("u.ptx", 2, 1).with_range(5..2),
        Location::new("u.ptx", 99, 1),
        Location::new("u.ptx", 2, 3).with_range(u32::MAX - 1..u32::MAX),
        Location::new("u.ptx", 3, 1).with_range(19..19), // end of text
        Location::new("", 1, 1),
    ];
    let mut findings = Vec::new();
    for (i, loc) in odd.iter().enumerate() {
        let mut f = Finding::new(
            "TM0597",
            "odd-test-only",
            Severity::Error,
            format!("case {i}"),
            loc.clone(),
        )
        .with_related(loc.clone().with_label("related"))
        .with_context(ExecContext {
            cluster: [u32::MAX; 3],
            cta: [u32::MAX; 3],
            sm: None,
            warp: Some(u32::MAX),
            lanes: 0,
        })
        .with_source(SourceLine {
            file: String::new(),
            line: 0,
            column: 0,
        });
        f.occurrences.count = u32::MAX;
        findings.push(f);
    }
    let report = Report::new(findings.clone());
    let human = render_human(&report, &sources, HumanOptions::default());
    if std::env::var_os("TMEMU_DIAG_PRINT").is_some() {
        eprintln!("{human}");
    }
    for i in 0..odd.len() {
        assert!(human.contains(&format!("case {i}")), "{human}");
    }
    for line in render_json(&report).lines() {
        serde_json::from_str::<Value>(line).unwrap();
    }
    sarif_value(&report);
    // A message or label that is empty or multi-line renders too.
    let mut f = findings[1].clone();
    f.message = "first\nsecond".into();
    f.primary.label = Some(String::new());
    render_human(&Report::new(vec![f]), &sources, HumanOptions::default());
}

#[test]
fn explain_finds_rules_by_id_or_name_and_suggests_close_ones() {
    assert_eq!(
        explain::find("TM0009").unwrap().name,
        "alloc-after-relinquish"
    );
    assert_eq!(explain::find("tm0009").unwrap().id, "TM0009");
    assert_eq!(explain::find("alloc-leak").unwrap().id, "TM0012");
    assert!(explain::find("TM9999").is_none());
    assert!(explain::find("").is_none());
    assert!(explain::suggest("TM0O09").iter().any(|r| r.id == "TM0009"));
    assert!(explain::suggest("alloc-leek")
        .iter()
        .any(|r| r.id == "TM0012"));
    assert!(explain::suggest("relinquish")
        .iter()
        .any(|r| r.id == "TM0009"));
    assert!(explain::suggest("zzzzzzzzzzzz").is_empty());
    assert!(explain::suggest("TM0").len() <= 5);
    for r in rules::RULES {
        let text = explain::render_rule(r);
        for part in [
            r.id,
            r.name,
            r.section,
            r.summary,
            r.hardware,
            r.severity.as_str(),
        ] {
            assert!(text.contains(part), "{} lacks {part}", r.id);
        }
        assert_eq!(
            text.contains("nothing yet (planned)"),
            !r.is_checked(),
            "{}",
            r.id
        );
    }
    let list = explain::render_list();
    assert_eq!(list.lines().count(), rules::RULES.len());
    let msg = explain::unknown_rule_message("TM0O09");
    assert!(msg.contains("TM0009 alloc-after-relinquish"), "{msg}");
}

#[test]
fn the_occurrence_note_names_lanes_warps_and_the_cta_set() {
    let at = |cta: [u32; 3], warp: u32, lanes: u32, msg: &str| {
        let mut f = common::grouped_raw().pop().unwrap();
        f.message = msg.to_string();
        f.with_context(common::ctx(cta, Some(warp), lanes))
    };
    // two CTAs that do not fill their box, one lane, one warp, two messages
    let g = group(vec![
        at([2, 0, 0], 1, 1 << 3, "address 0x20"),
        at([0, 0, 0], 1, 1 << 3, "address 0x10"),
    ]);
    assert_eq!(g.len(), 1);
    let o = &g[0].occurrences;
    assert_eq!((o.count, o.ctas, o.warps, o.messages), (2, 2, 2, 2));
    assert_eq!(
        tmemu_diag::occurrence_summary(o),
        "2 occurrences: lane 3 of warp 1 in 2 CTAs within (0,0,0)-(2,0,0)"
    );
    assert_eq!(g[0].message, "address 0x10", "the first CTA's message");
    let text = render_human(
        &Report::new(g.clone()),
        &Sources::default(),
        HumanOptions::default(),
    );
    assert!(
        text.contains("the occurrences have 2 distinct messages"),
        "{text}"
    );
    let json: Value =
        serde_json::from_str(render_json(&Report::new(g)).lines().next().unwrap()).unwrap();
    let msgs: Vec<&str> = json["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["message"].as_str().unwrap())
        .collect();
    assert_eq!(msgs, ["address 0x10", "address 0x20"]);
    assert_eq!(json["occurrences"]["warp_mask"], 2);
    assert_eq!(json["occurrences"]["cta_max"], serde_json::json!([2, 0, 0]));

    // warps 0-3 of one CTA, all lanes
    let g = group((0..4).map(|w| at([5, 1, 0], w, u32::MAX, "m")).collect());
    assert_eq!(
        tmemu_diag::occurrence_summary(&g[0].occurrences),
        "4 occurrences: lanes 0-31 of warps 0-3 in CTA (5,1,0)"
    );
    assert_eq!(g[0].occurrences.messages, 1);
}
