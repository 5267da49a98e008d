//! docs/rules.md and the catalogue in `tmemu_tmem::rules` must agree: every ID in both, with
//! the same name, section, severity and status. The table in the doc is generated from the
//! catalogue; run `UPDATE_RULES_DOC=1 cargo test -p tmemu-tmem --test alloc_rules_doc` to
//! rewrite it after adding a rule.

use std::path::PathBuf;

use tmemu_tmem::rules::{Rule, RULES};

const BEGIN: &str = "<!-- BEGIN GENERATED RULE TABLE -->";
const END: &str = "<!-- END GENERATED RULE TABLE -->";

fn doc_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/rules.md")
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

fn row(r: &Rule) -> String {
    format!(
        "| {} | {} | {} | {} | {} | {} | {} | {} |",
        r.id,
        r.name,
        r.section,
        r.severity.as_str(),
        r.detection.as_str(),
        r.checked_by.unwrap_or("planned"),
        cell(r.summary),
        cell(r.hardware),
    )
}

fn table() -> String {
    let mut t = String::from(
        "| ID | name | section | severity | detection | checked by | rule | when broken |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for r in RULES {
        t.push_str(&row(r));
        t.push('\n');
    }
    t
}

/// (id, name, section, severity, checked by) of every table row in the doc.
fn parse_rows(doc: &str) -> Vec<[String; 5]> {
    doc.lines()
        .filter(|l| l.starts_with("| TM"))
        .map(|l| {
            let cells: Vec<String> = l
                .trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect();
            assert!(cells.len() >= 6, "malformed row: {l}");
            [
                cells[0].clone(),
                cells[1].clone(),
                cells[2].clone(),
                cells[3].clone(),
                cells[5].clone(),
            ]
        })
        .collect()
}

#[test]
fn rules_doc_agrees_with_the_catalogue() {
    let path = doc_path();
    let doc = std::fs::read_to_string(&path).unwrap_or_default();
    let (Some(b), Some(e)) = (doc.find(BEGIN), doc.find(END)) else {
        panic!("{} lacks the generated-table markers", path.display());
    };
    let generated = format!("{BEGIN}\n{}{END}", table());
    if std::env::var_os("UPDATE_RULES_DOC").is_some() {
        let new = format!("{}{}{}", &doc[..b], generated, &doc[e + END.len()..]);
        std::fs::write(&path, new).unwrap();
        return;
    }
    let rows = parse_rows(&doc[b..e]);
    let want: Vec<[String; 5]> = RULES
        .iter()
        .map(|r| {
            [
                r.id.to_string(),
                r.name.to_string(),
                r.section.to_string(),
                r.severity.as_str().to_string(),
                r.checked_by.unwrap_or("planned").to_string(),
            ]
        })
        .collect();
    for w in &want {
        assert!(
            rows.contains(w),
            "docs/rules.md lacks or differs on {w:?}; rerun with UPDATE_RULES_DOC=1"
        );
    }
    for r in &rows {
        assert!(
            want.contains(r),
            "docs/rules.md lists {r:?}, which the catalogue does not; rerun with UPDATE_RULES_DOC=1"
        );
    }
    assert_eq!(
        &doc[b..e + END.len()],
        generated,
        "docs/rules.md table is stale; rerun with UPDATE_RULES_DOC=1"
    );
}
