//! The text of `tmemu explain`: one rule's documentation, the list of all rules, and close
//! matches for an ID or name that is not in the catalogue.

use std::fmt::Write as _;

use tmemu_tmem::rules::{Rule, RULES};

/// The rule an argument names: an ID in any case (`TM0009`, `tm0009`) or a rule name
/// (`alloc-after-relinquish`).
pub fn find(query: &str) -> Option<&'static Rule> {
    let q = query.trim();
    RULES
        .iter()
        .find(|r| r.id.eq_ignore_ascii_case(q) || r.name.eq_ignore_ascii_case(q))
}

/// Rules whose ID or name is close to `query` (edit distance, or a shared prefix/substring),
/// best first, at most five.
pub fn suggest(query: &str) -> Vec<&'static Rule> {
    let q = query.trim().to_ascii_lowercase();
    if q.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<(usize, &'static Rule)> = RULES
        .iter()
        .filter_map(|r| {
            let id = r.id.to_ascii_lowercase();
            let by_id = strsim::levenshtein(&q, &id);
            let by_name = strsim::levenshtein(&q, r.name);
            let contains = q.len() >= 3 && (r.name.contains(&q) || id.contains(&q));
            let score = by_id.min(by_name);
            if score <= 2 || contains {
                Some((if contains { score.min(1) } else { score }, r))
            } else {
                None
            }
        })
        .collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.id.cmp(b.1.id)));
    scored.into_iter().take(5).map(|(_, r)| r).collect()
}

/// The full documentation of one rule.
pub fn render_rule(r: &Rule) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{} {}", r.id, r.name);
    let _ = writeln!(s);
    let _ = writeln!(s, "severity:    {}", r.severity.as_str());
    let _ = writeln!(s, "detection:   {}", r.detection.as_str());
    let _ = writeln!(s, "spec:        PTX ISA {}", r.section);
    match r.checked_by {
        Some(by) => {
            let _ = writeln!(s, "checked by:  {by}");
        }
        None => {
            let _ = writeln!(
                s,
                "checked by:  nothing yet (planned): a clean run is no evidence that this rule holds"
            );
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "rule:        {}", r.summary);
    let _ = writeln!(s, "when broken: {}", r.hardware);
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "The full catalogue is docs/rules.md; `tmemu explain --list` lists every rule."
    );
    s
}

/// One line per rule: ID, severity, name, and `(planned)` for reserved ones.
pub fn render_list() -> String {
    let width = RULES.iter().map(|r| r.name.len()).max().unwrap_or(0);
    let mut s = String::new();
    for r in RULES {
        let _ = writeln!(
            s,
            "{}  {:<7}  {:<width$}  {}{}",
            r.id,
            r.severity.as_str(),
            r.name,
            r.section,
            if r.is_checked() { "" } else { "  (planned)" },
        );
    }
    s
}

/// The error text for an unknown rule, with close matches when there are any.
pub fn unknown_rule_message(query: &str) -> String {
    let mut s = format!("error: no rule `{query}` in the catalogue");
    let close = suggest(query);
    if close.is_empty() {
        s.push_str("\n  = help: `tmemu explain --list` lists every rule");
    } else {
        s.push_str("\n  = help: did you mean:");
        for r in close {
            let _ = write!(s, "\n            {} {}", r.id, r.name);
        }
    }
    s
}
