//! The rule catalogue as the renderers see it (help lines, SARIF rule metadata).

use tmemu_tmem::rules::{self, Rule};

/// The catalogue's entry for a finding's rule, when the catalogue has the ID *under the same
/// name*. The engine defines a few rules of its own whose IDs the catalogue does not know (or,
/// while the two are reconciled, knows under another name): for those we print no help rather
/// than the wrong rule's.
pub fn catalogued(id: &str, name: &str) -> Option<&'static Rule> {
    rules::lookup(id).filter(|r| r.name == name)
}

/// `see PTX ISA §9.7.16.7.1; `tmemu explain TM0009``
pub fn help_line(id: &str, name: &str) -> Option<String> {
    catalogued(id, name).map(|r| format!("see PTX ISA {}; `tmemu explain {}`", r.section, r.id))
}

/// The anchor of a rule in docs/rules.md (lower-case ID).
pub fn doc_anchor(id: &str) -> String {
    id.to_ascii_lowercase()
}
